/*
 * s2mm.h - the S2MM data mover: stream beats into write bursts (called by sg.c and channel.c).
 */
#ifndef SGDMA_VBOARD_DMA_S2MM_H
#define SGDMA_VBOARD_DMA_S2MM_H

#include "dma/bd.h"

#pragma GCC visibility push(hidden)

enum vb_s2mm_result {
	VB_S2MM_BUSY,     /* moving data or waiting for the stream: c->phase, c->t_next set */
	VB_S2MM_FULL,     /* the buffer is complete (full or TLAST) */
	VB_S2MM_STOPPED,  /* an error or a halt is in the report */
};
enum vb_s2mm_result vb_s2mm_step(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r);
/* Take up to cap stream bytes at t into the armed buffer at its fill point (*addr); counters and probe follow.
 * Not VB_ACC_OK: the DMA cannot write there and the beats were consumed. *began: they start a packet. */
enum vb_access vb_s2mm_take(struct vb_dma *d, struct vb_chan *c, uint64_t t, uint64_t cap, uint64_t *addr,
			    uint64_t *got, bool *last, bool *began);
/* AXI bursts the data movers use for [addr, addr + len): max_burst beats, never across 4 KiB. */
uint64_t vb_dma_count_bursts(const struct vb_dma *d, uint64_t addr, uint64_t len);

#pragma GCC visibility pop

#endif
