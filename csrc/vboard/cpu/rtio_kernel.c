/*
 * rtio_kernel.c - the kernel CPU's side of the three initiators, timed on the
 * board's clock (the CPU's time is the board's "now").  [artiq-rtio.md sec. 5]
 *
 *  - CSR over the register port (GP0 on Zynq): stores are posted, the port
 *    accepts one every csr_write_ns and the register sees it csr_write_latency_ns
 *    later; a load waits behind earlier stores and takes csr_read_ns.  The
 *    number of accesses per event follows from the CSR layout: target, o_data
 *    word(s) (word 0 last, it triggers), o_status; the cursor is the 64-bit now
 *    CSR (two words each way).
 *  - ACPKI: the transaction is written to cached memory, DMB, sev; the CPU spins
 *    on its cached reply word, which it re-fetches once the gateware's ACP write
 *    has invalidated it.  Batch: entries appended, one sev for all.
 *  - Credit FIFO: events posted without status; a fresh WF_SPACE is read only
 *    when the CPU's lower bound of free entries reaches zero.
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "cpu/rtio_kernel.h"
#include "pl/rtio.h"
#include "pl/rtio_acpki.h"
#include "pl/rtio_analyzer.h"
#include "pl/rtio_input.h"

#define POLL_LIMIT 10000000u   /* bound on every spin: nothing hangs */

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static bool idle(void *ctx)
{
	const struct vb_rtio *r = ctx;
	for (unsigned i = 0; i < r->p.lanes; i++)
		if (r->lane[i].count)
			return false;
	return !r->pend && r->wq_n == 0 && r->dma.phase == DMA_IDLE && r->wf.n == 0 && r->acp.phase == 0 &&
	       r->an.fn == 0 && r->an.on == 0 && !r->in.busy;
}

static bool dma_idle(void *ctx) { return ((const struct vb_rtio *)ctx)->dma.phase == DMA_IDLE; }
static bool acp_replied(void *ctx) { return ((const struct vb_rtio *)ctx)->acp.replied; }
static uint64_t ns_ps(double ns) { return (uint64_t)(ns * 1000.0 + 0.5); }

struct vb_rtio *vb_rtio_of(vb_board *b) { return b->rtio; }

void vb_rtio_reset(struct vb_rtio *r)
{
	enum rtio_initiator init = r->k.init;
	uint64_t out = r->k.acp_out, in = r->k.acp_in;
	uint32_t cap = r->k.batch_cap;
	bool an = r->an.enabled;
	uint32_t base = r->an.base, last = r->an.last;
	bool acp = r->acp.enable;
	uint32_t ib = r->acp.in_base, ob = r->acp.out_base;

	vb_sched_sync(r->sched);
	vb_rtio_ops.reset(r);
	r->k.init = init;
	r->k.acp_out = out;
	r->k.acp_in = in;
	r->k.batch_cap = cap;
	r->k.port_free = r->k.last_write_arrive = r->sched->now;
	r->an.base = base;
	r->an.last = last;
	rtio_an_reset(r);
	r->an.enabled = an;
	r->acp.enable = acp;
	r->acp.in_base = ib;
	r->acp.out_base = ob;
}

static void cpu_until(struct vb_rtio *r, uint64_t t)
{
	uint64_t now = r->sched->now;
	if (t > now)
		vb_sched_advance(r->sched, t - now);
}

static void cpu_cycles(struct vb_rtio *r, double c)
{
	vb_sched_advance(r->sched, (uint64_t)(c * 1e6 / r->p.cpu_mhz + 0.5));
}

/* A posted store of `n` registers in one port transaction. */
static void csr_store_n(struct vb_rtio *r, const uint32_t *off, const uint32_t *v, unsigned n)
{
	struct rtio_kernel *k = &r->k;
	uint64_t s, arrive;

	while (r->wq_n + n > RTIO_WQ)   /* the port's write buffer is full: wait for the oldest */
		cpu_until(r, r->wq[r->wq_head].t);
	s = max64(r->sched->now, k->port_free);
	k->port_free = s + ns_ps(r->p.csr_write_ns);
	arrive = s + ns_ps(r->p.csr_write_latency_ns);
	k->last_write_arrive = max64(k->last_write_arrive, arrive);
	for (unsigned i = 0; i < n; i++) {
		unsigned j = (r->wq_head + r->wq_n) % RTIO_WQ;
		r->wq[j].t = k->last_write_arrive;
		r->wq[j].off = off[i];
		r->wq[j].v = v[i];
		r->wq_n++;
	}
	k->gp_writes++;
	cpu_until(r, s);   /* the CPU stalls until the port takes the store */
}

