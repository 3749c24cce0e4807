"""The BSP's GIC shim dispatches every PL-to-PS interrupt input, not only the DMA's: a handler
connected (XScuGic_Connect) to IRQ_F2P[n]'s GIC ID runs when the board's line n rises, as an
RTL's interrupt output drives it (sgdma.cocotb.PlInterrupt -> vb_pl_irq_set)."""
import shutil
import subprocess

import pytest
from test_bsp import build_program

# The program stands in for an RTL with vb_pl_irq_set (the call PlInterrupt makes on each pin change).
PROGRAM = r"""
#include <stdio.h>
#include "sgdma_bsp.h"
#include "sleep.h"
#include "xil_exception.h"
#include "xparameters.h"
#include "xscugic.h"
#include "xstatus.h"

#define F2P(n) (XPAR_FABRIC_AXIDMA_0_MM2S_INTROUT_VEC_ID + (n))   /* consecutive GIC IDs */
static XScuGic gic;
static int hits[8];
static uint64_t entered_ps[8];

static void on_line(void *ref)
{
	unsigned n = (unsigned)(UINTPTR)ref;
	hits[n]++;
	entered_ps[n] = vb_now_ps(sgdma_bsp_board());
	if (n == 3)      /* the driver clears the RTL's flag: the level line falls */
		vb_pl_irq_set(sgdma_bsp_board(), 3, false, vb_now_ps(sgdma_bsp_board()));
}

int main(void)
{
	vb_board *b = sgdma_bsp_board();
	XScuGic_Config *cfg = XScuGic_LookupConfig(XPAR_SCUGIC_SINGLE_DEVICE_ID);

	if (XScuGic_CfgInitialize(&gic, cfg, cfg->CpuBaseAddress) != XST_SUCCESS)
		return XST_FAILURE;
	Xil_ExceptionInit();
	Xil_ExceptionRegisterHandler(XIL_EXCEPTION_ID_INT, (Xil_ExceptionHandler)XScuGic_InterruptHandler, &gic);
	for (unsigned n = 3; n <= 5; n++)
		if (XScuGic_Connect(&gic, F2P(n), on_line, (void *)(UINTPTR)n) != XST_SUCCESS)
			return XST_FAILURE;
	XScuGic_SetPriorityTriggerType(&gic, F2P(4), 0xA0, 3);       /* rising edge */
	XScuGic_Enable(&gic, F2P(3));
	XScuGic_Enable(&gic, F2P(4));                                  /* F2P(5) stays disabled */
	Xil_ExceptionEnable();

	/* level line 3 rises 5 us from now; line 5 (disabled) is high throughout */
	uint64_t rise3 = vb_now_ps(b) + 5000000;
	vb_pl_irq_set(b, 5, true, vb_now_ps(b));
	vb_pl_irq_set(b, 3, true, rise3);
	for (int i = 0; i < 100 && !hits[3]; i++)
		usleep(1);
	/* edge line 4: a 10 ns pulse that is over before the CPU's next poll */
	uint64_t rise4 = vb_now_ps(b) + 1000000;
	vb_pl_irq_set(b, 4, true, rise4);
	vb_pl_irq_set(b, 4, false, rise4 + 10000);
	for (int i = 0; i < 100 && !hits[4]; i++)
		usleep(1);
	for (int i = 0; i < 20; i++)          /* and no more calls after */
		usleep(1);
	printf("rise3 %llu entered3 %llu hits3 %d rise4 %llu entered4 %llu hits4 %d hits5 %d unhandled %u\n",
	       (unsigned long long)rise3, (unsigned long long)entered_ps[3], hits[3], (unsigned long long)rise4,
	       (unsigned long long)entered_ps[4], hits[4], hits[5], (unsigned)gic.UnhandledInterrupts);
	return XST_SUCCESS;
}
"""


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("cc") is None, reason="needs make and cc")
@pytest.mark.parametrize("board", ["pynq-z2", "zcu111"])
def test_a_handler_on_a_pl_line_runs_when_the_rtl_raises_it(tmp_path, board):
    build_program(tmp_path, board, PROGRAM)
    run = subprocess.run(["./prog"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    words = run.stdout.split()
    v = {words[i]: int(words[i + 1]) for i in range(0, len(words) - 1, 2)}
    # the level line's handler: once, after the rise, within the 1 us polls of the loop
    assert v["hits3"] == 1 and v["rise3"] <= v["entered3"] <= v["rise3"] + 2_000_000, v
    # the rising-edge line: the pulse ended before any poll saw it high, and is still taken, once
    assert v["hits4"] == 1 and v["rise4"] <= v["entered4"] <= v["rise4"] + 2_000_000, v
    # the disabled line never dispatches, and nothing arrives unclaimed
    assert v["hits5"] == 0 and v["unhandled"] == 0, v
