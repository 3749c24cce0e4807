/*
 * simple_intr.c - simple-mode loopback completed by interrupts: the GIC
 * (XScuGic), the IRQ exception and per-channel handlers that acknowledge
 * DMASR, in the style of a Vitis interrupt example.
 *
 * Virtual board: the DMA's lines are the preset's [irq] GIC IDs; an interrupt
 * is taken at the next BSP call, so the wait loop calls usleep(1).
 */
#include "sgdma/pg021.h"
#include "sleep.h"
#include "xil_cache.h"
#include "xil_exception.h"
#include "xil_io.h"
#include "xil_printf.h"
#include "xparameters.h"
#include "xscugic.h"
#include "xstatus.h"

#define DMA_BASE   XPAR_AXIDMA_0_BASEADDR
#define TX_BUFFER  (XPAR_DDR_MEM_BASEADDR + 0x00100000)
#define RX_BUFFER  (XPAR_DDR_MEM_BASEADDR + 0x00300000)
#define LENGTH     2048u

static XScuGic Intc;
static volatile u32 TxDone, RxDone, Error, Irqs;

static void handler(u32 chan, volatile u32 *done)
{
	u32 sr = Xil_In32(DMA_BASE + chan + PG021_DMASR);

	Irqs++;
	Xil_Out32(DMA_BASE + chan + PG021_DMASR, sr & PG021_SR_IRQ_ALL);   /* W1C */
	if (sr & PG021_SR_ERR_IRQ)
		Error = 1;
	if (sr & PG021_SR_IOC_IRQ)
		*done = 1;
}

static void TxIntrHandler(void *ref) { (void)ref; handler(PG021_MM2S_BASE, &TxDone); }
static void RxIntrHandler(void *ref) { (void)ref; handler(PG021_S2MM_BASE, &RxDone); }

static int SetupIntrSystem(void)
{
	XScuGic_Config *cfg = XScuGic_LookupConfig(XPAR_SCUGIC_SINGLE_DEVICE_ID);

	if (!cfg || XScuGic_CfgInitialize(&Intc, cfg, cfg->CpuBaseAddress) != XST_SUCCESS)
		return XST_FAILURE;
	XScuGic_SetPriorityTriggerType(&Intc, XPAR_FABRIC_AXIDMA_0_MM2S_INTROUT_VEC_ID, 0xA0, 0x3);
	XScuGic_SetPriorityTriggerType(&Intc, XPAR_FABRIC_AXIDMA_0_S2MM_INTROUT_VEC_ID, 0xA0, 0x3);
	if (XScuGic_Connect(&Intc, XPAR_FABRIC_AXIDMA_0_MM2S_INTROUT_VEC_ID, TxIntrHandler, NULL) != XST_SUCCESS ||
	    XScuGic_Connect(&Intc, XPAR_FABRIC_AXIDMA_0_S2MM_INTROUT_VEC_ID, RxIntrHandler, NULL) != XST_SUCCESS)
		return XST_FAILURE;
	XScuGic_Enable(&Intc, XPAR_FABRIC_AXIDMA_0_MM2S_INTROUT_VEC_ID);
	XScuGic_Enable(&Intc, XPAR_FABRIC_AXIDMA_0_S2MM_INTROUT_VEC_ID);
	Xil_ExceptionInit();
	Xil_ExceptionRegisterHandler(XIL_EXCEPTION_ID_INT, (Xil_ExceptionHandler)XScuGic_InterruptHandler, &Intc);
	Xil_ExceptionEnable();
	return XST_SUCCESS;
}

int main(void)
{
	u8 *tx = (u8 *)(UINTPTR)TX_BUFFER, *rx = (u8 *)(UINTPTR)RX_BUFFER;
	const u32 irq = PG021_CR_IOC_IRQEN | PG021_CR_ERR_IRQEN;
	u32 i, errors = 0, t;

	xil_printf("--- simple-mode loopback, interrupts ---\r\n");
	Xil_Out32(DMA_BASE + PG021_DMACR, PG021_CR_RESET);
	for (i = 0; i < 100000u && (Xil_In32(DMA_BASE + PG021_DMACR) & PG021_CR_RESET); i++)
		;
	if (SetupIntrSystem() != XST_SUCCESS) {
		xil_printf("FAIL: interrupt setup\r\n");
		return XST_FAILURE;
	}
	for (i = 0; i < LENGTH; i++)
		tx[i] = (u8)(255 - i);
	Xil_DCacheFlushRange((UINTPTR)tx, LENGTH);
	Xil_Out32(DMA_BASE + PG021_S2MM_BASE + PG021_DMACR, PG021_CR_RS | irq);
	Xil_Out32(DMA_BASE + PG021_S2MM_BASE + PG021_ADDR, (u32)RX_BUFFER);
	Xil_Out32(DMA_BASE + PG021_S2MM_BASE + PG021_LENGTH, LENGTH);
	Xil_Out32(DMA_BASE + PG021_MM2S_BASE + PG021_DMACR, PG021_CR_RS | irq);
	Xil_Out32(DMA_BASE + PG021_MM2S_BASE + PG021_ADDR, (u32)TX_BUFFER);
	Xil_Out32(DMA_BASE + PG021_MM2S_BASE + PG021_LENGTH, LENGTH);
	for (t = 0; t < 100000u && !(TxDone && RxDone) && !Error; t++)
		usleep(1);
	if (!TxDone || !RxDone || Error) {
		xil_printf("FAIL: TxDone %u RxDone %u Error %u\r\n", TxDone, RxDone, Error);
		return XST_FAILURE;
	}
	Xil_DCacheInvalidateRange((UINTPTR)rx, LENGTH);
	for (i = 0; i < LENGTH; i++)
		errors += rx[i] != (u8)(255 - i);
	xil_printf("%s: %u bytes, %u mismatches, %u interrupts\r\n", errors ? "FAIL" : "PASS", LENGTH, errors, Irqs);
	return errors ? XST_FAILURE : XST_SUCCESS;
}
