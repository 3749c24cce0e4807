/*
 * adc.h - the PL ADC producer's state (public: Python reads it) and its functions.
 */
#ifndef SGDMA_VBOARD_PL_ADC_H
#define SGDMA_VBOARD_PL_ADC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


/* ADC producer on the S2MM stream input (adc.c): rate, sample size, PL FIFO,
 * TLAST every packet_bytes (0: never); drops counted with times and indices. */
struct vb_adc_drop {
	uint64_t t_first, t_last;       /* ps: first sample lost, last observation of the episode */
	uint64_t first_sample, samples; /* indices lost */
};
struct vb_adc_run {
	uint64_t first, count;
};
#define VB_ADC_RUNS 4096
struct vb_adc {
	bool active;
	double ps_per_sample;
	unsigned sample_bytes;
	uint64_t fifo_samples, packet_samples, chunk_samples;
	uint64_t t0, t_stop, produced, level, delivered, dropped, in_packet;
	struct vb_adc_run runs[VB_ADC_RUNS];
	unsigned run_head, n_runs;
	struct vb_adc_drop *drops;
	size_t n_drops, cap_drops;
};

#pragma GCC visibility push(hidden)
/* vb_adc_start, vb_adc_stop and vb_adc_state (api.c) without the sync; `now` is the CPU's time. */
void vb_adc_clear(struct vb_adc *a);
void vb_adc_arm(struct vb_adc *a, uint64_t now, double rate_sps, unsigned sample_bytes, uint64_t fifo_bytes,
		uint64_t packet_bytes);
void vb_adc_halt(struct vb_adc *a, uint64_t now);
const struct vb_adc *vb_adc_observe(struct vb_adc *a, uint64_t now);
void vb_adc_fini(struct vb_adc *a);
/* The S2MM stream's producer while it feeds (machine.c wires it). */
bool vb_adc_feeding(const struct vb_adc *a);
uint64_t vb_adc_next_time(struct vb_adc *a, uint64_t need_bytes, uint64_t t);
uint64_t vb_adc_take(struct vb_adc *a, uint8_t *dst, uint64_t max, uint64_t t, bool *last);
#pragma GCC visibility pop

#endif
