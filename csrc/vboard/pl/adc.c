/*
 * adc.c - an ADC producer on the S2MM stream input: samples of sample_bytes at
 * a fixed rate into a PL FIFO of fifo_samples, drained by S2MM.  When the FIFO
 * is full, arriving samples are dropped and counted, with the time the FIFO
 * filled and the indices lost — never silently.  Sample k carries the value k
 * (little-endian, sample_bytes wide), so a consumer can check order and gaps.
 * TLAST closes every packet_samples delivered samples (0: never).
 *
 * Lazy: the FIFO is brought up to date whenever it is observed (a take, a wait
 * computation, a statistics read).  Between observations nothing drains it, so
 * the fill and the drops are exact: S2MM takes chunks of at most chunk_samples
 * (<= half the FIFO) as soon as they are there while a buffer is armed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/time.h"
#include "pl/adc.h"

static uint64_t produced_by(const struct vb_adc *a, uint64_t t)
{
	if (!a->active && t > a->t_stop)
		t = a->t_stop;
	return t <= a->t0 ? 0 : (uint64_t)floor((double)(t - a->t0) / a->ps_per_sample);
}

static void push_run(struct vb_adc *a, uint64_t first, uint64_t count)
{
	if (!count)
		return;
	if (a->n_runs && a->runs[(a->run_head + a->n_runs - 1) % VB_ADC_RUNS].first +
				 a->runs[(a->run_head + a->n_runs - 1) % VB_ADC_RUNS].count == first) {
		a->runs[(a->run_head + a->n_runs - 1) % VB_ADC_RUNS].count += count;
		return;
	}
	if (a->n_runs == VB_ADC_RUNS) {           /* absurdly fragmented: merge into the last run */
		a->runs[(a->run_head + a->n_runs - 1) % VB_ADC_RUNS].count += count;
		return;
	}
	a->runs[(a->run_head + a->n_runs) % VB_ADC_RUNS] = (struct vb_adc_run){ first, count };
	a->n_runs++;
}

/* Bring the FIFO up to time t. */
static void adc_advance(struct vb_adc *a, uint64_t t)
{
	uint64_t now = produced_by(a, t), n, room;

	if (now <= a->produced)
		return;
	n = now - a->produced;
	room = a->fifo_samples - a->level;
	if (n <= room) {
		push_run(a, a->produced, n);
		a->level += n;
	} else {
		uint64_t first_lost = a->produced + room, lost = n - room;
		struct vb_adc_drop *last = a->n_drops ? &a->drops[a->n_drops - 1] : NULL;
		push_run(a, a->produced, room);
		a->level = a->fifo_samples;
		a->dropped += lost;
		if (last && last->first_sample + last->samples == first_lost) {
			last->samples += lost;
			last->t_last = t;
		} else {
			/* no host memory: the episode is counted in 'dropped', not listed */
			struct vb_adc_drop *grown = vb_grow(a->drops, &a->cap_drops, a->n_drops + 1, sizeof(*a->drops));
			if (grown) {
				a->drops = grown;
				a->drops[a->n_drops++] = (struct vb_adc_drop){
					.t_first = a->t0 + (uint64_t)ceil((double)first_lost * a->ps_per_sample),
					.t_last = t, .first_sample = first_lost, .samples = lost };
			}
		}
	}
	a->produced = now;
}

void vb_adc_clear(struct vb_adc *a)
{
	free(a->drops);
	memset(a, 0, sizeof(*a));
}

void vb_adc_arm(struct vb_adc *a, uint64_t now, double rate_sps, unsigned sample_bytes, uint64_t fifo_bytes,
		uint64_t packet_bytes)
{
	a->active = true;
	a->ps_per_sample = 1e12 / rate_sps;
	a->sample_bytes = sample_bytes;
	a->fifo_samples = fifo_bytes / sample_bytes ? fifo_bytes / sample_bytes : 1;
	a->packet_samples = packet_bytes / sample_bytes;
	a->chunk_samples = a->fifo_samples / 2 ? a->fifo_samples / 2 : 1;
	a->t0 = now;
}

void vb_adc_halt(struct vb_adc *a, uint64_t now)
{
	adc_advance(a, now);
	a->active = false;
	a->t_stop = now;
}

void vb_adc_fini(struct vb_adc *a) { free(a->drops); }

const struct vb_adc *vb_adc_observe(struct vb_adc *a, uint64_t now)
{
	adc_advance(a, now);
	return a;
}

bool vb_adc_feeding(const struct vb_adc *a) { return a->active || a->level; }

static uint64_t to_packet_end(const struct vb_adc *a)
{
	return a->packet_samples ? a->packet_samples - a->in_packet : UINT64_MAX;
}

/* When at least min(need, chunk, rest of the packet) bytes will be in the FIFO. */
uint64_t vb_adc_next_time(struct vb_adc *a, uint64_t need_bytes, uint64_t t)
{
	uint64_t need = need_bytes / a->sample_bytes, target;

	adc_advance(a, t);
	if (need > a->chunk_samples)
		need = a->chunk_samples;
	if (need > to_packet_end(a))
		need = to_packet_end(a);
	if (need == 0)
		need = 1;
	if (a->level >= need)
		return t;
	if (!a->active)
		return VB_NO_TIME;                /* stopped: what is left is all there is */
	target = a->produced + (need - a->level);
	return a->t0 + (uint64_t)ceil((double)target * a->ps_per_sample);
}

/* Up to max bytes of samples available at t into dst (counter pattern). */
uint64_t vb_adc_take(struct vb_adc *a, uint8_t *dst, uint64_t max, uint64_t t, bool *last)
{
	uint64_t n = max / a->sample_bytes, done = 0;

	adc_advance(a, t);
	if (n > a->level)
		n = a->level;
	if (n > to_packet_end(a))
		n = to_packet_end(a);
	while (done < n) {
		struct vb_adc_run *r = &a->runs[a->run_head];
		uint64_t k = r->count < n - done ? r->count : n - done;
		if (dst) {
			for (uint64_t i = 0; i < k; i++) {
				uint64_t v = r->first + i;
				memcpy(dst + (done + i) * a->sample_bytes, &v,
				       a->sample_bytes < 8 ? a->sample_bytes : 8);
			}
		}
		r->first += k;
		r->count -= k;
		done += k;
		if (!r->count) {
			a->run_head = (a->run_head + 1) % VB_ADC_RUNS;
			a->n_runs--;
		}
	}
	a->level -= n;
	a->delivered += n;
	a->in_packet += n;
	*last = a->packet_samples && a->in_packet == a->packet_samples;
	if (*last)
		a->in_packet = 0;
	return n * a->sample_bytes;
}
