/*
 * sg.h - the SG engine: BD fetch (MM2S queue, S2MM one ahead) and STATUS write-back,
 * in BD order (called by channel.c).
 */
#ifndef SGDMA_VBOARD_DMA_SG_H
#define SGDMA_VBOARD_DMA_SG_H

#include "dma/mm2s.h"
#include "dma/s2mm.h"

#pragma GCC visibility push(hidden)

/* S2MM: fetch the BD at next_bd (or take the one read ahead). */
void vb_sg_s2mm_fetch(struct vb_dma *d, struct vb_chan *c, uint64_t t);
/* S2MM: the phase ending at t (fetch, data, stream wait, write-back). */
void vb_sg_s2mm_step(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r);
/* MM2S queue (SG fetches into it; simple mode puts one command in it). */
uint64_t vb_sg_mm2s_find_next(const struct vb_dma *d, struct vb_chan *c);
/* The queue's next action time, kept until a step or a register write clears it. */
static inline uint64_t vb_sg_mm2s_next_event(const struct vb_dma *d, struct vb_chan *c)
{
	return c->mm2s.next_valid ? c->mm2s.t_next : vb_sg_mm2s_find_next(d, c);
}
void vb_sg_mm2s_step(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r);
void vb_sg_mm2s_kick(struct vb_dma *d, struct vb_chan *c);
void vb_sg_mm2s_tail_moved(struct vb_dma *d, struct vb_chan *c);
void vb_sg_mm2s_stop(struct vb_dma *d, struct vb_chan *c, struct vb_report *r);
void vb_sg_mm2s_simple(struct vb_dma *d, struct vb_chan *c);
bool vb_sg_mm2s_packet_active(const struct vb_chan *c, uint64_t t);
/* Soft reset: when the queue's in-flight transactions end; the queue is emptied. */
uint64_t vb_sg_mm2s_abort(struct vb_chan *c);

#pragma GCC visibility pop

#endif
