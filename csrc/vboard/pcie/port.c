/*
 * port.c - the memory each side of the link reaches, in virtual time:
 *   root side: PS DDR through the CCI and the board's timed path (ic.c), the
 *     one place this subsystem calls into it; counted by the PS-DDR APM;
 *   endpoint side: its own DDR4 (a second vb_dram) behind its AXI
 *     interconnect; counted by the endpoint APM (payload at EP-DDR);
 *   across the link: the endpoint's bridge translates BAR hits to its AXI
 *     map (a miss is an Unsupported Request), the root port maps bus
 *     addresses 1:1 onto PS DDR for the endpoint's DMA.
 */
#include <string.h>

#include "pcie_types.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static void count(struct vb_apm *a, bool write, uint32_t len, enum pd_class cls)
{
	if (write) {
		a->wr_bytes += len;
		a->wr_txns++;
		a->wr_class[cls] += len;
	} else {
		a->rd_bytes += len;
		a->rd_txns++;
		a->rd_class[cls] += len;
	}
}

/* ---- endpoint DDR ---------------------------------------------------------- */

static enum vb_access ep_mem(struct vb_pcie *p, uint64_t axi, uint32_t len, uint8_t **host)
{
	const struct vb_pcie_params *m = &p->prm;
	if (axi < m->ep_ddr_axi || axi + len > m->ep_ddr_axi + m->ep_ddr_size || axi + len < axi)
		return VB_ACC_DECERR;
	*host = p->ep_mem + (axi - m->ep_ddr_axi);
	return VB_ACC_OK;
}

/* The endpoint's AXI port to its memory controller: fixed latency each way,
 * one burst at a time at its width and clock, requests in order. */
static uint64_t ep_access(struct vb_pcie *p, uint64_t t, uint64_t axi, uint32_t len, bool write,
			  uint64_t *first)
{
	uint64_t end, f, t0, t1;

	p->ep_last_arrive = max64(p->ep_last_arrive, t + p->ep_axi_ps);
	f = vb_dram_access(&p->ep_dram, p->ep_last_arrive, axi - p->prm.ep_ddr_axi, len, write, &end);
	t0 = max64(f, p->ep_port_free);
	t1 = max64(end + (t0 - f), t0 + (uint64_t)(len * p->ep_ps_per_byte));
	p->ep_port_free = t1;
	*first = t0 + p->ep_axi_ps;
	return t1 + p->ep_axi_ps;
}

/* ---- the AXI side of each engine -------------------------------------------- */

enum vb_access pd_axi_read(struct vb_pcie *p, enum pd_side s, uint64_t t, uint64_t addr, uint32_t len,
			   enum pd_class cls, uint8_t **host, uint64_t *first, uint64_t *done)
{
	enum vb_access acc;

	if (s == PD_ROOT) {
		acc = vb_dma_access(p->memory, addr, len, host);
		if (acc != VB_ACC_OK)
			return acc;
		count(&p->apm_ps, false, len, cls);
		*first = vb_ic_read(p->ic, t, addr, len, done);
		return VB_ACC_OK;
	}
	acc = ep_mem(p, addr, len, host);
	if (acc != VB_ACC_OK)
		return acc;
	count(&p->apm_ep, false, len, cls);
	*done = ep_access(p, t, addr, len, false, first);
	return VB_ACC_OK;
}

enum vb_access pd_axi_write(struct vb_pcie *p, enum pd_side s, uint64_t t, uint64_t addr, uint32_t len,
			    enum pd_class cls, uint8_t **host, uint64_t *done)
{
	enum vb_access acc;
	uint64_t first;

	if (s == PD_ROOT) {
		acc = vb_dma_access(p->memory, addr, len, host);
		if (acc != VB_ACC_OK)
			return acc;
		count(&p->apm_ps, true, len, cls);
		*done = vb_ic_write(p->ic, t, addr, len);
		return VB_ACC_OK;
	}
	acc = ep_mem(p, addr, len, host);
	if (acc != VB_ACC_OK)
		return acc;
	count(&p->apm_ep, true, len, cls);
	*done = ep_access(p, t, addr, len, true, &first);
	return VB_ACC_OK;
}

