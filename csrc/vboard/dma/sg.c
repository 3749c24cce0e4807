/*
 * sg.c - the AXI DMA's scatter-gather engine: BD fetch and STATUS write-back.
 *
 * MM2S: BDs are fetched one at a time (one BD read in flight on the SG port)
 * into a queue of dma.sg_prefetch entries, up to the tail; the data mover
 * (mm2s.c) works through the queue; completed BDs get their STATUS written
 * back (SG port write) in order.  Simple mode puts its one command in the same
 * queue, so completion takes the same path.
 * S2MM: one BD at a time, the next one read while this one's data arrives;
 * the data mover (s2mm.c) fills the buffer, then STATUS is written back.
 *
 * Functional effects keep PG021's order: a BD's errors and completion are
 * acted on when it is the oldest BD in the queue, so CURDESC, STATUS and
 * DMASR read exactly as with a one-BD-at-a-time engine; only times differ.
 * The engine reports errors, packet completions, Idle and Halt to the channel
 * (channel.c) in a struct vb_report; it never calls the channel.
 *
 * Assumptions (PG021 is silent): one BD fetch in flight; a BD's data command
 * is ready PG021_LAT_SG_AR_TO_MM2S_AR clocks after its fetch data returns
 * (PG021: SG AR → data AR, excluding memory latency); STATUS is written after
 * the BD's last beat leaves the stream.
 */
#include <string.h>

#include "dma/sg.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* ==== MM2S: the BD queue ==================================================== */

static void fetch_start(struct vb_dma *d, struct vb_chan *c, uint64_t t)
{
	struct vb_mm2s *p = &c->mm2s;
	uint64_t done, first;

	if (c->first_after_kick)
		t += d->lat.tail_to_sg_ar;
	c->first_after_kick = false;
	if (c->probe.t_sg_ar == VB_NO_TIME)
		c->probe.t_sg_ar = t;
	/* The BD (52 bytes) comes back over the 32-bit SG port: 13 beats. */
	first = vb_ic_read(d->ic, t, c->next_bd, PG021_BD_HW_BYTES, &done);
	p->fetching = true;
	p->fetch_addr = c->next_bd;
	p->t_fetch_first = first;
	p->t_fetch_done = max64(done, first + d->lat.bd_beats);
	c->stats.bd_fetches++;
	vb_fetch_log_add(c, t, p->t_fetch_done);
}

static bool may_fetch(const struct vb_dma *d, const struct vb_chan *c)
{
	const struct vb_mm2s *p = &c->mm2s;
	return !p->fetching && !p->fetch_stop && p->count < d->prm->sg_prefetch;
}

/* The fetch's data is back: read the BD as the hardware sees it now. */
static void fetch_done(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r)
{
	struct vb_mm2s *p = &c->mm2s;
	struct vb_qbd *e = vb_qat(p, p->count);
	uint8_t *host;
	enum vb_access acc;

	p->fetching = false;
	if (c->stopping) {                   /* fetched after RS = 0: dropped */
		if (p->count == 0)
			r->ev |= VB_EV_HALT;
		return;
	}
	memset(e, 0, sizeof(*e));
	acc = vb_bd_load(d, p->fetch_addr, &e->bd);
	p->count++;
	e->addr = p->fetch_addr;
	e->t_cmd = p->t_fetch_first + d->lat.sg_ar_to_data_ar;
	e->t_first = e->t_last = e->t_wb = VB_NO_TIME;
	if (acc != VB_ACC_OK) {
		e->err_sr = vb_access_sg_bit(acc);
		p->fetch_stop = true;
		return;
	}
	e->buf = vb_bd_buffer(d, &e->bd);
	e->len = e->bd.control & d->len_mask;
	e->eof = (e->bd.control & PG021_BD_CTRL_TXEOF) != 0;
	if ((e->bd.status & PG021_BD_STS_CMPLT) && !c->cyclic)
		e->err_sr = PG021_SR_SGINTERR;
	else if (e->len == 0 || (!e->eof && e->len % d->data_bytes))
		e->err_sr = PG021_SR_DMAINTERR, e->err_bd = PG021_BD_STS_INTERR;
	else if ((acc = vb_dma_access(d->memory, e->buf, vb_keyhole(c) ? d->data_bytes : e->len, &host)) != VB_ACC_OK)
		e->err_sr = vb_access_sr_bit(acc), e->err_bd = vb_access_bd_bit(acc);
	else
		e->host = host, e->host_len = vb_keyhole(c) ? d->data_bytes : e->len;
	c->next_bd = vb_bd_next(d, &e->bd);
	if (e->err_sr || (!c->cyclic && e->addr == c->taildesc) || c->stopping)
		p->fetch_stop = true;
	if (may_fetch(d, c))
		fetch_start(d, c, t);
}

