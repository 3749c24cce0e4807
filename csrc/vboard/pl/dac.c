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

#include "internal.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

void vb_dac_configure(vb_board *b, uint64_t beat_ps, uint64_t lead_ps, uint32_t fifo_beats)
{
	struct vb_dac *d = &b->dac;
	free(d->underflows);
	free(d->misses);
	memset(d, 0, sizeof(*d));
	d->enabled = beat_ps > 0;
	d->beat_ps = beat_ps;
	d->lead_ps = lead_ps;
	d->fifo_beats = fifo_beats ? fifo_beats : 1;
}

void vb_dac_fini(vb_board *b)
{
	free(b->dac.underflows);
	free(b->dac.misses);
}

const struct vb_dac *vb_dac_state(vb_board *b)
{
	vb_sync(b);
	return &b->dac;
}

static uint64_t due(const struct vb_dac *d, uint64_t beat) { return d->t0 + beat * d->beat_ps; }

/* Timing of n beats ready from `ready` (the last one not before `last_ready`),
 * the first of which starts a gate when gate_start; returns the first and
 * last beat's departure into the DAC FIFO. */
void vb_dac_beats(vb_board *b, uint64_t ready, uint64_t last_ready, uint32_t n, bool gate_start, uint64_t clk,
		  uint64_t *first, uint64_t *last)
{
	struct vb_dac *d = &b->dac;
	uint64_t j0 = d->beats, j1 = d->beats + n - 1, start = ready, end;

	if (!d->started) {
		d->started = true;
		d->t0 = d->t0_nominal = start + d->lead_ps;
	}
	/* FIFO room: beat j enters after beat j - depth was played. */
	if (j0 >= d->fifo_beats)
		start = max64(start, due(d, j0 - d->fifo_beats));
	end = max64(start + (uint64_t)(n - 1) * clk, last_ready);
	if (j1 >= d->fifo_beats)
		end = max64(end, due(d, j1 - d->fifo_beats));

	if (gate_start)
		d->gate_first_beat = j0, d->gates++;
	/* Underflow: the beat came after it was due; playback slips to it. */
	if (start > due(d, j0) || end > due(d, j1)) {
		uint64_t late_beat = start > due(d, j0) ? j0 : j1, arrived = start > due(d, j0) ? start : end;
		uint64_t slip = arrived - due(d, late_beat);
		struct vb_dac_event *grown = vb_grow(d->underflows, &d->cap_underflows, d->n_underflows + 1,
						     sizeof(*d->underflows));
		if (grown) {              /* no host memory: the slip still happens, the record is lost */
			d->underflows = grown;
			d->underflows[d->n_underflows++] = (struct vb_dac_event){
				.gate = d->gates ? d->gates - 1 : 0, .beat = late_beat, .t_due = due(d, late_beat),
				.t_actual = arrived };
		}
		d->t0 += slip;
	}
	/* A gate is on time if its first beat plays at its nominal slot. */
	if (gate_start && due(d, j0) > d->t0_nominal + j0 * d->beat_ps) {
		struct vb_dac_event *grown = vb_grow(d->misses, &d->cap_misses, d->n_misses + 1, sizeof(*d->misses));
		if (grown) {
			d->misses = grown;
			d->misses[d->n_misses++] = (struct vb_dac_event){
				.gate = d->gates - 1, .beat = j0, .t_due = d->t0_nominal + j0 * d->beat_ps,
				.t_actual = due(d, j0) };
		}
	}
	d->beats += n;
	d->t_last_play = due(d, d->beats - 1);
	*first = start;
	*last = end;
}
