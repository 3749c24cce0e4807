/*
 * sg_poll.c - AXI DMA scatter-gather loopback, polled, Vitis style: BD rings
 * built in DDR through pointers at their physical addresses, Cmplt polled in
 * the last BD's STATUS word.
 *
 * Hardware: an AXI DMA with SG whose MM2S stream loops back to S2MM.
 * Virtual board: SGDMA_OPTIONS=stream.loopback=1 (examples/vitis/Makefile).
 */
#include "sgdma/pg021.h"
#include "sleep.h"
#include "xil_cache.h"
#include "xil_io.h"
#include "xil_printf.h"
#include "xparameters.h"
#include "xstatus.h"

#define DMA_BASE   XPAR_AXIDMA_0_BASEADDR
#define MEM        XPAR_DDR_MEM_BASEADDR
#define TX_BD      (MEM + 0x00010000)
#define RX_BD      (MEM + 0x00020000)
#define TX_BUFFER  (MEM + 0x00100000)
#define RX_BUFFER  (MEM + 0x00300000)
#define N_PKTS     16u
#define PKT_LEN    1024u
#define TIMEOUT_US 100000u

typedef struct {
	u32 w[16];            /* one 64-byte BD (PG021: NXTDESC, BUFFER, CONTROL, STATUS, APP0-4) */
} Bd;

static void ring_build(Bd *bd, UINTPTR phys, UINTPTR buf, u32 n, u32 len, int tx)
{
	for (u32 i = 0; i < n; i++) {
		for (u32 k = 0; k < 16; k++)
			bd[i].w[k] = 0;
		bd[i].w[PG021_BD_NXTDESC / 4] = (u32)(phys + ((i + 1) % n) * sizeof(Bd));
		bd[i].w[PG021_BD_BUFFER / 4] = (u32)(buf + i * len);
		bd[i].w[PG021_BD_CONTROL / 4] = len | (tx ? PG021_BD_CTRL_TXSOF | PG021_BD_CTRL_TXEOF : 0);
	}
	Xil_DCacheFlushRange(phys, n * sizeof(Bd));
}

static int start(u32 chan, UINTPTR first, UINTPTR last)
{
	Xil_Out32(DMA_BASE + chan + PG021_CURDESC, (u32)first);
	Xil_Out32(DMA_BASE + chan + PG021_DMACR, Xil_In32(DMA_BASE + chan + PG021_DMACR) | PG021_CR_RS);
	Xil_Out32(DMA_BASE + chan + PG021_TAILDESC, (u32)last);
	return XST_SUCCESS;
}

/* The engine sets Cmplt (STATUS bit 31) in each BD it finishes. */
static int wait_done(volatile Bd *last)
{
	for (u32 t = 0; t < TIMEOUT_US; t++) {
		Xil_DCacheInvalidateRange((UINTPTR)last, sizeof(Bd));
		if (last->w[PG021_BD_STATUS / 4] & 0x80000000u)
			return XST_SUCCESS;
		usleep(1);
	}
	return XST_FAILURE;
}

int main(void)
{
	Bd *tx = (Bd *)(UINTPTR)TX_BD, *rx = (Bd *)(UINTPTR)RX_BD;
	u8 *src = (u8 *)(UINTPTR)TX_BUFFER, *dst = (u8 *)(UINTPTR)RX_BUFFER;
	u32 i, errors = 0, bytes = 0;

	xil_printf("--- SG loopback, %u packets ---\r\n", N_PKTS);
	Xil_Out32(DMA_BASE + PG021_DMACR, PG021_CR_RESET);
	for (i = 0; i < 100000u && (Xil_In32(DMA_BASE + PG021_DMACR) & PG021_CR_RESET); i++)
		;
	if (!(Xil_In32(DMA_BASE + PG021_DMASR) & PG021_SR_SGINCLD)) {
		xil_printf("this example needs a DMA built with SG\r\n");
		return XST_FAILURE;
	}
	for (i = 0; i < N_PKTS * PKT_LEN; i++)
		src[i] = (u8)(i ^ (i >> 8));
	Xil_DCacheFlushRange(TX_BUFFER, N_PKTS * PKT_LEN);
	ring_build(rx, RX_BD, RX_BUFFER, N_PKTS, PKT_LEN, 0);
	ring_build(tx, TX_BD, TX_BUFFER, N_PKTS, PKT_LEN, 1);

	start(PG021_S2MM_BASE, RX_BD, RX_BD + (N_PKTS - 1) * sizeof(Bd));
	start(PG021_MM2S_BASE, TX_BD, TX_BD + (N_PKTS - 1) * sizeof(Bd));
	if (wait_done(&tx[N_PKTS - 1]) != XST_SUCCESS || wait_done(&rx[N_PKTS - 1]) != XST_SUCCESS) {
		xil_printf("FAIL: no Cmplt; MM2S DMASR 0x%08x S2MM DMASR 0x%08x\r\n",
			   Xil_In32(DMA_BASE + PG021_DMASR), Xil_In32(DMA_BASE + PG021_S2MM_BASE + PG021_DMASR));
		return XST_FAILURE;
	}
	Xil_DCacheInvalidateRange(RX_BD, N_PKTS * sizeof(Bd));
	Xil_DCacheInvalidateRange(RX_BUFFER, N_PKTS * PKT_LEN);
	for (i = 0; i < N_PKTS; i++)
		bytes += rx[i].w[PG021_BD_STATUS / 4] & PG021_BD_LEN_MASK;
	for (i = 0; i < N_PKTS * PKT_LEN; i++)
		errors += dst[i] != (u8)(i ^ (i >> 8));
	xil_printf("%s: %u packets, %u bytes received, %u mismatches\r\n", errors || bytes != N_PKTS * PKT_LEN ?
		   "FAIL" : "PASS", N_PKTS, bytes, errors);
	return errors || bytes != N_PKTS * PKT_LEN ? XST_FAILURE : XST_SUCCESS;
}
