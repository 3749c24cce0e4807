/*
 * coherency.h - the coherency checker: a model of the CPU data cache's view of
 * the DMA buffers software registers, that reports which buffer, which offset
 * and which cache-maintenance call was missing.
 *
 * Each registered buffer has a policy.  SYNC buffers are cached: software must
 * clean (flush) before the DMA reads them and invalidate before the CPU reads
 * what the DMA wrote.  UNCACHED and COHERENT (ACP/HPC) buffers need no
 * maintenance and are never checked.
 *
 * For a SYNC buffer the checker keeps three bits per cache line
 * (cfg.cache_line_bytes), in bitmaps allocated when the buffer is registered:
 *
 *   dirty   the CPU wrote the line and has not cleaned it yet
 *   cached  the CPU may hold a copy (after a CPU read or write)
 *   fresh   the DMA wrote memory under a cached line: the CPU's copy is stale
 *
 *   event                 state change                     violation
 *   CPU write(range)      dirty, cached                    -
 *   CPU read(range)       cached                           STALE_READ if a line is cached and fresh
 *   clean(range)          dirty cleared                    -
 *   invalidate(range)     dirty, cached, fresh cleared     DISCARDED_WRITE if a line was dirty
 *   DMA read(range)       -                                UNCLEANED_READ if a line is dirty
 *   DMA write(range)      fresh on cached lines            DIRTY_OVERWRITE if a line is dirty
 *
 * One mistake is one report: the lines a violation names leave the offending
 * state (a reported dirty line is no longer dirty, a reported stale line no
 * longer fresh), and a violation of the same kind on the same buffer within
 * the same episode extends the previous report instead of adding one: the DMA
 * walking on through the buffer BD by BD or chunk by chunk, the CPU reading on
 * through it, an invalidate in pieces.  A new episode starts with a CPU write
 * or a clean/invalidate (UNCLEANED_READ, DIRTY_OVERWRITE), a DMA write
 * (STALE_READ), a CPU write or a DMA write (DISCARDED_WRITE).  Offsets are
 * those of the first offending cache line (clipped to the buffer); nbytes
 * counts the bytes of the accessed range(s) that lie in offending lines.
 *
 * "speculative" mode (off by default) models a CPU that may prefetch any line
 * of a cacheable buffer at any time (Cortex-A9/A53 do): every line the DMA
 * writes is then stale until invalidated, whatever the CPU touched before,
 * so "invalidate before arming only" is caught as well.
 *
 * The checker is on by default and costs nothing while no SYNC buffer is
 * registered; vb_coherency_enable(b, false) switches every hook off.  Switching
 * it back on forgets all line states (the checker cannot know what happened
 * while it was off) but keeps the registered buffers.
 */
#ifndef SGDMA_VBOARD_COHERENCY_H
#define SGDMA_VBOARD_COHERENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vboard.h"

#define VB_COH_NAME_LEN      48
#define VB_COH_MAX_STORED    10000   /* violations kept; all are counted */

enum vb_coh_policy { VB_COH_SYNC = 0, VB_COH_UNCACHED = 1, VB_COH_COHERENT = 2 };

enum vb_coh_kind {
	VB_COH_UNCLEANED_READ = 0,  /* DMA read a line the CPU had not written back */
	VB_COH_DIRTY_OVERWRITE = 1, /* DMA wrote under a dirty CPU line */
	VB_COH_STALE_READ = 2,      /* CPU read DMA-written data through a stale line */
	VB_COH_DISCARDED_WRITE = 3, /* invalidate threw away CPU writes never cleaned */
	VB_COH_KINDS
};

struct vb_coh_violation {
	enum vb_coh_kind kind;
	int buffer_id;
	char name[VB_COH_NAME_LEN];
	uint64_t buffer_addr;       /* the buffer's base address */
	uint64_t offset;            /* first offending line, bytes from the buffer base */
	uint64_t nbytes;            /* bytes of the access(es) in offending lines */
	uint64_t t_ps;              /* virtual time of the (first) offending access */
};

