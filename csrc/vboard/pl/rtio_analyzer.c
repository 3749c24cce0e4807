/*
 * rtio_analyzer.c - the RTIO analyzer [artiq-rtio.md sec. 4]: it snoops every
 * CRI write (kernel and DMA alike), encodes a 32-byte message into a FIFO of
 * analyzer_fifo entries (a full FIFO loses the message and sets the sticky
 * overflow flag, it never stalls the CRI), and a writer stores each message
 * as one 4-beat burst on S_AXI_HP1 into a ring [base, last] that wraps,
 * counting bytes.  Messages are stored in the dump's byte layout
 * (RTIO_MESSAGE_FIELDS, big-endian).
 */
#include <string.h>

#include "pl/rtio_analyzer.h"
#include "pl/rtio_mem.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static void put_be(uint8_t *p, uint64_t v, unsigned n)
{
	if (n == 8) {
		uint64_t x = __builtin_bswap64(v);
		memcpy(p, &x, 8);
	} else if (n == 4) {
		uint32_t x = __builtin_bswap32((uint32_t)v);
		memcpy(p, &x, 4);
	} else {
		for (unsigned i = 0; i < n; i++)
			p[n - 1 - i] = (uint8_t)(v >> (8 * i));
	}
}

/* max(w_free, the first edge at or after t); w_free is always on an edge (it starts at 0 and moves by whole
 * cycles), so when it is not before t it is that maximum, without the division. */
static uint64_t edge_after(const struct vb_rtio *r, uint64_t w_free, uint64_t t)
{
	return w_free >= t ? w_free : rtio_next_edge(r, t);
}

/* A message that arrives at a full FIFO is lost (sticky overflow): no need to build it. */
static bool lose(struct vb_rtio *r)
{
	struct rtio_analyzer *a = &r->an;
	if (a->fn < r->p.analyzer_fifo)
		return false;
	a->overflow = true;
	a->lost++;
	return true;
}

static void push(struct vb_rtio *r, const uint8_t *msg, uint64_t t)
{
	struct rtio_analyzer *a = &r->an;
	if (!a->enabled)
		return;
	if (a->fn == 0)
		a->w_free = edge_after(r, a->w_free, t);
	if (a->fn >= r->p.analyzer_fifo) {
		a->overflow = true;   /* sticky; the message is lost */
		a->lost++;
		return;
	}
	memcpy(a->fifo + (size_t)rtio_wrap(a->fh + a->fn, r->p.analyzer_fifo) * RTIO_MESSAGE_BYTES, msg,
	       RTIO_MESSAGE_BYTES);
	a->fn++;
}

/* An input or output message: data, address, the wall clock at the CRI operation, the event's timestamp. */
static void an_io(struct vb_rtio *r, uint32_t type, uint32_t chan, uint32_t addr, int64_t ts, uint64_t data,
		  uint64_t t)
{
	uint8_t m[RTIO_MESSAGE_BYTES] = { 0 };
	if (!r->an.enabled || lose(r))
		return;
	put_be(m + RTIO_MSG_DATA, data, RTIO_MSG_DATA_SIZE);
	put_be(m + RTIO_MSG_ADDRESS, addr, RTIO_MSG_ADDRESS_SIZE);
	put_be(m + RTIO_MSG_RTIO_COUNTER, (uint64_t)rtio_counter_at(r, t), RTIO_MSG_RTIO_COUNTER_SIZE);
	put_be(m + RTIO_MSG_TIMESTAMP, (uint64_t)ts, RTIO_MSG_TIMESTAMP_SIZE);
	put_be(m + RTIO_MSG_TYPE_CHANNEL, (uint64_t)chan << 2 | type, RTIO_MSG_TYPE_CHANNEL_SIZE);
	push(r, m, t);
}

void rtio_an_output(struct vb_rtio *r, const struct rtio_event *ev, uint64_t t)
{
	if (r->an.enabled)
		an_io(r, RTIO_MSG_OUTPUT, ev->chan, ev->addr, ev->ts, (uint64_t)ev->data[0] | (uint64_t)ev->data[1] << 32,
		      t);
}

/* A CRI read that completed with an event (sec. 4.1). */
void rtio_an_input(struct vb_rtio *r, uint32_t chan, int64_t ts, uint32_t data, uint64_t t)
{
	an_io(r, RTIO_MSG_INPUT, chan, 0, ts, data, t);
}