static void csr_store(struct vb_rtio *r, uint32_t off, uint32_t v) { csr_store_n(r, &off, &v, 1); }

static uint32_t csr_load(struct vb_rtio *r, uint32_t off)
{
	struct rtio_kernel *k = &r->k;
	uint64_t s = max64(r->sched->now, k->port_free);
	uint64_t t = max64(s + ns_ps(r->p.csr_read_ns), k->last_write_arrive);
	k->port_free = t;
	k->gp_reads++;
	cpu_until(r, t);
	return rtio_reg_read(r, off, t);
}

static uint64_t csr_load64(struct vb_rtio *r, uint32_t off_hi, uint32_t off_lo)
{
	uint64_t h = csr_load(r, off_hi);
	return h << 32 | csr_load(r, off_lo);
}

static void csr_store64(struct vb_rtio *r, uint32_t off_hi, uint32_t off_lo, uint64_t v)
{
	csr_store(r, off_hi, (uint32_t)(v >> 32));
	csr_store(r, off_lo, (uint32_t)v);
}

int vb_rtio_k_init(struct vb_rtio *r, enum rtio_initiator init, uint64_t acp_out, uint64_t acp_out_bytes,
		   uint64_t acp_in, char *err, size_t errlen)
{
	struct rtio_kernel *k = &r->k;
	bool acp = init == RTIO_INIT_ACP || init == RTIO_INIT_ACP_BATCH;

	if (acp && (acp_out_bytes < RTIO_ACP_OUT_HEADER_BYTES + 2 * RTIO_ACP_OUT_TRANSACTION_BYTES ||
		    !vb_memory_ptr(r->memory, acp_out, acp_out_bytes) ||
		    !vb_memory_ptr(r->memory, acp_in, RTIO_ACP_IN_BYTES) ||
		    acp_out % 16 || acp_in % 16 || acp_out > 0xFFFFFFFFull || acp_in > 0xFFFFFFFFull)) {
		snprintf(err, errlen, "ACPKI buffers: out 0x%llx (%llu bytes) and in 0x%llx must be 16-byte aligned "
			 "DDR below 4 GiB, out holding the 16-byte header and at least two 80-byte transactions",
			 (unsigned long long)acp_out, (unsigned long long)acp_out_bytes, (unsigned long long)acp_in);
		return -1;
	}
	k->init = init;
	k->acp_out = acp_out;
	k->acp_in = acp_in;
	k->batch_cap = acp ? (uint32_t)((acp_out_bytes - RTIO_ACP_OUT_HEADER_BYTES) / RTIO_ACP_OUT_TRANSACTION_BYTES) : 0;
	k->now = 0;
	k->credit = 0;
	k->batching = false;
	k->port_free = k->last_write_arrive = r->sched->now;
	if (acp) {
		csr_store(r, RTIO_R_ACP_IN_BASE, (uint32_t)acp_in);
		csr_store(r, RTIO_R_ACP_OUT_BASE, (uint32_t)acp_out);
		csr_store(r, RTIO_R_ACP_ENABLE, 1);
		memset(vb_memory_ptr(r->memory, acp_in, RTIO_ACP_IN_BYTES), 0, RTIO_ACP_IN_BYTES);
	}
	return 0;
}

/* ---- timeline cursor ---------------------------------------------------------- */

int64_t vb_rtio_k_now(struct vb_rtio *r)
{
	if (r->k.init == RTIO_INIT_CSR)
		return (int64_t)csr_load64(r, RTIO_R_KI_NOW_HI, RTIO_R_KI_NOW_LO);
	cpu_cycles(r, 1);
	return r->k.now;
}

