/*
 * rtio.c - the RTIO event core's top: output edges, the CSR window, the device
 * ops that time the whole subsystem, and its creation.  The SED lanes and the
 * CRI are rtio_sed.c, the clock arithmetic inlines in rtio_types.h.  [artiq-rtio.md sec. 1]
 *
 * A full lane holds the write (o_status.wait) until the lane's oldest event has
 * gone out.  Two outputs on one channel in one coarse cycle are a collision
 * (the later is discarded).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "pl/rtio.h"
#include "pl/rtio_acpki.h"
#include "pl/rtio_analyzer.h"
#include "pl/rtio_dma.h"
#include "pl/rtio_input.h"
#include "pl/rtio_sed.h"
#include "pl/rtio_wfifo.h"

static void resume(struct vb_rtio *r, enum rtio_src src, uint32_t st, uint64_t t)
{
	r->src_status[src] = st;
	switch (src) {
	case RTIO_SRC_DMA: rtio_dma_resume(r, st, t); break;
	case RTIO_SRC_ACP: rtio_acp_resume(r, st, t); break;
	case RTIO_SRC_WF: rtio_wf_resume(r, st, t); break;
	default: break;   /* the CSR initiator polls o_status */
	}
}

/* ---- outputs ---------------------------------------------------------------- */

static void log_edge(struct vb_rtio *r, const struct rtio_event *ev)
{
	if (!r->log_on)
		return;
	if (r->n_log == r->cap_log) {
		/* the four columns grow to the same capacity; an edge the host cannot keep is not logged */
		size_t c1 = r->cap_log, c2 = r->cap_log, c3 = r->cap_log, c4 = r->cap_log;
		if (!vb_grow_into(&r->log_t, &c1, r->n_log + 1, sizeof(*r->log_t)) ||
		    !vb_grow_into(&r->log_ch, &c2, r->n_log + 1, sizeof(*r->log_ch)) ||
		    !vb_grow_into(&r->log_addr, &c3, r->n_log + 1, sizeof(*r->log_addr)) ||
		    !vb_grow_into(&r->log_data, &c4, r->n_log + 1, sizeof(*r->log_data)))
			return;
		r->cap_log = c1;
	}
	r->log_t[r->n_log] = ev->ts;
	r->log_ch[r->n_log] = ev->chan;
	r->log_addr[r->n_log] = ev->addr;
	r->log_data[r->n_log] = ev->data[0];
	r->n_log++;
}

/* The lane whose oldest event goes out first. */
static int scan_earliest(const struct vb_rtio *r)
{
	int best = -1;
	/* the non-empty lanes in index order (ties go to the lower index) */
	for (uint32_t m = r->lane_mask; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);
		const struct rtio_lane *l = &r->lane[i];
		if (best < 0 || l->q[l->head].ts < r->lane[best].q[r->lane[best].head].ts)
			best = (int)i;
	}
	return best;
}

static int earliest_lane(struct vb_rtio *r)
{
	if (r->fast && r->early_ok)
		return r->early;
	r->early = scan_earliest(r);
	r->early_ok = true;
	if (r->early >= 0)
		r->early_ps = rtio_emit_ps(r, r->lane[r->early].q[r->lane[r->early].head].ts);
	return r->early;
}

static void emit(struct vb_rtio *r, unsigned li, uint64_t t)
{
	struct rtio_lane *l = &r->lane[li];
	struct rtio_event *ev = &l->q[l->head];
	int64_t c = rtio_coarse(r, ev->ts);

	if (r->chan_last[ev->chan] == c) {
		r->collisions++;
		rtio_log_guest("collision", ev, r->collisions);
	} else {
		r->chan_last[ev->chan] = c;
		r->emitted++;
		log_edge(r, ev);
		if (ev->addr != RTIO_TTL_ADDR_LEVEL || r->in.loops)
			rtio_in_output(r, ev);   /* gates and loopback act when the event leaves */
	}
	l->head = rtio_wrap(l->head + 1, r->p.fifo_depth);
	if (--l->count == 0)
		r->lane_mask &= ~(1u << li);
	r->early_ok = false;
	if (r->pend && r->pend_lane == li) {
		/* the held write goes in now (or underflows, if it waited too long) */
		uint32_t st = rtio_behind_margin(r, r->pend_ev.ts, t) ? RTIO_O_STATUS_UNDERFLOW : 0;
		r->pend = false;
		if (st) {
			r->underflows++;
			rtio_an_exception(r, r->pend_ev.chan, RTIO_EXC_O_UNDERFLOW, t);
		} else {
			rtio_lane_push(r, l, &r->pend_ev);
		}
		resume(r, r->pend_src, st, t);
	}
}

