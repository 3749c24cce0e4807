/*
 * mm2s.c - the AXI DMA's MM2S data mover and its stream output.
 *
 * The SG engine (sg.c) queues BDs; the data mover turns the queued BDs into
 * read bursts: at most max_burst beats, never across 4 KiB, one AR per clock,
 * at most dma.outstanding bursts in flight, and only while its FIFO
 * (dma.fifo_bytes) has room for the burst's data.  The stream sends one beat
 * per clock from the FIFO, unless the consumer back-pressures
 * (stream.consumer_rate, consumer_fifo_beats) or a DAC paces it.  A BD whose
 * last burst is issued moves to Q_STREAMED; the SG engine completes it.
 *
 * Every read goes through the interconnect (ic.c) to the DRAM model at the
 * time it is issued, so the DRAM sees requests in time order.
 */
#include <string.h>

#include "dma/mm2s.h"
#include "mem/coherency.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* ---- data mover and stream -------------------------------------------------- */

/* When the stream has let out the first `bytes` bytes the data mover issued:
 * the oldest remembered burst whose end_bytes reach it (end_bytes increase;
 * the search starts where the last one ended, which is next to the answer). */
static uint64_t drained_by(struct vb_mm2s *p, uint64_t bytes)
{
	unsigned i = p->drain_hint < p->nb ? p->drain_hint : p->nb;

	while (i > 0 && p->bursts[(p->bh + i - 1) % VB_BURSTS].end_bytes >= bytes)
		i--;
	while (i < p->nb && p->bursts[(p->bh + i) % VB_BURSTS].end_bytes < bytes)
		i++;
	p->drain_hint = i;
	return i < p->nb ? p->bursts[(p->bh + i) % VB_BURSTS].t_streamed : 0;
}

/* Earliest time the data mover may issue its next burst of `len` bytes. */
static uint64_t next_issue_time(const struct vb_dma *d, struct vb_chan *c, uint32_t len)
{
	struct vb_mm2s *p = &c->mm2s;
	uint64_t t = p->ar_free;

	if (p->nb >= d->prm->outstanding)       /* outstanding limit: wait for the oldest data */
		t = max64(t, p->bursts[(p->bh + p->nb - d->prm->outstanding) % VB_BURSTS].t_arrived);
	if (p->issued + len > d->prm->fifo_bytes) /* FIFO room for the whole burst */
		t = max64(t, drained_by(p, p->issued + len - d->prm->fifo_bytes));
	if (p->np == VB_PEND)                     /* consumer-paced: its queue is full */
		t = VB_NO_TIME;
	return t;
}