/* The DMA engine read (write = false) or wrote [addr, addr+len) at time t (VB_COH_DMA, below). */
struct vb_coherency;
void vb_coherency_dma_slow(struct vb_coherency *c, uint64_t addr, uint64_t len, bool write, uint64_t t);

const char *vb_coherency_kind_name(enum vb_coh_kind k);   /* "UNCLEANED_READ", ... */
const char *vb_coherency_what(enum vb_coh_kind k);        /* what happened, in words */
const char *vb_coherency_missing_call(enum vb_coh_kind k);/* the call that was missing */

/* ---- the checker on its own state (coherency.c) ----------------------------- */

struct vb_memory;
#pragma GCC visibility push(hidden)
/* machine.c: created (line: cfg.cache_line_bytes) and freed with the board; NULL: out of host memory */
struct vb_coherency *vb_coh_new(unsigned line);
void vb_coh_free(struct vb_coherency *c);
/* mem: the board's DDR, which a registered buffer must lie in */
int vb_coh_register(struct vb_coherency *c, struct vb_memory *mem, uint64_t addr, uint64_t len,
		    enum vb_coh_policy policy, const char *name, char *err, size_t errlen);
int vb_coh_unregister(struct vb_coherency *c, int id);
size_t vb_coh_buffer_count(const struct vb_coherency *c);
void vb_coh_enable(struct vb_coherency *c, bool on);
bool vb_coh_enabled(const struct vb_coherency *c);
void vb_coh_set_speculative(struct vb_coherency *c, bool on);
bool vb_coh_speculative(const struct vb_coherency *c);
bool vb_coh_watching(const struct vb_coherency *c);
/* t: the CPU's now.  Cache maintenance (cpu/cpuops.c): clean, invalidate, and before a clean the dirty lines of
 * SYNC buffers in [addr, addr+len), fn(ctx, line address) for each (fn may be NULL), how many returned. */
void vb_coh_cpu_event(struct vb_coherency *c, uint64_t addr, uint64_t len, bool write, uint64_t t);
void vb_coh_clean(struct vb_coherency *c, uint64_t addr, uint64_t len, uint64_t t);
void vb_coh_invalidate(struct vb_coherency *c, uint64_t addr, uint64_t len, uint64_t t);
uint64_t vb_coh_dirty_lines(struct vb_coherency *c, uint64_t addr, uint64_t len, void (*fn)(void *ctx, uint64_t line),
			    void *ctx);
uint64_t vb_coh_count(const struct vb_coherency *c);
size_t vb_coh_stored(const struct vb_coherency *c);
const struct vb_coh_violation *vb_coh_violation(const struct vb_coherency *c, size_t i);
void vb_coh_clear(struct vb_coherency *c);
uint64_t vb_coh_dma_checks(const struct vb_coherency *c);
#pragma GCC visibility pop

/* ---- the hot-path test the DMA hooks use ---------------------------------- */

struct vb_coh_buf;
struct vb_coherency {
	bool active;                /* enabled and at least one SYNC buffer registered */
	bool enabled, speculative;
	unsigned line_shift;        /* log2(cfg.cache_line_bytes) */
	size_t n_sync;
	struct vb_coh_buf *bufs;    /* sorted by address, never overlapping */
	size_t n, cap;
	int next_id;
	struct vb_coh_violation *v;
	size_t nv, capv;
	uint64_t count;
	uint64_t dma_checks;
};

/* The DMA hook: nothing but a load and a branch while the checker is idle. */
#define VB_COH_DMA(c, addr, len, write, t)                                             \
	do {                                                                            \
		if ((c) && (c)->active)                                                 \
			vb_coherency_dma_slow((c), (addr), (len), (write), (t));        \
	} while (0)

#endif
