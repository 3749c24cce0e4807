/*
 * stream.h - the stream endpoints: the MM2S sink recorder (packets by TLAST,
 * bounded) and the S2MM source queue (software's bytes, the loopback wire).
 */
#ifndef SGDMA_VBOARD_DMA_STREAM_H
#define SGDMA_VBOARD_DMA_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sink_log.h"
#include "vboard.h"

struct vb_chunk {
	uint8_t *data;
	uint64_t len, off;
	bool last;
	uint64_t t_avail;
};

struct vb_source {
	struct vb_chunk *q;
	size_t head, count, cap;  /* ring of chunks */
	uint64_t pending;         /* bytes queued */
	uint64_t lost_bytes;      /* loopback bytes the host had no memory to queue */
	/* told when data becomes available (machine.c wires it to the S2MM stream link) */
	void (*arrived)(void *ctx, uint64_t t);
	void *arrived_ctx;
};

/* The MM2S sink keeps at most this much: beyond it whole packets are counted,
 * not kept, so a long run cannot exhaust the host (clear it to make room). */
#define VB_SINK_MAX_BYTES   (1ull << 30)
#define VB_SINK_MAX_PACKETS (1ull << 24)

struct vb_sink {
	bool record;              /* keep the bytes (stream.sink_record), not only the packets */
	uint64_t cap;             /* bytes kept at most */
	struct vb_sink_log log;   /* the bytes (base/sink_log.c) */
	uint64_t used;
	struct vb_packet *pkts;
	size_t n, cap_pkts;
	uint64_t open_start;      /* offset of the packet without TLAST yet */
	uint64_t open_len;        /* its bytes so far */
	uint64_t open_first_ps;
	uint64_t last_beat_ps;    /* time of the latest beat (a cut packet ends there) */
	bool open;
	bool open_dropped;        /* it did not fit: counted, not kept */
	bool overflow_logged;
	uint64_t overflow_packets, overflow_bytes;   /* packets not kept (cap or host memory) */
};

#pragma GCC visibility push(hidden)

/* The sink recorder, a packet sink of the MM2S stream link (dev = struct vb_sink). */
void vb_sink_push(void *dev, const uint8_t *data, uint64_t len, bool last, uint64_t t_first, uint64_t t_last);
void vb_sink_drop_kept(struct vb_sink *s);   /* vb_sink_clear without the sync */
void vb_sink_cut(struct vb_sink *s);         /* a reset: the open packet ends, cut */
void vb_sink_fini(struct vb_sink *s);

/* The S2MM source: software's bytes (or the loopback wire's), available from t; 0, or -1 when the host has
 * no memory for them (counted in lost_bytes). */
int vb_source_push(struct vb_source *q, const uint8_t *data, uint64_t len, bool last, uint64_t t);
/* Software's bytes at now; a TLAST alone (len 0) marks the last queued byte. */
int vb_source_queue(struct vb_source *q, uint64_t now, const void *data, size_t len, bool last);
/* When at least `need` bytes (or a packet's end) can be taken, from t on. */
uint64_t vb_source_next_time(struct vb_source *q, uint64_t need, uint64_t t);
/* Take up to max bytes available at time t, stopping after TLAST. */
uint64_t vb_source_take(struct vb_source *q, uint8_t *dst, uint64_t max, uint64_t t, bool *last);
void vb_source_drop(struct vb_source *q);    /* a reset: queued bytes are lost */
void vb_source_fini(struct vb_source *q);

#pragma GCC visibility pop

#endif
