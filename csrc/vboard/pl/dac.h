/*
 * dac.h - the PL DAC consumer's state (public: Python reads it) and its functions.
 */
#ifndef SGDMA_VBOARD_PL_DAC_H
#define SGDMA_VBOARD_PL_DAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/time.h"
#include "pl/trace.h"

/* PL DAC consumer of gate sequences (dac.c): beats played every beat_ps from
 * lead_ps after the first beat, behind a FIFO of fifo_beats.  beat_ps = 0
 * switches it off (the stream.consumer_* model applies). */
struct vb_dac_event {
	uint64_t gate, beat;
	uint64_t t_due, t_actual;   /* ps */
};
struct vb_dac {
	bool enabled, started;
	uint64_t beat_ps, lead_ps;
	uint32_t fifo_beats;
	uint64_t t0, t0_nominal, beats, gates, gate_first_beat, t_last_play;
	struct vb_dac_event *underflows, *misses;
	size_t n_underflows, cap_underflows, n_misses, cap_misses;
};

#pragma GCC visibility push(hidden)
/* beat_ps = 0 switches the DAC off (the stream.consumer_* model applies). */
void vb_dac_setup(struct vb_dac *d, uint64_t beat_ps, uint64_t lead_ps, uint32_t fifo_beats);
void vb_dac_fini(struct vb_dac *d);
/* n beats of a burst, the first ready at `ready` and the last at `last_ready`, on the
 * PL clock `clk`: their play times (*first, *last); the trace sees each beat. */
void vb_dac_beats(struct vb_dac *d, const struct vb_clock *clk, struct vb_trace *tr, uint64_t ready,
		  uint64_t last_ready, uint32_t n, bool gate_start, bool eof, uint64_t *first, uint64_t *last);
#pragma GCC visibility pop

#endif
