/*
 * channel.h - the channel state machine: Halted/Idle/running, errors, interrupt
 * coalescing; applies what the layers below report (called by regs.c).
 */
#ifndef SGDMA_VBOARD_DMA_CHANNEL_H
#define SGDMA_VBOARD_DMA_CHANNEL_H

#include "dma/sg.h"

#pragma GCC visibility push(hidden)

void vb_dma_reset(struct vb_dma *d);
static inline bool vb_dma_resetting(const struct vb_dma *d) { return d->reset_until != VB_NO_TIME; }
void vb_dma_soft_reset(struct vb_dma *d);
uint32_t vb_chan_dmasr(const struct vb_dma *d, const struct vb_chan *c);
void vb_chan_control(struct vb_dma *d, struct vb_chan *c, uint32_t old, uint32_t now);
void vb_chan_tail_written(struct vb_dma *d, struct vb_chan *c);
void vb_chan_length_written(struct vb_dma *d, struct vb_chan *c, uint32_t v);
uint64_t vb_dma_next_event_scan(struct vb_dma *d);
/* The core's next event; the board asks after every step and between CPU
 * accesses, and the answer is nearly always the cached one. */
static inline uint64_t vb_dma_next_event(struct vb_dma *d)
{
	return d->next_valid ? d->next : vb_dma_next_event_scan(d);
}
void vb_dma_step(struct vb_dma *d, uint64_t t);

#pragma GCC visibility pop

#endif
