/*
 * time.h - units of virtual time: integer picoseconds.
 */
#ifndef SGDMA_VBOARD_TIME_H
#define SGDMA_VBOARD_TIME_H

#include <stdint.h>

#define VB_NO_TIME UINT64_MAX   /* "never": no event pending */

static inline uint64_t vb_ns(double ns)
{
	return (uint64_t)(ns * 1000.0 + 0.5);
}

#endif
