/*
 * sink_log.h - storage of the MM2S sink's byte log (stream.c keeps the
 * packets; this file only owns the bytes' memory).
 *
 * The log is one address-space reservation of its whole cap, PROT_NONE: under
 * strict overcommit (vm.overcommit_memory = 2) a private mapping is charged
 * when it becomes writable, so only the part in use is made read-write, in
 * growing steps.  The log never moves.  A freed reservation is parked for the
 * next log of the same cap, so a process that makes board after board writes
 * into pages already mapped rather than pages the kernel zeroes first.  Where the host has no address space
 * for the reservation, it is a malloc'd array grown by realloc instead.
 * Leaf: libc and the kernel only (a C unit test links it alone).
 */
#ifndef SGDMA_VBOARD_SINK_LOG_H
#define SGDMA_VBOARD_SINK_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vb_sink_log {
	uint8_t *data;
	size_t rw;         /* bytes writable from data (the reservation's read-write head, or the array's size) */
	size_t span;       /* the reservation's length; 0: data is a malloc'd array (or nothing yet) */
	size_t written;    /* high-water mark of bytes written since the pages beyond it were mapped */
	bool tried;        /* the reservation was tried */
};

/* The read-write head a cleared log keeps: the small-page part below the
 * first huge page, so giving back never splits a huge page. */
#define VB_SINK_LOG_RETAIN ((size_t)2 << 20)
/* A freed log is parked for the next one of the same cap with at most this much still read-write (sink_log.c). */
#define VB_SINK_LOG_PARK ((size_t)64 << 20)
/* The first read-write step; each later one at least doubles the head. */
#define VB_SINK_LOG_FIRST_STEP ((size_t)256 << 10)

/* Make the first `need` bytes writable (need <= cap, the log's most); false: no host memory. */
bool vb_sink_log_fit(struct vb_sink_log *l, uint64_t cap, uint64_t need);
/* Copy len bytes to the log at `at` (at + len <= rw). */
void vb_sink_log_write(struct vb_sink_log *l, uint64_t at, const uint8_t *src, uint64_t len);
/* The log holds `used` bytes: give the pages beyond max(used, VB_SINK_LOG_RETAIN) back to the host. */
void vb_sink_log_trim(struct vb_sink_log *l, uint64_t used);
/* Free the log: a reservation is parked for the next log of its cap (VB_SINK_LOG_PARK of it read-write). */
void vb_sink_log_free(struct vb_sink_log *l);
/* Give the parked reservation back to the host. */
void vb_sink_log_release_parked(void);

#endif
