/*
 * rtio_kernel.h - the RTIO subsystem's public API: the kernel CPU's firmware for the initiators, playback,
 * drain, the analyzer's arming and the input pins' stimulus (rtio_kernel.c; they advance the board's time).
 */
#ifndef SGDMA_VBOARD_CPU_RTIO_KERNEL_H
#define SGDMA_VBOARD_CPU_RTIO_KERNEL_H

#include "pl/rtio_types.h"
#include "vboard.h"

struct vb_rtio *vb_rtio_of(vb_board *b);   /* NULL when the preset has no [rtio] */
void vb_rtio_reset(struct vb_rtio *r);
/* Select the initiator; ACPKI needs its buffers (out: header + transactions, in: 24 B) in DDR. */
int vb_rtio_k_init(struct vb_rtio *r, enum rtio_initiator init, uint64_t acp_out, uint64_t acp_out_bytes,
		   uint64_t acp_in, char *err, size_t errlen);
int64_t vb_rtio_k_now(struct vb_rtio *r);
void vb_rtio_k_at(struct vb_rtio *r, int64_t t);
void vb_rtio_k_delay(struct vb_rtio *r, int64_t dt);
int64_t vb_rtio_k_wall(struct vb_rtio *r);
/* One output event at the cursor: 0, or the o_status bits of the error (channel/ts in r->k). */
uint32_t vb_rtio_k_output(struct vb_rtio *r, uint32_t target, const uint32_t *data, unsigned nwords);
void vb_rtio_k_batch_start(struct vb_rtio *r);
uint32_t vb_rtio_k_batch_end(struct vb_rtio *r);
/* Credit FIFO: wait until it has drained into the core, then its sticky error. */
uint32_t vb_rtio_k_flush(struct vb_rtio *r);

struct vb_rtio_playback {
	uint32_t error, channel, address;
	int64_t timestamp;
	uint64_t records, dropped, t_start_ps, t_end_ps;
	bool bus_error, timeout;
};
/* CoreDMA playback of the trace at ptr, relocated to the cursor; blocks until done or limit_ps later. */
int vb_rtio_k_playback(struct vb_rtio *r, uint64_t ptr, uint64_t limit_ps, struct vb_rtio_playback *out);

struct vb_rtio_pulses {
	uint64_t events;          /* submitted before the first error */
	uint32_t status;
	int64_t err_ts;
	uint32_t err_chan;
	uint64_t t0_ps, t1_ps;    /* CPU time at the first and after the last submission */
};
/* A pulse train of n pulses of period 2*half mu on target, from the cursor; batch > 0: ACPKI batches. */
void vb_rtio_k_pulses(struct vb_rtio *r, uint32_t target, uint64_t n, int64_t half, unsigned batch,
		      struct vb_rtio_pulses *out);
/* Input: the pin's transitions from now on (replacing any left); the loopback is pl/rtio_input.h's. */
int vb_rtio_in_stimulus(struct vb_rtio *r, unsigned chan, const int64_t *t_mu, const uint8_t *level, size_t n,
			char *err, size_t errlen);
/* CRI read through the CSR kernel initiator (ksupport rtio_input_timestamp / rtio_input_data): the final
 * i_status bits (I_STATUS_WAIT_STATUS if still busy after limit_ps); on 0, *value = i_timestamp or i_data. */
uint32_t vb_rtio_k_input(struct vb_rtio *r, uint32_t chan, int64_t timeout, bool want_data, uint64_t limit_ps,
			 int64_t *value);

/* Let the board run until the RTIO core is idle (all FIFOs out, engines stopped) or limit. */
bool vb_rtio_drain(struct vb_rtio *r, uint64_t limit_ps);
/* Analyzer: arm over the ring [base, base + size), disarm (waits for the writer). */
void vb_rtio_an_arm(struct vb_rtio *r, uint64_t base, uint64_t size);
bool vb_rtio_an_disarm(struct vb_rtio *r, uint64_t limit_ps);

#endif