static uint64_t head_time(struct vb_chan *c)
{
	struct vb_mm2s *p = &c->mm2s;
	struct vb_qbd *e;
	if (!p->count)
		return VB_NO_TIME;
	e = vb_qat(p, 0);
	if (e->err_sr)
		return p->dm == 0 ? max64(e->t_cmd, p->stream_free) : VB_NO_TIME;
	if (e->stage == Q_STREAMED)
		return e->t_last;
	if (e->stage == Q_WRITEBACK)
		return e->t_wb;
	return VB_NO_TIME;
}

/* STATUS written (SG) or transfer done (simple): the BD leaves the queue. */
static void retire(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r)
{
	struct vb_mm2s *p = &c->mm2s;
	struct vb_qbd *e = vb_qat(p, 0);
	bool tail = !c->cyclic && e->addr == c->taildesc;

	if (vb_sg(d)) {
		enum vb_access acc = vb_bd_store_status(d, e->addr, PG021_BD_STS_CMPLT | (e->len & PG021_BD_LEN_MASK));
		if (acc != VB_ACC_OK) {
			vb_report_sg_error(r, vb_access_sg_bit(acc));
			memset(p, 0, sizeof(*p));
			return;
		}
		c->stats.bd_writebacks++;
	}
	if (e->eof)
		vb_report_packet_done(r, t);
	p->head = (p->head + 1) % VB_QDEPTH;
	p->count--;
	p->dm--;
	if (!vb_sg(d) || (tail && p->count == 0)) {
		r->ev |= VB_EV_IDLE;
		return;
	}
	if (c->stopping && p->count == 0 && !p->fetching) {
		r->ev |= VB_EV_HALT;
		return;
	}
	if (may_fetch(d, c))
		fetch_start(d, c, t);
}

static void head_step(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r)
{
	struct vb_mm2s *p = &c->mm2s;
	struct vb_qbd *e = vb_qat(p, 0);

	c->curdesc = e->addr;
	if (e->err_sr) {
		vb_report_data_error(r, e->addr, e->err_sr, e->err_bd, 0);
		memset(p, 0, sizeof(*p));
		return;
	}
	if (e->stage == Q_STREAMED) {
		if (!p->pkt_open) {
			p->pkt_open = true;
			p->pkt_first = e->t_first;
			r->ev |= VB_EV_PACKET_BEGINS;
		}
		vb_mm2s_emit(d, c, e, p->pkt_first);
		if (e->eof)
			p->pkt_open = false;
		if (!vb_sg(d)) {
			retire(d, c, t, r);
			return;
		}
		e->stage = Q_WRITEBACK;
		e->t_wb = vb_ic_write(d->ic, t, e->addr + PG021_BD_STATUS, 4);
		return;
	}
	retire(d, c, t, r);
}

/* Each unit's next action, clamped so that nothing happens before the last
 * action taken (a BD fetched late may have been ready "in the past"). */
static uint64_t floor_at(const struct vb_mm2s *p, uint64_t t)
{
	return t == VB_NO_TIME ? t : max64(t, p->t_floor);
}

static uint64_t head_event(struct vb_chan *c) { return floor_at(&c->mm2s, head_time(c)); }

/* The unit whose action is next; on a tie the head goes first, then the
 * fetch, then the data mover (the order the hardware's effects take). */
enum { UNIT_HEAD, UNIT_FETCH, UNIT_DM };

uint64_t vb_sg_mm2s_find_next(const struct vb_dma *d, struct vb_chan *c)
{
	struct vb_mm2s *p = &c->mm2s;
	uint64_t t, dm;
	uint8_t unit = UNIT_HEAD;

	/* the data mover's time changes only with its BD, its bursts or a new BD
	 * in the queue: recomputed after those, reused after the other units' steps */
	if (!p->dm_valid) {
		p->t_dm = vb_mm2s_dm_time(d, c);
		p->dm_valid = true;
	}
	t = head_event(c);
	dm = floor_at(p, p->t_dm);
	if (p->fetching && floor_at(p, p->t_fetch_done) < t)
		t = floor_at(p, p->t_fetch_done), unit = UNIT_FETCH;
	if (dm < t)
		t = dm, unit = UNIT_DM;
	p->t_next = t;
	p->next_unit = unit;
	p->next_valid = true;
	return p->t_next;
}

void vb_sg_mm2s_step(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r)
{
	struct vb_mm2s *p = &c->mm2s;

	/* the cached next event says which unit acts (the channel asked for it) */
	if (vb_sg_mm2s_next_event(d, c) != t)
		return;
	p->next_valid = false;
	p->t_floor = t;
	switch (p->next_unit) {
	case UNIT_HEAD:
		head_step(d, c, t, r);
		break;
	case UNIT_FETCH: {
		unsigned n = p->count;
		fetch_done(d, c, t, r);
		if (p->count != n && p->dm == n)   /* the data mover's next BD arrived */
			p->dm_valid = false;
		break;
	}
	default:
		vb_mm2s_issue_burst(d, c, t);
		p->dm_valid = false;
		break;
	}
}

