/*
 * mm2s.c - the AXI DMA's MM2S path as a timed pipeline (SG and simple mode).
 *
 * Three units work in parallel, as in the IP:
 *   SG engine    fetches BDs one at a time (one BD read in flight on the SG
 *                port) into a queue of dma.sg_prefetch entries, up to the tail
 *   data mover   turns the queued BDs into read bursts: at most max_burst beats,
 *                never across 4 KiB, one AR per clock, at most dma.outstanding
 *                bursts in flight, and only while its FIFO (dma.fifo_bytes)
 *                has room for the burst's data
 *   stream       one beat per clock from the FIFO, unless the consumer
 *                back-pressures (stream.consumer_rate, consumer_fifo_beats)
 * Completed BDs get their STATUS written back (SG port write) in order.
 *
 * Functional effects keep PG021's order: a BD's errors and completion are
 * acted on when it is the oldest BD in the queue, so CURDESC, STATUS and
 * DMASR read exactly as with a one-BD-at-a-time engine; only times differ.
 * Every memory access goes through the interconnect (ic.*) to the DRAM model
 * (dram.c) at the time it is issued, so the DRAM sees requests in time order.
 *
 * Assumptions (PG021 is silent): one BD fetch in flight; a BD's data command
 * is ready PG021_LAT_SG_AR_TO_MM2S_AR clocks after its fetch data returns
 * (PG021: SG AR → data AR, excluding memory latency); STATUS is written after
 * the BD's last beat leaves the stream.
 */
#include <string.h>

#include "internal.h"

enum { Q_FETCHED, Q_STREAMED, Q_WRITEBACK };

static struct vb_qbd *qat(struct vb_mm2s *p, unsigned i) { return &p->q[(p->head + i) % VB_QDEPTH]; }
static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* ---- SG engine ------------------------------------------------------------ */

static void fetch_start(vb_board *b, struct vb_chan *c, uint64_t t)
{
	struct vb_mm2s *p = &c->mm2s;
	uint64_t done, first;

	if (c->first_after_kick)
		t += vb_clocks(b, PG021_LAT_TAIL_TO_SG_AR);
	c->first_after_kick = false;
	if (c->probe.t_sg_ar == VB_NO_TIME)
		c->probe.t_sg_ar = t;
	/* The BD (52 bytes) comes back over the 32-bit SG port: 13 beats. */
	first = vb_ic_read(b, t, c->next_bd, PG021_BD_HW_BYTES, &done);
	p->fetching = true;
	p->fetch_addr = c->next_bd;
	p->t_fetch_first = first;
	p->t_fetch_done = max64(done, first + vb_clocks(b, PG021_BD_HW_BYTES / 4 - 1));
	c->stats.bd_fetches++;
}

static bool may_fetch(const vb_board *b, const struct vb_chan *c)
{
	const struct vb_mm2s *p = &c->mm2s;
	return !p->fetching && !p->fetch_stop && p->count < b->cfg.sg_prefetch;
}

