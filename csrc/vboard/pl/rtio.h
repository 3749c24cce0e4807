/*
 * rtio.h - the RTIO device (rtio.c): its ops, creation, and its CSR window.
 * The subsystem's state and the rest of its functions: rtio_types.h.
 */
#ifndef SGDMA_VBOARD_RTIO_H
#define SGDMA_VBOARD_RTIO_H

#include "base/sched.h"
#include "bus/bus.h"
#include "pl/rtio_types.h"

/* rtio.c: the core */
extern const struct vb_device_ops vb_rtio_ops;
extern const struct vb_timed_ops vb_rtio_timed;
struct vb_rtio *vb_rtio_new(struct vb_sched *sched, struct vb_ic *ic, struct vb_memory *memory,
			    const struct vb_rtio_params *p);
void vb_rtio_free(struct vb_rtio *r);
uint32_t rtio_reg_read(struct vb_rtio *r, uint32_t off, uint64_t t);
void rtio_reg_write(struct vb_rtio *r, uint32_t off, uint32_t v, uint64_t t);

#endif
