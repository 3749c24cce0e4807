/*
 * functional.c - the functional fidelity's SG engine (dma.functional = 1).
 *
 * A tail write starts a run whose ring is walked in batches instead of BD
 * fetches, bursts and write-backs as timed events.  A batch walks every BD it
 * can at once: MM2S from next_bd up to the tail (or the first error), S2MM
 * as far as the stream's data available now reaches.  For each BD it makes
 * the checks, the data movement and the STATUS write-back that sg.c, mm2s.c
 * and s2mm.c make, in the same order and with the same outcome, so memory,
 * the BDs' STATUS words, the stream's packets and bytes, CURDESC and DMASR
 * read as after a timed run; only times differ.
 *
 * Time is a constant per beat (an assumption, the ideal engine): MM2S beats
 * leave one per DMA clock from PG021's tail -> SG AR -> data AR -> TVALID
 * pipeline latency on, with no memory latency; S2MM data is taken when it is
 * available and written at one beat per clock.  The batch's data, STATUS and
 * stream packets happen when it is walked; its interrupts (IOC, the delay
 * timer by the same threshold counter) and its end (Idle, an error and its
 * CURDESC) are reported to the channel when its last beat is over, one event
 * per batch.  A tail written meanwhile lets the next batch walk on.
 *
 * Runs the timed engine keeps: cyclic rings (they have no end to walk to),
 * streams paced or watched beat by beat (DAC, stream trace, a live consumer),
 * and simple mode.
 */
#include <string.h>

#include "dma/functional.h"
#include "dma/s2mm.h"
#include "mem/coherency.h"

bool vb_fun_eligible(const struct vb_dma *d, const struct vb_chan *c)
{
	if (!d->prm->functional || !vb_sg(d) || c->cyclic)
		return false;
	if (!vb_is_mm2s(c))
		return true;
	return !(d->tx.pace_on && *d->tx.pace_on) && !(d->tx.watch && *d->tx.watch) &&
	       !(d->tx.defer_on && *d->tx.defer_on);
}

void vb_fun_kick(struct vb_dma *d, struct vb_chan *c)
{
	memset(&c->mm2s, 0, sizeof(c->mm2s));   /* the timed queue stays empty (soft reset, delay timer) */
	c->fun = (struct vb_fun){ .on = true };
	c->phase = PH_DATA;
	c->t_next = d->sched->now + d->lat.tail_to_sg_ar;
	if (c->probe.t_sg_ar == VB_NO_TIME)
		c->probe.t_sg_ar = c->t_next;
}

static uint64_t beats_of(const struct vb_dma *d, uint64_t bytes)
{
	return (bytes + d->data_bytes - 1) / d->data_bytes;
}

/* What a DMA access found last on one 4 KiB page: the rest of the page answers the same way (DDR regions are
 * whole pages, so a page lies in one region; an injected fault on it makes the page lookup fail), so the next
 * BDs and small buffers on it need no lookup.  Kept for one batch (faults may be injected between events). */
struct page_hint {
	uint64_t lo, hi;          /* [lo, hi) checked OK, inside one page */
	uint8_t *host;            /* lo's host bytes */
};

static __attribute__((noinline)) enum vb_access access_page(struct vb_dma *d, struct page_hint *h, uint64_t addr,
								    uint64_t len, uint8_t **host)
{
	uint64_t end = (addr | (PG021_BOUNDARY_4K - 1)) + 1;

	if (end > addr && len <= end - addr && vb_dma_access(d->memory, addr, end - addr, host) == VB_ACC_OK) {
		*h = (struct page_hint){ addr, end, *host };
		return VB_ACC_OK;
	}
	return vb_dma_access(d->memory, addr, len, host);
}