/* The fetch's data is back: read the BD as the hardware sees it now. */
static void fetch_done(vb_board *b, struct vb_chan *c, uint64_t t)
{
	struct vb_mm2s *p = &c->mm2s;
	struct vb_qbd *e = qat(p, p->count);
	uint8_t *host;
	enum vb_access acc = vb_dma_access(b, p->fetch_addr, PG021_BD_HW_BYTES, &host);

	p->fetching = false;
	if (c->stopping) {                   /* fetched after RS = 0: dropped */
		if (p->count == 0)
			vb_chan_halt(c);
		return;
	}
	memset(e, 0, sizeof(*e));
	p->count++;
	e->addr = p->fetch_addr;
	e->t_cmd = p->t_fetch_first + vb_clocks(b, PG021_LAT_SG_AR_TO_MM2S_AR);
	e->t_first = e->t_last = e->t_wb = VB_NO_TIME;
	if (acc != VB_ACC_OK) {
		e->err_sr = acc == VB_ACC_DECERR ? PG021_SR_SGDECERR : PG021_SR_SGSLVERR;
		p->fetch_stop = true;
		return;
	}
	memcpy(&e->bd, host, PG021_BD_HW_BYTES);
	e->buf = vb_bd_buffer(b, &e->bd);
	e->len = e->bd.control & b->len_mask;
	e->eof = (e->bd.control & PG021_BD_CTRL_TXEOF) != 0;
	if ((e->bd.status & PG021_BD_STS_CMPLT) && !c->cyclic)
		e->err_sr = PG021_SR_SGINTERR;
	else if (e->len == 0 || (!e->eof && e->len % b->data_bytes))
		e->err_sr = PG021_SR_DMAINTERR, e->err_bd = PG021_BD_STS_INTERR;
	else if ((acc = vb_dma_access(b, e->buf, (c->dmacr & PG021_CR_KEYHOLE) ? b->data_bytes : e->len,
				      &host)) != VB_ACC_OK)
		e->err_sr = vb_access_sr_bit(acc), e->err_bd = vb_access_bd_bit(acc);
	c->next_bd = vb_bd_next(b, &e->bd);
	if (e->err_sr || (!c->cyclic && e->addr == c->taildesc) || c->stopping)
		p->fetch_stop = true;
	if (may_fetch(b, c))
		fetch_start(b, c, t);
}

/* ---- data mover and stream -------------------------------------------------- */

/* When the stream has let out the first `bytes` bytes the data mover issued
 * (the remembered bursts' end_bytes increase: binary search). */
static uint64_t drained_by(const struct vb_mm2s *p, uint64_t bytes)
{
	unsigned lo = 0, hi = p->nb;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;
		if (p->bursts[(p->bh + mid) % VB_BURSTS].end_bytes >= bytes)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < p->nb ? p->bursts[(p->bh + lo) % VB_BURSTS].t_streamed : 0;
}

/* Earliest time the data mover may issue its next burst of `len` bytes. */
static uint64_t next_issue_time(const vb_board *b, const struct vb_chan *c, uint32_t len)
{
	const struct vb_mm2s *p = &c->mm2s;
	uint64_t t = p->ar_free;

	if (p->nb >= b->cfg.outstanding)       /* outstanding limit: wait for the oldest data */
		t = max64(t, p->bursts[(p->bh + p->nb - b->cfg.outstanding) % VB_BURSTS].t_arrived);
	if (p->issued + len > b->cfg.fifo_bytes) /* FIFO room for the whole burst */
		t = max64(t, drained_by(p, p->issued + len - b->cfg.fifo_bytes));
	return t;
}

static void remember_burst(struct vb_mm2s *p, uint64_t end_bytes, uint64_t arrived, uint64_t streamed)
{
	struct vb_burst *u;
	if (p->nb == VB_BURSTS) {                 /* keep the newest VB_BURSTS */
		p->bh = (p->bh + 1) % VB_BURSTS;
		p->nb--;
	}
	u = &p->bursts[(p->bh + p->nb) % VB_BURSTS];
	u->end_bytes = end_bytes;
	u->t_arrived = arrived;
	u->t_streamed = streamed;
	p->nb++;
}

/* Stream timing of n beats whose data is in the FIFO from `ready` on, at the
 * channel's clock, through a consumer that drains one beat per consumer_ps
 * from a FIFO of consumer_fifo beats (fluid approximation per burst).  Beats
 * leave on clock edges; the trace (trace.c) gets the first n - 1 back to back
 * and the last at its own edge: the model times a burst by its ends. */