/* ---- across the link -------------------------------------------------------- */

bool pd_bar_lookup(const struct vb_pcie *p, uint64_t bus, uint64_t len, uint64_t *axi, unsigned *bar)
{
	const struct vb_pcie_params *m = &p->prm;
	if (bus >= m->bar2 && bus + len <= m->bar2 + m->bar2_size) {
		*axi = m->bar2_axi + (bus - m->bar2);
		*bar = 2;
		return true;
	}
	return false;
}

/* The completer of a request from side s: where the bytes are, and the side
 * whose AXI memory holds them.  false = Unsupported Request. */
static bool completer(struct vb_pcie *p, enum pd_side s, uint64_t bus, uint32_t len, uint64_t *axi)
{
	unsigned bar;
	if (s == PD_ROOT)
		return pd_bar_lookup(p, bus, len, axi, &bar);
	*axi = bus;   /* root port inbound: bus addresses are PS addresses (identity) */
	return vb_memory_ptr(p->memory, bus, len) != NULL;
}

enum vb_access pd_pcie_read(struct vb_pcie *p, enum pd_side s, uint64_t t, uint64_t addr, uint32_t len,
			    enum pd_class cls, uint8_t **host, uint64_t *done)
{
	int d = s == PD_ROOT ? PD_DOWN : PD_UP;
	enum pd_side far = s == PD_ROOT ? PD_EP : PD_ROOT;
	unsigned rcb = s == PD_ROOT ? p->prm.rcb_ep : p->prm.rcb_root;
	uint64_t bridge = s == PD_ROOT ? p->ep_ps : p->rp_ps;
	uint64_t a = addr, end = t, axi;
	uint32_t left = len;

	*done = t;
	while (left) {
		/* one MRd per max read request size, never across a 4 KiB boundary */
		uint32_t n = p->prm.mrrs - (uint32_t)(a % p->prm.mrrs), k, sent = 0;
		uint64_t arr, first, last;
		uint8_t *h;
		if (n > left)
			n = left;
		arr = pd_tlp(p, d, t, 0, a) + bridge;
		if (!completer(p, s, a, n, &axi)) {
			*done = pd_tlp(p, !d, arr, 0, a);   /* completion with UR status, no data */
			return VB_ACC_DECERR;
		}
		if (pd_axi_read(p, far, arr, axi, n, cls, &h, &first, &last) != VB_ACC_OK) {
			*done = pd_tlp(p, !d, arr, 0, a);   /* completer abort */
			return VB_ACC_SLVERR;
		}
		if (a == addr)
			*host = h;
		/* completions of up to MPS bytes, each but the last ending on an RCB
		 * boundary (PG194 "Completion Packets") */
		while (sent < n) {
			k = n - sent;
			if (k > p->prm.mps) {
				uint64_t end = (a + sent + p->prm.mps) / rcb * rcb;
				k = (uint32_t)(end - (a + sent));
			}
			sent += k;
			uint64_t ready = first + (uint64_t)((double)(last - first) * sent / n) + bridge;
			end = pd_tlp(p, !d, ready, k, a);
		}
		a += n;
		left -= n;
	}
	*done = end;
	return VB_ACC_OK;
}

enum vb_access pd_pcie_write(struct vb_pcie *p, enum pd_side s, uint64_t t, uint64_t addr, uint32_t len,
			     enum pd_class cls, uint8_t **host, uint64_t *sent, uint64_t *done)
{
	int d = s == PD_ROOT ? PD_DOWN : PD_UP;
	enum pd_side far = s == PD_ROOT ? PD_EP : PD_ROOT;
	uint64_t bridge = s == PD_ROOT ? p->ep_ps : p->rp_ps;
	uint64_t first, last, axi;

	last = pd_link_write(p, d, t, addr, len, &first);
	*sent = last - p->link.one_way;   /* posted: the requester is done once the TLPs are out */
	/* A posted write that no BAR claims is dropped by the completer (UR, reported
	 * by an error message); the model hands that verdict to the requesting channel. */
	if (!completer(p, s, addr, len, &axi))
		return VB_ACC_DECERR;
	return pd_axi_write(p, far, last + bridge, axi, len, cls, host, done);
}
