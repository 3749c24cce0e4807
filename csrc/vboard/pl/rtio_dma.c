/*
 * rtio_dma.c - event DMA playback [artiq-rtio.md sec. 3]: an AXI reader of
 * dma_burst_bytes INCR bursts (16 x 64 bit on Zynq) with up to dma_outstanding
 * in flight, all id 0 so data returns in order; the record slicer that cuts
 * records by their length byte at bus_bytes per RTIO cycle; the time offset;
 * the CRI master.  Cycles per record, counted from artiq/gateware/rtio/dma.py
 * (m-labs/artiq 3740b92e):
 *  - RawSlicer: outputs only with a whole maximum record (77 B) buffered; each
 *    FETCH cycle loads one bus word and does not output, so after a record is
 *    consumed it spends ceil((77 - level) / bus_bytes) cycles refilling, then
 *    one OUTPUT cycle in which the next record is presented and consumed.
 *  - TimeOffset: a registered stage that accepts only while its output is
 *    empty, so after the CRI master's ack there is one bubble cycle.
 *  - CRIMaster: IDLE (sees stb), WRITE, CHECK_STATE (acks): cri_write_cycles.
 * Refill overlaps the TimeOffset/CRI loop, so a record costs
 * max(cri_write_cycles + 1, refill + 1) cycles: 4 for a 1- or 2-word event.
 *
 * Underflow latches error/channel/timestamp/address of the offending record
 * (relocated timestamp) and every following record is dropped until software
 * acknowledges; the reader still runs to the end marker.  A record that waits
 * on a full lane stalls the engine (o_status.wait), it does not error.
 */
#include <stdio.h>
#include <string.h>

#include "pl/rtio_dma.h"
#include "pl/rtio_mem.h"
#include "pl/rtio_sed.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

void rtio_dma_start(struct vb_rtio *r, uint64_t t)
{
	struct rtio_dma *d = &r->dma;
	t = rtio_next_edge(r, t);
	d->nx_ok = false;
	d->phase = DMA_FLOWING;
	d->bus_error = false;   /* sticky until the next run */
	d->rd_next = d->rec_addr = d->avail_end = d->base & ~(uint64_t)(r->p.dma_burst_bytes - 1);
	d->rec_addr = d->base;
	d->ar_free = d->t_free = t;
	d->bh = d->bn = 0;
	d->waiting = false;
	d->rd_stop = false;
	d->records = d->dropped = 0;
	d->sl_level = 0;
	d->lc_addr = UINT64_MAX;
	d->t_start = t;
	d->t_end = 0;
	if (d->base % r->trace_align)
		fprintf(stderr, "sgdma rtio: DMA base 0x%llx is not %u-byte aligned (the reader starts at the burst "
			"boundary below)\n", (unsigned long long)d->base, r->trace_align);
}

/* The reader keeps dma_outstanding bursts ahead of the slicer. */
static bool can_issue(const struct vb_rtio *r)
{
	const struct rtio_dma *d = &r->dma;
	uint64_t ahead = r->p.dma_outstanding * (uint64_t)r->p.dma_burst_bytes;
	return d->phase == DMA_FLOWING && !d->rd_stop && d->bn < RTIO_DMA_BURSTS && d->rd_next < d->rec_addr + ahead;
}

static void issue(struct vb_rtio *r, uint64_t t)
{
	struct rtio_dma *d = &r->dma;
	while (can_issue(r) && d->ar_free <= t) {
		uint64_t at = max64(d->ar_free, d->t_start);
		unsigned i = (d->bh + d->bn) % RTIO_DMA_BURSTS;
		if (!rtio_mem_ok(r, d->rd_next, r->p.dma_burst_bytes)) {
			d->rd_stop = true;   /* past readable memory: only an error if the slicer needs those bytes */
			break;
		}
		d->burst_done[i] = rtio_mem_read(r, RTIO_PORT_HP0, at, d->rd_next, r->p.dma_burst_bytes);
		d->rd_next += r->p.dma_burst_bytes;
		d->burst_end[i] = d->rd_next;
		d->bn++;
		d->ar_free = at + rtio_ps_of(r, 1);   /* one address per cycle */
	}
}

