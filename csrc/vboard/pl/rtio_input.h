/*
 * rtio_input.h - TTL inputs (rtio_input.c): gates, FIFOs, CRI reads, stimulus and loopback.
 */
#ifndef SGDMA_VBOARD_PL_RTIO_INPUT_H
#define SGDMA_VBOARD_PL_RTIO_INPUT_H

#include "pl/rtio_types.h"

int rtio_in_new(struct vb_rtio *r);
void rtio_in_free(struct vb_rtio *r);
void rtio_in_reset(struct vb_rtio *r);
/* An output event leaving on a TTL channel: gate changes (address 2/3) and loopback to an input pin. */
void rtio_in_output(struct vb_rtio *r, const struct rtio_event *ev);
void rtio_in_read(struct vb_rtio *r, uint32_t chan, int64_t timeout, uint64_t t);
uint64_t rtio_in_next(struct vb_rtio *r);
void rtio_in_step(struct vb_rtio *r, uint64_t t);
/* The pin's transitions from now on, replacing any left (the board's time already synced: cpu/rtio_kernel.h's
 * vb_rtio_in_stimulus); a loopback out -> in (in < 0: none). */
int rtio_in_stimulus(struct vb_rtio *r, unsigned chan, const int64_t *t_mu, const uint8_t *level, size_t n,
		     char *err, size_t errlen);
int vb_rtio_in_loopback(struct vb_rtio *r, unsigned out, int in, char *err, size_t errlen);

#endif
