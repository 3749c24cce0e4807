/*
 * cpuops.h - CPU work that touches memory, as DRAM traffic on the controller's
 * CPU port (cpuops.c): copies, reads, memset, cache maintenance, uncached word
 * accesses.  One call per operation; the per-line loop runs in C, interleaved
 * in time with the DMA's own requests.
 *
 * Timing only: the bytes themselves are moved by the caller (numpy), so an
 * operation never changes memory.  The CPU-side costs come from the caller
 * (the CPU preset's cost items, sgdma.models.cpu), each with its source there.
 */
#ifndef SGDMA_VBOARD_CPUOPS_H
#define SGDMA_VBOARD_CPUOPS_H

#include <stddef.h>
#include <stdint.h>

#include "vboard.h"
#include "cpu/cpuop_types.h"

/* 0, or -1 with err naming the field and the rule (nothing happens then). */
int vb_cpuop_run(vb_board *b, const struct vb_cpuop *op, struct vb_cpuop_result *r, char *err, size_t errlen);
const struct vb_cpuop_stats *vb_cpuop_stats(const vb_board *b);
const char *vb_cpuop_name(enum vb_cpuop_kind k);

#endif
