/*
 * rtio_dma.h - event DMA playback (rtio_dma.c): started, timed and resumed by the core.
 */
#ifndef SGDMA_VBOARD_PL_RTIO_DMA_H
#define SGDMA_VBOARD_PL_RTIO_DMA_H

#include "pl/rtio_types.h"

void rtio_dma_start(struct vb_rtio *r, uint64_t t);
uint64_t rtio_dma_next(struct vb_rtio *r);
void rtio_dma_step(struct vb_rtio *r, uint64_t t);
void rtio_dma_resume(struct vb_rtio *r, uint32_t status, uint64_t t);

#endif
