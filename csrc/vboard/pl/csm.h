/*
 * csm.h - S0's timing state machine in the PL: its state and functions.
 */
#ifndef SGDMA_VBOARD_PL_CSM_H
#define SGDMA_VBOARD_PL_CSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sched.h"
#include "base/time.h"

struct vb_csm {
	const struct vb_sched *sched;   /* reads now: a GPIO write lands then */
	const struct vb_clock *clk;     /* the PL clock it counts */
	uint32_t data_bytes;            /* stream beat width */
	unsigned state;
	uint64_t t_reset, t_start, t_first;
	uint32_t setup, latency, throughput, beats;
	uint32_t expected_beats;
};

#pragma GCC visibility push(hidden)
void vb_csm_control(struct vb_csm *m, uint32_t old, uint32_t now);
/* The MM2S stream's tap: a transfer of len bytes, its first and last beat times. */
void vb_csm_stream(struct vb_csm *m, uint64_t len, bool last, uint64_t t_first, uint64_t t_last);
uint32_t vb_csm_status(const struct vb_csm *m);
uint32_t vb_csm_counter(const struct vb_csm *m, uint32_t control);
bool vb_csm_done(const struct vb_csm *m);
#pragma GCC visibility pop

#endif