/* A tail write while the engine waits: fetch from next_bd. */
void vb_sg_mm2s_kick(struct vb_dma *d, struct vb_chan *c)
{
	struct vb_mm2s *p = &c->mm2s;
	memset(p, 0, sizeof(*p));
	p->stream_free = p->ar_free = p->t_floor = d->sched->now;
	c->first_after_kick = true;
	fetch_start(d, c, d->sched->now);
}

/* The tail moved while busy: resume fetching if the old tail stopped it. */
void vb_sg_mm2s_tail_moved(struct vb_dma *d, struct vb_chan *c)
{
	struct vb_mm2s *p = &c->mm2s;
	p->next_valid = false;
	if (p->fetch_stop && p->count && !vb_qat(p, p->count - 1)->err_sr &&
	    vb_qat(p, p->count - 1)->addr != c->taildesc) {
		p->fetch_stop = false;
		if (may_fetch(d, c))
			fetch_start(d, c, d->sched->now);
	}
}

/* RS cleared while busy: the BD whose data is under way completes; BDs only
 * prefetched are dropped (a restart fetches them again), nothing more is
 * fetched. */
void vb_sg_mm2s_stop(struct vb_dma *d, struct vb_chan *c, struct vb_report *r)
{
	struct vb_mm2s *p = &c->mm2s;
	unsigned keep = 0;
	(void)d;
	p->next_valid = p->dm_valid = false;
	while (keep < p->count && (keep < p->dm || vb_qat(p, keep)->issued))
		keep++;
	if (keep < p->count)
		c->next_bd = vb_qat(p, keep)->addr;
	else if (p->fetching)
		c->next_bd = p->fetch_addr;
	p->count = keep;
	p->fetch_stop = true;
	/* A BD read in flight still completes on the bus (fetch_done drops it). */
	if (p->count == 0 && !p->fetching)
		r->ev |= VB_EV_HALT;
}

/* A packet's data is on its way at time t (the delay timer must not run). */
bool vb_sg_mm2s_packet_active(const struct vb_chan *c, uint64_t t)
{
	const struct vb_mm2s *p = &c->mm2s;
	for (unsigned i = 0; i < p->count; i++) {
		const struct vb_qbd *e = &p->q[(p->head + i) % VB_QDEPTH];
		if (e->issued && e->t_first <= t)
			return true;
	}
	return false;
}

uint64_t vb_sg_mm2s_abort(struct vb_chan *c)
{
	uint64_t end = c->mm2s.fetching ? c->mm2s.t_fetch_done : 0;
	if (c->mm2s.stream_free > end)
		end = c->mm2s.stream_free;
	memset(&c->mm2s, 0, sizeof(c->mm2s));
	return end;
}

/* Simple mode: one transfer of LENGTH bytes from SA, as a one-entry queue. */
void vb_sg_mm2s_simple(struct vb_dma *d, struct vb_chan *c)
{
	struct vb_mm2s *p = &c->mm2s;
	struct vb_qbd *e;
	uint8_t *host;
	enum vb_access acc;

	memset(p, 0, sizeof(*p));
	p->stream_free = p->ar_free = p->t_floor = d->sched->now;
	p->fetch_stop = true;
	e = vb_qat(p, 0);
	p->count = 1;
	e->addr = 0;
	e->buf = c->addr;
	e->len = c->length;
	e->eof = true;
	e->t_cmd = d->sched->now + d->lat.tail_to_sg_ar;
	e->t_first = e->t_last = e->t_wb = VB_NO_TIME;
	acc = vb_dma_access(d->memory, e->buf, vb_keyhole(c) ? d->data_bytes : e->len, &host);
	if (acc != VB_ACC_OK)
		e->err_sr = vb_access_sr_bit(acc), e->err_bd = vb_access_bd_bit(acc);
	else
		e->host = host, e->host_len = vb_keyhole(c) ? d->data_bytes : e->len;
}

/* ==== S2MM: one BD at a time, the next one read ahead ======================== */

/* BD fetch issued at t: tail write → SG AR (first BD of a run only), the read
 * through the interconnect and DRAM, 13 beats on the 32-bit SG port, then
 * PG021's SG AR → data AR processing. */
