/*
 * s2mm.c - the AXI DMA's S2MM data mover: stream beats into the armed buffer
 * (SG: the BD's buffer, simple: DA), PG021's TVALID → AW latency for a
 * buffer's first data, then the write through the interconnect.  It reports
 * a full buffer, errors and halts to its caller; it never changes the
 * channel's registers itself.
 */
#include <string.h>

#include "dma.h"
#include "mem/coherency.h"

static uint64_t beats(const vb_board *b, uint64_t bytes)
{
	return (bytes + b->data_bytes - 1) / b->data_bytes;
}

/* Data bursts of one buffer: at most max_burst beats, never crossing 4 KiB. */
static uint64_t count_bursts(const vb_board *b, uint64_t addr, uint64_t len)
{
	uint64_t n = 0, burst_bytes = (uint64_t)b->cfg.max_burst * b->data_bytes;
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

/* S2MM data written at t: PG021's TVALID → AW latency for a buffer's first
 * data, then the write of len bytes; the stream brings one beat per clock. */
static uint64_t phase_data(vb_board *b, uint64_t t, bool first, uint64_t addr, uint64_t len, uint64_t nbeats)
{
	uint64_t start = t + (first ? vb_clocks(b, PG021_LAT_S2MM_TVALID_TO_AW) : 0);
	uint64_t done = vb_ic_write(b, start, addr, (uint32_t)len);
	uint64_t stream = t + vb_clocks(b, (double)nbeats);
	return (done > stream ? done : stream) - t;
}

static bool is_last_armed(const vb_board *b, const struct vb_chan *c)
{
	if (!vb_sg(b))
		return true;
	return !c->cyclic && c->bd_addr == c->taildesc;
}

/* Pull whatever stream data is available at t into the armed buffer. */
enum vb_s2mm_result vb_s2mm_step(vb_board *b, struct vb_chan *c, uint64_t t, struct vb_report *r)
{
	uint64_t cap = c->bd_len - c->filled, addr, got;
	uint64_t avail = vb_source_next_time(b, cap, t);
	uint8_t *host;
	enum vb_access acc;
	bool last = false;

	if (c->bd_eof || cap == 0) {
		/* Buffer full without TLAST: the packet continues into the next BD,
		 * which must exist and this BD must be a whole number of beats. */
		if (!c->bd_eof && (c->filled % b->data_bytes || is_last_armed(b, c))) {
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
	addr = (vb_sg(b) ? vb_bd_buffer(b, &c->bd) : c->addr) + c->filled;
	acc = vb_dma_access(b, addr, vb_keyhole(c) ? b->data_bytes : cap, &host);
	if (acc != VB_ACC_OK) {
		uint8_t *sink = vb_scratch(b, cap);
		vb_source_take(b, sink, cap, t, &last); /* the beats are consumed and lost */
		vb_report_data_error(r, c->bd_addr, vb_access_sr_bit(acc), vb_access_bd_bit(acc), c->filled);
		return VB_S2MM_STOPPED;
	}
	if (vb_keyhole(c)) {
		uint8_t *tmp = vb_scratch(b, cap);
		got = vb_source_take(b, tmp, cap, t, &last);
		if (got)
			memcpy(host, tmp + ((got - 1) / b->data_bytes) * b->data_bytes,
			       got - ((got - 1) / b->data_bytes) * b->data_bytes);
	} else {
		got = vb_source_take(b, host, cap, t, &last);
	}
	VB_COH_DMA(b, addr, vb_keyhole(c) && got > b->data_bytes ? b->data_bytes : got, true, t);
	if (got && c->filled == 0 && c->packet_sof)
		r->ev |= VB_EV_PACKET_BEGINS;
	c->stats.data_bursts += count_bursts(b, addr, got);
	c->stats.bytes_moved += got;
	if (c->probe.t_first_beat == VB_NO_TIME) {
		c->probe.t_first_beat = t;
		c->probe.t_data_ar = t + vb_clocks(b, PG021_LAT_S2MM_TVALID_TO_AW);
	}
	c->probe.t_last_beat = t + vb_clocks(b, (double)beats(b, got));
	c->probe.bytes += got;
	c->phase = PH_DATA;
	c->t_next = t + phase_data(b, t, c->filled == 0, addr, got, beats(b, got));
	c->filled += (uint32_t)got;
	c->bd_eof = last;
	return VB_S2MM_BUSY;
}
