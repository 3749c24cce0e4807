/*
 * pcie.c - the PCIe subsystem as the board sees it: created when the preset
 * has a [pcie] section, its two DMA engines exposed through device ops (the
 * root port's at 0xFD0F0000, the endpoint's behind BAR0 in the PCIe
 * aperture), and the accessors the binding uses (APMs, endpoint memory, the
 * last channel error, interrupt lines).
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pcie.h"
#include "pcie_api.h"

int vb_pcie_create(vb_board *b, char *err, size_t errlen)
{
	struct vb_pcie *p = calloc(1, sizeof(*p));
	const struct vb_pcie_params *m = &b->cfg.pcie;

	if (!p) {
		snprintf(err, errlen, "out of host memory");
		return -1;
	}
	p->b = b;
	p->prm = *m;
	p->ep_mem = mmap(NULL, m->ep_ddr_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0);
	if (p->ep_mem == MAP_FAILED) {
		free(p);
		snprintf(err, errlen, "pcie.ep_ddr_size = 0x%llx: cannot map the endpoint DDR",
			 (unsigned long long)m->ep_ddr_size);
		return -1;
	}
	p->dma_clk_ps = (uint64_t)(1e6 / m->dma_clock_mhz + 0.5);
	p->rp_ps = vb_ns(m->rp_bridge_ns);
	p->ep_ps = vb_ns(m->ep_bridge_ns);
	p->ep_axi_ps = vb_ns(m->ep_axi_ns);
	p->ep_ps_per_byte = 1e6 / (m->ep_axi_mhz * m->ep_axi_width_bits / 8.0);
	for (int s = 0; s < 2; s++) {
		p->dma[s].p = p;
		p->dma[s].side = (enum pd_side)s;
	}
	b->pcie = p;
	vb_pcie_reseed(b, b->sched.now);
	return 0;
}

void vb_pcie_reseed(vb_board *b, uint64_t t0)
{
	struct vb_pcie *p = b->pcie;
	if (!p)
		return;
	/* the EP DDR's refresh phase is independent of the PS DDR's; taken from the
	 * seeded generator's state without drawing, so the board's other random
	 * streams stay as they are without [pcie] */
	uint64_t refi = vb_ns(p->prm.ep_dram.trefi_ns), r = (b->rng.s[2] ^ (b->rng.s[3] >> 7)) * 0x9E3779B97F4A7C15ull;
	vb_dram_init(&p->ep_dram, &p->prm.ep_dram, t0 + (refi ? r % refi : 0));
	p->ep_last_arrive = p->ep_port_free = t0;
	pd_link_init(p);
	p->link.d[0].free = p->link.d[1].free = t0;
}

void vb_pcie_destroy(vb_board *b)
{
	if (!b->pcie)
		return;
	munmap(b->pcie->ep_mem, b->pcie->prm.ep_ddr_size);
	free(b->pcie);
	b->pcie = NULL;
}

/* ---- device ops ------------------------------------------------------------- */

static uint32_t root_read(void *dev, uint64_t off) { return pd_dma_read(dev, off); }

static void root_write(void *dev, uint64_t off, uint32_t v)
{
	struct vb_psdma *d = dev;
	pd_dma_write(d, off, v, d->p->b->sched.now);
}

/* The host reads an endpoint register across the link: a non-posted read,
 * so the CPU stalls for the round trip (MRd down, bridge, CplD up); the CPU
 * takes the answer's time from the bus. */
static uint32_t ep_read(void *dev, uint64_t off)
{
	struct vb_psdma *d = dev;
	struct vb_pcie *p = d->p;
	uint64_t a = p->prm.bar0 + off;
	uint64_t t = pd_tlp(p, PD_DOWN, p->b->sched.now, 0, a) + p->ep_ps;
	p->b->bus.answer_at = pd_tlp(p, PD_UP, t, 4, a);
	return pd_dma_read(d, off);
}

/* A posted write: the engine sees it when the TLP has crossed. */
static void ep_write(void *dev, uint64_t off, uint32_t v)
{
	struct vb_psdma *d = dev;
	struct vb_pcie *p = d->p;
	uint64_t t = pd_tlp(p, PD_DOWN, p->b->sched.now, 4, p->prm.bar0 + off) + p->ep_ps;
	if (t > d->doorbell_at)
		d->doorbell_at = t;
	pd_dma_write(d, off, v, p->b->sched.now);
}

static void dma_reset(void *dev) { pd_dma_reset(dev); }
static uint64_t dma_next(void *dev) { return pd_dma_next_event(dev); }
static void dma_step(void *dev, uint64_t t) { pd_dma_step(dev, t); }

