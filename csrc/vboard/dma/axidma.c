/*
 * axidma.c - register-exact model of the Xilinx AXI DMA (PG021 v7.1).
 *
 * Registers follow ../shared/reference/pg021.md to the letter.  The engine is a
 * per-channel state machine whose phases are the hardware's transactions: BD
 * fetch, data bursts, status write-back.  Each phase's functional effect
 * happens when the phase ends, at chan.t_next; the timing of a phase comes
 * from the phase_* functions at the bottom, which the timing model replaces.
 * Timing never changes what the registers say, only when.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "mem/coherency.h"

/* ---- predicates ------------------------------------------------------------ */

static bool sg_build(const vb_board *b) { return b->cfg.include_sg != 0; }
bool vb_sg(const vb_board *b) { return sg_build(b); }
static bool addr64(const vb_board *b) { return b->cfg.addr_width > 32; }
static bool halted(const struct vb_chan *c) { return (c->dmasr & PG021_SR_HALTED) != 0; }
static bool running(const struct vb_chan *c) { return !halted(c); }
static bool busy(const struct vb_chan *c) { return c->phase >= PH_FETCH; }
static bool resetting(const vb_board *b) { return b->reset_until != VB_NO_TIME; }
static bool has_error(const struct vb_chan *c) { return (c->dmasr & PG021_SR_ERR_ALL) != 0; }
static bool is_mm2s(const struct vb_chan *c) { return c->id == VB_MM2S; }
static unsigned threshold_of(uint32_t dmacr) { return SG_FIELD_GET(PG021_CR_THRESHOLD, dmacr); }
static unsigned delay_of(uint32_t dmacr) { return SG_FIELD_GET(PG021_CR_DELAY, dmacr); }

static uint64_t bd_align(uint64_t a) { return a & ~(uint64_t)(PG021_BD_ALIGN - 1); }

static uint64_t set_lo(uint64_t reg, uint32_t v) { return (reg & 0xFFFFFFFF00000000ull) | v; }
static uint64_t set_hi(uint64_t reg, uint32_t v) { return (reg & 0xFFFFFFFFull) | ((uint64_t)v << 32); }

static uint64_t beats(const vb_board *b, uint64_t bytes)
{
	return (bytes + b->data_bytes - 1) / b->data_bytes;
}

/* ---- timing of the S2MM transactions (MM2S is the pipeline in mm2s.c) ------- */

/* BD fetch issued at t: tail write → SG AR (first BD of a run only), the read
 * through the interconnect and DRAM, 13 beats on the 32-bit SG port, then
 * PG021's SG AR → data AR processing. */
static uint64_t phase_fetch(vb_board *b, struct vb_chan *c, uint64_t t)
{
	uint64_t done, first;
	if (c->first_after_kick)
		t += vb_clocks(b, PG021_LAT_TAIL_TO_SG_AR);
	if (c->probe.t_sg_ar == VB_NO_TIME)
		c->probe.t_sg_ar = t;
	first = vb_ic_read(b, t, c->curdesc, PG021_BD_HW_BYTES, &done);
	done = done > first + vb_clocks(b, PG021_BD_HW_BYTES / 4 - 1) ? done
		: first + vb_clocks(b, PG021_BD_HW_BYTES / 4 - 1);
	return (done > first + vb_clocks(b, PG021_LAT_SG_AR_TO_MM2S_AR) ? done
		: first + vb_clocks(b, PG021_LAT_SG_AR_TO_MM2S_AR)) - t;
}

/* S2MM data written at t: PG021's TVALID → AW latency for a buffer's first
 * data, then the write of len bytes; the stream brings one beat per clock. */
static uint64_t phase_s2mm_data(vb_board *b, uint64_t t, bool first, uint64_t addr, uint64_t len, uint64_t nbeats)
{
	uint64_t start = t + (first ? vb_clocks(b, PG021_LAT_S2MM_TVALID_TO_AW) : 0);
	uint64_t done = vb_ic_write(b, start, addr, (uint32_t)len);
	uint64_t stream = t + vb_clocks(b, (double)nbeats);
	return (done > stream ? done : stream) - t;
}

