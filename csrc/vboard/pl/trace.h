/*
 * trace.h - the PL trace's state (public: Python reads it) and its functions.
 */
#ifndef SGDMA_VBOARD_PL_TRACE_H
#define SGDMA_VBOARD_PL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


/* trace.c: the MM2S stream's beats and the timing engine's GPIO writes, for
 * replaying a run into the RTL (rtl/). Recorded only while switched on. */
enum vb_trace_reg { VB_TRACE_CTL = 0, VB_TRACE_LEN = 1 };
struct vb_trace {
	bool on;
	uint64_t clk_origin;              /* ps: PL clock edge 0 (edges at origin + k * period) */
	uint64_t *beat_t;                 /* ps, on the DMA clock grid */
	uint8_t *beat_last;               /* TLAST */
	size_t n_beats, cap_t, cap_last;
	uint64_t *ctl_t;                  /* ps, when the CPU's GPIO write lands */
	uint32_t *ctl_v;
	uint8_t *ctl_reg;                 /* enum vb_trace_reg */
	size_t n_ctl, cap_ct, cap_cv, cap_cr;
};

#pragma GCC visibility push(hidden)
void vb_trace_fini(struct vb_trace *r);
/* Forget what was recorded; record from now on when `on`, on the clock whose edge 0 is at `origin`. */
void vb_trace_set(struct vb_trace *r, bool on, uint64_t origin);
void vb_trace_beat(struct vb_trace *r, uint64_t t, bool last);
void vb_trace_gpio(struct vb_trace *r, uint64_t t, enum vb_trace_reg reg, uint32_t value);
#pragma GCC visibility pop

#endif