static void retire(struct vb_rtio *r, uint64_t t)
{
	struct rtio_dma *d = &r->dma;
	while (d->bn && d->burst_done[d->bh] <= t) {
		d->avail_end = d->burst_end[d->bh];
		d->bh = (d->bh + 1) % RTIO_DMA_BURSTS;
		d->bn--;
	}
}

/* Bytes [rec_addr, rec_addr + need) have arrived; need = 0 -> unknown yet. */
static uint32_t record_len(struct vb_rtio *r, bool *have)
{
	struct rtio_dma *d = &r->dma;
	const uint8_t *p;
	uint32_t len;
	*have = false;
	if (d->rec_addr >= d->avail_end)
		return 0;
	if (d->lc_addr != d->rec_addr) {   /* the byte arrived with its burst: read it once */
		p = vb_memory_ptr(r->memory, d->rec_addr, 1);
		d->lc_addr = d->rec_addr;
		d->lc_ok = p != NULL;
		d->lc_len = p ? p[0] : 0;
	}
	if (!d->lc_ok)
		return 0;
	len = d->lc_len;
	*have = len == 0 || d->rec_addr + len <= d->avail_end;
	return len;
}

static void finish(struct vb_rtio *r, uint64_t t)
{
	r->dma.phase = DMA_IDLE;
	r->dma.t_end = t;
}

static void decode(struct vb_rtio *r, const uint8_t *p, uint32_t len, struct rtio_event *ev)
{
	uint64_t ts = 0;
	memset(ev, 0, sizeof(*ev));
	ev->chan = p[RTIO_REC_CHANNEL] | (uint32_t)p[RTIO_REC_CHANNEL + 1] << 8 | (uint32_t)p[RTIO_REC_CHANNEL + 2] << 16;
	for (int i = 7; i >= 0; i--)
		ts = ts << 8 | p[RTIO_REC_TIMESTAMP + i];
	ev->ts = (int64_t)(ts + r->dma.offset);   /* TimeOffset stage */
	ev->addr = p[RTIO_REC_ADDRESS];
	/* data: the first len - 13 bytes, zero-extended (RecordConverter) */
	memcpy(ev->data, p + RTIO_RECORD_HEADER_BYTES, len - RTIO_RECORD_HEADER_BYTES);
	ev->nwords = (uint8_t)((len - RTIO_RECORD_HEADER_BYTES + 3) / 4);
}

/* RawSlicer cycles for one record of len bytes: refill to a whole maximum
 * record after the previous consume, then the OUTPUT cycle that consumes it. */
static uint32_t slicer_cycles(struct vb_rtio *r, uint32_t len)
{
	struct rtio_dma *d = &r->dma;
	uint32_t fetch = 0;
	if (d->sl_level < RTIO_RECORD_MAX_BYTES) {
		fetch = (RTIO_RECORD_MAX_BYTES - d->sl_level + r->p.bus_bytes - 1) / r->p.bus_bytes;
		d->sl_level += fetch * r->p.bus_bytes;
	}
	d->sl_level -= len;
	return fetch + 1;
}