const struct vb_device_ops vb_psdma_root_ops = {
	.name = "PS-PCIe DMA (root port)", .read = root_read, .write = root_write, .reset = dma_reset,
};
const struct vb_device_ops vb_psdma_ep_ops = {
	.name = "endpoint DMA (BAR0)", .read = ep_read, .write = ep_write, .reset = dma_reset,
};
const struct vb_timed_ops vb_psdma_timed = { .next_event = dma_next, .step = dma_step };

void *vb_pcie_engine(vb_board *b, int side) { return b->pcie ? &b->pcie->dma[side] : NULL; }

/* ---- for the binding ------------------------------------------------------------- */

bool vb_pcie_present(const vb_board *b) { return b->pcie != NULL; }

void vb_pcie_apm(vb_board *b, int which, struct vb_pcie_apm *out)
{
	const struct vb_apm *a = which ? &b->pcie->apm_ep : &b->pcie->apm_ps;
	out->rd_bytes = a->rd_bytes;
	out->wr_bytes = a->wr_bytes;
	out->rd_txns = a->rd_txns;
	out->wr_txns = a->wr_txns;
	for (int i = 0; i < PD_NCLASS; i++) {
		out->rd_class[i] = a->rd_class[i];
		out->wr_class[i] = a->wr_class[i];
	}
}

void vb_pcie_apm_count_cpu(vb_board *b, bool write, uint64_t bytes)
{
	struct vb_apm *a = &b->pcie->apm_ps;
	if (write) {
		a->wr_bytes += bytes;
		a->wr_class[PD_CPU] += bytes;
		a->wr_txns++;
	} else {
		a->rd_bytes += bytes;
		a->rd_class[PD_CPU] += bytes;
		a->rd_txns++;
	}
}

void vb_pcie_link_stats(vb_board *b, struct vb_pcie_link_stats *out)
{
	const struct pd_link *l = &b->pcie->link;
	for (int d = 0; d < 2; d++) {
		out->tlps[d] = l->d[d].tlps;
		out->wire_bytes[d] = l->d[d].wire_bytes;
		out->payload[d] = l->d[d].payload;
	}
	out->rate_mbps = pd_link_rate_mbps(&b->pcie->prm);
}

uint8_t *vb_pcie_ep_ptr(vb_board *b, uint64_t axi, uint64_t len)
{
	const struct vb_pcie_params *m = &b->pcie->prm;
	if (axi < m->ep_ddr_axi || len > m->ep_ddr_size || axi - m->ep_ddr_axi > m->ep_ddr_size - len)
		return NULL;
	return b->pcie->ep_mem + (axi - m->ep_ddr_axi);
}

/* The channel's interrupt line: status bits AND their enables, once the
 * interrupt has reached the host (an endpoint's MSI crosses the link). */
bool vb_pcie_irq(vb_board *b, int side, unsigned chan, uint64_t *t_irq)
{
	const struct pd_chan *c = &b->pcie->dma[side].ch[chan];
	uint32_t ctl = side == PD_ROOT ? c->axi_icntrl : c->pcie_icntrl;
	uint32_t st = side == PD_ROOT ? c->axi_istat : c->pcie_istat;
	uint32_t en = ((ctl & PSDMA_INTR_ERR_EN) ? PSDMA_ISTAT_ERR : 0) | ((ctl & PSDMA_INTR_SGL_EN) ? PSDMA_ISTAT_SGL : 0);

	if (t_irq)
		*t_irq = c->t_irq;
	return (ctl & PSDMA_INTR_ENABLE) && (st & en) && b->sched.now >= c->t_irq;
}

bool vb_pcie_last_error(vb_board *b, struct vb_pcie_error *out)
{
	const struct pd_error *e = &b->pcie->err;
	if (!e->valid)
		return false;
	out->side = e->side;
	out->chan = e->chan;
	out->queue = e->queue;
	out->index = e->index;
	out->addr = e->addr;
	snprintf(out->why, sizeof(out->why), "%s", e->why);
	return true;
}

void vb_pcie_clear_error(vb_board *b) { b->pcie->err.valid = false; }
uint64_t vb_pcie_guest_errors(vb_board *b) { return b->pcie->guest_errors; }
const struct vb_pcie_params *vb_pcie_params_of(vb_board *b) { return &b->pcie->prm; }

void vb_pcie_set_trained(vb_board *b, bool up) { b->pcie->prm.trained = up; }
