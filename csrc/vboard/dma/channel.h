/*
 * channel.h - the channel state machine: Halted/Idle/running, errors, interrupt
 * coalescing; applies what the layers below report (called by regs.c).
 */
#ifndef SGDMA_VBOARD_DMA_CHANNEL_H
#define SGDMA_VBOARD_DMA_CHANNEL_H

#include "dma/sg.h"

#pragma GCC visibility push(hidden)

void vb_dma_reset(vb_board *b);
static inline bool vb_dma_resetting(const vb_board *b) { return b->reset_until != VB_NO_TIME; }
void vb_dma_soft_reset(vb_board *b);
uint32_t vb_chan_dmasr(const vb_board *b, const struct vb_chan *c);
void vb_chan_control(vb_board *b, struct vb_chan *c, uint32_t old, uint32_t now);
void vb_chan_tail_written(vb_board *b, struct vb_chan *c);
void vb_chan_length_written(vb_board *b, struct vb_chan *c, uint32_t v);
uint64_t vb_dma_next_event(vb_board *b);
void vb_dma_step(vb_board *b, uint64_t t);

#pragma GCC visibility pop

#endif