void vb_rtio_k_at(struct vb_rtio *r, int64_t t)
{
	if (r->k.init == RTIO_INIT_CSR) {
		csr_store64(r, RTIO_R_KI_NOW_HI, RTIO_R_KI_NOW_LO, (uint64_t)t);
		return;
	}
	cpu_cycles(r, 1);
	r->k.now = t;
}

void vb_rtio_k_delay(struct vb_rtio *r, int64_t dt)
{
	cpu_cycles(r, r->p.delay_cycles);
	if (r->k.init == RTIO_INIT_CSR) {
		uint64_t n = csr_load64(r, RTIO_R_KI_NOW_HI, RTIO_R_KI_NOW_LO);
		csr_store64(r, RTIO_R_KI_NOW_HI, RTIO_R_KI_NOW_LO, n + (uint64_t)dt);
		return;
	}
	r->k.now += dt;
}

int64_t vb_rtio_k_wall(struct vb_rtio *r)
{
	csr_store(r, RTIO_R_KI_COUNTER_UPDATE, 1);
	return (int64_t)csr_load64(r, RTIO_R_KI_COUNTER_HI, RTIO_R_KI_COUNTER_LO);
}

/* ---- outputs -------------------------------------------------------------------- */

static uint32_t fail(struct vb_rtio *r, uint32_t st, uint32_t chan, int64_t ts)
{
	r->k.err_chan = chan;
	r->k.err_ts = ts;
	return st;
}

static uint32_t output_csr(struct vb_rtio *r, uint32_t target, const uint32_t *data, unsigned n)
{
	uint32_t st;
	unsigned polls = 0;
	csr_store(r, RTIO_R_KI_TARGET, target);
	for (unsigned i = n; i-- > 0;)   /* highest word first; word 0 issues the CRI write */
		csr_store(r, RTIO_R_KI_O_DATA + 4 * i, data[i]);
	while ((st = csr_load(r, RTIO_R_KI_O_STATUS)) & RTIO_O_STATUS_WAIT)
		if (++polls > POLL_LIMIT)
			return fail(r, RTIO_O_STATUS_WAIT, target >> 8, (int64_t)r->ki_now);
	return st ? fail(r, st, target >> 8, (int64_t)r->ki_now) : 0;
}

static void acp_fill(struct vb_rtio *r, uint32_t idx, uint32_t target, const uint32_t *data, unsigned n)
{
	uint8_t *tx = vb_memory_ptr(r->memory, r->k.acp_out + RTIO_ACP_OUT_HEADER_BYTES +
					  (uint64_t)idx * RTIO_ACP_OUT_TRANSACTION_BYTES, RTIO_ACP_OUT_TRANSACTION_BYTES);
	uint64_t ts = (uint64_t)r->k.now;
	memset(tx, 0, RTIO_ACP_OUT_TRANSACTION_BYTES);
	tx[ACP_TX_CMD] = 0;
	tx[ACP_TX_WIDTH] = (uint8_t)n;
	memcpy(tx + ACP_TX_TARGET, &target, 4);   /* the A9 is little-endian, as the gateware decodes */
	memcpy(tx + ACP_TX_TIMESTAMP, &ts, 8);
	memcpy(tx + ACP_TX_DATA, data, 4 * n);
	cpu_cycles(r, r->p.store_cycles * (2 + (n + 1) / 2));   /* 64-bit stores: header word, timestamp, data */
}

static void set_ptr(struct vb_rtio *r, uint32_t ptr)
{
	uint8_t *h = vb_memory_ptr(r->memory, r->k.acp_out, RTIO_ACP_OUT_HEADER_BYTES);
	memcpy(h + ACP_HDR_PTR, &ptr, 4);
	cpu_cycles(r, r->p.store_cycles);
}

