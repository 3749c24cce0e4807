// SPDX-License-Identifier: MIT
/*
 * dac_shortcuts.c - the DAC consumer (csrc/vboard/pl/dac.c) fed random bursts:
 * ready times before, at and after the FIFO's room, bursts of 1..300 beats,
 * beat periods from below the PL clock's to far above it (the DMA behind, level
 * with and ahead of the DAC), FIFO depths 1..128, with the PL trace on and off.
 * Prints one line per scenario (a digest of every returned time, the final state,
 * every underflow and miss, every traced beat); the Makefile builds it with and
 * without the burst shortcut and compares the two outputs byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl/dac.h"
#include "sgdma/splitmix.h"

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t next(void) { return sg_splitmix64(&rng); }

/* dac.c and trace.c take their own state, a clock and the trace: nothing of the board but vb_grow (base/grow.c). */

static uint64_t digest = 0xcbf29ce484222325ull;

static void mix(uint64_t v)   /* FNV-1a over the value's bytes */
{
	for (int i = 0; i < 8; i++, v >>= 8)
		digest = (digest ^ (v & 0xff)) * 0x100000001b3ull;
}

static void mix_events(const struct vb_dac_event *e, size_t n)
{
	mix(n);
	for (size_t i = 0; i < n; i++) {
		mix(e[i].gate);
		mix(e[i].beat);
		mix(e[i].t_due);
		mix(e[i].t_actual);
	}
}

static struct pl {
	struct vb_dac dac;
	struct vb_clock clk;
	struct vb_trace trace;
} *board;

static void scenario(unsigned id, double clk_ps, uint64_t beat_ps, uint32_t depth, bool trace)
{
	struct vb_dac *d = &board->dac;
	uint64_t now = 1000 + next() % 100000, first = 0, last = 0;

	board->clk.ps = clk_ps;
	vb_edge_origin(&board->clk, next() % 5000);
	vb_dac_setup(&board->dac, beat_ps, 2 * beat_ps + next() % 100000, depth);
	board->trace.on = trace;
	digest = 0xcbf29ce484222325ull;
	for (unsigned burst = 0; burst < 400; burst++) {
		uint32_t n = 1 + (uint32_t)(next() % (next() % 4 ? 40 : 300));
		/* the DMA's next burst: right after the last, or a pause (up to a gate's worth of beats) */
		uint64_t ready = last + (next() % 3 ? next() % (uint64_t)(2 * clk_ps) : next() % (64 * beat_ps + 1));
		uint64_t data = ready + (uint64_t)(clk_ps * (double)(n - 1)) + (next() % 2 ? 0 : next() % (8 * beat_ps));
		if (ready < now)
			ready = now;
		vb_dac_beats(&board->dac, &board->clk, &board->trace, ready, data, n, next() % 3 != 0, next() % 2 != 0, &first, &last);
		mix(first);
		mix(last);
		now = last;
	}
	mix(d->beats);
	mix(d->gates);
	mix(d->t0);
	mix(d->t0_nominal);
	mix(d->t_last_play);
	mix(d->gate_first_beat);
	mix_events(d->underflows, d->n_underflows);
	mix_events(d->misses, d->n_misses);
	mix(board->trace.n_beats);
	for (size_t i = 0; i < board->trace.n_beats; i++) {
		mix(board->trace.beat_t[i]);
		mix(board->trace.beat_last[i]);
	}
	printf("%u clk %.6f beat %llu depth %u trace %d: beats %llu underflows %zu misses %zu digest %016llx\n", id,
	       clk_ps, (unsigned long long)beat_ps, depth, trace, (unsigned long long)d->beats, d->n_underflows,
	       d->n_misses, (unsigned long long)digest);
	vb_trace_fini(&board->trace);
}

int main(void)
{
	static const double clocks[] = { 1e6 / 333.0, 1e6 / 250.0, 1e6 / 100.0, 4.0 };
	board = calloc(1, sizeof(*board));
	if (!board)
		return 1;
	for (unsigned id = 0; id < 400; id++) {
		double clk = clocks[id % 4];
		/* beat periods around the clock's (the shortcut's edge: clk + 4) and far from it */
		uint64_t beat;
		switch (next() % 4) {
		case 0: beat = (uint64_t)clk + next() % 9; break;
		case 1: beat = (uint64_t)(clk / 2) + 1 + next() % (uint64_t)clk; break;
		default: beat = (uint64_t)clk + next() % (uint64_t)(20 * clk); break;
		}
		static const uint32_t depths[] = { 1, 2, 4, 16, 64, 128 };
		scenario(id, clk, beat, depths[next() % 6], next() % 2);
	}
	vb_dac_fini(&board->dac);
	free(board);
	return 0;
}
