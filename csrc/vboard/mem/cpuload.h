/*
 * cpuload.h - a background CPU load as a lazy DRAM master (cpuload.c).
 */
#ifndef SGDMA_VBOARD_MEM_CPULOAD_H
#define SGDMA_VBOARD_MEM_CPULOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "mem/request.h"

/* A copy loop on another core as DRAM traffic ("cpu.load_<field>"), in struct vb_config */
struct vb_cpuload_params {
	double mbps;                  /* DRAM bytes per microsecond (MB/s); 0 = none */
	double read_fraction;         /* share of its requests that are reads (a memcpy: 0.5) */
	unsigned bytes;               /* bytes per request (a cache line fill / write-back; 0 = cache_line_bytes) */
	uint64_t base;                /* its buffers (source, then destination); 0 = the top 2 MiB of the first DDR
	                                 region */
};

#pragma GCC visibility push(hidden)

struct vb_cpuload {
	uint64_t period_ps, next_t, i, base, span;
	unsigned bytes;
	uint64_t reads, writes;
	double read_fraction;      /* cpu.load_read_fraction */
};

/* ddr0_base, ddr0_size: the first DDR region (the default place); have_ddr false: no DDR, no load.
 * line_bytes: a request's size when p->bytes is 0. */
void vb_cpuload_init(struct vb_cpuload *l, const struct vb_cpuload_params *p, unsigned line_bytes, bool have_ddr,
		     uint64_t ddr0_base, uint64_t ddr0_size);
/* take: its next request if it arrives before t (the generator advances);
 * stall: it cannot issue before t (full port FIFO). */
bool vb_cpuload_take(struct vb_cpuload *l, uint64_t t, struct vb_ddrc_req *r);
void vb_cpuload_stall(struct vb_cpuload *l, uint64_t t);

#pragma GCC visibility pop

#endif
