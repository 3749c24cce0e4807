// SPDX-License-Identifier: MIT
/*
 * test_edges.c - the PL clock-edge arithmetic of the virtual board
 * (csrc/vboard/base/time.h).  The MM2S stream starts a burst on the edge it
 * freed without dividing again: vb_edge_index(vb_edge_time(k)) must be k
 * wherever vb_edge_exact() says so.  Checked exhaustively for the first edges
 * and at random up to the guarded span, for every preset's DMA clock and for
 * random clocks, with random clock origins.
 */
#include <stdio.h>

#include "base/time.h"
#include "sgdma/splitmix.h"
#include "harness.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void) { return sg_splitmix64(&rng); }

static struct vb_clock board;   /* the DMA clock of a board */

static unsigned long long checked, mismatched, guarded;

static void check_edge(uint64_t k)
{
	uint64_t t = vb_edge_time(&board, k);
	if (!vb_edge_exact(&board, t)) {
		guarded++;
		return;
	}
	checked++;
	if (vb_edge_index(&board, t) != k) {
		if (mismatched++ < 5)
			printf("  clk_ps %.17g origin %llu: edge %llu at %llu indexes as %llu\n", board.ps,
			       (unsigned long long)board.origin, (unsigned long long)k, (unsigned long long)t,
			       (unsigned long long)vb_edge_index(&board, t));
	}
}

static void sweep_clock(double mhz)
{
	const uint64_t origins[3] = { 0, next() % 1000000000000ull, next() % (1ull << 52) };

	board.ps = 1e6 / mhz;   /* as vb_create */
	for (unsigned o = 0; o < 3; o++) {
		uint64_t span = (uint64_t)((double)VB_EDGE_EXACT_SPAN_PS / board.ps);
		vb_edge_origin(&board, origins[o]);
		for (uint64_t k = 0; k < 200000; k++)
			check_edge(k);
		for (unsigned i = 0; i < 200000; i++)
			check_edge(next() % span);
		for (uint64_t k = span > 1000 ? span - 1000 : 0; k < span + 1000; k++)
			check_edge(k);   /* both sides of the guarded span */
	}
}

static void test_edge_index_inverts_edge_time(void)
{
	/* every preset's dma.clock_mhz (src/sgdma/hw/presets) and the PCIe/RTIO clocks */
	static const double presets[] = { 50.0, 100.0, 125.0, 150.0, 200.0, 250.0, 300.0, 333.0, 333.33, 400.0,
					  500.0, 666.67 };
	for (unsigned i = 0; i < sizeof presets / sizeof presets[0]; i++)
		sweep_clock(presets[i]);
	for (unsigned i = 0; i < 40; i++)   /* random clocks from 1 MHz to 250 GHz (4 ps) */
		sweep_clock(1.0 + (double)(next() % 249999000ull) / 1000.0);
	printf("  %llu edges checked, %llu outside the guard\n", checked, guarded);
	CHECK(checked > 10000000ull);
	CHECK_EQ(mismatched, 0);
}

static void test_guard_refuses_fast_clocks_and_far_edges(void)
{
	board.ps = 3.9;
	vb_edge_origin(&board, 1000);
	CHECK(!vb_edge_exact(&board, 2000));
	board.ps = 4.0;
	vb_edge_origin(&board, 1000);
	CHECK(vb_edge_exact(&board, 2000));
	CHECK(!vb_edge_exact(&board, 999));                                  /* before the origin */
	CHECK(vb_edge_exact(&board, 999 + VB_EDGE_EXACT_SPAN_PS));
	CHECK(!vb_edge_exact(&board, 1000 + VB_EDGE_EXACT_SPAN_PS));
	vb_edge_origin(&board, (1ull << 53) - 10);
	CHECK(vb_edge_exact(&board, (1ull << 53) - 1));
	CHECK(!vb_edge_exact(&board, (1ull << 53) + 5));                     /* not exact as a double */
	vb_edge_origin(&board, (1ull << 53) + 10);
	CHECK(!vb_edge_exact(&board, (1ull << 53) + 20));
}

int main(void)
{
	RUN(test_edge_index_inverts_edge_time);
	RUN(test_guard_refuses_fast_clocks_and_far_edges);
	return report();
}