static void stream_beats(vb_board *b, struct vb_mm2s *p, uint64_t ready, uint64_t data_done, uint32_t n,
			 bool gate_start, bool eof, uint64_t *first, uint64_t *last)
{
	uint64_t k0 = vb_edge_index(b, max64(ready, p->stream_free)), k_end = k0 + n - 1;
	uint64_t start = vb_edge_time(b, k0), end;

	if (vb_edge_index(b, data_done) > k_end)
		k_end = vb_edge_index(b, data_done);
	if (b->dac.enabled) {
		vb_dac_beats(b, start, vb_edge_time(b, k_end), n, gate_start, eof, first, last);
		p->stream_free = vb_edge_time(b, vb_edge_index(b, *last) + 1);
		return;
	}
	end = vb_edge_time(b, k_end);
	if (b->consumer_ps > vb_clocks(b, 1)) {
		uint64_t backlog = p->cons_free > start ? (p->cons_free - start) / b->consumer_ps : 0;
		if (backlog + n > b->cfg.consumer_fifo_beats) {
			uint64_t wait = (backlog + n - b->cfg.consumer_fifo_beats) * b->consumer_ps;
			if (vb_edge_index(b, start + wait) > k_end)
				k_end = vb_edge_index(b, start + wait), end = vb_edge_time(b, k_end);
		}
		p->cons_free = max64(p->cons_free, start) + n * b->consumer_ps;
	}
	for (uint32_t i = 0; i + 1 < n; i++)
		vb_trace_beat(b, vb_edge_time(b, k0 + i), false);
	vb_trace_beat(b, end, eof);
	*first = start;
	*last = end;
	p->stream_free = vb_edge_time(b, k_end + 1);
}

/* Issue one burst of the BD the data mover works on (its index is p->dm). */
static void issue_burst(vb_board *b, struct vb_chan *c, uint64_t t)
{
	struct vb_mm2s *p = &c->mm2s;
	struct vb_qbd *e = qat(p, p->dm);
	uint64_t addr = e->buf + ((c->dmacr & PG021_CR_KEYHOLE) ? 0 : e->issued);
	uint64_t burst_max = (uint64_t)b->cfg.max_burst * b->data_bytes;
	uint64_t to_4k = PG021_BOUNDARY_4K - (addr & (PG021_BOUNDARY_4K - 1));
	uint32_t len = (uint32_t)(e->len - e->issued), nbeats;
	uint64_t first, done, last_data, s_first, s_last;

	if (len > burst_max)
		len = (uint32_t)burst_max;
	if (len > to_4k)
		len = (uint32_t)to_4k;
	nbeats = (len + b->data_bytes - 1) / b->data_bytes;
	first = vb_ic_read(b, t, addr, len, &done);
	/* The data arrives spread over [first, done]: the last beat's data is
	 * complete one beat's share before `done` (a one-beat burst at `first`). */
	last_data = nbeats > 1 ? done - (done - first) / nbeats : first;
	stream_beats(b, p, first + vb_clocks(b, PG021_LAT_MM2S_AR_TO_TVALID),
		     last_data + vb_clocks(b, PG021_LAT_MM2S_AR_TO_TVALID), nbeats,
		     e->issued == 0 && !p->dm_in_packet, e->eof && e->issued + len == e->len, &s_first, &s_last);
	if (e->issued == 0)
		e->t_first = s_first;
	if (c->probe.t_data_ar == VB_NO_TIME) {
		c->probe.t_data_ar = t;
		c->probe.t_first_beat = s_first;
	}
	c->probe.t_last_beat = s_last;
	c->probe.bytes += len;
	e->issued += len;
	p->issued += len;
	p->ar_free = t + vb_clocks(b, 1);
	remember_burst(p, p->issued, done, s_last);
	c->stats.data_bursts++;
	if (e->issued == e->len) {
		p->dm_in_packet = !e->eof;
		e->t_last = s_last;
		e->stage = Q_STREAMED;
		p->dm++;
	}
}

/* The BD the data mover should work on, if it may start now or later. */
static struct vb_qbd *dm_entry(struct vb_mm2s *p)
{
	struct vb_qbd *e;
	if (p->dm >= p->count)
		return NULL;
	e = qat(p, p->dm);
	return e->err_sr ? NULL : e;      /* an errored BD stops the data mover */
}