static uint64_t phase_writeback(vb_board *b, struct vb_chan *c, uint64_t t)
{
	return vb_ic_write(b, t, c->bd_addr + PG021_BD_STATUS, 4) - t;
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

/* ---- channel state changes ------------------------------------------------- */

static void chan_reset(vb_board *b, struct vb_chan *c)
{
	enum vb_chan_id id = c->id;
	struct vb_stats stats = c->stats;
	uint64_t *log = c->fetch_log;          /* the report's log outlives a soft reset */
	size_t n_log = c->n_fetch_log, cap_log = c->cap_fetch_log, dropped = c->fetch_log_dropped;

	memset(c, 0, sizeof(*c));
	c->id = id;
	c->stats = stats;
	c->fetch_log = log, c->n_fetch_log = n_log, c->cap_fetch_log = cap_log, c->fetch_log_dropped = dropped;
	c->dmacr = PG021_CR_RESET_VALUE;
	c->dmasr = PG021_SR_HALTED | (sg_build(b) ? PG021_SR_SGINCLD : 0);
	c->phase = PH_HALTED;
	c->t_next = VB_NO_TIME;
	c->thr_count = threshold_of(c->dmacr);
	c->dly_deadline = VB_NO_TIME;
}

void vb_dma_reset(vb_board *b)
{
	b->ch[VB_MM2S].id = VB_MM2S;
	b->ch[VB_S2MM].id = VB_S2MM;
	chan_reset(b, &b->ch[VB_MM2S]);
	chan_reset(b, &b->ch[VB_S2MM]);
	b->reset_until = VB_NO_TIME;
	vb_stream_reset(b);       /* the reset outputs reach the stream endpoints (stream.c) */
}

void vb_chan_halt(struct vb_chan *c)
{
	c->phase = PH_HALTED;
	c->t_next = VB_NO_TIME;
	c->stopping = false;
	c->dmasr |= PG021_SR_HALTED;
}

/* Any error halts the channel gracefully: RS cleared, Halted, Err_Irq. */
static void chan_error(struct vb_chan *c, uint32_t sr_bits)
{
	c->dmasr |= sr_bits | PG021_SR_ERR_IRQ;
	c->dmasr &= ~PG021_SR_IDLE;
	c->dmacr &= ~PG021_CR_RS;
	vb_chan_halt(c);
}

static void chan_idle(struct vb_chan *c)
{
	c->phase = PH_IDLE;
	c->t_next = VB_NO_TIME;
	c->dmasr |= PG021_SR_IDLE;
}

/* The work up to the pause point is done: Idle, then Halted if software
 * cleared RS meanwhile (the halt does not undo the Idle condition). */
void vb_chan_done(struct vb_chan *c)
{
	bool stop = c->stopping;

	chan_idle(c);
	if (stop)
		vb_chan_halt(c);
}

/* The delay timer runs only between packets: a new packet stops it (PG021:
 * it resets on receipt of a new packet); the packet's end restarts it. */
void vb_chan_packet_begins(struct vb_chan *c)
{
	c->dly_deadline = VB_NO_TIME;
}

/* One completed packet (EOF BD, or a simple-mode transfer). */
void vb_chan_irq_packet(vb_board *b, struct vb_chan *c, uint64_t t)
{
	unsigned delay = delay_of(c->dmacr);

	c->stats.packets++;
	if (!sg_build(b)) {
		c->dmasr |= PG021_SR_IOC_IRQ;
		return;
	}
	c->pending_pkts++;
	if (--c->thr_count == 0) {
		c->dmasr |= PG021_SR_IOC_IRQ;
		c->thr_count = threshold_of(c->dmacr);
		c->pending_pkts = 0;
		c->dly_deadline = VB_NO_TIME;
	} else if (delay) {
		c->dly_deadline = t + vb_clocks(b, (double)delay * b->cfg.dly_timer_resolution);
	}
}

static void irq_delay_fired(vb_board *b, struct vb_chan *c)
{
	(void)b;
	c->dmasr |= PG021_SR_DLY_IRQ;
	c->thr_count = threshold_of(c->dmacr);
	c->pending_pkts = 0;
	c->dly_deadline = VB_NO_TIME;
}

static uint32_t live_dmasr(const vb_board *b, const struct vb_chan *c)
{
	uint32_t sr = c->dmasr & ~(PG021_SR_THRESHOLD_STS | PG021_SR_DELAY_STS);
	uint64_t dly = 0;

	sr |= SG_FIELD_PREP(PG021_SR_THRESHOLD_STS, c->thr_count);
	if (c->dly_deadline != VB_NO_TIME) {
		uint64_t unit = vb_clocks(b, b->cfg.dly_timer_resolution);
		uint64_t span = vb_clocks(b, (double)delay_of(c->dmacr) * b->cfg.dly_timer_resolution);
		uint64_t start = c->dly_deadline - span;
		if (unit && b->now > start)
			dly = (b->now - start) / unit;
		if (dly > 255)
			dly = 255;
	}
	return sr | SG_FIELD_PREP(PG021_SR_DELAY_STS, dly);
}

/* ---- SG engine ------------------------------------------------------------- */

static void sg_fetch_start(vb_board *b, struct vb_chan *c, uint64_t t)
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
	c->t_next = t + phase_fetch(b, c, t);
}

/* S2MM reads the next BD while this one's data arrives (one BD ahead, like
 * the MM2S queue), unless this BD is the tail or the channel is stopping;
 * the BD's contents are taken when it is used, the time of the read now. */
