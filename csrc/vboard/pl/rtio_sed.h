/*
 * rtio_sed.h - the SED lanes and the CRI (rtio_sed.c), for the initiators and the core.
 */
#ifndef SGDMA_VBOARD_PL_RTIO_SED_H
#define SGDMA_VBOARD_PL_RTIO_SED_H

#include "pl/rtio_types.h"

/* A CRI write at t: 0, O_STATUS_WAIT (held until a lane frees) or O_STATUS_UNDERFLOW. */
uint32_t rtio_cri_write(struct vb_rtio *r, enum rtio_src src, const struct rtio_event *ev, uint64_t t);
/* The event's coarse time is less than underflow_margin cycles ahead of the counter at t. */
bool rtio_behind_margin(const struct vb_rtio *r, int64_t ts, uint64_t t);
void rtio_lane_push(struct vb_rtio *r, struct rtio_lane *l, const struct rtio_event *ev);
void rtio_log_guest(const char *what, const struct rtio_event *ev, uint64_t n);

#endif
