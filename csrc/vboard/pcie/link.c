/*
 * link.c - the PCIe link in virtual time: one serializer per direction.
 *
 * Rate per direction = lanes x GT/s x 8/10 (8b/10b) / 8 bits, less the SKP
 * ordered sets (4 symbols every pcie.skp_interval symbol times).  A TLP costs
 * its payload plus 20 bytes of framing, sequence number, 3-DW header and LCRC
 * (24 with a 4-DW header for addresses above 4 GiB).  Every TLP owes DLLPs
 * (8 bytes) on the reverse direction: an ACK per pcie.ack_every TLPs and an
 * UpdateFC per pcie.fc_every; they are sent in the reverse direction's next
 * TLP slot, so they cost only where that direction is busy.  Sources:
 * reference zynqmp-pcie-dma.md sec. 7.
 */
#include <string.h>

#include "pcie_types.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

double pd_link_rate_mbps(const struct vb_pcie_params *prm)
{
	double gts = prm->gen == 2 ? 5.0 : 2.5;
	double raw = prm->lanes * gts * 1e3 * PCIE_8B10B_NUM / PCIE_8B10B_DEN / 8.0;   /* MB/s */
	return raw * (double)prm->skp_interval / (prm->skp_interval + 4.0);
}

void pd_link_init(struct vb_pcie *p)
{
	memset(&p->link, 0, sizeof(p->link));
	p->link.ps_per_byte = 1e6 / pd_link_rate_mbps(&p->prm);
	p->link.one_way = vb_ns(p->prm.phy_ns);
}

static unsigned overhead(uint64_t addr)
{
	return addr >> 32 ? PCIE_TLP_OVERHEAD_4DW : PCIE_TLP_OVERHEAD_3DW;
}

/* Drop the intervals that ended before `low`: nothing can be placed there any more. */
static void prune(struct pd_link_dir *l, uint64_t low)
{
	unsigned k = 0;
	while (k < l->n && l->be[k] <= low) {
		l->horizon = max64(l->horizon, l->be[k]);
		k++;
	}
	if (k) {
		memmove(l->bs, l->bs + k, (l->n - k) * sizeof(l->bs[0]));
		memmove(l->be, l->be + k, (l->n - k) * sizeof(l->be[0]));
		l->n -= k;
	}
}

static void drop(struct pd_link_dir *l, unsigned i);

/* Full calendar: the smallest gap is given up (booked as busy), which only
 * ever delays a later TLP. */
static void squeeze(struct pd_link_dir *l)
{
	unsigned k = 0;
	for (unsigned i = 1; i + 1 < l->n; i++)
		if (l->bs[i + 1] - l->be[i] < l->bs[k + 1] - l->be[k])
			k = i;
	l->be[k] = l->be[k + 1];
	drop(l, k + 1);
}

/* The first gap at or after t that holds dur: its start s and the index the
 * interval goes in at; *gap = idle time on the wire just before s. */
static uint64_t find(const struct pd_link_dir *l, uint64_t t, uint64_t dur, unsigned *at, uint64_t *gap)
{
	uint64_t s = max64(t, l->horizon), prev = l->horizon;
	unsigned i = 0;

	for (; i < l->n; i++) {
		if (l->be[i] <= s) {
			prev = l->be[i];
			continue;
		}
		if (l->bs[i] >= s + dur)
			break;
		s = prev = l->be[i];
	}
	*at = i;
	*gap = s - prev;
	return s;
}

static void drop(struct pd_link_dir *l, unsigned i)
{
	memmove(l->bs + i, l->bs + i + 1, (l->n - i - 1) * sizeof(l->bs[0]));
	memmove(l->be + i, l->be + i + 1, (l->n - i - 1) * sizeof(l->be[0]));
	l->n--;
}

static void insert(struct pd_link_dir *l, unsigned i, uint64_t s, uint64_t e)
{
	memmove(l->bs + i + 1, l->bs + i, (l->n - i) * sizeof(l->bs[0]));
	memmove(l->be + i + 1, l->be + i, (l->n - i) * sizeof(l->be[0]));
	l->bs[i] = s;
	l->be[i] = e;
	l->n++;
	if (i + 1 < l->n && l->be[i] == l->bs[i + 1]) {   /* merge with touching neighbours */
		l->be[i] = l->be[i + 1];
		drop(l, i + 1);
	}
	if (i > 0 && l->be[i - 1] == l->bs[i]) {
		l->be[i - 1] = l->be[i];
		drop(l, i);
	}
}

static uint64_t wire_ps(const struct vb_pcie *p, double bytes)
{
	return (uint64_t)(bytes * p->link.ps_per_byte + 0.5);
}

uint64_t pd_tlp(struct vb_pcie *p, int d, uint64_t t, uint32_t payload, uint64_t addr)
{
	struct pd_link_dir *l = &p->link.d[d], *r = &p->link.d[!d];
	double tlp = (double)payload + overhead(addr), bytes, paid;
	uint64_t s, gap;
	unsigned at;

	if (l->n == PD_LINK_SLOTS) {
		/* nothing is booked before the earliest time anyone can still send: the
		 * CPU's now, or the last step of an engine with work left (engines may
		 * lag the CPU, which jumps ahead over a stalled read) */
		uint64_t low = p->sched->now;
		for (int e = 0; e < 2; e++)
			if (!p->dma[e].quiet)
				low = min64(low, p->dma[e].t_floor);
		prune(l, low);
		if (l->n == PD_LINK_SLOTS)
			squeeze(l);
	}
	/* the DLLPs owed go out in the idle time just before this TLP, as far as it
	 * allows; the rest ahead of it (placed with the whole debt: never late) */
	s = find(l, t, wire_ps(p, tlp + l->dllp_debt), &at, &gap);
	paid = (double)gap / p->link.ps_per_byte;
	bytes = tlp + l->dllp_debt - (paid < l->dllp_debt ? paid : l->dllp_debt);
	insert(l, at, s, s + wire_ps(p, bytes));
	l->tlps++;
	l->wire_bytes += (uint64_t)bytes;
	l->payload += payload;
	l->dllp_debt = 0;
	r->dllp_debt += (double)PCIE_DLLP_BYTES / p->prm.ack_every + (double)PCIE_DLLP_BYTES / p->prm.fc_every;
	return s + wire_ps(p, bytes) + p->link.one_way;
}

uint64_t pd_link_write(struct vb_pcie *p, int d, uint64_t t, uint64_t addr, uint32_t len, uint64_t *first)
{
	uint64_t end = t, a = addr;
	uint32_t left = len;

	*first = VB_NO_TIME;
	while (left) {
		/* a TLP may not cross an MPS-aligned boundary of its payload */
		uint32_t n = p->prm.mps - (uint32_t)(a % p->prm.mps);
		if (n > left)
			n = left;
		end = pd_tlp(p, d, t, n, a);
		if (*first == VB_NO_TIME)
			*first = end;
		a += n;
		left -= n;
	}
	return end;
}