static void s2mm_prefetch(vb_board *b, struct vb_chan *c, uint64_t t)
{
	uint64_t next = vb_bd_next(b, &c->bd), done, first, ready;

	c->pf_valid = false;
	if ((!c->cyclic && c->bd_addr == c->taildesc) || c->stopping)
		return;
	first = vb_ic_read(b, t, next, PG021_BD_HW_BYTES, &done);
	ready = first + vb_clocks(b, PG021_LAT_SG_AR_TO_MM2S_AR);
	c->pf_addr = next;
	c->pf_done = done > ready ? done : ready;
	c->pf_valid = true;
	c->stats.bd_fetches++;
}

static void probe_kick(vb_board *b, struct vb_chan *c)
{
	c->probe = (struct vb_probe){ .t_kick = b->now, .t_sg_ar = VB_NO_TIME, .t_data_ar = VB_NO_TIME,
				      .t_first_beat = VB_NO_TIME, .t_last_beat = VB_NO_TIME };
}

/* A tail write while the engine waits restarts fetching from next_bd. */
static void sg_kick(vb_board *b, struct vb_chan *c)
{
	probe_kick(b, c);
	c->dmasr &= ~PG021_SR_IDLE;
	c->first_after_kick = true;
	if (is_mm2s(c)) {
		c->phase = PH_DATA;
		vb_mm2s_kick(b, c);
		return;
	}
	sg_fetch_start(b, c, b->now);
}

/* STATUS write-back of the BD at bd_addr; an SG-side error if it fails. */
bool vb_chan_write_status(vb_board *b, struct vb_chan *c, uint64_t bd_addr, uint32_t status)
{
	uint8_t *host;
	enum vb_access acc = vb_dma_access(b, bd_addr + PG021_BD_STATUS, 4, &host);

	if (acc != VB_ACC_OK) {
		chan_error(c, acc == VB_ACC_DECERR ? PG021_SR_SGDECERR : PG021_SR_SGSLVERR);
		return false;
	}
	memcpy(host, &status, 4);
	return true;
}

static bool bd_write_status(vb_board *b, struct vb_chan *c, uint32_t status)
{
	if (!vb_chan_write_status(b, c, c->bd_addr, status))
		return false;
	c->bd.status = status;
	return true;
}

/* An error of the BD at bd_addr: DMASR bit(s), CURDESC on the BD, and for
 * data-side errors (bd_bit != 0) the BD's STATUS error bit. */
void vb_chan_data_error(vb_board *b, struct vb_chan *c, uint64_t bd_addr, uint32_t sr_bit, uint32_t bd_bit,
			uint32_t bytes)
{
	if (sg_build(b)) {
		uint8_t *host;
		uint32_t status = bd_bit | (bytes & PG021_BD_LEN_MASK);
		if (bd_bit && vb_dma_access(b, bd_addr + PG021_BD_STATUS, 4, &host) == VB_ACC_OK)
			memcpy(host, &status, 4);
		c->curdesc = bd_addr;
	}
	chan_error(c, sr_bit);
}

static void data_error(vb_board *b, struct vb_chan *c, uint32_t sr_bit, uint32_t bd_bit, uint32_t bytes)
{
	vb_chan_data_error(b, c, c->bd_addr, sr_bit, bd_bit, bytes);
}

uint32_t vb_access_sr_bit(enum vb_access acc) { return acc == VB_ACC_DECERR ? PG021_SR_DMADECERR : PG021_SR_DMASLVERR; }
uint32_t vb_access_bd_bit(enum vb_access acc) { return acc == VB_ACC_DECERR ? PG021_BD_STS_DECERR : PG021_BD_STS_SLVERR; }

uint64_t vb_bd_next(const vb_board *b, const struct pg021_bd *bd)
{
	return bd_align(((uint64_t)(addr64(b) ? bd->nxtdesc_msb : 0) << 32 | bd->nxtdesc) & b->addr_mask);
}

uint64_t vb_bd_buffer(const vb_board *b, const struct pg021_bd *bd)
{
	uint64_t a = bd->buffer;
	if (addr64(b))
		a |= (uint64_t)bd->buffer_msb << 32;
	return a & b->addr_mask;
}

static void s2mm_data_step(vb_board *b, struct vb_chan *c, uint64_t t);

