/*
 * bsp_intc.c - the GIC (XScuGic API) and the IRQ exception of the standalone
 * BSP over the virtual board's interrupt lines.  The DMA's MM2S and S2MM
 * lines are GIC IDs sgdma_bsp_irq_ids[] (the preset's [irq] section, written
 * by `sgdma bsp` into sgdma_bsp_config.c).  An interrupt is taken between BSP
 * calls, never inside a handler (no nesting), and only while the IRQ
 * exception is enabled, the ID enabled in the distributor, and the line high.
 */
#include <stdio.h>
#include <string.h>

#include "sgdma_bsp.h"
#include "xil_exception.h"
#include "xscugic.h"

#ifndef SGDMA_BSP_IRQ_MM2S
#define SGDMA_BSP_IRQ_MM2S 121U     /* ZynqMP pl_ps_irq0[0] (UG1085 Table 13-1) */
#endif
#ifndef SGDMA_BSP_IRQ_S2MM
#define SGDMA_BSP_IRQ_S2MM 122U
#endif
/* From sgdma_bsp_config.c when `sgdma bsp` generated it (weak reference). */
extern const u32 sgdma_bsp_config_irq_ids[2] __attribute__((weak));
static const u32 default_irq_ids[2] = { SGDMA_BSP_IRQ_MM2S, SGDMA_BSP_IRQ_S2MM };
#define sgdma_bsp_irq_ids (sgdma_bsp_config_irq_ids ? sgdma_bsp_config_irq_ids : default_irq_ids)

static struct {
	Xil_ExceptionHandler handler[XIL_EXCEPTION_ID_LAST + 1];
	void *data[XIL_EXCEPTION_ID_LAST + 1];
	u32 masked;                  /* CPSR I/F bits: set = masked */
	bool in_irq;
	bool enabled[XSCUGIC_MAX_NUM_INTR_INPUTS];
	u8 priority[XSCUGIC_MAX_NUM_INTR_INPUTS], trigger[XSCUGIC_MAX_NUM_INTR_INPUTS];
} cpu = { .masked = XIL_EXCEPTION_ALL };

static XScuGic_Config gic_config = { .DeviceId = 0, .CpuBaseAddress = 0xF9020000u, .DistBaseAddress = 0xF9010000u };

static bool line_high(u32 id)
{
	for (unsigned d = 0; d < 2; d++)
		if (sgdma_bsp_irq_ids[d] == id && vb_irq_pending(sgdma_bsp_board(), (enum vb_chan_id)d))
			return true;
	return false;
}

void sgdma_bsp_take_irqs(void)
{
	Xil_ExceptionHandler h = cpu.handler[XIL_EXCEPTION_ID_IRQ_INT];

	if (cpu.in_irq || (cpu.masked & XIL_EXCEPTION_IRQ) || !h)
		return;
	for (unsigned d = 0; d < 2; d++) {
		u32 id = sgdma_bsp_irq_ids[d];
		if (id < XSCUGIC_MAX_NUM_INTR_INPUTS && cpu.enabled[id] && line_high(id)) {
			cpu.in_irq = true;
			h(cpu.data[XIL_EXCEPTION_ID_IRQ_INT]);
			cpu.in_irq = false;
			return;
		}
	}
}

void Xil_ExceptionInit(void) {}

void Xil_ExceptionRegisterHandler(u32 id, Xil_ExceptionHandler handler, void *data)
{
	if (id > XIL_EXCEPTION_ID_LAST)
		return;
	cpu.handler[id] = handler;
	cpu.data[id] = data;
}

void Xil_ExceptionRemoveHandler(u32 id) { Xil_ExceptionRegisterHandler(id, NULL, NULL); }

void Xil_ExceptionEnableMask(u32 mask)
{
	cpu.masked &= ~(mask & XIL_EXCEPTION_ALL);
	sgdma_bsp_take_irqs();
}

void Xil_ExceptionDisableMask(u32 mask) { cpu.masked |= mask & XIL_EXCEPTION_ALL; }

XScuGic_Config *XScuGic_LookupConfig(u16 id) { return id == 0 ? &gic_config : NULL; }

s32 XScuGic_CfgInitialize(XScuGic *gic, XScuGic_Config *cfg, u32 base)
{
	if (!gic || !cfg)
		return XST_INVALID_PARAM;
	(void)base;
	gic->Config = cfg;
	gic->UnhandledInterrupts = 0;
	gic->IsReady = XIL_COMPONENT_IS_READY;
	return XST_SUCCESS;
}

s32 XScuGic_Connect(XScuGic *gic, u32 id, Xil_InterruptHandler handler, void *ref)
{
	if (!gic || gic->IsReady != XIL_COMPONENT_IS_READY || id >= XSCUGIC_MAX_NUM_INTR_INPUTS || !handler)
		return XST_INVALID_PARAM;
	gic->Config->HandlerTable[id].Handler = handler;
	gic->Config->HandlerTable[id].CallBackRef = ref;
	return XST_SUCCESS;
}

void XScuGic_Disconnect(XScuGic *gic, u32 id)
{
	if (gic && id < XSCUGIC_MAX_NUM_INTR_INPUTS) {
		cpu.enabled[id] = false;
		gic->Config->HandlerTable[id].Handler = NULL;
	}
}

void XScuGic_Enable(XScuGic *gic, u32 id)
{
	(void)gic;
	if (id < XSCUGIC_MAX_NUM_INTR_INPUTS)
		cpu.enabled[id] = true;
	sgdma_bsp_take_irqs();
}

void XScuGic_Disable(XScuGic *gic, u32 id)
{
	(void)gic;
	if (id < XSCUGIC_MAX_NUM_INTR_INPUTS)
		cpu.enabled[id] = false;
}

void XScuGic_SetPriorityTriggerType(XScuGic *gic, u32 id, u8 priority, u8 trigger)
{
	(void)gic;
	if (id < XSCUGIC_MAX_NUM_INTR_INPUTS) {
		cpu.priority[id] = priority;
		cpu.trigger[id] = trigger;
	}
}

void XScuGic_GetPriorityTriggerType(XScuGic *gic, u32 id, u8 *priority, u8 *trigger)
{
	(void)gic;
	if (id < XSCUGIC_MAX_NUM_INTR_INPUTS) {
		*priority = cpu.priority[id];
		*trigger = cpu.trigger[id];
	}
}

/* The IRQ exception's handler: acknowledge the highest-priority (lowest
 * value) asserted, enabled ID and run its handler. */
void XScuGic_InterruptHandler(XScuGic *gic)
{
	u32 best = XSCUGIC_MAX_NUM_INTR_INPUTS;

	for (unsigned d = 0; d < 2; d++) {
		u32 id = sgdma_bsp_irq_ids[d];
		if (id < XSCUGIC_MAX_NUM_INTR_INPUTS && cpu.enabled[id] && line_high(id) &&
		    (best == XSCUGIC_MAX_NUM_INTR_INPUTS || cpu.priority[id] < cpu.priority[best]))
			best = id;
	}
	if (best == XSCUGIC_MAX_NUM_INTR_INPUTS || !gic->Config->HandlerTable[best].Handler) {
		gic->UnhandledInterrupts++;
		return;
	}
	gic->Config->HandlerTable[best].Handler(gic->Config->HandlerTable[best].CallBackRef);
}

s32 XScuGic_SelfTest(XScuGic *gic) { return gic && gic->IsReady == XIL_COMPONENT_IS_READY ? XST_SUCCESS : XST_FAILURE; }
