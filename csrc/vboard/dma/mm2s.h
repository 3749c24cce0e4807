/*
 * mm2s.h - the MM2S data mover: read bursts, outstanding limit, FIFO, stream (called by sg.c).
 */
#ifndef SGDMA_VBOARD_DMA_MM2S_H
#define SGDMA_VBOARD_DMA_MM2S_H

#include "dma/bd.h"

#pragma GCC visibility push(hidden)

/* When the data mover may issue its next burst (VB_NO_TIME: nothing to do). */
uint64_t vb_mm2s_dm_time(const struct vb_dma *d, struct vb_chan *c);
/* Issue one read burst of the BD at queue index p->dm. */
void vb_mm2s_issue_burst(struct vb_dma *d, struct vb_chan *c, uint64_t t);
uint64_t vb_mm2s_offer_time(const struct vb_dma *d, const struct vb_chan *c);
int vb_mm2s_take(struct vb_dma *d, struct vb_chan *c, uint64_t t, bool *last);
/* The next beat a live consumer can take: BD buffer, offset in it, bytes, TLAST, keyhole. */
struct vb_mm2s_beat_src {
	uint64_t buf, off;
	uint32_t nbytes;
	bool last, keyhole;
};
int vb_mm2s_next_beat(const struct vb_dma *d, const struct vb_chan *c, struct vb_mm2s_beat_src *out);
/* A streamed BD's data leaves on the stream (its packet began at t_first). */
void vb_mm2s_emit(struct vb_dma *d, struct vb_chan *c, const struct vb_qbd *e, uint64_t t_first);

#pragma GCC visibility pop

#endif