static void sg_fetch_done(vb_board *b, struct vb_chan *c, uint64_t t)
{
	uint8_t *host;
	enum vb_access acc = vb_dma_access(b, c->curdesc, PG021_BD_HW_BYTES, &host);

	c->first_after_kick = false;
	if (!c->pf_used)
		c->stats.bd_fetches++;
	c->pf_used = false;
	if (acc != VB_ACC_OK) {
		chan_error(c, acc == VB_ACC_DECERR ? PG021_SR_SGDECERR : PG021_SR_SGSLVERR);
		return;
	}
	memcpy(&c->bd, host, PG021_BD_HW_BYTES);
	c->bd_addr = c->curdesc;
	if ((c->bd.status & PG021_BD_STS_CMPLT) && !c->cyclic) {
		chan_error(c, PG021_SR_SGINTERR);
		return;
	}
	/* Only length_width bits of CONTROL exist in the hardware. */
	c->bd_len = c->bd.control & b->len_mask;
	c->filled = 0;
	c->bd_eof = false;
	if (c->bd_len == 0) {
		data_error(b, c, PG021_SR_DMAINTERR, PG021_BD_STS_INTERR, 0);
		return;
	}
	c->packet_sof = !c->in_packet;
	s2mm_prefetch(b, c, t);
	s2mm_data_step(b, c, t);
}

/* Read a buffer honouring the keyhole bit (FIXED bursts re-read one beat). */
static void mm2s_read(vb_board *b, const struct vb_chan *c, uint8_t *dst, const uint8_t *src, uint64_t len)
{
	if (!(c->dmacr & PG021_CR_KEYHOLE)) {
		memcpy(dst, src, len);
		return;
	}
	for (uint64_t i = 0; i < len; i++)
		dst[i] = src[i % b->data_bytes];
}

/* MM2S data leaves on the stream (the pipeline checked the buffer at fetch).
 * In timing-only mode (stream.sink_record = 0, no loopback) no byte is read. */
void vb_mm2s_emit(vb_board *b, struct vb_chan *c, uint64_t addr, uint64_t len, bool eof, uint64_t t_first,
		  uint64_t t_last)
{
	uint8_t *host = NULL, *buf;

	c->stats.bytes_moved += len;
	VB_COH_DMA(b, addr, (c->dmacr & PG021_CR_KEYHOLE) && len > b->data_bytes ? b->data_bytes : len, false, t_first);
	if (!b->cfg.sink_record && !b->cfg.loopback) {
		vb_sink_push(b, NULL, len, eof, t_first, t_last);
		return;
	}
	if (vb_dma_access(b, addr, c->dmacr & PG021_CR_KEYHOLE ? b->data_bytes : len, &host) != VB_ACC_OK)
		return;   /* cannot happen: checked when the BD was fetched */
	buf = host;
	if (c->dmacr & PG021_CR_KEYHOLE) {
		buf = vb_scratch(b, len);
		mm2s_read(b, c, buf, host, len);
	}
	vb_sink_push(b, buf, len, eof, t_first, t_last);
	if (b->cfg.loopback)
		vb_source_push(b, buf, len, eof, t_last);
}

static void sg_data_done(vb_board *b, struct vb_chan *c, uint64_t t)
{
	s2mm_data_step(b, c, t);
}

static void sg_writeback_done(vb_board *b, struct vb_chan *c, uint64_t t)
{
	uint32_t status = PG021_BD_STS_CMPLT | (c->filled & PG021_BD_LEN_MASK);
	bool eof;

	eof = c->bd_eof;
	status |= (c->packet_sof ? PG021_BD_STS_RXSOF : 0) | (eof ? PG021_BD_STS_RXEOF : 0);
	c->in_packet = !eof;
	if (!bd_write_status(b, c, status))
		return;
	c->stats.bd_writebacks++;
	if (eof)
		vb_chan_irq_packet(b, c, t);

	c->next_bd = vb_bd_next(b, &c->bd);
	if (!c->cyclic && c->bd_addr == c->taildesc) {
		vb_chan_done(c);
		return;
	}
	if (c->stopping) {
		vb_chan_halt(c);
		return;
	}
	sg_fetch_start(b, c, t);
}

/* ---- S2MM data path (SG and simple) ----------------------------------------- */

static bool is_last_armed(const vb_board *b, const struct vb_chan *c)
{
	if (!sg_build(b))
		return true;
	return !c->cyclic && c->bd_addr == c->taildesc;
}

static void s2mm_buffer_done(vb_board *b, struct vb_chan *c, uint64_t t)
{
	if (!sg_build(b)) {
		c->length = c->filled;
		vb_chan_irq_packet(b, c, t);
		vb_chan_done(c);
		return;
	}
	c->phase = PH_WRITEBACK;
	c->t_next = t + phase_writeback(b, c, t);
}

