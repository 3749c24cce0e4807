/*
 * bd.h - BD layout and its memory accesses: the DMA's leaf layer.
 */
#ifndef SGDMA_VBOARD_DMA_BD_H
#define SGDMA_VBOARD_DMA_BD_H

#include "dma/report.h"

#pragma GCC visibility push(hidden)

uint64_t vb_bd_buffer(const struct vb_dma *d, const struct pg021_bd *bd);
uint64_t vb_bd_next(const struct vb_dma *d, const struct pg021_bd *bd);
uint32_t vb_access_sr_bit(enum vb_access acc);     /* data side: DMADecErr / DMASlvErr */
uint32_t vb_access_sg_bit(enum vb_access acc);     /* SG side: SGDecErr / SGSlvErr */
uint32_t vb_access_bd_bit(enum vb_access acc);     /* BD STATUS DecErr / SlvErr */
/* Read a BD (PG021_BD_HW_BYTES) at addr. */
enum vb_access vb_bd_load(struct vb_dma *d, uint64_t addr, struct pg021_bd *bd);
/* Write a BD's STATUS word. */
enum vb_access vb_bd_store_status(struct vb_dma *d, uint64_t bd_addr, uint32_t status);

#pragma GCC visibility pop

#endif