/* barrier, sev, spin on the cached reply; returns the reply's status. */
static uint32_t acp_kick(struct vb_rtio *r, uint32_t *batch_idx)
{
	uint8_t *in = vb_memory_ptr(r->memory, r->k.acp_in, RTIO_ACP_IN_BYTES);
	uint32_t word, idx;
	vb_sched_advance(r->sched, ns_ps(r->p.barrier_ns));
	cpu_cycles(r, r->p.sev_cycles);
	r->k.sevs++;
	rtio_acp_evento(r, r->sched->now);
	if (!vb_sched_run_until(r->sched, acp_replied, r, VB_NO_TIME - 1))
		return RTIO_O_STATUS_WAIT;   /* the gateware never answered */
	cpu_until(r, r->acp.t_reply + ns_ps(r->p.poll_miss_ns));
	memcpy(&word, in + ACP_IN_STATUS, 4);
	memcpy(&idx, in + ACP_IN_BATCH_CNT, 4);
	memset(in, 0, 4);   /* the CPU clears it for the next round */
	cpu_cycles(r, r->p.store_cycles);
	r->acp.replied = false;
	if (batch_idx)
		*batch_idx = idx;
	return word & ~(uint32_t)RTIO_ACP_REPLY_VALID;
}

static uint32_t output_acp(struct vb_rtio *r, uint32_t target, const uint32_t *data, unsigned n)
{
	uint32_t st;
	if (r->k.batching) {
		if (r->k.batch_n + 1 >= r->k.batch_cap)
			return fail(r, RTIO_O_STATUS_WAIT, target >> 8, r->k.now);   /* "Batch buffer is full" */
		acp_fill(r, r->k.batch_n++, target, data, n);
		return 0;
	}
	acp_fill(r, 0, target, data, n);
	set_ptr(r, 0);
	st = acp_kick(r, NULL);
	return st ? fail(r, st, target >> 8, r->k.now) : 0;
}

static uint32_t output_fifo(struct vb_rtio *r, uint32_t target, const uint32_t *data, unsigned n)
{
	static const uint32_t offs[4] = { RTIO_R_WF_TARGET, RTIO_R_WF_TS_HI, RTIO_R_WF_TS_LO, RTIO_R_WF_DATA };
	uint32_t v[4] = { target, (uint32_t)((uint64_t)r->k.now >> 32), (uint32_t)r->k.now, data[0] };
	unsigned polls = 0;
	if (n != 1)
		return fail(r, RTIO_O_STATUS_UNREACHABLE, target >> 8, r->k.now);   /* the FIFO carries one word */
	while (r->k.credit <= 0) {
		r->k.credit = csr_load(r, RTIO_R_WF_SPACE);
		r->k.credit_refreshes++;
		if (++polls > POLL_LIMIT)
			return fail(r, RTIO_O_STATUS_WAIT, target >> 8, r->k.now);
	}
	if (r->p.wfifo_merged) {
		csr_store_n(r, offs, v, 4);
	} else {
		for (unsigned i = 0; i < 4; i++)
			csr_store(r, offs[i], v[i]);
	}
	r->k.credit--;
	return 0;
}

uint32_t vb_rtio_k_output(struct vb_rtio *r, uint32_t target, const uint32_t *data, unsigned n)
{
	if (n < 1 || n > RTIO_RECORD_MAX_WORDS)
		return fail(r, RTIO_O_STATUS_UNREACHABLE, target >> 8, 0);
	cpu_cycles(r, r->p.output_cycles);
	switch (r->k.init) {
	case RTIO_INIT_CSR: return output_csr(r, target, data, n);
	case RTIO_INIT_ACP:
	case RTIO_INIT_ACP_BATCH: return output_acp(r, target, data, n);
	case RTIO_INIT_FIFO: return output_fifo(r, target, data, n);
	}
	return 0;
}

void vb_rtio_k_batch_start(struct vb_rtio *r)
{
	r->k.batching = true;
	r->k.batch_n = 0;
}

uint32_t vb_rtio_k_batch_end(struct vb_rtio *r)
{
	uint32_t st, idx = 0;
	r->k.batching = false;
	if (r->k.batch_n == 0)
		return 0;
	set_ptr(r, r->k.batch_n);
	st = acp_kick(r, &idx);
	if (st) {
		const uint8_t *tx = vb_memory_ptr(r->memory, r->k.acp_out + RTIO_ACP_OUT_HEADER_BYTES +
							 (uint64_t)idx * RTIO_ACP_OUT_TRANSACTION_BYTES, 16);
		uint32_t target;
		int64_t ts;
		memcpy(&target, tx + ACP_TX_TARGET, 4);
		memcpy(&ts, tx + ACP_TX_TIMESTAMP, 8);
		fail(r, st, target >> 8, ts);
	}
	r->k.batch_n = 0;
	return st;
}