static inline enum vb_access access_paged(struct vb_dma *d, struct page_hint *h, uint64_t addr, uint64_t len,
					  uint8_t **host)
{
	if (addr >= h->lo && addr < h->hi && len <= h->hi - addr) {
		*host = h->host + (addr - h->lo);
		return VB_ACC_OK;
	}
	return access_page(d, h, addr, len, host);
}

static void fail_data(struct vb_fun *f, uint64_t bd_addr, uint32_t sr, uint32_t bd_bit, uint32_t bytes)
{
	f->err = (struct vb_report_err){ VB_EV_DATA_ERROR, sr, bd_bit, bytes, bd_addr };
}

static void fail_sg(struct vb_fun *f, uint32_t sr)
{
	f->err = (struct vb_report_err){ .ev = VB_EV_SG_ERROR, .sr = sr };
}

static bool at_tail(const struct vb_chan *c, uint64_t bd_addr) { return bd_addr == c->taildesc; }

/* ---- MM2S: sg.c's fetch_done, head_step and retire, one BD after the other ---- */

/* One BD at addr whose first beat may leave at *beat; false: the walk stops (error or tail). */
static bool mm2s_bd(struct vb_dma *d, struct vb_chan *c, uint64_t addr, uint64_t *beat, struct page_hint hint[2])
{
	struct vb_fun *f = &c->fun;
	struct vb_qbd e;
	uint8_t *host, *bd_host;
	enum vb_access acc;
	uint32_t need, status;
	uint64_t n;

	c->curdesc = addr;
	c->stats.bd_fetches++;
	/* one lookup for the BD: its STATUS write-back lands inside the bytes it found */
	if ((acc = access_paged(d, &hint[0], addr, PG021_BD_HW_BYTES, &bd_host)) != VB_ACC_OK) {
		fail_data(f, addr, vb_access_sg_bit(acc), 0, 0);
		return false;
	}
	memcpy(&e.bd, bd_host, PG021_BD_HW_BYTES);
	e.buf = vb_bd_buffer(d, &e.bd);
	e.len = e.bd.control & d->len_mask;
	e.eof = (e.bd.control & PG021_BD_CTRL_TXEOF) != 0;
	if (e.bd.status & PG021_BD_STS_CMPLT) {
		fail_data(f, addr, PG021_SR_SGINTERR, 0, 0);
		return false;
	}
	if (e.len == 0 || (!e.eof && e.len % d->data_bytes)) {
		fail_data(f, addr, PG021_SR_DMAINTERR, PG021_BD_STS_INTERR, 0);
		return false;
	}
	need = vb_keyhole(c) ? d->data_bytes : e.len;
	if ((acc = access_paged(d, &hint[1], e.buf, need, &host)) != VB_ACC_OK) {
		fail_data(f, addr, vb_access_sr_bit(acc), vb_access_bd_bit(acc), 0);
		return false;
	}
	c->next_bd = vb_bd_next(d, &e.bd);
	e.host = host;
	e.host_len = need;
	n = beats_of(d, e.len);
	e.t_last = *beat + (n - 1) * d->lat.clock;
	if (!f->pkt_open) {
		f->pkt_open = f->began = true;
		f->pkt_first = *beat;
	}
	if (c->probe.t_first_beat == VB_NO_TIME)
		c->probe.t_first_beat = *beat;
	if (vb_keyhole(c) || !d->tx.bytes) {
		vb_mm2s_emit(d, c, &e, f->pkt_first);
	} else {                  /* mm2s.c's emit without the keyhole: the checked bytes go to the sinks */
		c->stats.bytes_moved += e.len;
		VB_COH_DMA(d->coh, e.buf, e.len, false, f->pkt_first);
		vb_stream_push(&d->tx, host, e.len, e.eof, f->pkt_first, e.t_last);
	}
	c->probe.bytes += e.len;
	c->stats.data_bursts += vb_dma_count_bursts(d, e.buf, e.len);
	*beat = e.t_last + d->lat.clock;
	if (e.eof)
		f->pkt_open = false;
	status = PG021_BD_STS_CMPLT | (e.len & PG021_BD_LEN_MASK);
	memcpy(bd_host + PG021_BD_STATUS, &status, 4);
	c->stats.bd_writebacks++;
	if (e.eof)
		f->packets++, f->began = false;
	if (at_tail(c, addr)) {
		f->done = true;
		return false;
	}
	return true;
}

