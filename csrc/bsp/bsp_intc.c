/*
 * bsp_intc.c - the GIC (XScuGic API) and the IRQ exception of the standalone
 * BSP over the virtual board's interrupt lines.  The DMA's MM2S and S2MM
 * lines are the GIC IDs XPAR_FABRIC_AXIDMA_0_{MM2S,S2MM}_INTROUT_VEC_ID of the
 * xparameters.h `sgdma bsp` writes from the preset's [irq] section.  An
 * interrupt is taken between BSP calls (the shim calls the poll this file
 * registers), never inside a handler (no nesting), and only while the IRQ
 * exception is enabled, the ID enabled in the distributor, and the line high.
 */
#include <stdio.h>
#include <string.h>

#include "sgdma_bsp.h"
#include "xil_types.h"    /* brings the generated xparameters.h */
#include "xil_exception.h"
#include "xscugic.h"

#ifdef XPAR_FABRIC_AXIDMA_0_MM2S_INTROUT_VEC_ID
#define SGDMA_BSP_IRQ_MM2S XPAR_FABRIC_AXIDMA_0_MM2S_INTROUT_VEC_ID
#define SGDMA_BSP_IRQ_S2MM XPAR_FABRIC_AXIDMA_0_S2MM_INTROUT_VEC_ID
#else       /* no generated xparameters.h: the zcu111 preset's lines */
#define SGDMA_BSP_IRQ_MM2S 121U     /* ZynqMP pl_ps_irq0[0] (UG1085 Table 13-1) */
#define SGDMA_BSP_IRQ_S2MM 122U
#endif
static const u32 sgdma_bsp_irq_ids[2] = { SGDMA_BSP_IRQ_MM2S, SGDMA_BSP_IRQ_S2MM };

static struct {
	Xil_ExceptionHandler handler[XIL_EXCEPTION_ID_LAST + 1];
	void *data[XIL_EXCEPTION_ID_LAST + 1];
	u32 masked;                  /* CPSR I/F bits: set = masked */
	bool in_irq;
	bool enabled[XSCUGIC_MAX_NUM_INTR_INPUTS];
	u8 priority[XSCUGIC_MAX_NUM_INTR_INPUTS], trigger[XSCUGIC_MAX_NUM_INTR_INPUTS];
} cpu = { .masked = XIL_EXCEPTION_ALL };

#ifndef XPAR_SCUGIC_0_CPU_BASEADDR        /* no generated xparameters.h: ZynqMP's APU GIC (UG1085) */
#define XPAR_SCUGIC_0_CPU_BASEADDR  0xF9020000U
#define XPAR_SCUGIC_0_DIST_BASEADDR 0xF9010000U
#endif
static XScuGic_Config gic_config = { .DeviceId = 0, .CpuBaseAddress = XPAR_SCUGIC_0_CPU_BASEADDR,
				     .DistBaseAddress = XPAR_SCUGIC_0_DIST_BASEADDR };

static bool line_high(u32 id)
{
	for (unsigned d = 0; d < 2; d++)
		if (sgdma_bsp_irq_ids[d] == id && vb_irq_pending(sgdma_bsp_board(), (enum vb_chan_id)d))
			return true;
	return false;
}

static void take_irqs(void)
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

/* From the first call into this file on, the shim polls the lines. */
static void attach(void) { sgdma_bsp_set_irq_poll(take_irqs); }

void Xil_ExceptionInit(void) { attach(); }

void Xil_ExceptionRegisterHandler(u32 id, Xil_ExceptionHandler handler, void *data)
{
	attach();
	if (id > XIL_EXCEPTION_ID_LAST)
		return;
	cpu.handler[id] = handler;
	cpu.data[id] = data;
}

void Xil_GetExceptionRegisterHandler(u32 id, Xil_ExceptionHandler *handler, void **data)
{
	if (id > XIL_EXCEPTION_ID_LAST)
		return;
	*handler = cpu.handler[id];
	*data = cpu.data[id];
}

void Xil_ExceptionRemoveHandler(u32 id) { Xil_ExceptionRegisterHandler(id, NULL, NULL); }

void Xil_ExceptionEnableMask(u32 mask)
{
	attach();
	cpu.masked &= ~(mask & XIL_EXCEPTION_ALL);
	take_irqs();
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
	attach();
	if (id < XSCUGIC_MAX_NUM_INTR_INPUTS)
		cpu.enabled[id] = true;
	take_irqs();
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
