/*
 * stream.c - AXI4-Stream endpoints: the MM2S sink that records packets by
 * TLAST, and the S2MM source queue (fed by software or by the loopback wire).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dma/stream.h"
#include "base/grow.h"

/* ---- MM2S sink ---------------------------------------------------------- */

/* The open packet does not fit (cap or host memory): forget its bytes, keep counting it. */
static void sink_drop_open(struct vb_sink *s)
{
	if (s->record)
		s->used = s->open_start;
	s->open_dropped = true;
}


static bool sink_keep_bytes(struct vb_sink *s, const uint8_t *data, uint64_t len)
{
	if (s->used + len > s->cap || !vb_sink_log_fit(&s->log, s->cap, s->used + len))
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

static void sink_close(struct vb_sink *s, uint64_t t_last, bool cut);

void vb_sink_push(void *dev, const uint8_t *data, uint64_t len, bool last, uint64_t t_first, uint64_t t_last)
{
	struct vb_sink *s = dev;

	if (!s->open) {
		s->open = true;
		s->open_dropped = false;
		s->open_start = s->used;
		s->open_len = 0;
		s->open_first_ps = t_first;
	}
	s->open_len += len;
	if (s->record && !s->open_dropped && !sink_keep_bytes(s, data, len))
		sink_drop_open(s);
	s->last_beat_ps = t_last;
	if (last)
		sink_close(s, t_last, false);
}

/* The open packet ends: by its TLAST, or cut short by a reset (`cut`). */
static void sink_close(struct vb_sink *s, uint64_t t_last, bool cut)
{
	s->open = false;
	if (!s->open_dropped && !sink_room_for_packet(s))
		sink_drop_open(s);
	if (s->open_dropped) {
		s->overflow_packets++;
		s->overflow_bytes += s->open_len;
		if (!s->overflow_logged) {
			s->overflow_logged = true;
			fprintf(stderr, "sgdma virtual board: MM2S sink full (%llu bytes / %llu packets kept at most, "
				"or no host memory): further packets are counted, not kept; clear the sink\n",
				(unsigned long long)s->cap,
				(unsigned long long)VB_SINK_MAX_PACKETS);
		}
		return;
	}
	s->pkts[s->n++] = (struct vb_packet){
		.offset = s->record ? s->open_start : 0,
		.length = s->open_len,
		.t_first_ps = s->open_first_ps,
		.t_last_ps = t_last,
		.cut = cut,
	};
}

/* Drops recorded packets; an open packet keeps its bytes so TLAST still
 * delimits it correctly.  The log's pages beyond a small head go back to the
 * host, so a long sweep that records and clears holds no more than a trial. */
void vb_sink_drop_kept(struct vb_sink *s)
{
	if (s->open && s->record && !s->open_dropped) {
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
int vb_source_push(struct vb_source *q, const uint8_t *data, uint64_t len, bool last, uint64_t t)
{
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
		q->arrived(q->arrived_ctx, t);
	return 0;
lost:
	if (!q->lost_bytes)
		fprintf(stderr, "sgdma virtual board: no host memory to queue %llu stream bytes for S2MM\n",
			(unsigned long long)len);
	q->lost_bytes += len;
	return -1;
}

/* Software's bytes, available now; a TLAST alone marks the last queued byte. */
int vb_source_queue(struct vb_source *q, uint64_t now, const void *data, size_t len, bool last)
{

	if (len == 0) {
		/* A TLAST needs a beat: attach it to the last queued byte. */
		if (!last || q->count == 0)
			return -1;
		q->q[(q->head + q->count - 1) % q->cap].last = true;
		return 0;
	}
	return vb_source_push(q, data, len, last, now) < 0 ? -1 : 0;
}

uint64_t vb_source_next_time(struct vb_source *q, uint64_t need, uint64_t t)
{
	(void)need;   /* software's chunks are whole: the first one is all there is to wait for */
	(void)t;
	return q->count ? q->q[q->head].t_avail : VB_NO_TIME;
}

uint64_t vb_source_take(struct vb_source *q, uint8_t *dst, uint64_t max, uint64_t t, bool *last)
{
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

/* The DMA's reset outputs (machine.c wires them here): the sink's open packet
 * (no TLAST yet) closes as a cut packet, so the next never merges into it; the
 * source's queued bytes are lost, so none of an interrupted transfer reaches
 * the next one. */
void vb_sink_cut(struct vb_sink *s)
{
	if (s->open)
		sink_close(s, s->last_beat_ps, true);
}

void vb_source_drop(struct vb_source *q)
{
	for (size_t i = 0; i < q->count; i++)
		free(q->q[(q->head + i) % q->cap].data);
	q->head = q->count = 0;
	q->pending = 0;
}

void vb_sink_fini(struct vb_sink *s)
{
	vb_sink_log_free(&s->log);
	free(s->pkts);
}

void vb_source_fini(struct vb_source *q)
{
	for (size_t i = 0; i < q->count; i++)
		free(q->q[(q->head + i) % q->cap].data);
	free(q->q);
}