uint32_t vb_rtio_k_flush(struct vb_rtio *r)
{
	uint32_t e;
	unsigned polls = 0;
	if (r->k.init != RTIO_INIT_FIFO)
		return 0;
	while (csr_load(r, RTIO_R_WF_SPACE) < r->p.wfifo_depth || r->wf.waiting)
		if (++polls > POLL_LIMIT)
			return RTIO_O_STATUS_WAIT;
	e = csr_load(r, RTIO_R_WF_ERROR);
	if (e) {
		uint32_t ch = csr_load(r, RTIO_R_WF_ERROR_CHANNEL);
		int64_t ts = (int64_t)csr_load64(r, RTIO_R_WF_ERROR_TS_HI, RTIO_R_WF_ERROR_TS_LO);
		csr_store(r, RTIO_R_WF_ERROR, 0);
		return fail(r, e, ch, ts);
	}
	return 0;
}

/* ---- inputs (ksupport rtio_input_timestamp / rtio_input_data, sec. 1.3) ------------------ */

uint32_t vb_rtio_k_input(struct vb_rtio *r, uint32_t chan, int64_t timeout, bool want_data, uint64_t limit_ps,
			 int64_t *value)
{
	uint64_t deadline;
	uint32_t st;

	*value = -1;
	cpu_cycles(r, r->p.output_cycles);   /* the call and its argument set-up, as an output's */
	csr_store(r, RTIO_R_KI_TARGET, chan << 8);
	csr_store64(r, RTIO_R_KI_I_TIMEOUT_HI, RTIO_R_KI_I_TIMEOUT_LO, (uint64_t)timeout);
	deadline = r->sched->now + limit_ps;
	/* the CPU polls i_status while the read waits for an event or the timeout (every load bounded) */
	while ((st = csr_load(r, RTIO_R_KI_I_STATUS)) & RTIO_I_STATUS_WAIT_STATUS)
		if (r->sched->now > deadline)
			return st;
	if (st)
		return st;
	if (want_data)
		*value = csr_load(r, RTIO_R_KI_I_DATA);
	else
		*value = (int64_t)csr_load64(r, RTIO_R_KI_I_TIMESTAMP_HI, RTIO_R_KI_I_TIMESTAMP_LO);
	return 0;
}

/* ---- DMA playback (ksupport dma_playback, sec. 3.1) ---------------------------------- */

int vb_rtio_k_playback(struct vb_rtio *r, uint64_t ptr, uint64_t limit_ps, struct vb_rtio_playback *out)
{
	uint64_t deadline;
	int64_t now = vb_rtio_k_now(r);
	unsigned sel;

	memset(out, 0, sizeof(*out));
	if (r->k.init == RTIO_INIT_FIFO && vb_rtio_k_flush(r)) {
		out->error = RTIO_DMA_ERROR_UNDERFLOW;   /* an earlier posted event already underflowed */
		out->channel = r->k.err_chan;
		out->timestamp = r->k.err_ts;
		return 0;
	}
	csr_store64(r, RTIO_R_DMA_BASE_HI, RTIO_R_DMA_BASE_LO, ptr);
	csr_store64(r, RTIO_R_DMA_OFFSET_HI, RTIO_R_DMA_OFFSET_LO, (uint64_t)now);
	sel = csr_load(r, RTIO_R_CRI_SELECTED);
	csr_store(r, RTIO_R_CRI_SELECTED, 1);
	csr_store(r, RTIO_R_DMA_ENABLE, 1);
	deadline = r->sched->now + limit_ps;
	/* The CPU spins on enable with back-to-back loads.  The first returns after the stores have landed (so it
	 * reads 1); the loads change nothing, so the board runs to the engine's end and the spin ends with the first
	 * load that samples after it: one every csr_read_ns from the first. */
	if (csr_load(r, RTIO_R_DMA_ENABLE)) {
		uint64_t s0 = r->sched->now, per = ns_ps(r->p.csr_read_ns), k;
		if (!vb_sched_run_until(r->sched, dma_idle, r, deadline)) {
			out->timeout = true;
		} else {
			k = (r->dma.t_end > s0 ? (r->dma.t_end - s0 + per - 1) / per : 0) + 1;
			r->k.gp_reads += k;
			r->k.port_free = s0 + k * per;
			cpu_until(r, s0 + k * per);
		}
	}
	csr_store(r, RTIO_R_CRI_SELECTED, sel);
	out->error = csr_load(r, RTIO_R_DMA_ERROR);
	out->bus_error = csr_load(r, RTIO_R_DMA_BUS_ERROR) != 0;
	if (out->error) {
		out->channel = csr_load(r, RTIO_R_DMA_ERROR_CHANNEL);
		out->timestamp = (int64_t)csr_load64(r, RTIO_R_DMA_ERROR_TS_HI, RTIO_R_DMA_ERROR_TS_LO);
		out->address = csr_load(r, RTIO_R_DMA_ERROR_ADDRESS);
		csr_store(r, RTIO_R_DMA_ERROR, 1);
	}
	out->records = r->dma.records;
	out->dropped = r->dma.dropped;
	out->t_start_ps = r->dma.t_start;
	out->t_end_ps = r->dma.t_end;
	return 0;
}

