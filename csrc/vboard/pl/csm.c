/*
 * csm.c - S0's custom timing state machine (CSM) in the PL.
 *
 * It sits on the MM2S stream (it never back-pressures: one beat per clock) and
 * talks to the CPUs through two AXI GPIO blocks, as in S0's appendix:
 *   GPIO A (gpio.base):          ch1 CPU→PL  bit0 RESET, bit1 START, bit2 ACK, bits 5:4 counter select
 *                                ch2 PL→CPU  bit0 READY, bit1 DONE, bits 7:4 state
 *   GPIO B (gpio.base + 64 KiB): ch1 PL→CPU  the selected counter
 *                                ch2 CPU→PL  payload length in beats (0: until the first TLAST)
 * Counters are in PL clocks: setup (reset release → start received), MM2S
 * latency (start received → first TVALID), MM2S throughput (first → last beat,
 * inclusive, so n back-to-back beats count n clocks),
 * and beats seen.  Timestamps come from the stream's own beat times, so the
 * counts do not depend on when the CPU looks.  The engine is clocked: a GPIO
 * write is seen at the first clock edge at or after it lands and a beat is on
 * an edge, so every count is a difference of edge indices — what the gateware
 * (rtl/sgdma_csm.v) counts, clock for clock.
 */
#include "sgdma/csm.h"
#include "pl/csm.h"

static uint32_t clocks_between(const struct vb_csm *m, uint64_t from, uint64_t to)
{
	uint64_t a = vb_edge_index(m->clk, from), z = vb_edge_index(m->clk, to);
	return z > a ? (uint32_t)(z - a) : 0;
}

void vb_csm_control(struct vb_csm *m, uint32_t old, uint32_t now)
{
	uint32_t rose = now & ~old, fell = old & ~now;

	if (now & CSM_CTL_RESET) {
		m->state = CSM_STATE_IDLE;
		m->setup = m->latency = m->throughput = m->beats = 0;
		return;
	}
	if (fell & CSM_CTL_RESET) {
		m->state = CSM_STATE_WAIT_START;
		m->t_reset = m->sched->now;
	}
	if ((rose & CSM_CTL_START) && m->state == CSM_STATE_WAIT_START) {
		m->setup = clocks_between(m, m->t_reset, m->sched->now);
		m->t_start = m->sched->now;
		m->t_first = VB_NO_TIME;
		m->state = CSM_STATE_MM2S;
	}
	if ((rose & CSM_CTL_ACK) && m->state == CSM_STATE_DONE)
		m->state = CSM_STATE_IDLE;
}

void vb_csm_stream(struct vb_csm *m, uint64_t len, bool last, uint64_t t_first, uint64_t t_last)
{
	uint32_t want = m->expected_beats;

	if (m->state != CSM_STATE_MM2S)
		return;
	if (m->t_first == VB_NO_TIME) {
		m->t_first = t_first;
		m->latency = clocks_between(m, m->t_start, t_first);
	}
	/* only a packet's last BD may end in a partial beat: count per push */
	m->beats += (uint32_t)((len + m->data_bytes - 1) / m->data_bytes);
	if ((want && m->beats >= want) || (!want && last)) {
		/* inclusive: n back-to-back beats count n clocks */
		m->throughput = clocks_between(m, m->t_first, t_last) + 1;
		m->state = CSM_STATE_DONE;
	}
}

uint32_t vb_csm_status(const struct vb_csm *m)
{
	return (m->state == CSM_STATE_WAIT_START ? CSM_STS_READY : 0) |
	       (m->state == CSM_STATE_DONE ? CSM_STS_DONE : 0) |
	       SG_FIELD_PREP(CSM_STS_STATE, m->state);
}

uint32_t vb_csm_counter(const struct vb_csm *m, uint32_t control)
{
	switch (SG_FIELD_GET(CSM_CTL_SEL, control)) {
	case CSM_SEL_SETUP: return m->setup;
	case CSM_SEL_LATENCY: return m->latency;
	case CSM_SEL_THROUGHPUT: return m->throughput;
	default: return m->beats;
	}
}

bool vb_csm_done(const struct vb_csm *m) { return m->state == CSM_STATE_DONE; }