/* Pull whatever stream data is available at t into the armed buffer. */
static void s2mm_data_step(vb_board *b, struct vb_chan *c, uint64_t t)
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
			data_error(b, c, PG021_SR_DMAINTERR, PG021_BD_STS_INTERR, c->filled);
			return;
		}
		s2mm_buffer_done(b, c, t);
		return;
	}
	if (avail == VB_NO_TIME || avail > t) {
		c->phase = PH_STREAM_WAIT;
		c->t_next = avail;
		if (c->stopping)
			vb_chan_halt(c);   /* RS = 0: nothing in flight any more */
		return;
	}
	addr = (sg_build(b) ? vb_bd_buffer(b, &c->bd) : c->addr) + c->filled;
	acc = vb_dma_access(b, addr, (c->dmacr & PG021_CR_KEYHOLE) ? b->data_bytes : cap, &host);
	if (acc != VB_ACC_OK) {
		uint8_t *sink = vb_scratch(b, cap);
		vb_source_take(b, sink, cap, t, &last); /* the beats are consumed and lost */
		data_error(b, c, vb_access_sr_bit(acc), vb_access_bd_bit(acc), c->filled);
		return;
	}
	if (c->dmacr & PG021_CR_KEYHOLE) {
		uint8_t *tmp = vb_scratch(b, cap);
		got = vb_source_take(b, tmp, cap, t, &last);
		if (got)
			memcpy(host, tmp + ((got - 1) / b->data_bytes) * b->data_bytes,
			       got - ((got - 1) / b->data_bytes) * b->data_bytes);
	} else {
		got = vb_source_take(b, host, cap, t, &last);
	}
	VB_COH_DMA(b, addr, (c->dmacr & PG021_CR_KEYHOLE) && got > b->data_bytes ? b->data_bytes : got, true, t);
	if (got && c->filled == 0 && c->packet_sof)
		vb_chan_packet_begins(c);
	c->stats.data_bursts += count_bursts(b, addr, got);
	c->stats.bytes_moved += got;
	if (c->probe.t_first_beat == VB_NO_TIME) {
		c->probe.t_first_beat = t;
		c->probe.t_data_ar = t + vb_clocks(b, PG021_LAT_S2MM_TVALID_TO_AW);
	}
	c->probe.t_last_beat = t + vb_clocks(b, (double)beats(b, got));
	c->probe.bytes += got;
	c->phase = PH_DATA;
	c->t_next = t + phase_s2mm_data(b, t, c->filled == 0, addr, got, beats(b, got));
	c->filled += (uint32_t)got;
	c->bd_eof = last;
}

/* ---- simple (direct register) mode ------------------------------------------ */

static void simple_start(vb_board *b, struct vb_chan *c)
{
	probe_kick(b, c);
	c->dmasr &= ~PG021_SR_IDLE;
	c->filled = 0;
	c->bd_eof = false;
	c->in_packet = false;
	if (is_mm2s(c)) {
		c->phase = PH_DATA;
		vb_mm2s_simple(b, c);
		return;
	}
	c->bd_len = c->length;
	c->phase = PH_STREAM_WAIT;
	/* PG021 gives no LENGTH-write → ready figure: assume the tail-write → SG AR one. */
	c->t_next = b->now + vb_clocks(b, PG021_LAT_TAIL_TO_SG_AR);
}

static void simple_data_done(vb_board *b, struct vb_chan *c, uint64_t t)
{
	s2mm_data_step(b, c, t);
}

/* ---- the engine's clock ----------------------------------------------------- */

static void chan_step(vb_board *b, struct vb_chan *c, uint64_t t)
{
	switch (c->phase) {
	case PH_FETCH:
		sg_fetch_done(b, c, t);
		break;
	case PH_DATA:
		if (sg_build(b))
			sg_data_done(b, c, t);
		else
			simple_data_done(b, c, t);
		break;
	case PH_STREAM_WAIT:
		s2mm_data_step(b, c, t);
		break;
	case PH_WRITEBACK:
		sg_writeback_done(b, c, t);
		break;
	default:
		c->t_next = VB_NO_TIME;
		break;
	}
}

/* When a channel next has something to do. */
static uint64_t chan_next(const vb_board *b, struct vb_chan *c)
{
	if (!busy(c))
		return VB_NO_TIME;
	return is_mm2s(c) ? vb_mm2s_next_event(b, c) : c->t_next;
}

uint64_t vb_dma_next_event(vb_board *b)
{
	uint64_t t = b->reset_until;
	for (int i = 0; i < 2; i++) {
		struct vb_chan *c = &b->ch[i];
		uint64_t n = chan_next(b, c);
		if (n < t)
			t = n;
		if (c->dly_deadline < t)
			t = c->dly_deadline;
	}
	return t;
}

void vb_dma_step(vb_board *b, uint64_t t)
{
	if (resetting(b)) {
		if (t >= b->reset_until)
			vb_dma_reset(b);
		return; /* nothing else moves while the core resets */
	}
	for (int i = 0; i < 2; i++) {
		struct vb_chan *c = &b->ch[i];
		if (c->dly_deadline == t) {
			/* the timer runs only between packets */
			if (is_mm2s(c) && vb_mm2s_packet_active(c, t))
				c->dly_deadline = VB_NO_TIME;
			else
				irq_delay_fired(b, c);
		}
		if (chan_next(b, c) != t)
			continue;
		if (is_mm2s(c))
			vb_mm2s_step(b, c, t);
		else
			chan_step(b, c, t);
	}
}

