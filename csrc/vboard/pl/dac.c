/*
 * dac.c - the PL consumer of a gate sequence: a DAC path that plays stream
 * beats at a fixed rate behind a FIFO.
 *
 * Playback starts lead_ps after the first beat arrives; beat j is due at
 * t0 + j * beat_ps.  The FIFO holds fifo_beats: beat j can enter only once
 * beat j - fifo_beats has been played (back-pressure on the DMA).  A beat that
 * arrives after it is due is an underflow: the DAC outputs nothing meanwhile
 * and resumes when it arrives, so the schedule slips (t0 moves later) — every
 * later gate then starts after its nominal deadline and counts as a deadline
 * miss.  Gates are AXI-Stream packets (TLAST), so each beat is attributed to
 * the gate it belongs to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "pl/dac.h"

void vb_dac_setup(struct vb_dac *d, uint64_t beat_ps, uint64_t lead_ps, uint32_t fifo_beats)
{
	free(d->underflows);
	free(d->misses);
	memset(d, 0, sizeof(*d));
	d->enabled = beat_ps > 0;
	d->beat_ps = beat_ps;
	d->lead_ps = lead_ps;
	d->fifo_beats = fifo_beats ? fifo_beats : 1;
}

void vb_dac_fini(struct vb_dac *d)
{
	free(d->underflows);
	free(d->misses);
}

static uint64_t due(const struct vb_dac *d, uint64_t beat) { return d->t0 + beat * d->beat_ps; }

/*
 * Once the FIFO holds a beat back (its room, not the clock, sets the edge), every
 * later beat of the burst but the last is held back too, plays on the first edge
 * at or after due(j - depth) and cannot underflow, when
 *   beat_ps >= clk_ps + 4: due(j + 1 - depth) is past the edge of beat j, so the
 *     FIFO keeps binding (vb_edge_index grows by >= 1 per beat_ps step: its
 *     quotient grows by beat_ps / clk_ps > 1, its rounding is far below that);
 *   depth * beat_ps >= clk_ps + 4: that edge (< due(j - depth) + clk_ps) is before
 *     due(j), so no underflow and t0 stays put;
 *   times stay inside the span where the edge formulas are exact.
 * Those beats then need no per-beat test: the burst's middle is skipped in one step,
 * exactly (each beat's edge is still computed when the PL trace records it).
 */
static inline bool fifo_bound_middle(const struct vb_clock *clk, const struct vb_dac *d, uint64_t j_end)
{
	double step = (double)d->beat_ps;
	return step >= clk->ps + 4.0 && (double)d->fifo_beats * step >= clk->ps + 4.0 &&
	       due(d, j_end) < clk->exact_end;
}

/* Timing of n beats ready from `ready` (the last one not before `last_ready`),
 * the first of which starts a gate when gate_start, the last of which carries
 * TLAST when eof; returns the first and last beat's entry into the DAC FIFO.
 * Beat by beat and on the clock's edges, as the gateware (rtl/sgdma_dac_stream.v)
 * does it: each beat waits for the edge after the previous one, for FIFO room,
 * and (the last) for its data. */
void vb_dac_beats(struct vb_dac *d, const struct vb_clock *clk, struct vb_trace *tr, uint64_t ready,
		  uint64_t last_ready, uint32_t n, bool gate_start, bool eof, uint64_t *first, uint64_t *last)
{
	uint64_t k = vb_edge_index(clk, ready), k_data = vb_edge_index(clk, last_ready), t = 0;

	for (uint32_t i = 0; i < n; i++, k++) {
		uint64_t j = d->beats;
		if (i == n - 1 && k_data > k)
			k = k_data;
		/* FIFO room: beat j enters once beat j - depth was played */
		bool held = false;
		if (j >= d->fifo_beats) {
			uint64_t k_room = vb_edge_index(clk, due(d, j - d->fifo_beats));
			held = k_room >= k && k_room > 0;   /* > 0: not clamped at edge 0 */
			if (k_room > k)
				k = k_room;
		}
		t = vb_edge_time(clk, k);
		if (!d->started) {
			d->started = true;
			d->t0 = d->t0_nominal = t + d->lead_ps;
		}
		if (i == 0 && gate_start)
			d->gate_first_beat = j, d->gates++;
		/* Underflow: the beat came after it was due; playback slips to it. */
		if (t > due(d, j)) {
			struct vb_dac_event *grown = vb_grow(d->underflows, &d->cap_underflows, d->n_underflows + 1,
							     sizeof(*d->underflows));
			if (grown) {      /* no host memory: the slip still happens, the record is lost */
				d->underflows = grown;
				d->underflows[d->n_underflows++] = (struct vb_dac_event){
					.gate = d->gates ? d->gates - 1 : 0, .beat = j, .t_due = due(d, j), .t_actual = t };
			}
			d->t0 += t - due(d, j);
		}
		/* A gate is on time if its first beat plays at its nominal slot. */
		if (i == 0 && gate_start && due(d, j) > d->t0_nominal + j * d->beat_ps) {
			struct vb_dac_event *grown = vb_grow(d->misses, &d->cap_misses, d->n_misses + 1,
							     sizeof(*d->misses));
			if (grown) {
				d->misses = grown;
				d->misses[d->n_misses++] = (struct vb_dac_event){
					.gate = d->gates - 1, .beat = j, .t_due = d->t0_nominal + j * d->beat_ps,
					.t_actual = due(d, j) };
			}
		}
		d->beats++;
		vb_trace_beat(tr, t, eof && i == n - 1);
		if (i == 0)
			*first = t;
#ifndef VB_DAC_NO_SHORTCUTS   /* tests/c/dac_shortcuts.c: the same answers without it */
		/* beats i+1 .. n-2 held back by the FIFO like this one: one step (the last beat waits for data) */
		if (held && i + 2 < n && fifo_bound_middle(clk, d, d->beats + (n - 2 - i))) {
			uint64_t skip = n - 2 - i;
			for (uint64_t s = 0; tr->on && s < skip; s++)
				vb_trace_beat(tr, vb_edge_time(clk, vb_edge_index(clk, due(d, d->beats + s - d->fifo_beats))),
					      false);
			d->beats += skip;
			k = vb_edge_index(clk, due(d, d->beats - 1 - d->fifo_beats));
			i += (uint32_t)skip;
		}
#else
		(void)held;
#endif
	}
	d->t_last_play = due(d, d->beats - 1);
	*last = t;
}
