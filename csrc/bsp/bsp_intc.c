/*
 * bsp_intc.c - the GIC (XScuGic API) and the IRQ exception of the standalone
 * BSP over the virtual board's interrupt lines.  The DMA's MM2S and S2MM
 * lines are the GIC IDs XPAR_FABRIC_AXIDMA_0_{MM2S,S2MM}_INTROUT_VEC_ID of the
 * xparameters.h `sgdma bsp` writes from the preset's [irq] section.  They are
 * IRQ_F2P[0] and [1] of the eight PL-to-PS inputs, which have consecutive GIC
 * IDs (UG585 Table 7-4, UG1085 Table 13-1); the others are the board's PL
 * lines an RTL drives (vb_pl_irq_set, sgdma.cocotb.PlInterrupt).  A
 * level-sensitive ID is pending while its line is high; a rising-edge one
 * (XScuGic_SetPriorityTriggerType trigger 3) from each rise until its handler
 * is entered, so a pulse between two polls is not lost.  An
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
#if SGDMA_BSP_IRQ_S2MM != SGDMA_BSP_IRQ_MM2S + 1
#error "the shim serves IRQ_F2P[7:0] from MM2S's GIC ID up: the DMA's S2MM must be IRQ_F2P[1], MM2S's ID + 1"
#endif
#define F2P_LINES 8U                  /* IRQ_F2P[7:0] / pl_ps_irq0[7:0] */
#define F2P_BASE SGDMA_BSP_IRQ_MM2S   /* the DMA's MM2S is IRQ_F2P[0] */
#define TRIGGER_RISING 3U             /* XScuGic_SetPriorityTriggerType's rising edge */

static struct {
	Xil_ExceptionHandler handler[XIL_EXCEPTION_ID_LAST + 1];
	void *data[XIL_EXCEPTION_ID_LAST + 1];
	u32 masked;                  /* CPSR I/F bits: set = masked */
	bool in_irq;
	bool enabled[XSCUGIC_MAX_NUM_INTR_INPUTS];
	u8 priority[XSCUGIC_MAX_NUM_INTR_INPUTS], trigger[XSCUGIC_MAX_NUM_INTR_INPUTS];
	uint64_t rises_taken[F2P_LINES];   /* a PL line's rises whose handler was entered */
} cpu = { .masked = XIL_EXCEPTION_ALL };

#ifndef XPAR_SCUGIC_0_CPU_BASEADDR        /* no generated xparameters.h: ZynqMP's APU GIC (UG1085) */
#define XPAR_SCUGIC_0_CPU_BASEADDR  0xF9020000U
#define XPAR_SCUGIC_0_DIST_BASEADDR 0xF9010000U
#endif
static XScuGic_Config gic_config = { .DeviceId = 0, .CpuBaseAddress = XPAR_SCUGIC_0_CPU_BASEADDR,
				     .DistBaseAddress = XPAR_SCUGIC_0_DIST_BASEADDR };

/* Is GIC ID `id` a PL-to-PS input with a pending interrupt?  *rises: its rise count (PL lines). */
static bool pending(u32 id, uint64_t *rises)
{
	bool level;
	uint64_t rose, n;

	if (id == SGDMA_BSP_IRQ_MM2S || id == SGDMA_BSP_IRQ_S2MM)
		return vb_irq_pending(sgdma_bsp_board(), id == SGDMA_BSP_IRQ_MM2S ? VB_MM2S : VB_S2MM);
	if (id < F2P_BASE || id - F2P_BASE >= F2P_LINES ||
	    vb_pl_irq_get(sgdma_bsp_board(), id - F2P_BASE, &level, &rose, &n) != 0)
		return false;
	*rises = n;
	if (cpu.trigger[id] == TRIGGER_RISING)
		return n > cpu.rises_taken[id - F2P_BASE];
	return level;
}

/* The enabled, pending ID of highest priority (lowest value; lowest ID on a tie), or
 * XSCUGIC_MAX_NUM_INTR_INPUTS; a rising-edge PL line's rises count as taken. */
static u32 acknowledge(void)
{
	u32 best = XSCUGIC_MAX_NUM_INTR_INPUTS;
	uint64_t rises = 0, best_rises = 0;

	for (u32 id = F2P_BASE; id < F2P_BASE + F2P_LINES && id < XSCUGIC_MAX_NUM_INTR_INPUTS; id++)
		if (cpu.enabled[id] && pending(id, &rises) &&
		    (best == XSCUGIC_MAX_NUM_INTR_INPUTS || cpu.priority[id] < cpu.priority[best])) {
			best = id;
			best_rises = rises;
		}
	if (best != XSCUGIC_MAX_NUM_INTR_INPUTS && best != SGDMA_BSP_IRQ_MM2S && best != SGDMA_BSP_IRQ_S2MM)
		cpu.rises_taken[best - F2P_BASE] = best_rises;
	return best;
}

static bool any_pending(void)
{
	uint64_t rises;

	for (u32 id = F2P_BASE; id < F2P_BASE + F2P_LINES && id < XSCUGIC_MAX_NUM_INTR_INPUTS; id++)
		if (cpu.enabled[id] && pending(id, &rises))
			return true;
	return false;
}

static void take_irqs(void)
{
	Xil_ExceptionHandler h = cpu.handler[XIL_EXCEPTION_ID_IRQ_INT];

	if (cpu.in_irq || (cpu.masked & XIL_EXCEPTION_IRQ) || !h || !any_pending())
		return;
	cpu.in_irq = true;
	h(cpu.data[XIL_EXCEPTION_ID_IRQ_INT]);
	cpu.in_irq = false;
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
	u32 best = acknowledge();

	if (best == XSCUGIC_MAX_NUM_INTR_INPUTS || !gic->Config->HandlerTable[best].Handler) {
		gic->UnhandledInterrupts++;
		return;
	}
	gic->Config->HandlerTable[best].Handler(gic->Config->HandlerTable[best].CallBackRef);
}

s32 XScuGic_SelfTest(XScuGic *gic) { return gic && gic->IsReady == XIL_COMPONENT_IS_READY ? XST_SUCCESS : XST_FAILURE; }
