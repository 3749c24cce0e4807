/*
 * sg_intr.c - scatter-gather loopback completed by interrupts, written to the
 * standalone BSP's documented API the way Vitis programs use it:
 *   - xil_printf declared by the program itself (it is a function);
 *   - DDR found through the Vitis names in xparameters.h, else 0x0100_0000
 *     (Zynq-7000 BSPs name PS DDR so that this default applies: PS DDR near 0);
 *   - BDs built by plain pointer writes at their physical addresses, marked
 *     uncacheable with Xil_SetTlbAttributes, ordered with DATA_SYNC;
 *   - the GIC through XScuGic_*, the IRQ exception through
 *     Xil_ExceptionRegisterHandler(XIL_EXCEPTION_ID_INT, XScuGic_InterruptHandler);
 *   - completion counted by the handlers into the program's own variables,
 *     which main polls with Xil_WaitForEventSet / Xil_WaitForEvent
 *     (Xil_In32 on ordinary memory), and DMASR.Idle with Xil_WaitForEvents;
 *   - the reset awaited with Xil_poll_timeout.
 * Hardware: an AXI DMA with SG whose MM2S stream loops back to S2MM; with the
 * virtual board, `sgdma bsp --set stream.loopback=1`.
 */
#include "sgdma/pg021.h"
#include "sleep.h"
#include "xdebug.h"
#include "xil_cache.h"
#include "xil_exception.h"
#include "xil_io.h"
#include "xil_mmu.h"
#include "xil_util.h"
#include "xparameters.h"
#include "xscugic.h"
#include "xstatus.h"

extern void xil_printf(const char *format, ...);

#if defined(XPAR_MIG_0_C0_DDR4_MEMORY_MAP_BASEADDR)
#define MEM_BASE (XPAR_MIG_0_C0_DDR4_MEMORY_MAP_BASEADDR + 0x1000000)
#elif defined(XPAR_PSU_DDR_0_S_AXI_BASEADDR)
#define MEM_BASE (XPAR_PSU_DDR_0_S_AXI_BASEADDR + 0x1000000)
#else
#define MEM_BASE 0x01000000
#endif
#define DMA_BASE   XPAR_AXIDMA_0_BASEADDR
#define TX_BD      (MEM_BASE)
#define RX_BD      (MEM_BASE + 0x00001000)
#define TX_BUFFER  (MEM_BASE + 0x00100000)
#define RX_BUFFER  (MEM_BASE + 0x00300000)
#define N_PKTS     12u
#define PKT_LEN    512u
#define TIMEOUT_US 20000u
#define BD_CMPLT   0x80000000u

typedef struct {
	u32 w[16];            /* one 64-byte BD (PG021: NXTDESC, BUFFER, CONTROL, STATUS, APP0-4) */
} Bd;

static XScuGic Intc;
volatile u32 TxDone, RxDone, Error, Irqs;
static u32 tx_seen, rx_seen;     /* the next BD each handler checks */

static void ring_build(volatile Bd *bd, UINTPTR phys, UINTPTR buf, u32 len, int tx)
{
	for (u32 i = 0; i < N_PKTS; i++) {
		for (u32 k = 0; k < 16; k++)
			bd[i].w[k] = 0;
		bd[i].w[PG021_BD_NXTDESC / 4] = (u32)(phys + ((i + 1) % N_PKTS) * sizeof(Bd));
		bd[i].w[PG021_BD_BUFFER / 4] = (u32)(buf + i * len);
		bd[i].w[PG021_BD_CONTROL / 4] = len | (tx ? PG021_BD_CTRL_TXSOF | PG021_BD_CTRL_TXEOF : 0);
	}
}

