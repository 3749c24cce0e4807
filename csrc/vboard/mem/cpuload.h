/*
 * cpuload.h - a background CPU load as a lazy DRAM master (cpuload.c).
 */
#ifndef SGDMA_VBOARD_MEM_CPULOAD_H
#define SGDMA_VBOARD_MEM_CPULOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "mem/ddrc.h"
#include "vboard.h"   /* struct vb_config, struct vb_region */

#pragma GCC visibility push(hidden)

struct vb_cpuload {
	uint64_t period_ps, next_t, i, base, span;
	unsigned bytes;
	uint64_t reads, writes;
	double read_fraction;      /* cpu.load_read_fraction */
};

/* ddr0: the first DDR region (the load's default place), NULL without DDR (no load). */
void vb_cpuload_init(struct vb_cpuload *l, const struct vb_config *c, const struct vb_region *ddr0);
/* take: its next request if it arrives before t (the generator advances);
 * stall: it cannot issue before t (full port FIFO). */
bool vb_cpuload_take(struct vb_cpuload *l, uint64_t t, struct vb_ddrc_req *r);
void vb_cpuload_stall(struct vb_cpuload *l, uint64_t t);

#pragma GCC visibility pop

#endif
