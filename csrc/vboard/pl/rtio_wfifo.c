/*
 * rtio_wfifo.c - the credit write FIFO (the seed's proposed future work,
 * [artiq-rtio.md sec. 5.3]): the CPU posts events (target, timestamp, data)
 * into wfifo_depth entries in the PL without waiting for status; the gateware
 * drains them into the CRI, one write per cri_write_cycles, stalling on
 * o_status.wait.  WF_SPACE answers the free entries, a lower bound of what the
 * CPU may post.  An underflow is latched (first channel/timestamp) and read by
 * the CPU later, as DRTIO reports its errors asynchronously.
 */
#include <stdio.h>

#include "pl/rtio_sed.h"
#include "pl/rtio_wfifo.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

void rtio_wf_write(struct vb_rtio *r, uint32_t off, uint32_t v, uint64_t t)
{
	struct rtio_wfifo *w = &r->wf;
	switch (off) {
	case RTIO_R_WF_TARGET:
		w->stage.chan = v >> 8;
		w->stage.addr = (uint8_t)v;
		return;
	case RTIO_R_WF_TS_HI: w->stage.ts = (int64_t)(((uint64_t)w->stage.ts & 0xFFFFFFFFull) | (uint64_t)v << 32); return;
	case RTIO_R_WF_TS_LO: w->stage.ts = (int64_t)(((uint64_t)w->stage.ts & ~0xFFFFFFFFull) | v); return;
	case RTIO_R_WF_DATA:
		w->stage.data[0] = v;
		w->stage.nwords = 1;
		if (w->n >= r->p.wfifo_depth) {
			w->overruns++;   /* the CPU posted beyond its credit: the event is lost */
			if (w->overruns <= 3)
				fprintf(stderr, "sgdma rtio: credit FIFO full, event on channel %u at %lld mu lost\n",
					w->stage.chan, (long long)w->stage.ts);
			return;
		}
		if (w->n == 0)
			w->t_free = max64(w->t_free, rtio_next_edge(r, t));
		w->q[(w->head + w->n) % r->p.wfifo_depth] = w->stage;
		w->n++;
		return;
	case RTIO_R_WF_ERROR:
		w->error = 0;
		return;
	default:
		fprintf(stderr, "sgdma rtio: write to read-only credit FIFO CSR 0x%x ignored\n", off);
	}
}

uint32_t rtio_wf_read(struct vb_rtio *r, uint32_t off)
{
	struct rtio_wfifo *w = &r->wf;
	switch (off) {
	case RTIO_R_WF_SPACE: return r->p.wfifo_depth - w->n;
	case RTIO_R_WF_ERROR: return w->error;
	case RTIO_R_WF_ERROR_CHANNEL: return w->err_chan;
	case RTIO_R_WF_ERROR_TS_HI: return (uint32_t)((uint64_t)w->err_ts >> 32);
	case RTIO_R_WF_ERROR_TS_LO: return (uint32_t)w->err_ts;
	default: return 0;
	}
}

uint64_t rtio_wf_next(struct vb_rtio *r)
{
	const struct rtio_wfifo *w = &r->wf;
	return (w->n && !w->waiting) ? w->t_free : VB_NO_TIME;
}

static void latch(struct vb_rtio *r, uint32_t st, const struct rtio_event *ev)
{
	if (st && !r->wf.error) {
		r->wf.error = st;
		r->wf.err_chan = ev->chan;
		r->wf.err_ts = (uint64_t)ev->ts;
	}
}

void rtio_wf_resume(struct vb_rtio *r, uint32_t st, uint64_t t)
{
	r->wf.waiting = false;
	r->wf.t_free = max64(r->wf.t_free, rtio_next_edge(r, t) + rtio_ps_of_cycles(r, 1));
	latch(r, st, &r->pend_ev);
}

void rtio_wf_step(struct vb_rtio *r, uint64_t t)
{
	struct rtio_wfifo *w = &r->wf;
	while (w->n && !w->waiting && w->t_free <= t) {
		struct rtio_event ev = w->q[w->head];
		uint32_t st;
		w->head = (w->head + 1) % r->p.wfifo_depth;
		w->n--;
		w->t_free = t + rtio_ps_of_cycles(r, r->p.cri_write_cycles);
		st = rtio_cri_write(r, RTIO_SRC_WF, &ev, t);
		if (st == RTIO_O_STATUS_WAIT)
			w->waiting = true;
		else
			latch(r, st, &ev);
	}
}