/* Acknowledge DMASR, then count the BDs the engine completed since last time. */
static void handler(u32 chan, volatile Bd *ring, u32 *seen, volatile u32 *done)
{
	u32 sr = Xil_In32(DMA_BASE + chan + PG021_DMASR);

	Irqs++;
	Xil_Out32(DMA_BASE + chan + PG021_DMASR, sr & PG021_SR_IRQ_ALL);   /* W1C */
	if (sr & PG021_SR_ERR_IRQ) {
		Error = 1;
		return;
	}
	while (*seen < N_PKTS && (ring[*seen].w[PG021_BD_STATUS / 4] & BD_CMPLT)) {
		(*seen)++;
		(*done)++;
	}
}

static void TxIntrHandler(void *ref) { handler(PG021_MM2S_BASE, ref, &tx_seen, &TxDone); }
static void RxIntrHandler(void *ref) { handler(PG021_S2MM_BASE, ref, &rx_seen, &RxDone); }

static int SetupIntrSystem(void)
{
	XScuGic_Config *cfg = XScuGic_LookupConfig(XPAR_SCUGIC_SINGLE_DEVICE_ID);

	if (!cfg || XScuGic_CfgInitialize(&Intc, cfg, cfg->CpuBaseAddress) != XST_SUCCESS)
		return XST_FAILURE;
	XScuGic_SetPriorityTriggerType(&Intc, XPAR_FABRIC_AXIDMA_0_MM2S_INTROUT_VEC_ID, 0xA0, 0x3);
	XScuGic_SetPriorityTriggerType(&Intc, XPAR_FABRIC_AXIDMA_0_S2MM_INTROUT_VEC_ID, 0xA0, 0x3);
	if (XScuGic_Connect(&Intc, XPAR_FABRIC_AXIDMA_0_MM2S_INTROUT_VEC_ID, (Xil_InterruptHandler)TxIntrHandler,
			    (void *)(UINTPTR)TX_BD) != XST_SUCCESS ||
	    XScuGic_Connect(&Intc, XPAR_FABRIC_AXIDMA_0_S2MM_INTROUT_VEC_ID, (Xil_InterruptHandler)RxIntrHandler,
			    (void *)(UINTPTR)RX_BD) != XST_SUCCESS)
		return XST_FAILURE;
	XScuGic_Enable(&Intc, XPAR_FABRIC_AXIDMA_0_MM2S_INTROUT_VEC_ID);
	XScuGic_Enable(&Intc, XPAR_FABRIC_AXIDMA_0_S2MM_INTROUT_VEC_ID);
	Xil_ExceptionInit();
	Xil_ExceptionRegisterHandler(XIL_EXCEPTION_ID_INT, (Xil_ExceptionHandler)XScuGic_InterruptHandler, &Intc);
	Xil_ExceptionEnable();
	return XST_SUCCESS;
}

static void start(u32 chan, UINTPTR first)
{
	const u32 irq = PG021_CR_IOC_IRQEN | PG021_CR_ERR_IRQEN | (1u << 16);  /* IRQThreshold 1: one per BD */

	Xil_Out32(DMA_BASE + chan + PG021_CURDESC, (u32)first);
	Xil_Out32(DMA_BASE + chan + PG021_DMACR, (Xil_In32(DMA_BASE + chan + PG021_DMACR) & ~PG021_CR_THRESHOLD) |
		  PG021_CR_RS | irq);
	DATA_SYNC;      /* every BD written before the engine is told where the chain ends */
	Xil_Out32(DMA_BASE + chan + PG021_TAILDESC, (u32)(first + (N_PKTS - 1) * sizeof(Bd)));
}