/* Walk from next_bd at t; returns the batch's end (its last beat over). */
static uint64_t mm2s_walk(struct vb_dma *d, struct vb_chan *c, uint64_t t)
{
	uint64_t beat = t + d->lat.sg_ar_to_data_ar + d->lat.ar_to_tvalid, first = beat;
	struct page_hint hint[2] = { { 0 } };   /* BDs, buffers */

	if (c->probe.t_data_ar == VB_NO_TIME)
		c->probe.t_data_ar = t + d->lat.sg_ar_to_data_ar;
	while (mm2s_bd(d, c, c->next_bd, &beat, hint))
		;
	if (beat != first)
		c->probe.t_last_beat = beat - d->lat.clock;
	return beat;
}

/* ---- S2MM: sg.c's fetch_done_s2mm and writeback_done, s2mm.c's data step ---- */

enum walk { W_ON, W_STOP, W_WAIT };

/* Arm the BD at next_bd. */
static enum walk s2mm_arm(struct vb_dma *d, struct vb_chan *c)
{
	struct vb_fun *f = &c->fun;
	enum vb_access acc;

	c->curdesc = c->next_bd;
	c->stats.bd_fetches++;
	if ((acc = vb_bd_load(d, c->curdesc, &c->bd)) != VB_ACC_OK) {
		fail_sg(f, vb_access_sg_bit(acc));
		return W_STOP;
	}
	c->bd_addr = c->curdesc;
	if (c->bd.status & PG021_BD_STS_CMPLT) {
		fail_sg(f, PG021_SR_SGINTERR);
		return W_STOP;
	}
	c->bd_len = c->bd.control & d->len_mask;
	c->filled = 0;
	c->bd_eof = false;
	if (c->bd_len == 0) {
		fail_data(f, c->bd_addr, PG021_SR_DMAINTERR, PG021_BD_STS_INTERR, 0);
		return W_STOP;
	}
	c->packet_sof = !c->in_packet;
	f->have_bd = true;
	return W_ON;
}

/* The armed buffer is full or has TLAST: its STATUS is written back. */
static enum walk s2mm_complete(struct vb_dma *d, struct vb_chan *c)
{
	struct vb_fun *f = &c->fun;
	bool eof = c->bd_eof;
	enum vb_access acc;
	uint32_t status = PG021_BD_STS_CMPLT | (c->filled & PG021_BD_LEN_MASK);

	if (!eof && (c->filled % d->data_bytes || at_tail(c, c->bd_addr))) {
		/* full without TLAST: the packet continues, so the BD must be whole beats and not the last */
		fail_data(f, c->bd_addr, PG021_SR_DMAINTERR, PG021_BD_STS_INTERR, c->filled);
		return W_STOP;
	}
	status |= (c->packet_sof ? PG021_BD_STS_RXSOF : 0) | (eof ? PG021_BD_STS_RXEOF : 0);
	c->in_packet = !eof;
	f->have_bd = false;
	if ((acc = vb_bd_store_status(d, c->bd_addr, status)) != VB_ACC_OK) {
		fail_sg(f, vb_access_sg_bit(acc));
		return W_STOP;
	}
	c->bd.status = status;
	c->stats.bd_writebacks++;
	if (eof)
		f->packets++, f->began = false;
	c->next_bd = vb_bd_next(d, &c->bd);
	if (at_tail(c, c->bd_addr)) {
		f->done = true;
		return W_STOP;
	}
	return c->stopping ? W_STOP : W_ON;
}