static uint64_t core_next(struct vb_rtio *r)
{
	return earliest_lane(r) < 0 ? VB_NO_TIME : r->early_ps;
}

/* ---- CSR window ------------------------------------------------------------------ */

static uint32_t hi(uint64_t v) { return (uint32_t)(v >> 32); }
static uint32_t lo(uint64_t v) { return (uint32_t)v; }
static uint64_t set_hi(uint64_t v, uint32_t x) { return (v & 0xFFFFFFFFull) | ((uint64_t)x << 32); }
static uint64_t set_lo(uint64_t v, uint32_t x) { return (v & ~0xFFFFFFFFull) | x; }

static bool is_odata(uint32_t off)
{
	return off >= RTIO_R_KI_O_DATA && off < RTIO_R_KI_O_DATA + 4 * RTIO_RECORD_MAX_WORDS;
}

/* Writing o_data word 0 issues the CRI write of target/now/o_data. */
static void ki_issue(struct vb_rtio *r, uint64_t t)
{
	struct rtio_event ev = { .ts = (int64_t)r->ki_now, .chan = r->ki_target >> 8,
				 .addr = (uint8_t)r->ki_target, .nwords = RTIO_RECORD_MAX_WORDS };
	memcpy(ev.data, r->ki_odata, sizeof(ev.data));
	if (r->cri_sel != 0) {
		fprintf(stderr, "sgdma rtio: kernel CRI write while the DMA owns the CRI (cri_con.selected = %u): "
			"ignored\n", r->cri_sel);
		return;
	}
	rtio_cri_write(r, RTIO_SRC_KI, &ev, t);
}