static uint64_t dm_time(const vb_board *b, struct vb_chan *c)
{
	struct vb_qbd *e = dm_entry(&c->mm2s);
	uint64_t burst_max = (uint64_t)b->cfg.max_burst * b->data_bytes;
	uint64_t left;
	if (!e)
		return VB_NO_TIME;
	left = e->len - e->issued;
	return max64(e->t_cmd, next_issue_time(b, c, (uint32_t)(left < burst_max ? left : burst_max)));
}

/* ---- completion, in BD order -------------------------------------------------- */

static uint64_t head_time(struct vb_chan *c)
{
	struct vb_mm2s *p = &c->mm2s;
	struct vb_qbd *e;
	if (!p->count)
		return VB_NO_TIME;
	e = qat(p, 0);
	if (e->err_sr)
		return p->dm == 0 ? max64(e->t_cmd, p->stream_free) : VB_NO_TIME;
	if (e->stage == Q_STREAMED)
		return e->t_last;
	if (e->stage == Q_WRITEBACK)
		return e->t_wb;
	return VB_NO_TIME;
}

static void retire(vb_board *b, struct vb_chan *c, uint64_t t);

static void head_step(vb_board *b, struct vb_chan *c, uint64_t t)
{
	struct vb_mm2s *p = &c->mm2s;
	struct vb_qbd *e = qat(p, 0);

	c->curdesc = e->addr;
	if (e->err_sr) {
		vb_chan_data_error(b, c, e->addr, e->err_sr, e->err_bd, 0);
		memset(p, 0, sizeof(*p));
		return;
	}
	if (e->stage == Q_STREAMED) {
		if (!p->pkt_open) {
			p->pkt_open = true;
			p->pkt_first = e->t_first;
			vb_chan_packet_begins(c);
		}
		vb_mm2s_emit(b, c, e->buf, e->len, e->eof, p->pkt_first, e->t_last);
		if (e->eof)
			p->pkt_open = false;
		if (!vb_sg(b)) {
			retire(b, c, t);
			return;
		}
		e->stage = Q_WRITEBACK;
		e->t_wb = vb_ic_write(b, t, e->addr + PG021_BD_STATUS, 4);
		return;
	}
	retire(b, c, t);
}

/* STATUS written (SG) or transfer done (simple): the BD leaves the queue. */
static void retire(vb_board *b, struct vb_chan *c, uint64_t t)
{
	struct vb_mm2s *p = &c->mm2s;
	struct vb_qbd *e = qat(p, 0);
	bool tail = !c->cyclic && e->addr == c->taildesc;

	if (vb_sg(b)) {
		if (!vb_chan_write_status(b, c, e->addr, PG021_BD_STS_CMPLT | (e->len & PG021_BD_LEN_MASK))) {
			memset(p, 0, sizeof(*p));
			return;
		}
		c->stats.bd_writebacks++;
	}
	if (e->eof)
		vb_chan_irq_packet(b, c, t);
	p->head = (p->head + 1) % VB_QDEPTH;
	p->count--;
	p->dm--;
	if (!vb_sg(b) || (tail && p->count == 0)) {
		vb_chan_done(c);
		return;
	}
	if (c->stopping && p->count == 0 && !p->fetching) {
		vb_chan_halt(c);
		return;
	}
	if (may_fetch(b, c))
		fetch_start(b, c, t);
}

/* ---- entry points --------------------------------------------------------------- */

/* Each unit's next action, clamped so that nothing happens before the last
 * action taken (a BD fetched late may have been ready "in the past"). */
static uint64_t floor_at(const struct vb_mm2s *p, uint64_t t)
{
	return t == VB_NO_TIME ? t : max64(t, p->t_floor);
}

static uint64_t head_event(struct vb_chan *c) { return floor_at(&c->mm2s, head_time(c)); }
static uint64_t dm_event(const vb_board *b, struct vb_chan *c) { return floor_at(&c->mm2s, dm_time(b, c)); }

uint64_t vb_mm2s_next_event(const vb_board *b, struct vb_chan *c)
{
	struct vb_mm2s *p = &c->mm2s;
	uint64_t t, d;

	if (p->next_valid)
		return p->t_next;
	t = head_event(c);
	d = dm_event(b, c);
	if (p->fetching && floor_at(p, p->t_fetch_done) < t)
		t = floor_at(p, p->t_fetch_done);
	p->t_next = d < t ? d : t;
	p->next_valid = true;
	return p->t_next;
}

