/*
 * simple_poll.c - AXI DMA simple-mode loopback, polled, in the style of a
 * Vitis standalone application: xparameters.h, physical addresses used as
 * pointers, Xil_In32/Xil_Out32, cache maintenance, xil_printf.
 *
 * Hardware: an AXI DMA (no SG) whose MM2S stream loops back to S2MM.
 * Virtual board: `sgdma bsp --board zcu111 --out bsp` then build against
 * csrc/bsp (examples/vitis/Makefile); SGDMA_OPTIONS=stream.loopback=1,dma.include_sg=0.
 */
#include "sgdma/pg021.h"
#include "xil_cache.h"
#include "xil_io.h"
#include "xil_printf.h"
#include "xparameters.h"
#include "xstatus.h"
#include "xtime_l.h"

#define DMA_BASE     XPAR_AXIDMA_0_BASEADDR
#define TX_BUFFER    (XPAR_DDR_MEM_BASEADDR + 0x00100000)
#define RX_BUFFER    (XPAR_DDR_MEM_BASEADDR + 0x00300000)
#define LENGTH       4000u
#define POLL_LIMIT   1000000u

static int wait_idle(u32 chan)
{
	for (u32 i = 0; i < POLL_LIMIT; i++) {
		u32 sr = Xil_In32(DMA_BASE + chan + PG021_DMASR);
		if (sr & PG021_SR_ERR_ALL) {
			xil_printf("DMASR error 0x%08x\r\n", sr);
			return XST_FAILURE;
		}
		if (sr & PG021_SR_IDLE)
			return XST_SUCCESS;
	}
	return XST_FAILURE;
}

int main(void)
{
	u8 *tx = (u8 *)(UINTPTR)TX_BUFFER, *rx = (u8 *)(UINTPTR)RX_BUFFER;
	XTime t0, t1;
	u32 errors = 0, i;

	xil_printf("--- simple-mode loopback ---\r\n");
	Xil_Out32(DMA_BASE + PG021_MM2S_BASE + PG021_DMACR, PG021_CR_RESET);
	for (i = 0; i < POLL_LIMIT && (Xil_In32(DMA_BASE + PG021_DMACR) & PG021_CR_RESET); i++)
		;
	if (Xil_In32(DMA_BASE + PG021_DMASR) & PG021_SR_SGINCLD) {
		xil_printf("this example needs a DMA built without SG\r\n");
		return XST_FAILURE;
	}
	for (i = 0; i < LENGTH; i++) {
		tx[i] = (u8)(i * 7 + 3);
		rx[i] = 0;
	}
	Xil_DCacheFlushRange((UINTPTR)tx, LENGTH);
	Xil_DCacheFlushRange((UINTPTR)rx, LENGTH);

	XTime_GetTime(&t0);
	/* S2MM first, so the looped-back stream has somewhere to go. */
	Xil_Out32(DMA_BASE + PG021_S2MM_BASE + PG021_DMACR, PG021_CR_RS);
	Xil_Out32(DMA_BASE + PG021_S2MM_BASE + PG021_ADDR, (u32)RX_BUFFER);
	Xil_Out32(DMA_BASE + PG021_S2MM_BASE + PG021_LENGTH, LENGTH);
	Xil_Out32(DMA_BASE + PG021_MM2S_BASE + PG021_DMACR, PG021_CR_RS);
	Xil_Out32(DMA_BASE + PG021_MM2S_BASE + PG021_ADDR, (u32)TX_BUFFER);
	Xil_Out32(DMA_BASE + PG021_MM2S_BASE + PG021_LENGTH, LENGTH);
	if (wait_idle(PG021_MM2S_BASE) != XST_SUCCESS || wait_idle(PG021_S2MM_BASE) != XST_SUCCESS) {
		xil_printf("FAIL: transfer did not finish\r\n");
		return XST_FAILURE;
	}
	XTime_GetTime(&t1);

	Xil_DCacheInvalidateRange((UINTPTR)rx, LENGTH);
	for (i = 0; i < LENGTH; i++)
		errors += rx[i] != (u8)(i * 7 + 3);
	xil_printf("%s: %u bytes, %u mismatches, S2MM LENGTH %u, %llu timer counts\r\n", errors ? "FAIL" : "PASS",
		   LENGTH, errors, Xil_In32(DMA_BASE + PG021_S2MM_BASE + PG021_LENGTH),
		   (unsigned long long)(t1 - t0));
	return errors ? XST_FAILURE : XST_SUCCESS;
}