uint32_t rtio_reg_read(struct vb_rtio *r, uint32_t off, uint64_t t)
{
	r->nx_ok = false;
	switch (off) {
	case RTIO_R_KI_TARGET: return r->ki_target;
	case RTIO_R_KI_NOW_HI: return hi(r->ki_now);
	case RTIO_R_KI_NOW_LO: return lo(r->ki_now);
	case RTIO_R_KI_O_STATUS:
		return (r->pend && r->pend_src == RTIO_SRC_KI) ? RTIO_O_STATUS_WAIT : r->src_status[RTIO_SRC_KI];
	case RTIO_R_KI_I_TIMEOUT_HI: return hi(r->ki_i_timeout);
	case RTIO_R_KI_I_TIMEOUT_LO: return lo(r->ki_i_timeout);
	case RTIO_R_KI_I_STATUS: return r->in.busy ? RTIO_I_STATUS_WAIT_STATUS : r->in.status;
	case RTIO_R_KI_I_DATA: return r->in.data;
	case RTIO_R_KI_I_TIMESTAMP_HI: return hi((uint64_t)r->in.ts);
	case RTIO_R_KI_I_TIMESTAMP_LO: return lo((uint64_t)r->in.ts);
	case RTIO_R_KI_COUNTER_HI: return hi(r->counter);
	case RTIO_R_KI_COUNTER_LO: return lo(r->counter);
	case RTIO_R_CRI_SELECTED: return r->cri_sel;
	case RTIO_R_DMA_BASE_HI: return hi(r->dma.base);
	case RTIO_R_DMA_BASE_LO: return lo(r->dma.base);
	case RTIO_R_DMA_OFFSET_HI: return hi(r->dma.offset);
	case RTIO_R_DMA_OFFSET_LO: return lo(r->dma.offset);
	case RTIO_R_DMA_ENABLE: return r->dma.phase != DMA_IDLE;
	case RTIO_R_DMA_ERROR: return r->dma.error;
	case RTIO_R_DMA_ERROR_CHANNEL: return r->dma.err_chan;
	case RTIO_R_DMA_ERROR_TS_HI: return hi(r->dma.err_ts);
	case RTIO_R_DMA_ERROR_TS_LO: return lo(r->dma.err_ts);
	case RTIO_R_DMA_ERROR_ADDRESS: return r->dma.err_addr;
	case RTIO_R_DMA_BUS_ERROR: return r->dma.bus_error;
	case RTIO_R_AN_ENABLE: return r->an.enabled;
	case RTIO_R_AN_BUSY:   /* completions are retired lazily: busy while the newest write is unanswered */
		return r->an.fn || (r->an.on && r->an.out_done[(r->an.oh + r->an.on - 1) % RTIO_AN_OUT] > t);
	case RTIO_R_AN_OVERFLOW: return r->an.overflow;
	case RTIO_R_AN_BASE: return r->an.base;
	case RTIO_R_AN_LAST: return r->an.last;
	case RTIO_R_AN_BYTE_COUNT: return (uint32_t)r->an.byte_count;   /* 32-bit on Zynq (sec. 4.3) */
	case RTIO_R_AN_BUS_ERROR: return r->an.bus_error;
	case RTIO_R_ACP_IN_BASE: return r->acp.in_base;
	case RTIO_R_ACP_OUT_BASE: return r->acp.out_base;
	case RTIO_R_ACP_ENABLE: return r->acp.enable;
	default:
		if (is_odata(off))
			return r->ki_odata[(off - RTIO_R_KI_O_DATA) / 4];
		if (off >= RTIO_R_WF_TARGET && off <= RTIO_R_WF_ERROR_TS_LO)
			return rtio_wf_read(r, off);
		fprintf(stderr, "sgdma rtio: read of unmapped CSR offset 0x%x (reads 0)\n", off);
		return 0;
	}
}

void rtio_reg_write(struct vb_rtio *r, uint32_t off, uint32_t v, uint64_t t)
{
	r->nx_ok = false;
	switch (off) {
	case RTIO_R_KI_TARGET:
		r->ki_target = v;
		memset(r->ki_odata, 0, sizeof(r->ki_odata));   /* zero extension of short writes */
		return;
	case RTIO_R_KI_NOW_HI: r->ki_now = set_hi(r->ki_now, v); return;
	case RTIO_R_KI_NOW_LO: r->ki_now = set_lo(r->ki_now, v); return;
	case RTIO_R_KI_I_TIMEOUT_HI: r->ki_i_timeout = set_hi(r->ki_i_timeout, v); return;
	case RTIO_R_KI_I_TIMEOUT_LO:   /* the low word's write strobe issues the CRI read */
		r->ki_i_timeout = set_lo(r->ki_i_timeout, v);
		rtio_in_read(r, r->ki_target >> 8, (int64_t)r->ki_i_timeout, t);
		return;
	case RTIO_R_KI_COUNTER_UPDATE: r->counter = (uint64_t)rtio_counter_at(r, t); return;
	case RTIO_R_CRI_SELECTED: r->cri_sel = v & 1; return;
	case RTIO_R_DMA_BASE_HI: r->dma.base = set_hi(r->dma.base, v); return;
	case RTIO_R_DMA_BASE_LO: r->dma.base = set_lo(r->dma.base, v); return;
	case RTIO_R_DMA_OFFSET_HI: r->dma.offset = set_hi(r->dma.offset, v); return;
	case RTIO_R_DMA_OFFSET_LO: r->dma.offset = set_lo(r->dma.offset, v); return;
	case RTIO_R_DMA_ENABLE:
		if ((v & 1) && r->dma.phase == DMA_IDLE)
			rtio_dma_start(r, t);
		return;
	case RTIO_R_DMA_ERROR:
		r->dma.error = 0;   /* any write acknowledges */
		return;
	case RTIO_R_AN_ENABLE:
		if (r->an.enabled && !(v & 1))
			rtio_an_stop(r, t);
		r->an.enabled = v & 1;
		return;
	case RTIO_R_AN_OVERFLOW_RESET: r->an.overflow = false; return;
	case RTIO_R_AN_BASE: r->an.base = v; return;
	case RTIO_R_AN_LAST: r->an.last = v; return;
	case RTIO_R_AN_RESET: rtio_an_reset(r); return;
	case RTIO_R_ACP_IN_BASE: r->acp.in_base = v; return;
	case RTIO_R_ACP_OUT_BASE: r->acp.out_base = v; return;
	case RTIO_R_ACP_ENABLE: r->acp.enable = v & 1; return;
	case RTIO_R_ACP_EVENTO: rtio_acp_evento(r, t); return;
	default:
		if (is_odata(off)) {
			r->ki_odata[(off - RTIO_R_KI_O_DATA) / 4] = v;
			if (off == RTIO_R_KI_O_DATA)
				ki_issue(r, t);
			return;
		}
		if (off >= RTIO_R_WF_TARGET && off <= RTIO_R_WF_ERROR_TS_LO) {
			rtio_wf_write(r, off, v, t);
			return;
		}
		fprintf(stderr, "sgdma rtio: write of 0x%x to unmapped or read-only CSR offset 0x%x (ignored)\n", v,
			off);
	}
}

