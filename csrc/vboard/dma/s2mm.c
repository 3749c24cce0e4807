/*
 * s2mm.c - the AXI DMA's S2MM data mover: stream beats into the armed buffer
 * (SG: the BD's buffer, simple: DA) as AXI write bursts.
 *
 * Each burst is one AW/W/B exchange: at most max_burst beats, never across
 * 4 KiB.  Its W beats go one per clock after its AW, and the W channel idles
 * PG021_LAT_S2MM_BURST_GAP clocks between bursts (derived from PG021's S2MM
 * throughput), so S2MM stays below the stream rate even on ideal memory.  Its AW goes out no earlier than its first beat has arrived from the
 * stream (PG021's TVALID → AW latency before a buffer's first burst), one AW
 * per clock, and while dma.write_outstanding bursts wait for their write
 * response the next AW waits for the oldest B.  B comes back through the
 * interconnect after the memory controller has done the write (UG1085: no
 * early BRESP on the PS ports), unless ic.early_bresp makes the port answer
 * on acceptance.  A buffer is complete when every burst's B is back (PG022:
 * status after all child transfers).  One burst is one event, so a large
 * buffer's bursts reach the DRAM interleaved with every other master's.
 *
 * It reports a full buffer, errors and halts to its caller; it never changes
 * the channel's registers itself.
 */
#include <string.h>

#include "dma/s2mm.h"
#include "mem/coherency.h"

static uint64_t beats(const struct vb_dma *d, uint64_t bytes)
{
	return (bytes + d->data_bytes - 1) / d->data_bytes;
}