void vb_mm2s_step(vb_board *b, struct vb_chan *c, uint64_t t)
{
	struct vb_mm2s *p = &c->mm2s;

	p->next_valid = false;
	p->t_floor = t;

	if (head_event(c) == t) {
		head_step(b, c, t);
		return;
	}
	if (p->fetching && floor_at(p, p->t_fetch_done) == t) {
		fetch_done(b, c, t);
		return;
	}
	if (dm_event(b, c) == t)
		issue_burst(b, c, t);
}

/* A tail write while the engine waits: fetch from next_bd. */
void vb_mm2s_kick(vb_board *b, struct vb_chan *c)
{
	struct vb_mm2s *p = &c->mm2s;
	memset(p, 0, sizeof(*p));
	p->stream_free = p->ar_free = p->t_floor = b->now;
	c->first_after_kick = true;
	fetch_start(b, c, b->now);
}

/* The tail moved while busy: resume fetching if the old tail stopped it. */
void vb_mm2s_tail_moved(vb_board *b, struct vb_chan *c)
{
	struct vb_mm2s *p = &c->mm2s;
	p->next_valid = false;
	if (p->fetch_stop && p->count && !qat(p, p->count - 1)->err_sr && qat(p, p->count - 1)->addr != c->taildesc) {
		p->fetch_stop = false;
		if (may_fetch(b, c))
			fetch_start(b, c, b->now);
	}
}

/* RS cleared while busy: the BD whose data is under way completes; BDs only
 * prefetched are dropped (a restart fetches them again), nothing more is
 * fetched. */
void vb_mm2s_stop(vb_board *b, struct vb_chan *c)
{
	struct vb_mm2s *p = &c->mm2s;
	unsigned keep = 0;
	(void)b;
	p->next_valid = false;
	while (keep < p->count && (keep < p->dm || qat(p, keep)->issued))
		keep++;
	if (keep < p->count)
		c->next_bd = qat(p, keep)->addr;
	else if (p->fetching)
		c->next_bd = p->fetch_addr;
	p->count = keep;
	p->fetch_stop = true;
	/* A BD read in flight still completes on the bus (fetch_done drops it). */
	if (p->count == 0 && !p->fetching)
		vb_chan_halt(c);
}

/* A packet's data is on its way at time t (the delay timer must not run). */
bool vb_mm2s_packet_active(const struct vb_chan *c, uint64_t t)
{
	const struct vb_mm2s *p = &c->mm2s;
	for (unsigned i = 0; i < p->count; i++) {
		const struct vb_qbd *e = &p->q[(p->head + i) % VB_QDEPTH];
		if (e->issued && e->t_first <= t)
			return true;
	}
	return false;
}

/* Simple mode: one transfer of LENGTH bytes from SA, as a one-entry queue. */
void vb_mm2s_simple(vb_board *b, struct vb_chan *c)
{
	struct vb_mm2s *p = &c->mm2s;
	struct vb_qbd *e;
	uint8_t *host;
	enum vb_access acc;

	memset(p, 0, sizeof(*p));
	p->stream_free = p->ar_free = p->t_floor = b->now;
	p->fetch_stop = true;
	e = qat(p, 0);
	p->count = 1;
	e->addr = 0;
	e->buf = c->addr;
	e->len = c->length;
	e->eof = true;
	e->t_cmd = b->now + vb_clocks(b, PG021_LAT_TAIL_TO_SG_AR);
	e->t_first = e->t_last = e->t_wb = VB_NO_TIME;
	acc = vb_dma_access(b, e->buf, (c->dmacr & PG021_CR_KEYHOLE) ? b->data_bytes : e->len, &host);
	if (acc != VB_ACC_OK)
		e->err_sr = vb_access_sr_bit(acc), e->err_bd = vb_access_bd_bit(acc);
}