/* ---- device ops --------------------------------------------------------------------- */

static uint32_t ops_read(void *dev, uint64_t off)
{
	struct vb_rtio *r = dev;
	return rtio_reg_read(r, (uint32_t)off, r->sched->now);
}

static void ops_write(void *dev, uint64_t off, uint32_t v)
{
	struct vb_rtio *r = dev;
	rtio_reg_write(r, (uint32_t)off, v, r->sched->now);
}

static void ops_reset(void *dev)
{
	struct vb_rtio *r = dev;
	for (unsigned i = 0; i < r->p.lanes; i++) {
		r->lane[i].head = r->lane[i].count = 0;
		r->lane[i].last_coarse = INT64_MIN;
	}
	r->lane_mask = 0;
	for (unsigned c = 0; c < r->nchan; c++)
		r->chan_last[c] = INT64_MIN;
	r->cur_lane = 0;
	r->early_ok = r->nx_ok = false;
	r->pend = false;
	memset(r->src_status, 0, sizeof(r->src_status));
	r->written = r->emitted = r->underflows = r->sequence_errors = r->collisions = r->busy_waits = 0;
	r->n_log = 0;
	r->ki_target = 0;
	memset(r->ki_odata, 0, sizeof(r->ki_odata));
	r->ki_now = r->counter = r->ki_i_timeout = 0;
	rtio_in_reset(r);
	r->cri_sel = 0;
	r->wq_head = r->wq_n = 0;
	memset(&r->dma, 0, sizeof(r->dma));
	rtio_an_reset(r);
	r->an.enabled = false;
	r->an.base = r->an.last = 0;
	r->an.overflow = r->an.bus_error = false;
	memset(&r->acp, 0, sizeof(r->acp));
	r->wf.head = r->wf.n = 0;
	r->wf.t_free = 0;
	r->wf.waiting = false;
	r->wf.error = r->wf.err_chan = 0;
	r->wf.err_ts = r->wf.overruns = 0;
	memset(&r->k, 0, sizeof(r->k));
}

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Inputs have events only while a read is in flight or a pin has stimulus left. */
static uint64_t in_next(struct vb_rtio *r)
{
	return (r->in.busy || r->in.stim_pending) ? rtio_in_next(r) : VB_NO_TIME;
}

static uint64_t ops_next(void *dev)
{
	struct vb_rtio *r = dev;
	uint64_t t = core_next(r);
	if (r->wq_n)
		t = min64(t, r->wq[r->wq_head].t);
	r->nx_dma = rtio_dma_next(r);
	r->nx_an = rtio_an_next(r);
	r->nx_acp = rtio_acp_next(r);
	r->nx_wf = rtio_wf_next(r);
	r->nx_in = in_next(r);
	r->nx_ok = r->fast;
	t = min64(t, r->nx_in);
	t = min64(t, r->nx_dma);
	t = min64(t, r->nx_an);
	t = min64(t, r->nx_acp);
	return min64(t, r->nx_wf);
}