void vb_dma_stream_arrived(vb_board *b, uint64_t t)
{
	struct vb_chan *c = &b->ch[VB_S2MM];
	if (c->phase == PH_STREAM_WAIT && (c->t_next == VB_NO_TIME || c->t_next > t))
		c->t_next = t;
}

/* ---- register interface ----------------------------------------------------- */

/* Soft reset: the whole core, both channels, once in-flight transactions end. */
static void start_reset(vb_board *b)
{
	uint64_t until = b->now;
	for (int i = 0; i < 2; i++) {
		struct vb_chan *c = &b->ch[i];
		if (is_mm2s(c) && busy(c)) {
			uint64_t end = c->mm2s.fetching ? c->mm2s.t_fetch_done : 0;
			if (c->mm2s.stream_free > end)
				end = c->mm2s.stream_free;
			if (end > until)
				until = end;
			memset(&c->mm2s, 0, sizeof(c->mm2s));
		} else if ((c->phase == PH_FETCH || c->phase == PH_DATA || c->phase == PH_WRITEBACK) &&
			   c->t_next > until) {
			until = c->t_next;
		}
		c->phase = PH_HALTED;   /* in-flight results are discarded */
		c->t_next = VB_NO_TIME;
		c->dly_deadline = VB_NO_TIME;
		c->dmacr |= PG021_CR_RESET;
	}
	b->reset_until = until + vb_clocks(b, b->cfg.reset_clocks);
}

static void cr_write(vb_board *b, struct vb_chan *c, uint32_t v)
{
	const uint32_t writable = PG021_CR_RS | PG021_CR_KEYHOLE | PG021_CR_CYCLIC | PG021_CR_IRQ_ALL |
				  PG021_CR_THRESHOLD | PG021_CR_DELAY;
	uint32_t old = c->dmacr, now;

	if (v & PG021_CR_RESET) {
		start_reset(b);
		return;
	}
	now = (v & writable) | PG021_CR_RSVD1;
	/* Cyclic and keyhole may only change while the channel does not run. */
	if (running(c))
		now = (now & ~(PG021_CR_CYCLIC | PG021_CR_KEYHOLE)) | (old & (PG021_CR_CYCLIC | PG021_CR_KEYHOLE));
	/* Threshold 0 is outside PG021's 1..255: the model keeps the old value. */
	if (threshold_of(now) == 0)
		now = (now & ~PG021_CR_THRESHOLD) | (old & PG021_CR_THRESHOLD);
	/* An error halts the channel until a soft reset: RS cannot be set again. */
	if (has_error(c))
		now &= ~PG021_CR_RS;
	c->dmacr = now;
	c->thr_count = threshold_of(now);          /* reloaded on a software write */
	if (delay_of(now) == 0)
		c->dly_deadline = VB_NO_TIME;

	if (!(old & PG021_CR_RS) && (now & PG021_CR_RS) && halted(c) && !has_error(c)) {
		c->dmasr &= ~PG021_SR_HALTED;
		c->cyclic = (now & PG021_CR_CYCLIC) != 0;
		c->stopping = false;
		c->phase = PH_IDLE;
	} else if (!(old & PG021_CR_RS) && (now & PG021_CR_RS) && c->stopping) {
		c->stopping = false;  /* RS set again before the halt took effect: keep running */
		if (is_mm2s(c))
			vb_mm2s_tail_moved(b, c);
	} else if ((old & PG021_CR_RS) && !(now & PG021_CR_RS) && running(c)) {
		/* In-flight work completes, then Halted.  A BD only waiting for
		 * stream data has nothing in flight. */
		if (c->phase == PH_IDLE || c->phase == PH_STREAM_WAIT) {
			vb_chan_halt(c);
		} else {
			c->stopping = true;
			if (is_mm2s(c))
				vb_mm2s_stop(b, c);
		}
	}
}

static void tail_written(vb_board *b, struct vb_chan *c)
{
	/* Halted: the register only records it.  Busy: the pause point moves. */
	if (running(c) && c->phase == PH_IDLE)
		sg_kick(b, c);
	else if (running(c) && busy(c) && is_mm2s(c))
		vb_mm2s_tail_moved(b, c);
}

static void length_written(vb_board *b, struct vb_chan *c, uint32_t v)
{
	if (busy(c))
		return;               /* a transfer is under way: the write is ignored */
	c->length = v & b->len_mask;
	if (running(c) && c->length)
		simple_start(b, c);
}