static void one_record(struct vb_rtio *r, uint32_t len, uint64_t t)
{
	struct rtio_dma *d = &r->dma;
	uint32_t in_cycles = slicer_cycles(r, len);
	uint32_t cri_cycles = r->p.cri_write_cycles + 1;   /* + the TimeOffset bubble */
	struct rtio_event ev;
	uint32_t st;

	if (len < RTIO_RECORD_HEADER_BYTES + 1 || len > RTIO_RECORD_MAX_BYTES) {
		/* not a record the encoder can produce: stop rather than replay garbage */
		fprintf(stderr, "sgdma rtio: DMA record at 0x%llx has length %u (valid: 14..77 or 0 = end); "
			"playback stopped\n", (unsigned long long)d->rec_addr, len);
		d->bus_error = true;
		d->phase = DMA_FLUSH;
		return;
	}
	decode(r, vb_memory_ptr(r->memory, d->rec_addr, len), len, &ev);
	d->rec_addr += len;
	d->records++;
	if (d->error) {
		d->dropped++;   /* acknowledged and dropped until software clears the error */
		d->t_free = t + rtio_ps_of(r, in_cycles > 2 ? in_cycles : 2);   /* IDLE acks, then the bubble */
		return;
	}
	d->t_free = t + rtio_ps_of(r, in_cycles > cri_cycles ? in_cycles : cri_cycles);
	st = rtio_cri_write(r, RTIO_SRC_DMA, &ev, t);
	if (st == RTIO_O_STATUS_WAIT) {
		d->waiting = true;
		return;
	}
	if (st) {
		d->error = (st & RTIO_O_STATUS_UNDERFLOW) ? RTIO_DMA_ERROR_UNDERFLOW : RTIO_DMA_ERROR_LINK;
		d->err_chan = ev.chan;
		d->err_ts = (uint64_t)ev.ts;
		d->err_addr = ev.addr;
	}
}

void rtio_dma_resume(struct vb_rtio *r, uint32_t st, uint64_t t)
{
	struct rtio_dma *d = &r->dma;
	d->nx_ok = false;
	d->waiting = false;
	d->t_free = max64(d->t_free, rtio_next_edge(r, t) + rtio_ps_of(r, 1));
	if (st) {
		d->error = RTIO_DMA_ERROR_UNDERFLOW;
		d->err_chan = r->pend_ev.chan;
		d->err_ts = (uint64_t)r->pend_ev.ts;
		d->err_addr = r->pend_ev.addr;
	}
}

/* The engine's next event; kept (when the core is fast) until start, step or resume changes what it reads:
 * its own state and the length byte its cache already holds. */
static uint64_t dma_next(struct vb_rtio *r);

uint64_t rtio_dma_next(struct vb_rtio *r)
{
	struct rtio_dma *d = &r->dma;
	if (!(r->fast && d->nx_ok)) {
		d->nx = dma_next(r);
		d->nx_ok = true;
	}
	return d->nx;
}

static uint64_t dma_next(struct vb_rtio *r)
{
	struct rtio_dma *d = &r->dma;
	uint64_t t = VB_NO_TIME;
	bool have;

	if (d->phase == DMA_IDLE)
		return VB_NO_TIME;
	bool issuable = can_issue(r);
	if (d->bn)
		t = d->burst_done[d->bh];
	if (issuable && d->ar_free < t)
		t = d->ar_free;
	if (d->phase == DMA_FLOWING && !d->waiting) {
		record_len(r, &have);
		if (have && d->t_free < t)
			t = d->t_free;
		if (!have && !d->bn && !issuable && d->t_free < t)
			t = d->t_free;   /* nothing more can arrive: the trace runs off memory */
	}
	if (d->phase == DMA_FLUSH && !d->bn && d->t_free < t)
		t = d->t_free;
	return t;
}

void rtio_dma_step(struct vb_rtio *r, uint64_t t)
{
	struct rtio_dma *d = &r->dma;
	bool have;
	uint32_t len;

	d->nx_ok = false;
	retire(r, t);
	issue(r, t);
	while (d->phase == DMA_FLOWING && !d->waiting && d->t_free <= t) {
		len = record_len(r, &have);
		if (!have) {
			if (!d->bn && !can_issue(r)) {
				fprintf(stderr, "sgdma rtio: DMA trace at 0x%llx runs past readable memory without an end "
					"marker; playback stopped\n", (unsigned long long)d->base);
				d->bus_error = true;
				d->phase = DMA_FLUSH;
			}
			break;
		}
		if (len == RTIO_END_MARKER) {
			d->phase = DMA_FLUSH;   /* drain the reader's in-flight bursts */
			d->t_free = t + rtio_ps_of(r, 1);
			break;
		}
		one_record(r, len, t);
		issue(r, t);
	}
	if (d->phase == DMA_FLUSH && !d->bn && d->t_free <= t)
		finish(r, t + rtio_ps_of(r, 2));   /* WAIT_EOP, WAIT_CRI_MASTER */
}
