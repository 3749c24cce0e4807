/*
 * regs.h - the AXI DMA's register file, the top of the DMA (the bus calls it through
 * vb_axidma_ops).
 */
#ifndef SGDMA_VBOARD_DMA_REGS_H
#define SGDMA_VBOARD_DMA_REGS_H

#include "dma/channel.h"

#pragma GCC visibility push(hidden)

uint32_t vb_dma_read(struct vb_dma *d, uint32_t off);
void vb_dma_write(struct vb_dma *d, uint32_t off, uint32_t value);

#pragma GCC visibility pop

#endif
