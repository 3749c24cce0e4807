/*
 * stream.c - AXI4-Stream endpoints: the MM2S sink that records packets by
 * TLAST, and the S2MM source queue (fed by software or by the loopback wire).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- MM2S sink ---------------------------------------------------------- */

/* The open packet does not fit (cap or host memory): forget its bytes, keep counting it. */
static void sink_drop_open(vb_board *b, struct vb_sink *s)
{
	if (b->cfg.sink_record)
		s->used = s->open_start;
	s->open_dropped = true;
}

static uint64_t sink_cap(const vb_board *b)
{
	return b->cfg.sink_max_bytes ? b->cfg.sink_max_bytes : VB_SINK_MAX_BYTES;
}

static bool sink_keep_bytes(vb_board *b, struct vb_sink *s, const uint8_t *data, uint64_t len)
{
	if (s->used + len > sink_cap(b) || !vb_sink_log_fit(&s->log, sink_cap(b), s->used + len))
		return false;
	vb_sink_log_write(&s->log, s->used, data, len);
	s->used += len;
	return true;
}

static bool sink_room_for_packet(struct vb_sink *s)
{
	struct vb_packet *p;
	if (s->n >= VB_SINK_MAX_PACKETS)
		return false;
	if (s->n < s->cap_pkts)
		return true;
	p = vb_grow(s->pkts, &s->cap_pkts, s->n + 1, sizeof(*s->pkts));
	if (!p)
		return false;
	s->pkts = p;
	return true;
}

static void sink_close(vb_board *b, uint64_t t_last, bool cut);

void vb_sink_push(void *dev, const uint8_t *data, uint64_t len, bool last, uint64_t t_first, uint64_t t_last)
{
	vb_board *b = dev;
	struct vb_sink *s = &b->sink;

	if (!s->open) {
		s->open = true;
		s->open_dropped = false;
		s->open_start = s->used;
		s->open_len = 0;
		s->open_first_ps = t_first;
	}
	s->open_len += len;
	if (b->cfg.sink_record && !s->open_dropped && !sink_keep_bytes(b, s, data, len))
		sink_drop_open(b, s);
	s->last_beat_ps = t_last;
	if (last)
		sink_close(b, t_last, false);
}

/* The open packet ends: by its TLAST, or cut short by a reset (`cut`). */
static void sink_close(vb_board *b, uint64_t t_last, bool cut)
{
	struct vb_sink *s = &b->sink;

	s->open = false;
	if (!s->open_dropped && !sink_room_for_packet(s))
		sink_drop_open(b, s);
	if (s->open_dropped) {
		s->overflow_packets++;
		s->overflow_bytes += s->open_len;
		if (!s->overflow_logged) {
			s->overflow_logged = true;
			fprintf(stderr, "sgdma virtual board: MM2S sink full (%llu bytes / %llu packets kept at most, "
				"or no host memory): further packets are counted, not kept; clear the sink\n",
				(unsigned long long)sink_cap(b),
				(unsigned long long)VB_SINK_MAX_PACKETS);
		}
		return;
	}
	s->pkts[s->n++] = (struct vb_packet){
		.offset = b->cfg.sink_record ? s->open_start : 0,
		.length = s->open_len,
		.t_first_ps = s->open_first_ps,
		.t_last_ps = t_last,
		.cut = cut,
	};
}

const struct vb_packet *vb_sink_packet(vb_board *b, size_t i)
{
	return i < b->sink.n ? &b->sink.pkts[i] : NULL;
}

const uint8_t *vb_sink_data(vb_board *b) { return b->sink.log.data; }

/* Drops recorded packets; an open packet keeps its bytes so TLAST still
 * delimits it correctly.  The log's pages beyond a small head go back to the
 * host, so a long sweep that records and clears holds no more than a trial. */
void vb_sink_drop_kept(vb_board *b)
{
	struct vb_sink *s = &b->sink;
	if (s->open && b->cfg.sink_record && !s->open_dropped) {
		uint64_t n = s->used - s->open_start;
		memmove(s->log.data, s->log.data + s->open_start, n);
		s->used = n;
	} else {
		s->used = 0;
	}
	s->open_start = 0;
	s->n = 0;
	vb_sink_log_trim(&s->log, s->used);
}

/* ---- S2MM source -------------------------------------------------------- */