/* Take what the stream has at t into the armed buffer; *beats counts what was written. */
static enum walk s2mm_fill(struct vb_dma *d, struct vb_chan *c, uint64_t t, uint64_t *beats, uint64_t *wait)
{
	struct vb_fun *f = &c->fun;
	uint64_t cap = c->bd_len - c->filled, addr, got;
	enum vb_access acc;
	bool last, began;

	*wait = d->rx.next_time(d->rx.dev, cap, t);
	if (*wait == VB_NO_TIME || *wait > t)
		return W_WAIT;
	if ((acc = vb_s2mm_take(d, c, t, cap, &addr, &got, &last, &began)) != VB_ACC_OK) {
		fail_data(f, c->bd_addr, vb_access_sr_bit(acc), vb_access_bd_bit(acc), c->filled);
		return W_STOP;
	}
	if (!got && !last) {        /* announced but nothing to take: look again a clock later */
		*wait = t + d->lat.clock;
		return W_WAIT;
	}
	f->began |= began;
	c->filled += (uint32_t)got;
	c->bd_eof = last;
	*beats += beats_of(d, got);
	return W_ON;
}

/* Walk at t as far as the stream's data goes; returns the batch's end, or VB_NO_TIME when it waits with
 * nothing done (*wait: when data may come). */
static uint64_t s2mm_walk(struct vb_dma *d, struct vb_chan *c, uint64_t t, uint64_t *wait)
{
	struct vb_fun *f = &c->fun;
	uint64_t beats = 0;
	bool moved = false;
	enum walk w = W_ON;

	while (w == W_ON) {
		if (!f->have_bd) {
			moved = true;
			w = s2mm_arm(d, c);
		} else if (c->bd_eof || c->filled == c->bd_len) {
			w = s2mm_complete(d, c);
		} else if ((w = s2mm_fill(d, c, t, &beats, wait)) != W_WAIT) {
			moved = true;
		}
	}
	if (w == W_WAIT && !moved && !f->packets)
		return VB_NO_TIME;
	if (beats)
		c->probe.t_last_beat = t + beats * d->lat.clock;
	return t + (beats ? beats : 1) * d->lat.clock;
}

/* ---- the run's events ------------------------------------------------------ */

/* The batch's end: what it did reaches the channel; whether the run goes on. */
static bool batch_end(struct vb_chan *c, uint64_t t, struct vb_report *r)
{
	struct vb_fun *f = &c->fun;

	if (f->began)
		r->ev |= VB_EV_PACKET_OPEN;
	if (f->packets) {
		vb_report_packet_done(r, t);
		r->packets = f->packets;
	}
	f->began = false;
	f->packets = 0;
	if (f->err.ev) {
		r->ev |= f->err.ev;
		r->sr = f->err.sr;
		r->bd_bit = f->err.bd_bit;
		r->bytes = f->err.bytes;
		r->bd_addr = f->err.bd_addr;
		f->err.ev = 0;
		return false;
	}
	if (f->done && at_tail(c, c->curdesc)) {   /* the tail did not move on since the walk */
		r->ev |= VB_EV_IDLE;
		return false;
	}
	f->done = false;
	if (c->stopping) {
		r->ev |= VB_EV_HALT;
		return false;
	}
	return true;
}

void vb_fun_step(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r)
{
	uint64_t end, wait = VB_NO_TIME;

	if (c->fun.batch) {
		c->fun.batch = false;
		if (!batch_end(c, t, r))
			return;
	}
	end = vb_is_mm2s(c) ? mm2s_walk(d, c, t) : s2mm_walk(d, c, t, &wait);
	if (end == VB_NO_TIME) {
		c->phase = PH_STREAM_WAIT;
		c->t_next = wait;
		if (c->stopping)
			r->ev |= VB_EV_HALT;
		return;
	}
	c->fun.batch = true;
	c->phase = PH_DATA;
	c->t_next = end;
}
