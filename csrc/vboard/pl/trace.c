/*
 * trace.c - a record of what the PL saw: every MM2S stream beat (its clock
 * edge and TLAST) and every CPU write to the timing engine's GPIO inputs.
 * The RTL co-simulation (rtl/, sgdma.rtl) replays it into the gateware and
 * compares the gateware's counters with the model's.
 */
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "pl/trace.h"

void vb_trace_fini(struct vb_trace *r)
{
	free(r->beat_t);
	free(r->beat_last);
	free(r->ctl_t);
	free(r->ctl_v);
	free(r->ctl_reg);
	memset(r, 0, sizeof(*r));
}

void vb_trace_set(struct vb_trace *r, bool on, uint64_t origin)
{
	vb_trace_fini(r);
	r->on = on;
	r->clk_origin = origin;
}

void vb_trace_beat(struct vb_trace *r, uint64_t t, bool last)
{
	if (!r->on)
		return;
	if (!vb_grow_into(&r->beat_t, &r->cap_t, r->n_beats + 1, sizeof(*r->beat_t)) ||
	    !vb_grow_into(&r->beat_last, &r->cap_last, r->n_beats + 1, sizeof(*r->beat_last)))
		return;   /* no host memory: the trace stops growing (the co-simulation sees it short) */
	r->beat_t[r->n_beats] = t;
	r->beat_last[r->n_beats++] = last;
}

void vb_trace_gpio(struct vb_trace *r, uint64_t t, enum vb_trace_reg reg, uint32_t value)
{
	if (!r->on)
		return;
	if (!vb_grow_into(&r->ctl_t, &r->cap_ct, r->n_ctl + 1, sizeof(*r->ctl_t)) ||
	    !vb_grow_into(&r->ctl_v, &r->cap_cv, r->n_ctl + 1, sizeof(*r->ctl_v)) ||
	    !vb_grow_into(&r->ctl_reg, &r->cap_cr, r->n_ctl + 1, sizeof(*r->ctl_reg)))
		return;
	r->ctl_t[r->n_ctl] = t;
	r->ctl_v[r->n_ctl] = value;
	r->ctl_reg[r->n_ctl++] = (uint8_t)reg;
}