/* 0, or -1 when the host has no memory for the bytes (they are counted in lost_bytes). */
int vb_source_push(vb_board *b, const uint8_t *data, uint64_t len, bool last, uint64_t t)
{
	struct vb_source *q = &b->src;
	struct vb_chunk *c;
	uint8_t *copy = malloc(len ? (size_t)len : 1);

	if (!copy)
		goto lost;
	if (q->count == q->cap) {
		/* grow the ring, unwrapping it */
		size_t cap = q->cap;
		struct vb_chunk *n = vb_grow(NULL, &cap, q->cap + 1, sizeof(*n));
		if (!n) {
			free(copy);
			goto lost;
		}
		for (size_t i = 0; i < q->count; i++)
			n[i] = q->q[(q->head + i) % q->cap];
		free(q->q);
		q->q = n;
		q->cap = cap;
		q->head = 0;
	}
	c = &q->q[(q->head + q->count) % q->cap];
	c->data = copy;
	memcpy(c->data, data, len);
	c->len = len;
	c->off = 0;
	c->last = last;
	c->t_avail = t;
	q->count++;
	q->pending += len;
	if (q->arrived)
		q->arrived(b, t);
	return 0;
lost:
	if (!q->lost_bytes)
		fprintf(stderr, "sgdma virtual board: no host memory to queue %llu stream bytes for S2MM\n",
			(unsigned long long)len);
	q->lost_bytes += len;
	return -1;
}

/* Software's bytes, available now; a TLAST alone marks the last queued byte. */
int vb_source_queue(vb_board *b, const void *data, size_t len, bool last)
{
	struct vb_source *q = &b->src;

	if (len == 0) {
		/* A TLAST needs a beat: attach it to the last queued byte. */
		if (!last || q->count == 0)
			return -1;
		q->q[(q->head + q->count - 1) % q->cap].last = true;
		return 0;
	}
	return vb_source_push(b, data, len, last, b->sched.now) < 0 ? -1 : 0;
}

uint64_t vb_source_next_time(vb_board *b, uint64_t need, uint64_t t)
{
	const struct vb_source *q = &b->src;
	(void)need;   /* software's chunks are whole: the first one is all there is to wait for */
	(void)t;
	return q->count ? q->q[q->head].t_avail : VB_NO_TIME;
}

uint64_t vb_source_take(vb_board *b, uint8_t *dst, uint64_t max, uint64_t t, bool *last)
{
	struct vb_source *q = &b->src;
	uint64_t got = 0;

	*last = false;
	while (got < max && q->count) {
		struct vb_chunk *c = &q->q[q->head];
		uint64_t n;
		if (c->t_avail > t)
			break;
		n = c->len - c->off;
		if (n > max - got)
			n = max - got;
		memcpy(dst + got, c->data + c->off, n);
		c->off += n;
		got += n;
		q->pending -= n;
		if (c->off < c->len)
			break;
		*last = c->last;
		free(c->data);
		q->head = (q->head + 1) % q->cap;
		q->count--;
		if (*last)
			break;
	}
	return got;
}

/*
 * PG021 drives mm2s_prmry_reset_out_n and s2mm_prmry_reset_out_n low during a soft reset; the model wires
 * both to the stream endpoints, as a design that follows the product guide does.  So a reset:
 *  - closes the sink's open packet (no TLAST yet) as a cut packet, reported as such, so the next packet
 *    never merges into it;
 *  - empties the S2MM source queue (the loopback wire and software-fed bytes not yet taken), so no stale
 *    bytes of an interrupted transfer reach the next one.
 * The ADC producer (adc.c) is a separate PL block with its own start/stop and is not on this reset.
 */
void vb_stream_reset(vb_board *b)
{
	struct vb_source *q = &b->src;

	if (b->sink.open)
		sink_close(b, b->sink.last_beat_ps, true);
	for (size_t i = 0; i < q->count; i++)
		free(q->q[(q->head + i) % q->cap].data);
	q->head = q->count = 0;
	q->pending = 0;
}

void vb_stream_fini(vb_board *b)
{
	struct vb_source *q = &b->src;
	for (size_t i = 0; i < q->count; i++)
		free(q->q[(q->head + i) % q->cap].data);
	free(q->q);
	vb_sink_log_free(&b->sink.log);
	free(b->sink.pkts);
}