/* ---- guest errors: illegal accesses are logged once per kind and counted ---- */

static const char *const guest_error_names[VB_GE_COUNT] = {
	[VB_GE_RESERVED] = "reserved offset",
	[VB_GE_READ_ONLY] = "write to a read-only field",
	[VB_GE_MISALIGNED] = "misaligned access",
};

const char *vb_guest_error_name(enum vb_guest_error kind)
{
	return kind < VB_GE_COUNT ? guest_error_names[kind] : "?";
}

const struct vb_dma_guest_errors *vb_dma_guest_errors(const vb_board *b) { return &b->guest; }

static void guest_error(vb_board *b, enum vb_guest_error kind, bool write, uint32_t off, uint32_t v)
{
	struct vb_dma_guest_errors *g = &b->guest;
	g->count[kind]++;
	g->last_offset[kind] = off;
	if (g->logged[kind])
		return;
	g->logged[kind] = true;
	fprintf(stderr, "sgdma virtual board: AXI DMA guest error: %s: %s of 0x%08x at offset 0x%02x (the illegal "
		"part has no effect%s; logged once, counted in the register snapshot)\n", guest_error_names[kind],
		write ? "write" : "read", write ? v : 0u, off, write ? "" : ", the read returns 0");
}

/* An offset inside the register span that names a register of PG021's map (any build). */
static bool mapped_offset(uint32_t off)
{
	switch (off % PG021_CHAN_SPAN) {
	case PG021_DMACR: case PG021_DMASR: case PG021_CURDESC: case PG021_CURDESC_MSB:
	case PG021_TAILDESC: case PG021_TAILDESC_MSB: case PG021_ADDR: case PG021_ADDR_MSB: case PG021_LENGTH:
		return off < PG021_REG_SPAN && off != PG021_SG_CTL;
	default:
		return false;
	}
}

/* A register this build has (SG registers or simple-mode registers; MSB halves only beyond 32 bits). */
static bool built_offset(const vb_board *b, uint32_t off)
{
	switch (off % PG021_CHAN_SPAN) {
	case PG021_CURDESC: case PG021_TAILDESC: return sg_build(b);
	case PG021_CURDESC_MSB: case PG021_TAILDESC_MSB: return sg_build(b) && addr64(b);
	case PG021_ADDR: case PG021_LENGTH: return !sg_build(b);
	case PG021_ADDR_MSB: return !sg_build(b) && addr64(b);
	default: return true;
	}
}

/* Reads: misaligned or unmapped offsets are guest errors (absent registers of the map read 0 quietly:
 * drivers read the MSB halves on every build).  Writes also may not target absent registers, reserved
 * DMACR bits or DMASR's read-only bits, nor CURDESC while the channel runs. */
static bool guest_read_ok(vb_board *b, uint32_t off)
{
	if (off & 3)
		guest_error(b, VB_GE_MISALIGNED, false, off, 0);
	else if (!mapped_offset(off))
		guest_error(b, VB_GE_RESERVED, false, off, 0);
	else
		return true;
	return false;
}

static bool guest_write_ok(vb_board *b, uint32_t off, uint32_t v)
{
	const uint32_t cr_defined = PG021_CR_RS | PG021_CR_RSVD1 | PG021_CR_RESET | PG021_CR_KEYHOLE |
				    PG021_CR_CYCLIC | PG021_CR_IRQ_ALL | PG021_CR_THRESHOLD | PG021_CR_DELAY;
	const struct vb_chan *c = &b->ch[off >= PG021_S2MM_BASE];
	if (off & 3) {
		guest_error(b, VB_GE_MISALIGNED, true, off, v);
		return false;
	}
	if (!mapped_offset(off) || !built_offset(b, off)) {
		guest_error(b, VB_GE_RESERVED, true, off, v);
		return false;
	}
	switch (off % PG021_CHAN_SPAN) {
	case PG021_DMACR:
		if (v & ~cr_defined)
			guest_error(b, VB_GE_RESERVED, true, off, v);   /* the defined bits still take effect */
		return true;
	case PG021_DMASR:
		if (v & ~(PG021_SR_IRQ_ALL | PG021_SR_THRESHOLD_STS | PG021_SR_DELAY_STS) & ~c->dmasr)
			guest_error(b, VB_GE_READ_ONLY, true, off, v);   /* writing back what was read is fine */
		return true;
	case PG021_CURDESC: case PG021_CURDESC_MSB:
		if (!halted(c))
			guest_error(b, VB_GE_READ_ONLY, true, off, v);
		return true;
	default:
		return true;
	}
}