int main(void)
{
	volatile Bd *tx = (volatile Bd *)(UINTPTR)TX_BD, *rx = (volatile Bd *)(UINTPTR)RX_BD;
	u8 *src = (u8 *)(UINTPTR)TX_BUFFER, *dst = (u8 *)(UINTPTR)RX_BUFFER;
	u32 i, v, errors = 0, bytes = 0, idle = 0;

	xil_printf("\r\n--- Entering main() --- \r\n");
	Xil_SetTlbAttributes(TX_BD, NORM_NONCACHE);
	Xil_SetTlbAttributes(RX_BD, NORM_NONCACHE);
	Xil_Out32(DMA_BASE + PG021_DMACR, PG021_CR_RESET);
	if (Xil_poll_timeout(Xil_In32, DMA_BASE + PG021_DMACR, v, !(v & PG021_CR_RESET), 1000) != 0) {
		xil_printf("reset did not finish\r\n");
		return XST_FAILURE;
	}
	if (!(Xil_In32(DMA_BASE + PG021_DMASR) & PG021_SR_SGINCLD)) {
		xil_printf("Device configured as Simple mode \r\n");
		return XST_FAILURE;
	}
	if (SetupIntrSystem() != XST_SUCCESS) {
		xil_printf("Failed intr setup\r\n");
		return XST_FAILURE;
	}
	for (i = 0; i < N_PKTS * PKT_LEN; i++)
		src[i] = (u8)(i * 7u + 3u);
	Xil_DCacheFlushRange(TX_BUFFER, N_PKTS * PKT_LEN);
	Xil_DCacheFlushRange(RX_BUFFER, N_PKTS * PKT_LEN);
	ring_build(rx, RX_BD, RX_BUFFER, PKT_LEN, 0);
	ring_build(tx, TX_BD, TX_BUFFER, PKT_LEN, 1);
	xdbg_printf(XDBG_DEBUG_GENERAL, "rings at 0x%lx and 0x%lx\r\n", (unsigned long)TX_BD, (unsigned long)RX_BD);

	start(PG021_S2MM_BASE, RX_BD);
	start(PG021_MM2S_BASE, TX_BD);
	/* An error is the event here: waiting out the timeout is success. */
	if (Xil_WaitForEventSet(TIMEOUT_US, 1, &Error) == XST_SUCCESS) {
		xil_printf("Transmit or receive error\r\n");
		return XST_FAILURE;
	}
	if (Xil_WaitForEvent((UINTPTR)&TxDone, ~0u, N_PKTS, TIMEOUT_US) != XST_SUCCESS ||
	    Xil_WaitForEvent((UINTPTR)&RxDone, ~0u, N_PKTS, TIMEOUT_US) != XST_SUCCESS) {
		xil_printf("Transmit/receive failure: TxDone %u RxDone %u\r\n", TxDone, RxDone);
		return XST_FAILURE;
	}
	if (Xil_WaitForEvents(DMA_BASE + PG021_S2MM_BASE + PG021_DMASR, PG021_SR_IDLE, PG021_SR_IDLE, TIMEOUT_US,
			      &idle) != XST_SUCCESS) {
		xil_printf("S2MM not idle after the tail BD\r\n");
		return XST_FAILURE;
	}
	Xil_DCacheInvalidateRange(RX_BUFFER, N_PKTS * PKT_LEN);
	for (i = 0; i < N_PKTS; i++)
		bytes += rx[i].w[PG021_BD_STATUS / 4] & PG021_BD_LEN_MASK;
	for (i = 0; i < N_PKTS * PKT_LEN; i++)
		errors += dst[i] != (u8)(i * 7u + 3u);
	if (errors || bytes != N_PKTS * PKT_LEN) {
		xil_printf("Data check failed: %u bytes, %u mismatches\r\n", bytes, errors);
		return XST_FAILURE;
	}
	XScuGic_Disconnect(&Intc, XPAR_FABRIC_AXIDMA_0_MM2S_INTROUT_VEC_ID);
	XScuGic_Disconnect(&Intc, XPAR_FABRIC_AXIDMA_0_S2MM_INTROUT_VEC_ID);
	xil_printf("Successfully ran sgdma SG interrupt example: %u packets, %u bytes, %u interrupts\r\n",
		   N_PKTS, bytes, Irqs);
	xil_printf("--- Exiting main() --- \r\n");
	return XST_SUCCESS;
}