static uint64_t phase_fetch(struct vb_dma *d, struct vb_chan *c, uint64_t t)
{
	uint64_t done, first;
	if (c->first_after_kick)
		t += d->lat.tail_to_sg_ar;
	if (c->probe.t_sg_ar == VB_NO_TIME)
		c->probe.t_sg_ar = t;
	first = vb_ic_read(d->ic, t, c->curdesc, PG021_BD_HW_BYTES, &done);
	done = done > first + d->lat.bd_beats ? done
		: first + d->lat.bd_beats;
	return (done > first + d->lat.sg_ar_to_data_ar ? done
		: first + d->lat.sg_ar_to_data_ar) - t;
}

void vb_sg_s2mm_fetch(struct vb_dma *d, struct vb_chan *c, uint64_t t)
{
	c->phase = PH_FETCH;
	c->curdesc = c->next_bd;
	if (c->pf_valid && c->pf_addr == c->next_bd) {
		/* read ahead while the previous BD's data moved: no new latency */
		c->t_next = c->pf_done > t ? c->pf_done : t;
		c->pf_valid = false;
		c->pf_used = true;
		return;
	}
	c->pf_valid = false;
	c->t_next = t + phase_fetch(d, c, t);
}

/* Read the next BD while this one's data arrives (one BD ahead, like the
 * MM2S queue), unless this BD is the tail or the channel is stopping; the
 * BD's contents are taken when it is used, the time of the read now. */
static void prefetch(struct vb_dma *d, struct vb_chan *c, uint64_t t)
{
	uint64_t next = vb_bd_next(d, &c->bd), done, first, ready;

	c->pf_valid = false;
	if ((!c->cyclic && c->bd_addr == c->taildesc) || c->stopping)
		return;
	first = vb_ic_read(d->ic, t, next, PG021_BD_HW_BYTES, &done);
	ready = first + d->lat.sg_ar_to_data_ar;
	c->pf_addr = next;
	c->pf_done = done > ready ? done : ready;
	c->pf_valid = true;
	c->stats.bd_fetches++;
}

/* Let the data mover work; a full buffer has its STATUS written back. */
static void data_step(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r)
{
	if (vb_s2mm_step(d, c, t, r) != VB_S2MM_FULL)
		return;
	c->phase = PH_WRITEBACK;
	c->t_next = vb_ic_write(d->ic, t, c->bd_addr + PG021_BD_STATUS, 4);
}

static void fetch_done_s2mm(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r)
{
	enum vb_access acc = vb_bd_load(d, c->curdesc, &c->bd);

	c->first_after_kick = false;
	if (!c->pf_used)
		c->stats.bd_fetches++;
	c->pf_used = false;
	if (acc != VB_ACC_OK) {
		vb_report_sg_error(r, vb_access_sg_bit(acc));
		return;
	}
	c->bd_addr = c->curdesc;
	if ((c->bd.status & PG021_BD_STS_CMPLT) && !c->cyclic) {
		vb_report_sg_error(r, PG021_SR_SGINTERR);
		return;
	}
	/* Only length_width bits of CONTROL exist in the hardware. */
	c->bd_len = c->bd.control & d->len_mask;
	c->filled = 0;
	c->bd_eof = false;
	if (c->bd_len == 0) {
		vb_report_data_error(r, c->bd_addr, PG021_SR_DMAINTERR, PG021_BD_STS_INTERR, 0);
		return;
	}
	c->packet_sof = !c->in_packet;
	prefetch(d, c, t);
	data_step(d, c, t, r);
}

static void writeback_done(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r)
{
	uint32_t status = PG021_BD_STS_CMPLT | (c->filled & PG021_BD_LEN_MASK);
	bool eof = c->bd_eof;
	enum vb_access acc;

	status |= (c->packet_sof ? PG021_BD_STS_RXSOF : 0) | (eof ? PG021_BD_STS_RXEOF : 0);
	c->in_packet = !eof;
	acc = vb_bd_store_status(d, c->bd_addr, status);
	if (acc != VB_ACC_OK) {
		vb_report_sg_error(r, vb_access_sg_bit(acc));
		return;
	}
	c->bd.status = status;
	c->stats.bd_writebacks++;
	if (eof)
		vb_report_packet_done(r, t);

	c->next_bd = vb_bd_next(d, &c->bd);
	if (!c->cyclic && c->bd_addr == c->taildesc) {
		r->ev |= VB_EV_IDLE;
		return;
	}
	if (c->stopping) {
		r->ev |= VB_EV_HALT;
		return;
	}
	vb_sg_s2mm_fetch(d, c, t);
}

void vb_sg_s2mm_step(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r)
{
	switch (c->phase) {
	case PH_FETCH:
		fetch_done_s2mm(d, c, t, r);
		break;
	case PH_DATA:
	case PH_STREAM_WAIT:
		data_step(d, c, t, r);
		break;
	case PH_WRITEBACK:
		writeback_done(d, c, t, r);
		break;
	default:
		c->t_next = VB_NO_TIME;
		break;
	}
}
