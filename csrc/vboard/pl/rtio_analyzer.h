/*
 * rtio_analyzer.h - the analyzer (rtio_analyzer.c): fed by the CRI and the inputs, timed by the core.
 */
#ifndef SGDMA_VBOARD_PL_RTIO_ANALYZER_H
#define SGDMA_VBOARD_PL_RTIO_ANALYZER_H

#include "pl/rtio_types.h"

void rtio_an_output(struct vb_rtio *r, const struct rtio_event *ev, uint64_t t);
void rtio_an_input(struct vb_rtio *r, uint32_t chan, int64_t ts, uint32_t data, uint64_t t);
void rtio_an_exception(struct vb_rtio *r, uint32_t chan, uint8_t type, uint64_t t);
void rtio_an_stop(struct vb_rtio *r, uint64_t t);
uint64_t rtio_an_next(struct vb_rtio *r);
void rtio_an_step(struct vb_rtio *r, uint64_t t);
void rtio_an_reset(struct vb_rtio *r);

#endif
