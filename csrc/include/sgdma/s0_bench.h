/*
 * s0_bench.h - S0's RPU benchmark program: one trial of "build a BD ring in
 * the BD region, hand-shake with the PL timing engine over GPIO, write the
 * tail, wait for the engine, read its counters".
 *
 * Freestanding C over the driver core and the platform ops: the same code runs
 * on a Cortex-R5 (Xilinx standalone platform ops) and on the virtual board.
 */
#ifndef SGDMA_S0_BENCH_H
#define SGDMA_S0_BENCH_H

#include "sgdma/driver.h"

struct s0_bench {
	uint64_t dma_base;        /* AXI DMA registers */
	uint64_t gpio_base;       /* timing engine: GPIO block A; block B one span above */
	uint64_t bd_dev;          /* BD region: device address ... */
	void *bd_cpu;             /* ... and CPU pointer */
	uint32_t bd_capacity;     /* BDs that fit the region */
	uint64_t buffer_base;     /* buffer region */
	uint64_t buffer_bytes;
	unsigned addr_width, length_width, data_bytes;
	uint32_t poll_limit;      /* bound of every register poll, including the wait for DONE */
};

struct s0_point {
	uint32_t bytes_per_bd;
	uint32_t bds;
	uint32_t cycles;          /* > 1: cyclic mode, the ring played `cycles` times */
	bool random;              /* buffers at random distinct slots of the buffer region */
	bool simple;              /* direct-register mode: one transfer of bytes_per_bd */
};

struct s0_counts {
	uint32_t setup, latency, throughput, beats;   /* PL clocks, as the engine counts them */
};

/* One trial; `seed` draws the random placement.  The BD ring lives at the
 * start of the BD region.  Every failure fills err (with a register snapshot
 * when the DMA was involved). */
enum sg_status s0_trial(struct sg_platform plat, const struct s0_bench *b, const struct s0_point *p,
			uint64_t seed, struct s0_counts *out, struct sg_error *err);

#endif