void rtio_an_exception(struct vb_rtio *r, uint32_t chan, uint8_t type, uint64_t t)
{
	uint8_t m[RTIO_MESSAGE_BYTES] = { 0 };
	if (!r->an.enabled || lose(r))
		return;
	m[RTIO_MSG_EXCEPTION_TYPE] = type;
	put_be(m + RTIO_MSG_RTIO_COUNTER, (uint64_t)rtio_counter_at(r, t), RTIO_MSG_RTIO_COUNTER_SIZE);
	put_be(m + RTIO_MSG_TYPE_CHANNEL, (uint64_t)chan << 2 | RTIO_MSG_EXCEPTION, RTIO_MSG_TYPE_CHANNEL_SIZE);
	push(r, m, t);
}

void rtio_an_stop(struct vb_rtio *r, uint64_t t)
{
	uint8_t m[RTIO_MESSAGE_BYTES] = { 0 };
	put_be(m + RTIO_MSG_RTIO_COUNTER, (uint64_t)rtio_counter_at(r, t), RTIO_MSG_RTIO_COUNTER_SIZE);
	put_be(m + RTIO_MSG_TYPE_CHANNEL, RTIO_MSG_STOPPED, RTIO_MSG_TYPE_CHANNEL_SIZE);
	push(r, m, t);
}

void rtio_an_reset(struct vb_rtio *r)
{
	struct rtio_analyzer *a = &r->an;
	a->wr_addr = a->base;
	a->byte_count = 0;
	a->fh = a->fn = a->oh = a->on = 0;
	a->w_free = a->done_max = 0;
	a->messages = a->lost = 0;
}

uint64_t rtio_an_next(struct vb_rtio *r)
{
	struct rtio_analyzer *a = &r->an;
	uint64_t t = VB_NO_TIME;
	/* Completions only matter when they free a slot the writer needs, or end the busy state.  Retirement is
	 * in order and lazy (every step retires what is done by its time first), so with nothing queued the
	 * only completion worth a step is the one that leaves none outstanding: the latest (in-order retirement
	 * ends exactly there, the same step the oldest-first wakes would end on, without the ones between). */
	if (a->on)
		t = a->fn == 0 ? a->done_max : a->on >= r->p.analyzer_outstanding ? a->out_done[a->oh] : t;
	if (a->fn && a->on < r->p.analyzer_outstanding && a->w_free < t)
		t = a->w_free;
	return t;
}

void rtio_an_step(struct vb_rtio *r, uint64_t t)
{
	struct rtio_analyzer *a = &r->an;
	uint64_t beats = RTIO_MESSAGE_BYTES / r->p.bus_bytes;

	while (a->on && a->out_done[a->oh] <= t) {
		a->oh = (a->oh + 1) % RTIO_AN_OUT;
		a->on--;
	}
	while (a->fn && a->on < r->p.analyzer_outstanding && a->w_free <= t) {
		uint64_t at = edge_after(r, a->w_free, t), span = (uint64_t)a->last + 1 - a->base;
		const uint8_t *msg = a->fifo + (size_t)a->fh * RTIO_MESSAGE_BYTES;
		uint8_t *dst;
		if (a->last < a->base || span < RTIO_MESSAGE_BYTES ||
		    !(dst = rtio_mem_host(r, a->wr_addr, RTIO_MESSAGE_BYTES))) {
			a->bus_error = true;   /* non-OKAY write response: sticky, message dropped */
			a->fh = rtio_wrap(a->fh + 1, r->p.analyzer_fifo);
			a->fn--;
			continue;
		}
		memcpy(dst, msg, RTIO_MESSAGE_BYTES);
		uint64_t done = rtio_mem_write(r, RTIO_PORT_HP1, at, a->wr_addr, RTIO_MESSAGE_BYTES);
		a->out_done[(a->oh + a->on) % RTIO_AN_OUT] = done;
		a->done_max = max64(a->done_max, done);
		a->on++;
		a->fh = rtio_wrap(a->fh + 1, r->p.analyzer_fifo);
		a->fn--;
		a->wr_addr += RTIO_MESSAGE_BYTES;
		if (a->wr_addr + RTIO_MESSAGE_BYTES > (uint64_t)a->last + 1)
			a->wr_addr = a->base;   /* the ring wraps */
		a->byte_count += RTIO_MESSAGE_BYTES;
		a->messages++;
		a->w_free = at + rtio_ps_of(r, beats);   /* the W channel: one beat per cycle */
	}
}
