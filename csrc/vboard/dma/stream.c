/*
 * stream.c - AXI4-Stream endpoints: the MM2S sink that records packets by
 * TLAST, and the S2MM source queue (fed by software or by the loopback wire).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- MM2S sink ---------------------------------------------------------- */

void vb_sink_push(vb_board *b, const uint8_t *data, uint64_t len, bool last, uint64_t t_first, uint64_t t_last)
{
	struct vb_sink *s = &b->sink;

	vb_csm_stream(b, len, last, t_first, t_last);
	if (!s->open) {
		s->open = true;
		s->open_start = s->used;
		s->open_first_ps = t_first;
	}
	if (b->cfg.sink_record) {
		s->data = vb_grow(s->data, &s->cap, s->used + len, 1);
		memcpy(s->data + s->used, data, len);
	}
	s->used += len;
	if (!last)
		return;
	s->pkts = vb_grow(s->pkts, &s->cap_pkts, s->n + 1, sizeof(*s->pkts));
	s->pkts[s->n++] = (struct vb_packet){
		.offset = b->cfg.sink_record ? s->open_start : 0,
		.length = s->used - s->open_start,
		.t_first_ps = s->open_first_ps,
		.t_last_ps = t_last,
	};
	s->open = false;
	if (!b->cfg.sink_record)
		s->used = 0;
}

size_t vb_sink_count(vb_board *b) { vb_sync(b); return b->sink.n; }

const struct vb_packet *vb_sink_packet(vb_board *b, size_t i)
{
	return i < b->sink.n ? &b->sink.pkts[i] : NULL;
}

const uint8_t *vb_sink_data(vb_board *b) { return b->sink.data; }

uint64_t vb_sink_open_bytes(vb_board *b)
{
	vb_sync(b);
	return b->sink.open ? b->sink.used - b->sink.open_start : 0;
}

/* Drops recorded packets; an open packet keeps its bytes so TLAST still
 * delimits it correctly. */
void vb_sink_clear(vb_board *b)
{
	struct vb_sink *s = &b->sink;
	vb_sync(b);
	if (s->open && b->cfg.sink_record) {
		uint64_t n = s->used - s->open_start;
		memmove(s->data, s->data + s->open_start, n);
		s->used = n;
		s->open_start = 0;
	} else if (s->open) {
		s->used -= s->open_start;
		s->open_start = 0;
	} else {
		s->used = 0;
	}
	s->n = 0;
}

/* ---- S2MM source -------------------------------------------------------- */

void vb_source_push(vb_board *b, const uint8_t *data, uint64_t len, bool last, uint64_t t)
{
	struct vb_source *q = &b->src;
	struct vb_chunk *c;

	if (q->count == q->cap) {
		/* grow the ring, unwrapping it */
		size_t cap = q->cap;
		struct vb_chunk *n = vb_grow(NULL, &cap, q->cap + 1, sizeof(*n));
		for (size_t i = 0; i < q->count; i++)
			n[i] = q->q[(q->head + i) % q->cap];
		free(q->q);
		q->q = n;
		q->cap = cap;
		q->head = 0;
	}
	c = &q->q[(q->head + q->count) % q->cap];
	c->data = malloc(len ? len : 1);
	if (!c->data) {
		fprintf(stderr, "sgdma virtual board: out of host memory\n");
		abort();
	}
	memcpy(c->data, data, len);
	c->len = len;
	c->off = 0;
	c->last = last;
	c->t_avail = t;
	q->count++;
	q->pending += len;
	if (q->arrived)
		q->arrived(b, t);
}

int vb_source_send(vb_board *b, const void *data, size_t len, bool last)
{
	struct vb_source *q = &b->src;

	vb_sync(b);
	if (len == 0) {
		/* A TLAST needs a beat: attach it to the last queued byte. */
		if (!last || q->count == 0)
			return -1;
		q->q[(q->head + q->count - 1) % q->cap].last = true;
		return 0;
	}
	vb_source_push(b, data, len, last, b->now);
	vb_sync(b);
	return 0;
}

uint64_t vb_source_pending(vb_board *b) { vb_sync(b); return b->src.pending; }

uint64_t vb_source_next_time(vb_board *b, uint64_t need, uint64_t t)
{
	const struct vb_source *q = &b->src;
	if (vb_adc_feeding(b))
		return vb_adc_next_time(b, need, t);
	return q->count ? q->q[q->head].t_avail : VB_NO_TIME;
}

uint64_t vb_source_take(vb_board *b, uint8_t *dst, uint64_t max, uint64_t t, bool *last)
{
	struct vb_source *q = &b->src;
	uint64_t got = 0;

	if (vb_adc_feeding(b))
		return vb_adc_take(b, dst, max, t, last);
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

void vb_stream_fini(vb_board *b)
{
	struct vb_source *q = &b->src;
	for (size_t i = 0; i < q->count; i++)
		free(q->q[(q->head + i) % q->cap].data);
	free(q->q);
	free(b->sink.data);
	free(b->sink.pkts);
}
