/*
 * rtio_wfifo.h - the credit write FIFO (rtio_wfifo.c).
 */
#ifndef SGDMA_VBOARD_PL_RTIO_WFIFO_H
#define SGDMA_VBOARD_PL_RTIO_WFIFO_H

#include "pl/rtio_types.h"

void rtio_wf_write(struct vb_rtio *r, uint32_t off, uint32_t v, uint64_t t);
uint32_t rtio_wf_read(struct vb_rtio *r, uint32_t off);
uint64_t rtio_wf_next(struct vb_rtio *r);
void rtio_wf_step(struct vb_rtio *r, uint64_t t);
void rtio_wf_resume(struct vb_rtio *r, uint32_t status, uint64_t t);

#endif
