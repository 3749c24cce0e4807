/*
 * stream.h - AXI4-Stream links.  A data mover pushes to its tx link and pulls
 * from its rx link; machine.c decides what is on the other end (the DAC, the
 * stream trace, the CSM tap, the sink recorder, the loopback wire, the ADC or
 * the software source), so a data mover never names a device.
 */
#ifndef SGDMA_VBOARD_STREAM_H
#define SGDMA_VBOARD_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#define VB_STREAM_SINKS 4

/* One packet sink: told every transfer in order, with its bytes (NULL when no
 * sink of the link wants them), TLAST and the times of its first and last beat. */
struct vb_stream_sink {
	void (*push)(void *dev, const uint8_t *data, uint64_t len, bool last, uint64_t t_first, uint64_t t_last);
	void *dev;
};

struct vb_stream_tx {
	/* A consumer that times the beats itself (its FIFO, its sample clock), while
	 * *pace_on: given the edges the stream would use for the first and last beat,
	 * it sets *first and *last.  The flags are read before any call: a stream
	 * with no pacer and no watcher makes no indirect call per burst. */
	void (*pace)(void *dev, uint64_t ready, uint64_t last_ready, uint32_t n, bool gate_start, bool eof,
		     uint64_t *first, uint64_t *last);
	void *pace_dev;
	const bool *pace_on;
	/* An observer of every beat the stream times itself, called while *watch. */
	void (*beat)(void *dev, uint64_t t, bool last);
	void *beat_dev;
	const bool *watch;
	/* While *defer_on the consumer paces the stream live (a DUT's TREADY): the data
	 * mover queues each burst untimed and its beats leave when the consumer takes
	 * them (dma/mm2s.c vb_mm2s_take), so a full FIFO holds back the next burst. */
	const bool *defer_on;
	struct vb_stream_sink sink[VB_STREAM_SINKS];
	unsigned n_sinks;
	bool bytes;               /* some sink keeps bytes: the data mover reads them */
	void (*reset)(void *dev); /* the DMA's reset output (PG021 mm2s_prmry_reset_out_n) */
	void *reset_dev;
};

struct vb_stream_rx {
	/* When at least `need` bytes (or a packet's end) can be taken, from t on; VB_NO_TIME if never. */
	uint64_t (*next_time)(void *dev, uint64_t need, uint64_t t);
	/* Take up to max bytes available at t, stopping after TLAST (*last). */
	uint64_t (*take)(void *dev, uint8_t *dst, uint64_t max, uint64_t t, bool *last);
	void *dev;
	void (*reset)(void *dev); /* the DMA's reset output (PG021 s2mm_prmry_reset_out_n) */
	void *reset_dev;
	/* The consumer's hook (set by the DMA): data became available at t. */
	void (*arrived)(void *consumer, uint64_t t);
	void *consumer;
};

/* The DMA's soft reset reaches what is wired to both streams. */
static inline void vb_stream_reset(const struct vb_stream_tx *tx, const struct vb_stream_rx *rx)
{
	if (tx->reset)
		tx->reset(tx->reset_dev);
	if (rx->reset)
		rx->reset(rx->reset_dev);
}

static inline void vb_stream_push(const struct vb_stream_tx *tx, const uint8_t *data, uint64_t len, bool last,
				  uint64_t t_first, uint64_t t_last)
{
	for (unsigned i = 0; i < tx->n_sinks; i++)
		tx->sink[i].push(tx->sink[i].dev, data, len, last, t_first, t_last);
}

#endif
