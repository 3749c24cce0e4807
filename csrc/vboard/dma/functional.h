/*
 * functional.h - the functional fidelity's SG engine: a run's ring walked in
 * batches, untimed (dma.functional; called by channel.c).
 */
#ifndef SGDMA_VBOARD_DMA_FUNCTIONAL_H
#define SGDMA_VBOARD_DMA_FUNCTIONAL_H

#include "dma/mm2s.h"

#pragma GCC visibility push(hidden)

/* A tail write kicking channel c may run functionally (else the timed engine runs it). */
bool vb_fun_eligible(const struct vb_dma *d, const struct vb_chan *c);
/* Start a functional run at now: the first batch is walked after PG021's tail-write latency. */
void vb_fun_kick(struct vb_dma *d, struct vb_chan *c);
/* The event at t (c->t_next): end the batch in flight (its interrupts, errors, Idle), walk the next. */
void vb_fun_step(struct vb_dma *d, struct vb_chan *c, uint64_t t, struct vb_report *r);

#pragma GCC visibility pop

#endif
