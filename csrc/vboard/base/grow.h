/*
 * grow.h - the board's growable arrays (fetch log, sink packets, traces, RTIO,
 * ADC and DAC records): one doubling policy; and a reusable scratch buffer.
 */
#ifndef SGDMA_VBOARD_GROW_H
#define SGDMA_VBOARD_GROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Grow an array to hold `need` items (doubling); NULL, p untouched, when the host has no memory. */
void *vb_grow(void *p, size_t *cap, size_t need, size_t elem);
/* Grow *p in place to hold `need` items; false (nothing changed) when the host has no memory. */
bool vb_grow_into(void *p, size_t *cap, size_t need, size_t elem);

struct vb_scratch {
	uint8_t *p;
	uint64_t cap;
};
/* A temporary buffer of at least len bytes, reused between calls (aborts if the host is out of memory). */
uint8_t *vb_scratch_get(struct vb_scratch *s, uint64_t len);
void vb_scratch_free(struct vb_scratch *s);

#pragma GCC visibility pop

#endif