/* ---- bench workload -------------------------------------------------------------------- */

void vb_rtio_k_pulses(struct vb_rtio *r, uint32_t target, uint64_t n, int64_t half, unsigned batch,
		      struct vb_rtio_pulses *out)
{
	static const uint32_t on = 1, off = 0;
	uint32_t st = 0;
	uint64_t ev = 0;

	memset(out, 0, sizeof(*out));
	out->t0_ps = r->sched->now;
	if (batch)
		vb_rtio_k_batch_start(r);
	for (uint64_t i = 0; i < 2 * n && !st; i++) {
		st = vb_rtio_k_output(r, target, (i & 1) ? &off : &on, 1);
		if (st)
			break;
		ev++;
		vb_rtio_k_delay(r, half);
		if (batch && ev % batch == 0) {
			st = vb_rtio_k_batch_end(r);
			vb_rtio_k_batch_start(r);
		}
	}
	if (batch && !st)
		st = vb_rtio_k_batch_end(r);
	if (!st)
		st = vb_rtio_k_flush(r);
	out->t1_ps = r->sched->now;
	out->events = ev;
	out->status = st;
	out->err_chan = r->k.err_chan;
	out->err_ts = r->k.err_ts;
}

int vb_rtio_in_stimulus(struct vb_rtio *r, unsigned chan, const int64_t *t_mu, const uint8_t *level, size_t n,
			char *err, size_t errlen)
{
	vb_sched_sync(r->sched);   /* the pins' old stimulus played up to now */
	return rtio_in_stimulus(r, chan, t_mu, level, n, err, errlen);
}

bool vb_rtio_drain(struct vb_rtio *r, uint64_t limit_ps)
{
	return vb_sched_run_until(r->sched, idle, r, r->sched->now + limit_ps);
}

void vb_rtio_an_arm(struct vb_rtio *r, uint64_t base, uint64_t size)
{
	csr_store(r, RTIO_R_AN_ENABLE, 0);
	csr_store(r, RTIO_R_AN_OVERFLOW_RESET, 1);
	csr_store(r, RTIO_R_AN_BASE, (uint32_t)base);
	csr_store(r, RTIO_R_AN_LAST, (uint32_t)(base + size - 1));
	csr_store(r, RTIO_R_AN_RESET, 1);
	csr_store(r, RTIO_R_AN_ENABLE, 1);
	cpu_until(r, r->k.last_write_arrive);
}

bool vb_rtio_an_disarm(struct vb_rtio *r, uint64_t limit_ps)
{
	uint64_t deadline = r->sched->now + limit_ps;
	csr_store(r, RTIO_R_AN_ENABLE, 0);
	while (csr_load(r, RTIO_R_AN_BUSY))
		if (r->sched->now > deadline)
			return false;
	return true;
}
