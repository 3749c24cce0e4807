/*
 * rtio_trace.h - byte-exact trace encoding (rtio_trace.c).
 */
#ifndef SGDMA_VBOARD_PL_RTIO_TRACE_H
#define SGDMA_VBOARD_PL_RTIO_TRACE_H

#include <stddef.h>
#include <stdint.h>

/* encode: bytes written (incl. the end
 * marker), -(i+1) if event i has a bad word count, -(n+1) if out is too small.
 * decode: events, or -(offset+1) of a malformed record / -(len+1) if unterminated. */
int64_t vb_rtio_encode(const int64_t *ts, const uint32_t *target, const uint8_t *nwords, const uint32_t *data,
		       size_t n, uint8_t *out, size_t cap);
int64_t vb_rtio_decode(const uint8_t *buf, size_t len, int64_t *ts, uint32_t *target, uint8_t *nwords,
		       uint32_t *data, size_t max_events, size_t max_words, size_t *words_out);

#endif