static void remember_burst(struct vb_mm2s *p, uint64_t end_bytes, uint64_t arrived, uint64_t streamed)
{
	struct vb_burst *u;
	if (p->nb == VB_BURSTS) {                 /* keep the newest VB_BURSTS */
		p->bh = (p->bh + 1) % VB_BURSTS;
		p->nb--;
		if (p->drain_hint)
			p->drain_hint--;
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
 * leave on clock edges; the beat observer (a trace) gets the first n - 1 back to back
 * and the last at its own edge: the model times a burst by its ends. */
static void stream_beats(struct vb_dma *d, struct vb_mm2s *p, uint64_t ready, uint64_t data_done, uint32_t n,
			 bool gate_start, bool eof, uint64_t *first, uint64_t *last)
{
	uint64_t from = max64(ready, p->stream_free);
	/* a stream that is behind its data starts on the edge it freed (no division) */
	bool on_free = from == p->stream_free && p->stream_free_on_edge && p->stream_free_origin == d->clk->origin;
	uint64_t k0 = on_free ? p->stream_free_k : vb_edge_index(d->clk, from), k_end = k0 + n - 1;
	uint64_t start = on_free ? p->stream_free : vb_edge_time(d->clk, k0), end = vb_edge_time(d->clk, k_end);

	/* The last beat waits for its data.  Data in by the n-th edge cannot index
	 * past it (vb_edge_index is monotonic and inverts vb_edge_time there). */
	if (!(data_done <= end && vb_edge_exact(d->clk, end)) && vb_edge_index(d->clk, data_done) > k_end) {
		k_end = vb_edge_index(d->clk, data_done);
		end = vb_edge_time(d->clk, k_end);
	}
	if (d->tx.pace_on && *d->tx.pace_on) {
		d->tx.pace(d->tx.pace_dev, start, end, n, gate_start, eof, first, last);
		p->stream_free = vb_edge_time(d->clk, vb_edge_index(d->clk, *last) + 1);
		p->stream_free_on_edge = false;
		return;
	}
	if (d->consumer_ps > d->lat.clock) {
		uint64_t backlog = p->cons_free > start ? (p->cons_free - start) / d->consumer_ps : 0;
		if (backlog + n > d->consumer_fifo_beats) {
			uint64_t wait = (backlog + n - d->consumer_fifo_beats) * d->consumer_ps;
			if (vb_edge_index(d->clk, start + wait) > k_end)
				k_end = vb_edge_index(d->clk, start + wait), end = vb_edge_time(d->clk, k_end);
		}
		p->cons_free = max64(p->cons_free, start) + n * d->consumer_ps;
	}
	if (d->tx.watch && *d->tx.watch) {   /* per-beat work only when a trace is recorded */
		for (uint32_t i = 0; i + 1 < n; i++)
			d->tx.beat(d->tx.beat_dev, vb_edge_time(d->clk, k0 + i), false);
		d->tx.beat(d->tx.beat_dev, end, eof);
	}
	*first = start;
	*last = end;
	p->stream_free = vb_edge_time(d->clk, k_end + 1);
	p->stream_free_k = k_end + 1;
	p->stream_free_on_edge = vb_edge_exact(d->clk, p->stream_free);
	p->stream_free_origin = d->clk->origin;
}

/* Consumer-paced stream: queue the burst; its beats are timed when taken. */
static void defer_burst(struct vb_mm2s *p, const struct vb_qbd *e, uint64_t ready, uint64_t last_ready, uint32_t n,
			uint32_t len)
{
	struct vb_pend *u = &p->pend[(p->ph + p->np++) % VB_PEND];
	*u = (struct vb_pend){ .ready = ready, .last_ready = last_ready, .end_bytes = p->issued + len,
			       .off = (uint32_t)e->issued, .len = len, .n = n, .slot = (uint16_t)(e - p->q), .bd_first = e->issued == 0,
			       .bd_last = e->issued + len == e->len };
}

/* The clock edge from which the consumer may take the next queued beat: its
 * data is in the FIFO and the beat before left on an earlier edge; VB_NO_TIME
 * if none is queued. */
uint64_t vb_mm2s_offer_time(const struct vb_dma *d, const struct vb_chan *c)
{
	const struct vb_mm2s *p = &c->mm2s;
	const struct vb_pend *u;
	if (!p->np)
		return VB_NO_TIME;
	u = &p->pend[p->ph];
	return vb_edge_time(d->clk, vb_edge_index(d->clk, max64(u->taken + 1 < u->n ? u->ready : u->last_ready,
								 p->stream_free)));
}

/* Where the next queued beat's bytes are (the consumer drives them before it
 * takes the beat): its BD's buffer, the beat's offset in the BD, its length
 * (a burst's last beat may be partial), TLAST; -1 if none is queued. */
int vb_mm2s_next_beat(const struct vb_dma *d, const struct vb_chan *c, struct vb_mm2s_beat_src *out)
{
	const struct vb_mm2s *p = &c->mm2s;
	const struct vb_pend *u;
	const struct vb_qbd *e;
	uint32_t done;
	if (!p->np)
		return -1;
	u = &p->pend[p->ph];
	e = &p->q[u->slot];
	done = u->taken * d->data_bytes;
	out->buf = e->buf;
	out->off = u->off + done;
	out->nbytes = u->len - done < d->data_bytes ? u->len - done : d->data_bytes;
	out->last = u->taken + 1 == u->n && u->bd_last && e->eof;
	out->keyhole = vb_keyhole(c);
	return 0;
}

/* The consumer took the next beat on the clock edge at t: its burst and BD get
 * their stream times, and the data mover and SG engine look again. */
int vb_mm2s_take(struct vb_dma *d, struct vb_chan *c, uint64_t t, bool *last)
{
	struct vb_mm2s *p = &c->mm2s;
	struct vb_pend *u = &p->pend[p->ph];
	struct vb_qbd *e;
	uint64_t off = vb_mm2s_offer_time(d, c);

	if (off == VB_NO_TIME || t < off)
		return -1;
	e = &p->q[u->slot];
	*last = false;
	if (u->taken == 0 && u->bd_first)
		e->t_first = t;
	if (c->probe.t_first_beat == VB_NO_TIME)
		c->probe.t_first_beat = t;
	c->probe.t_last_beat = t;
	p->stream_free = vb_edge_time(d->clk, vb_edge_index(d->clk, t) + 1);
	p->stream_free_on_edge = false;
	if (++u->taken == u->n) {
		for (unsigned i = 0; i < p->nb; i++)
			if (p->bursts[(p->bh + i) % VB_BURSTS].end_bytes == u->end_bytes)
				p->bursts[(p->bh + i) % VB_BURSTS].t_streamed = t;
		if (u->bd_last) {
			e->t_last = t;
			*last = e->eof;
		}
		p->ph = (p->ph + 1) % VB_PEND;
		p->np--;
	}
	p->dm_valid = p->next_valid = false;
	d->next_valid = false;
	return 0;
}

/* Issue one burst of the BD the data mover works on (its index is p->dm). */
void vb_mm2s_issue_burst(struct vb_dma *d, struct vb_chan *c, uint64_t t)
{
	struct vb_mm2s *p = &c->mm2s;
	struct vb_qbd *e = vb_qat(p, p->dm);
	uint64_t addr = e->buf + (vb_keyhole(c) ? 0 : e->issued);
	uint64_t burst_max = (uint64_t)d->prm->max_burst * d->data_bytes;
	uint64_t to_4k = PG021_BOUNDARY_4K - (addr & (PG021_BOUNDARY_4K - 1));
	uint32_t len = (uint32_t)(e->len - e->issued), nbeats;
	uint64_t first, done, last_data, s_first, s_last;

	if (len > burst_max)
		len = (uint32_t)burst_max;
	if (len > to_4k)
		len = (uint32_t)to_4k;
	nbeats = (len + d->data_bytes - 1) / d->data_bytes;
	first = vb_ic_read(d->ic, t, addr, len, &done);
	/* The data arrives spread over [first, done]: the last beat's data is
	 * complete one beat's share before `done` (a one-beat burst at `first`). */
	last_data = nbeats > 1 ? done - (done - first) / nbeats : first;
	if (d->tx.defer_on && *d->tx.defer_on) {
		defer_burst(p, e, first + d->lat.ar_to_tvalid, last_data + d->lat.ar_to_tvalid, nbeats, len);
		s_first = s_last = VB_NO_TIME;
	} else {
		stream_beats(d, p, first + d->lat.ar_to_tvalid,
			     last_data + d->lat.ar_to_tvalid, nbeats,
			     e->issued == 0 && !p->dm_in_packet, e->eof && e->issued + len == e->len, &s_first, &s_last);
	}
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
	p->ar_free = t + d->lat.clock;
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
	e = vb_qat(p, p->dm);
	return e->err_sr ? NULL : e;      /* an errored BD stops the data mover */
}

uint64_t vb_mm2s_dm_time(const struct vb_dma *d, struct vb_chan *c)
{
	struct vb_qbd *e = dm_entry(&c->mm2s);
	uint64_t burst_max = (uint64_t)d->prm->max_burst * d->data_bytes;
	uint64_t left;
	if (!e)
		return VB_NO_TIME;
	left = e->len - e->issued;
	return max64(e->t_cmd, next_issue_time(d, c, (uint32_t)(left < burst_max ? left : burst_max)));
}

/* Read a buffer honouring the keyhole bit (FIXED bursts re-read one beat). */
static void mm2s_read(struct vb_dma *d, const struct vb_chan *c, uint8_t *dst, const uint8_t *src, uint64_t len)
{
	if (!(c->dmacr & PG021_CR_KEYHOLE)) {
		memcpy(dst, src, len);
		return;
	}
	for (uint64_t i = 0; i < len; i++)
		dst[i] = src[i % d->data_bytes];
}

/* MM2S data leaves on the stream.  The fetch checked the buffer and found its
 * host memory (regions never move), so no lookup is repeated per BD unless
 * the keyhole bit changed since and more bytes are read than were checked.
 * When no sink of the stream keeps bytes (timing only) no byte is read. */
void vb_mm2s_emit(struct vb_dma *d, struct vb_chan *c, const struct vb_qbd *e, uint64_t t_first)
{
	bool keyhole = vb_keyhole(c);
	uint64_t len = e->len, need = keyhole ? d->data_bytes : len;
	const uint8_t *buf = e->host;

	c->stats.bytes_moved += len;
	VB_COH_DMA(d->coh, e->buf, keyhole && len > d->data_bytes ? d->data_bytes : len, false, t_first);
	if (!d->tx.bytes) {
		vb_stream_push(&d->tx, NULL, len, e->eof, t_first, e->t_last);
		return;
	}
	if (need > e->host_len) {
		uint8_t *host;
		if (vb_dma_access(d->memory, e->buf, need, &host) != VB_ACC_OK)
			return;
		buf = host;
	}
	if (keyhole) {
		uint8_t *copy = vb_scratch_get(&d->scratch, len);
		mm2s_read(d, c, copy, buf, len);
		buf = copy;
	}
	vb_stream_push(&d->tx, buf, len, e->eof, t_first, e->t_last);
}
