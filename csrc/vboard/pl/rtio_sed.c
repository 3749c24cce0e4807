/*
 * rtio_sed.c - the RTIO core's SED lanes and the CRI every initiator drives.
 * [artiq-rtio.md sec. 1]
 *
 * Rules modelled: an event is accepted when its coarse timestamp is at least
 * underflow_margin cycles ahead of the counter (else underflow, not written);
 * it goes into the current lane while coarse timestamps strictly increase,
 * otherwise into the next lane, and if that lane cannot take it either it is a
 * sequence error (discarded, counted, logged).
 */
#include <stdio.h>

#include "pl/rtio_analyzer.h"
#include "pl/rtio_sed.h"

static bool lane_full(const struct vb_rtio *r, const struct rtio_lane *l) { return l->count >= r->p.fifo_depth; }

void rtio_lane_push(struct vb_rtio *r, struct rtio_lane *l, const struct rtio_event *ev)
{
	/* a push changes the earliest head only when it fills an empty lane (ties go to the lower index) */
	if (r->early_ok && l->count == 0) {
		int li = (int)(l - r->lane);
		const struct rtio_lane *e = r->early >= 0 ? &r->lane[r->early] : NULL;
		if (!e || ev->ts < e->q[e->head].ts || (ev->ts == e->q[e->head].ts && li < r->early)) {
			r->early = li;
			r->early_ps = rtio_emit_ps(r, ev->ts);
		}
	}
	l->q[rtio_wrap(l->head + l->count, r->p.fifo_depth)] = *ev;
	if (l->count++ == 0)
		r->lane_mask |= 1u << (l - r->lane);
	l->last_coarse = rtio_coarse(r, ev->ts);
	r->written++;
}

/* The lane an event goes to: current while strictly increasing, else the next; -1 = sequence error. */
static int choose_lane(struct vb_rtio *r, int64_t c)
{
	unsigned l = r->cur_lane;
	if (c > r->lane[l].last_coarse)
		return (int)l;
	l = (l + 1) % r->p.lanes;
	return c > r->lane[l].last_coarse ? (int)l : -1;
}

bool rtio_behind_margin(const struct vb_rtio *r, int64_t ts, uint64_t t)
{
	return rtio_coarse(r, ts) < rtio_coarse(r, rtio_counter_at(r, t)) + (int64_t)r->p.underflow_margin;
}

void rtio_log_guest(const char *what, const struct rtio_event *ev, uint64_t n)
{
	if (n <= 3)   /* the core log: the first few of each kind, then only the counters */
		fprintf(stderr, "sgdma rtio: %s on channel %u at %lld mu (event discarded; %llu so far)\n", what,
			ev->chan, (long long)ev->ts, (unsigned long long)n);
}

/* Try to put the event into the SED; sets *lane_out when it must wait. */
static uint32_t sed_insert(struct vb_rtio *r, const struct rtio_event *ev, uint64_t t, unsigned *lane_out)
{
	int l;
	if (rtio_behind_margin(r, ev->ts, t))
		return RTIO_O_STATUS_UNDERFLOW;
	l = choose_lane(r, rtio_coarse(r, ev->ts));
	if (l < 0) {
		r->sequence_errors++;
		rtio_log_guest("sequence error", ev, r->sequence_errors);
		return 0;
	}
	r->cur_lane = (unsigned)l;
	if (lane_full(r, &r->lane[l])) {
		*lane_out = (unsigned)l;
		return RTIO_O_STATUS_WAIT;
	}
	rtio_lane_push(r, &r->lane[l], ev);
	return 0;
}

uint32_t rtio_cri_write(struct vb_rtio *r, enum rtio_src src, const struct rtio_event *ev, uint64_t t)
{
	unsigned lane = 0;
	uint32_t st;

	rtio_an_output(r, ev, t);
	if (ev->chan >= r->nchan) {
		/* no such channel on this board: the write goes nowhere (destination unreachable) */
		r->src_status[src] = RTIO_O_STATUS_UNREACHABLE;
		return RTIO_O_STATUS_UNREACHABLE;
	}
	st = sed_insert(r, ev, t, &lane);
	if (st == RTIO_O_STATUS_UNDERFLOW) {
		r->underflows++;
		rtio_an_exception(r, ev->chan, RTIO_EXC_O_UNDERFLOW, t + r->coarse_ps);
	} else if (st == RTIO_O_STATUS_WAIT) {
		r->pend = true;
		r->pend_src = src;
		r->pend_lane = lane;
		r->pend_ev = *ev;
		r->busy_waits++;
	}
	r->src_status[src] = st;
	return st;
}
