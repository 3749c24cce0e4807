/*
 * cpuop_types.h - the CPU memory operations' types (cpuops.h runs them): what
 * an operation is, what it cost, and the board's totals, which the board's
 * composition (board.h) holds without seeing cpuops.c.
 */
#ifndef SGDMA_VBOARD_CPUOP_TYPES_H
#define SGDMA_VBOARD_CPUOP_TYPES_H

#include <stdint.h>

enum vb_cpuop_kind {
	VB_CPUOP_READ,           /* cached loads of every byte: a line fill per line */
	VB_CPUOP_COPY,           /* memcpy: line fills of the source, write-backs of the destination */
	VB_CPUOP_MEMSET,         /* stores of every byte: a write-back per destination line */
	VB_CPUOP_CLEAN,          /* clean by address: write-backs of the dirty lines only */
	VB_CPUOP_INVALIDATE,     /* invalidate by address: no DRAM traffic */
	VB_CPUOP_FLUSH,          /* clean + invalidate: write-backs of the dirty lines */
	VB_CPUOP_UNCACHED_READ,  /* loads through an uncached mapping: one request each, up to `outstanding` in flight */
	VB_CPUOP_UNCACHED_WRITE, /* stores (BD writes, merged bursts): posted, one request each, then a barrier */
	VB_CPUOP_KINDS
};

struct vb_cpuop {
	enum vb_cpuop_kind kind;
	uint64_t addr;           /* the range worked on (copy: the source) */
	uint64_t dst;            /* copy: the destination; 0 = the board's CPU scratch area */
	uint64_t len;
	double ns_per_line;      /* CPU time per cache line (line / bandwidth limit, or a maintenance op) */
	double ns_per_word;      /* uncached: CPU-side time per access, beyond the DRAM's own */
	unsigned word_bytes;     /* uncached: bytes per access (1..16; a merged or LDM/NEON burst 32 or 64) */
	unsigned outstanding;    /* uncached_read: loads in flight (0 or 1: each waits for its data) */
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

#endif