/* Everything due at t, in the order the hardware would see it within a cycle:
 * register stores arriving, outputs leaving, input pins and reads, then the engines.  An engine's
 * time from the ops_next just before is still good while nothing earlier in
 * this order has acted (`moved`); after that it is asked again, since an
 * emission can resume the DMA and a CRI write can queue an analyzer message. */
static void ops_step(void *dev, uint64_t t)
{
	struct vb_rtio *r = dev;
	bool moved = !r->nx_ok;
	int li;

	r->nx_ok = false;
	while (r->wq_n && r->wq[r->wq_head].t <= t) {
		uint32_t off = r->wq[r->wq_head].off, v = r->wq[r->wq_head].v;
		uint64_t ta = r->wq[r->wq_head].t;
		r->wq_head = (r->wq_head + 1) % RTIO_WQ;
		r->wq_n--;
		rtio_reg_write(r, off, v, ta);
		moved = true;
	}
	while ((li = earliest_lane(r)) >= 0 && r->early_ps <= t) {
		emit(r, (unsigned)li, t);
		moved = true;
	}
	if ((moved ? in_next(r) : r->nx_in) <= t) {   /* pins after the gates that left at t */
		rtio_in_step(r, t);
		moved = true;
	}
	if ((moved ? rtio_dma_next(r) : r->nx_dma) <= t) {
		rtio_dma_step(r, t);
		moved = true;
	}
	if ((moved ? rtio_acp_next(r) : r->nx_acp) <= t) {
		rtio_acp_step(r, t);
		moved = true;
	}
	if ((moved ? rtio_wf_next(r) : r->nx_wf) <= t) {
		rtio_wf_step(r, t);
		moved = true;
	}
	if ((moved ? rtio_an_next(r) : r->nx_an) <= t)
		rtio_an_step(r, t);
}

const struct vb_device_ops vb_rtio_ops = {
	.name = "rtio",
	.read = ops_read,
	.write = ops_write,
	.reset = ops_reset,
};

const struct vb_timed_ops vb_rtio_timed = {
	.next_event = ops_next,
	.step = ops_step,
};

struct vb_rtio *vb_rtio_new(struct vb_sched *sched, struct vb_ic *ic, struct vb_memory *memory,
			    const struct vb_rtio_params *p)
{
	struct vb_rtio *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->sched = sched;
	r->ic = ic;
	r->memory = memory;
	r->p = *p;
	r->coarse_ps = (uint64_t)(1e6 / p->clock_mhz + 0.5);
	r->mu_ps = (double)r->coarse_ps / (double)(1u << p->fine_bits);
	r->nchan = p->ttl_channels + p->wide_channels;
	r->chan_last = calloc(r->nchan, sizeof(*r->chan_last));
	r->an.fifo = calloc(p->analyzer_fifo, RTIO_MESSAGE_BYTES);
	r->wf.q = calloc(p->wfifo_depth, sizeof(*r->wf.q));
	r->log_on = true;
	r->fast = true;
	r->trace_align = p->runtime_softcore ? RTIO_TRACE_ALIGN_SOFTCORE : RTIO_TRACE_ALIGN_ZYNQ;
	if (!r->chan_last || !r->an.fifo || !r->wf.q || rtio_in_new(r) < 0)
		goto fail;
	for (unsigned i = 0; i < p->lanes; i++)
		if (!(r->lane[i].q = calloc(p->fifo_depth, sizeof(struct rtio_event))))
			goto fail;
	ops_reset(r);
	return r;
fail:
	vb_rtio_free(r);
	return NULL;
}

void vb_rtio_free(struct vb_rtio *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < RTIO_MAX_LANES; i++)
		free(r->lane[i].q);
	rtio_in_free(r);
	free(r->chan_last);
	free(r->an.fifo);
	free(r->wf.q);
	free(r->log_t);
	free(r->log_ch);
	free(r->log_addr);
	free(r->log_data);
	free(r);
}
