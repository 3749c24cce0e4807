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

enum vb_cpuop_kind {
	VB_CPUOP_READ,           /* cached loads of every byte: a line fill per line */
	VB_CPUOP_COPY,           /* memcpy: line fills of the source, write-backs of the destination */
	VB_CPUOP_MEMSET,         /* stores of every byte: a write-back per destination line */
	VB_CPUOP_CLEAN,          /* clean by address: write-backs of the dirty lines only */
	VB_CPUOP_INVALIDATE,     /* invalidate by address: no DRAM traffic */
	VB_CPUOP_FLUSH,          /* clean + invalidate: write-backs of the dirty lines */
	VB_CPUOP_UNCACHED_READ,  /* word loads through a non-cacheable mapping: one request each, in turn */
	VB_CPUOP_UNCACHED_WRITE, /* word stores (BD writes): posted, one request each, then a barrier */
	VB_CPUOP_KINDS
};

struct vb_cpuop {
	enum vb_cpuop_kind kind;
	uint64_t addr;           /* the range worked on (copy: the source) */
	uint64_t dst;            /* copy: the destination; 0 = the board's CPU scratch area */
	uint64_t len;
	double ns_per_line;      /* CPU time per cache line (line / bandwidth limit, or a maintenance op) */
	double ns_per_word;      /* uncached: CPU-side time per access, beyond the DRAM's own */
	unsigned word_bytes;     /* uncached: bytes per access (4, 8 or 16) */
	double fixed_ns;         /* once per operation (a barrier, the outer cache's sync) */
};

struct vb_cpuop_result {
	uint64_t t_start, t_end;            /* ps: the CPU is busy for the whole interval */
	uint64_t lines, requests;           /* lines worked on; DRAM requests issued */
	uint64_t read_bytes, write_bytes;   /* DRAM traffic on the CPU port */
};

/* Totals over all operations since the board was made. */
struct vb_cpuop_stats {
	uint64_t ops, requests, read_bytes, write_bytes, busy_ps;
};

/* 0, or -1 with err naming the field and the rule (nothing happens then). */
int vb_cpuop_run(vb_board *b, const struct vb_cpuop *op, struct vb_cpuop_result *r, char *err, size_t errlen);
const struct vb_cpuop_stats *vb_cpuop_stats(const vb_board *b);
const char *vb_cpuop_name(enum vb_cpuop_kind k);

#endif
