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

/* A trial under way (s0_trial_start .. s0_trial_finish or s0_trial_stop). */
struct s0_run {
	struct sg_platform plat;
	const struct s0_bench *b;
	const struct s0_point *p;
	struct sg_chan c;
	struct sg_ring r;
};

/* The trial in steps, for a caller that watches the stream meanwhile (the fast
 * fidelity): start primes, hand-shakes and writes the tail; done polls the
 * engine's DONE once (one GPIO read, as the wait for DONE does); counter
 * selects and reads one engine counter; finish reads the counters and leaves
 * the channel idle; stop abandons the trial (engine and channel reset). */
enum sg_status s0_trial_start(struct s0_run *run, struct sg_platform plat, const struct s0_bench *b,
			      const struct s0_point *p, uint64_t seed, struct sg_error *err);
bool s0_trial_done(struct s0_run *run);
uint32_t s0_trial_counter(struct s0_run *run, uint32_t sel);
enum sg_status s0_trial_finish(struct s0_run *run, struct s0_counts *out, struct sg_error *err);
enum sg_status s0_trial_stop(struct s0_run *run, struct sg_error *err);

/* One trial (start, wait for DONE, finish); `seed` draws the random placement.  The BD ring lives at the
 * start of the BD region.  Every failure fills err (with a register snapshot
 * when the DMA was involved). */
enum sg_status s0_trial(struct sg_platform plat, const struct s0_bench *b, const struct s0_point *p,
			uint64_t seed, struct s0_counts *out, struct sg_error *err);

#endif