uint32_t vb_dma_read(vb_board *b, uint32_t off)
{
	struct vb_chan *c;
	uint32_t r;

	if (!guest_read_ok(b, off))
		return 0;
	c = &b->ch[off >= PG021_S2MM_BASE];
	r = off % PG021_CHAN_SPAN;
	switch (r) {
	case PG021_DMACR: return c->dmacr;
	case PG021_DMASR: return live_dmasr(b, c);
	case PG021_CURDESC: return sg_build(b) ? (uint32_t)c->curdesc : 0;
	case PG021_CURDESC_MSB: return sg_build(b) && addr64(b) ? (uint32_t)(c->curdesc >> 32) : 0;
	case PG021_TAILDESC: return sg_build(b) ? (uint32_t)c->taildesc : 0;
	case PG021_TAILDESC_MSB: return sg_build(b) && addr64(b) ? (uint32_t)(c->taildesc >> 32) : 0;
	case PG021_ADDR: return sg_build(b) ? 0 : (uint32_t)c->addr;
	case PG021_ADDR_MSB: return !sg_build(b) && addr64(b) ? (uint32_t)(c->addr >> 32) : 0;
	case PG021_LENGTH: return sg_build(b) ? 0 : c->length;
	default: return 0;
	}
}

void vb_dma_write(vb_board *b, uint32_t off, uint32_t v)
{
	struct vb_chan *c;
	uint32_t r;
	uint32_t msb_mask = b->cfg.addr_width >= 64 ? 0xFFFFFFFFu : (uint32_t)((1ull << (b->cfg.addr_width - 32)) - 1);

	if (!guest_write_ok(b, off, v) || resetting(b))
		return;
	c = &b->ch[off >= PG021_S2MM_BASE];
	r = off % PG021_CHAN_SPAN;
	switch (r) {
	case PG021_DMACR:
		cr_write(b, c, v);
		break;
	case PG021_DMASR:
		c->dmasr &= ~(v & PG021_SR_IRQ_ALL);   /* IRQ bits are W1C, the rest RO */
		break;
	case PG021_CURDESC:
		/* Writable only while halted; bits 5:0 reserved. */
		if (sg_build(b) && halted(c))
			c->next_bd = c->curdesc = set_lo(c->curdesc, v & ~(PG021_BD_ALIGN - 1));
		break;
	case PG021_CURDESC_MSB:
		if (sg_build(b) && addr64(b) && halted(c))
			c->next_bd = c->curdesc = set_hi(c->curdesc, v & msb_mask);
		break;
	case PG021_TAILDESC:
		if (!sg_build(b))
			break;
		c->taildesc = set_lo(c->taildesc, v & ~(PG021_BD_ALIGN - 1));
		if (!addr64(b))
			tail_written(b, c);   /* > 32-bit: the MSB write is the trigger */
		break;
	case PG021_TAILDESC_MSB:
		if (sg_build(b) && addr64(b)) {
			c->taildesc = set_hi(c->taildesc, v & msb_mask);
			tail_written(b, c);
		}
		break;
	case PG021_ADDR:
		if (!sg_build(b) && !busy(c))
			c->addr = set_lo(c->addr, v);
		break;
	case PG021_ADDR_MSB:
		if (!sg_build(b) && addr64(b) && !busy(c))
			c->addr = set_hi(c->addr, v & msb_mask);
		break;
	case PG021_LENGTH:
		if (!sg_build(b))
			length_written(b, c, v);
		break;
	default:
		break;
	}
}

bool vb_irq_pending(vb_board *b, enum vb_chan_id ch)
{
	vb_sync(b);
	return (b->ch[ch].dmasr & b->ch[ch].dmacr & PG021_SR_IRQ_ALL) != 0;
}

void vb_get_probe(vb_board *b, enum vb_chan_id ch, struct vb_probe *out)
{
	vb_sync(b);
	*out = b->ch[ch].probe;
}

void vb_get_stats(vb_board *b, enum vb_chan_id ch, struct vb_stats *out)
{
	vb_sync(b);
	*out = b->ch[ch].stats;
	out->mmio_reads = b->mmio_reads;
	out->mmio_writes = b->mmio_writes;
}

/* ---- bus glue: the DMA's register window (dev = the board) ---------------- */

static uint32_t ops_read(void *dev, uint64_t off) { return vb_dma_read(dev, (uint32_t)off); }
static void ops_write(void *dev, uint64_t off, uint32_t v) { vb_dma_write(dev, (uint32_t)off, v); }
static void ops_reset(void *dev) { vb_dma_reset(dev); }
static uint64_t ops_next_event(void *dev) { return vb_dma_next_event(dev); }
static void ops_step(void *dev, uint64_t t) { vb_dma_step(dev, t); }

const struct vb_device_ops vb_axidma_ops = {
	.name = "axi_dma",
	.read = ops_read,
	.write = ops_write,
	.reset = ops_reset,
	.next_event = ops_next_event,
	.step = ops_step,
};
