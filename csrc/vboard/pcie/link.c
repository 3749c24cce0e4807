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

uint64_t pd_tlp(struct vb_pcie *p, int d, uint64_t t, uint32_t payload, uint64_t addr)
{
	struct pd_link_dir *l = &p->link.d[d], *r = &p->link.d[!d];
	double bytes, idle;
	uint64_t start = max64(t, l->free);

	/* DLLPs owed went out while this direction was idle, as far as the gap allows */
	if (t > l->free) {
		idle = (double)(t - l->free) / p->link.ps_per_byte;
		l->dllp_debt = l->dllp_debt > idle ? l->dllp_debt - idle : 0.0;
	}
	bytes = (double)payload + overhead(addr) + l->dllp_debt;

	l->dllp_debt = 0;
	l->free = start + (uint64_t)(bytes * p->link.ps_per_byte + 0.5);
	l->tlps++;
	l->wire_bytes += (uint64_t)bytes;
	l->payload += payload;
	r->dllp_debt += (double)PCIE_DLLP_BYTES / p->prm.ack_every + (double)PCIE_DLLP_BYTES / p->prm.fc_every;
	return l->free + p->link.one_way;
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
