/*
 * rtio_acpki.c - the ACP kernel initiator [artiq-rtio.md sec. 5.2]: a level
 * change of the PS evento line (the CPU's sev), synchronised by a 2-FF
 * MultiReg, makes the engine read the OutBuffer over ACP (96 B: header +
 * transaction 0; then 80 B per further batch entry), issue the CRI write once
 * the last needed data word has arrived, wait while o_status.wait, and write
 * the 24-byte reply back over ACP, bit 16 marking it valid.  Batch mode walks
 * `ptr` entries back to back, stopping at the first non-zero status.
 *
 * The CPU has just written the transaction, so ACP reads hit in the coherent
 * caches through the SCU: their cost is the preset's acp_read_ns (the AR and R
 * clock crossings plus the SCU's L1 lookup) plus one beat per RTIO cycle, not a
 * DRAM access.  The reply is visible to the spinning CPU once the write's data
 * has crossed into the SCU (acp_write_ns); the B response crossing back to the
 * PL is not on the CPU's path, and the engine does not wait for it.
 */
#include <string.h>

#include "pl/rtio_acpki.h"
#include "pl/rtio_sed.h"

static uint32_t get32(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void rtio_acp_evento(struct vb_rtio *r, uint64_t t)
{
	struct rtio_acpki *a = &r->acp;
	if (!a->enable || a->phase != ACP_IDLE)
		return;   /* a level change while busy or disabled is not seen as a new request */
	a->idx = 0;
	a->count = 1;
	a->status = 0;
	a->replied = false;
	a->phase = ACP_NEXT;
	a->t_next = rtio_next_edge(r, t) + rtio_ps_of_cycles(r, r->p.evento_sync_cycles);
}

uint64_t rtio_acp_next(struct vb_rtio *r)
{
	const struct rtio_acpki *a = &r->acp;
	return (a->phase == ACP_IDLE || a->phase == ACP_WAIT) ? VB_NO_TIME : a->t_next;
}

/* Read entry idx: the burst, then the CRI write when its last needed word is in. */
static void read_entry(struct vb_rtio *r, uint64_t t)
{
	struct rtio_acpki *a = &r->acp;
	uint64_t addr = a->out_base + RTIO_ACP_OUT_HEADER_BYTES + (uint64_t)a->idx * RTIO_ACP_OUT_TRANSACTION_BYTES;
	unsigned lead = a->idx == 0 ? RTIO_ACP_OUT_HEADER_BYTES : 0, beats;
	const uint8_t *tx = vb_memory_ptr(r->memory, addr, RTIO_ACP_OUT_TRANSACTION_BYTES);
	uint32_t width;

	memset(&a->ev, 0, sizeof(a->ev));
	if (!tx) {
		a->status = RTIO_O_STATUS_UNREACHABLE;
		a->phase = ACP_WRITEBACK;
		a->t_next = t;
		return;
	}
	if (a->idx == 0) {
		const uint8_t *h = vb_memory_ptr(r->memory, a->out_base, RTIO_ACP_OUT_HEADER_BYTES);
		uint32_t ptr = h ? get32(h + ACP_HDR_PTR) : 0;
		a->count = ptr ? ptr : 1;
	}
	width = tx[ACP_TX_WIDTH];
	if (width < 1 || width > RTIO_RECORD_MAX_WORDS)
		width = width < 1 ? 1 : RTIO_RECORD_MAX_WORDS;
	a->ev.chan = get32(tx + ACP_TX_TARGET) >> 8;
	a->ev.addr = (uint8_t)get32(tx + ACP_TX_TARGET);
	a->ev.ts = (int64_t)((uint64_t)get32(tx + ACP_TX_TIMESTAMP) | (uint64_t)get32(tx + ACP_TX_TIMESTAMP + 4) << 32);
	a->ev.nwords = (uint8_t)width;
	for (unsigned i = 0; i < width; i++)   /* words beyond data_width stay zero */
		a->ev.data[i] = get32(tx + ACP_TX_DATA + 4 * i);
	beats = (lead + ACP_TX_DATA + 4 * width + r->p.bus_bytes - 1) / r->p.bus_bytes;
	a->phase = ACP_CRI;
	a->t_next = rtio_next_edge(r, t + (uint64_t)(r->p.acp_read_ns * 1000.0 + 0.5)) +
		    rtio_ps_of_cycles(r, (double)beats);
}

static void after_write(struct vb_rtio *r, uint32_t st, uint64_t t)
{
	struct rtio_acpki *a = &r->acp;
	uint64_t t2 = t + rtio_ps_of_cycles(r, r->p.cri_write_cycles);
	if (st == 0 && a->idx + 1 < a->count) {
		a->idx++;
		a->phase = ACP_NEXT;
	} else {
		a->status = st;
		a->phase = ACP_WRITEBACK;
	}
	a->t_next = t2;
}

void rtio_acp_resume(struct vb_rtio *r, uint32_t st, uint64_t t)
{
	after_write(r, st, rtio_next_edge(r, t));
}

void rtio_acp_step(struct vb_rtio *r, uint64_t t)
{
	struct rtio_acpki *a = &r->acp;
	uint8_t *in;
	uint32_t st;

	switch (a->phase) {
	case ACP_NEXT:
		read_entry(r, t);
		return;
	case ACP_CRI:
		st = rtio_cri_write(r, RTIO_SRC_ACP, &a->ev, t);
		if (st == RTIO_O_STATUS_WAIT) {
			a->phase = ACP_WAIT;
			return;
		}
		after_write(r, st, t);
		return;
	case ACP_WRITEBACK:
		/* one 3-beat burst: status | valid, timestamp word, batch pointer; the CPU
		 * can see it once the beats are out and have crossed into the SCU */
		in = vb_memory_ptr(r->memory, a->in_base, RTIO_ACP_IN_BYTES);
		a->t_reply = t + (uint64_t)(r->p.acp_write_ns * 1000.0 + 0.5) +
			     rtio_ps_of_cycles(r, (double)RTIO_ACP_IN_BYTES / r->p.bus_bytes);
		if (in) {
			memset(in, 0, RTIO_ACP_IN_BYTES);
			put32(in + ACP_IN_STATUS, RTIO_ACP_REPLY_VALID | a->status);
			put32(in + ACP_IN_BATCH_CNT, a->idx);
		}
		a->replied = true;
		a->phase = ACP_IDLE;
		return;
	default:
		return;
	}
}