/* Data bursts of one buffer: at most max_burst beats, never crossing 4 KiB. */
uint64_t vb_dma_count_bursts(const struct vb_dma *d, uint64_t addr, uint64_t len)
{
	uint64_t n = 0, burst_bytes = (uint64_t)d->prm->max_burst * d->data_bytes;
	if (len <= burst_bytes && (addr & (PG021_BOUNDARY_4K - 1)) + len <= PG021_BOUNDARY_4K)
		return len != 0;        /* one burst or none: the common small buffer */
	while (len) {
		uint64_t to_4k = PG021_BOUNDARY_4K - (addr & (PG021_BOUNDARY_4K - 1));
		uint64_t step = len < burst_bytes ? len : burst_bytes;
		if (step > to_4k)
			step = to_4k;
		addr += step;
		len -= step;
		n++;
	}
	return n;
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* When the next burst's AW may go out. */
static uint64_t next_aw(const struct vb_dma *d, const struct vb_chan *c)
{
	const struct vb_s2mm_w *w = &c->w;
	uint64_t aw = max64(w->aw_free, w->t0 + vb_dma_clocks(d, (double)w->beats));
	if (w->nb >= d->prm->write_outstanding)
		aw = max64(aw, w->bresp[w->bh]);
	return aw;
}

/* Issue one write burst at t (AW, its W data as the stream brings it, B). */
static void issue_burst(struct vb_dma *d, struct vb_chan *c, uint64_t t)
{
	struct vb_s2mm_w *w = &c->w;
	uint64_t burst_max = (uint64_t)d->prm->max_burst * d->data_bytes;
	uint64_t addr = w->base + (vb_keyhole(c) ? 0 : w->off);
	uint64_t to_4k = PG021_BOUNDARY_4K - ((w->base + w->off) & (PG021_BOUNDARY_4K - 1));
	uint64_t len = w->left < burst_max ? w->left : burst_max, nbeats, bresp, t_wlast;

	if (len > to_4k)
		len = to_4k;
	nbeats = beats(d, len);
	/* W: the first beat no earlier than its AW (IHI0022 A3.3.1 lets them share a cycle) and
	 * the W channel's per-burst gap after the previous WLAST, then one beat per clock, never
	 * ahead of the stream.  A slower W channel holds the next stream take back (back-pressure). */
	t_wlast = max64(max64(t, w->w_free) + vb_dma_clocks(d, (double)nbeats),
			w->t0 + vb_dma_clocks(d, (double)(w->beats + nbeats)));
	w->w_free = t_wlast + d->lat.s2mm_burst_gap;
	w->w_last = max64(w->w_last, t_wlast);
	c->probe.t_last_beat = t_wlast;   /* S2MM: the last WLAST, as PG021 measures */
	bresp = vb_ic_write_burst(d->ic, t, t_wlast, addr, (uint32_t)len);
	if (w->nb >= d->prm->write_outstanding) {
		w->bh = (w->bh + 1) % VB_OUTSTANDING_MAX;
		w->nb--;
	}
	w->bresp[(w->bh + w->nb) % VB_OUTSTANDING_MAX] = bresp;
	w->nb++;
	w->done = max64(w->done, bresp);
	w->off += len;
	w->left -= len;
	w->beats += nbeats;
	w->aw_free = t + d->lat.clock;
	c->phase = PH_DATA;
	c->t_next = w->left ? next_aw(d, c) : max64(w->done, w->w_last);
}

/* A chunk of `len` bytes taken from the stream at t goes out as bursts. */
static void start_chunk(struct vb_dma *d, struct vb_chan *c, uint64_t t, bool first, uint64_t addr, uint64_t len)
{
	struct vb_s2mm_w *w = &c->w;

	w->base = addr;
	w->off = 0;
	w->left = len;
	w->t0 = t;
	w->beats = 0;
	w->total_beats = beats(d, len);
	w->aw_free = max64(w->aw_free, t + (first ? d->lat.s2mm_tvalid_to_aw : 0));
	w->done = t;
	w->w_last = t;
	c->phase = PH_DATA;
	c->t_next = len ? next_aw(d, c) : t;
}

static bool is_last_armed(const struct vb_dma *d, const struct vb_chan *c)
{
	if (!vb_sg(d))
		return true;
	return !c->cyclic && c->bd_addr == c->taildesc;
}

/* Take up to cap stream bytes at t into the armed buffer at its fill point (*addr): the keyhole keeps each
 * chunk's last beat; counters and probe follow.  A buffer the DMA cannot write still consumes the beats (lost).
 * *began: the bytes start a packet. */
enum vb_access vb_s2mm_take(struct vb_dma *d, struct vb_chan *c, uint64_t t, uint64_t cap, uint64_t *addr,
			    uint64_t *got, bool *last, bool *began)
{
	uint8_t *host;
	enum vb_access acc;

	*addr = (vb_sg(d) ? vb_bd_buffer(d, &c->bd) : c->addr) + c->filled;
	*last = *began = false;
	*got = 0;
	acc = vb_dma_access(d->memory, *addr, vb_keyhole(c) ? d->data_bytes : cap, &host);
	if (acc != VB_ACC_OK) {
		uint8_t *sink = vb_scratch_get(&d->scratch, cap);
		d->rx.take(d->rx.dev, sink, cap, t, last); /* the beats are consumed and lost */
		return acc;
	}
	if (vb_keyhole(c)) {
		uint8_t *tmp = vb_scratch_get(&d->scratch, cap);
		*got = d->rx.take(d->rx.dev, tmp, cap, t, last);
		if (*got)
			memcpy(host, tmp + ((*got - 1) / d->data_bytes) * d->data_bytes,
			       *got - ((*got - 1) / d->data_bytes) * d->data_bytes);
	} else {
		*got = d->rx.take(d->rx.dev, host, cap, t, last);
	}
	VB_COH_DMA(d->coh, *addr, vb_keyhole(c) && *got > d->data_bytes ? d->data_bytes : *got, true, t);
	*began = *got && c->filled == 0 && c->packet_sof;
	c->stats.data_bursts += vb_dma_count_bursts(d, *addr, *got);
	c->stats.bytes_moved += *got;
	if (c->probe.t_first_beat == VB_NO_TIME) {
		c->probe.t_first_beat = t;
		c->probe.t_data_ar = t + d->lat.s2mm_tvalid_to_aw;
	}
	c->probe.bytes += *got;
	return VB_ACC_OK;
}

/* Pull whatever stream data is available at t into the armed buffer. */
enum vb_s2mm_result vb_s2mm_step(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r)
{
	uint64_t cap, addr, got, avail;
	enum vb_access acc;
	bool last = false, began;

	if (c->w.left) {             /* bursts of the current chunk still to issue */
		issue_burst(d, c, t);
		return VB_S2MM_BUSY;
	}
	cap = c->bd_len - c->filled;
	avail = d->rx.next_time(d->rx.dev, cap, t);

	if (c->bd_eof || cap == 0) {
		/* Buffer full without TLAST: the packet continues into the next BD,
		 * which must exist and this BD must be a whole number of beats. */
		if (!c->bd_eof && (c->filled % d->data_bytes || is_last_armed(d, c))) {
			vb_report_data_error(r, c->bd_addr, PG021_SR_DMAINTERR, PG021_BD_STS_INTERR, c->filled);
			return VB_S2MM_STOPPED;
		}
		return VB_S2MM_FULL;
	}
	if (avail == VB_NO_TIME || avail > t) {
		c->phase = PH_STREAM_WAIT;
		c->t_next = avail;
		if (c->stopping) {
			r->ev |= VB_EV_HALT;   /* RS = 0: nothing in flight any more */
			return VB_S2MM_STOPPED;
		}
		return VB_S2MM_BUSY;
	}
	acc = vb_s2mm_take(d, c, t, cap, &addr, &got, &last, &began);
	if (acc != VB_ACC_OK) {
		vb_report_data_error(r, c->bd_addr, vb_access_sr_bit(acc), vb_access_bd_bit(acc), c->filled);
		return VB_S2MM_STOPPED;
	}
	if (began)
		r->ev |= VB_EV_PACKET_BEGINS;
	start_chunk(d, c, t, c->filled == 0, addr, got);
	c->filled += (uint32_t)got;
	c->bd_eof = last;
	return VB_S2MM_BUSY;
}
