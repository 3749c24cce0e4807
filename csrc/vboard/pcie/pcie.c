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

struct vb_pcie *vb_pcie_new(const struct vb_pcie_params *m, struct vb_sched *sched, struct vb_bus *bus,
			    struct vb_ic *ic, struct vb_memory *memory, char *err, size_t errlen)
{
	struct vb_pcie *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(err, errlen, "out of host memory");
		return NULL;
	}
	p->sched = sched;
	p->bus = bus;
	p->ic = ic;
	p->memory = memory;
	p->prm = *m;
	p->ep_mem = mmap(NULL, m->ep_ddr_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0);
	if (p->ep_mem == MAP_FAILED) {
		free(p);
		snprintf(err, errlen, "pcie.ep_ddr_size = 0x%llx: cannot map the endpoint DDR",
			 (unsigned long long)m->ep_ddr_size);
		return NULL;
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
	return p;
}

void vb_pcie_reseed(struct vb_pcie *p, const struct vb_rng *rng, uint64_t t0)
{
	if (!p)
		return;
	/* the EP DDR's refresh phase is independent of the PS DDR's; taken from the
	 * seeded generator's state without drawing, so the board's other random
	 * streams stay as they are without [pcie] */
	uint64_t refi = vb_ns(p->prm.ep_dram.trefi_ns), r = (rng->s[2] ^ (rng->s[3] >> 7)) * 0x9E3779B97F4A7C15ull;
	vb_dram_init(&p->ep_dram, &p->prm.ep_dram, t0 + (refi ? r % refi : 0));
	p->ep_last_arrive = p->ep_port_free = t0;
	pd_link_init(p);
	p->link.d[0].horizon = p->link.d[1].horizon = t0;
}

void vb_pcie_free(struct vb_pcie *p)
{
	if (!p)
		return;
	munmap(p->ep_mem, p->prm.ep_ddr_size);
	free(p);
}

/* ---- device ops ------------------------------------------------------------- */

static uint32_t root_read(void *dev, uint64_t off) { return pd_dma_read(dev, off); }

static void root_write(void *dev, uint64_t off, uint32_t v)
{
	struct vb_psdma *d = dev;
	pd_dma_write(d, off, v, d->p->sched->now);
}

/* The host reads an endpoint register across the link: a non-posted read,
 * so the CPU stalls for the round trip (MRd down, bridge, CplD up); the CPU
 * takes the answer's time from the bus. */
static uint32_t ep_read(void *dev, uint64_t off)
{
	struct vb_psdma *d = dev;
	struct vb_pcie *p = d->p;
	uint64_t a = p->prm.bar0 + off;
	uint64_t t = pd_tlp(p, PD_DOWN, p->sched->now, 0, a) + p->ep_ps;
	p->bus->answer_at = pd_tlp(p, PD_UP, t, 4, a);
	pd_dma_flush_posted(d, p->sched->now);   /* a read does not pass the writes posted before it */
	return pd_dma_read(d, off);
}

/* A posted write: it acts on the engine when its TLP has crossed, and the
 * engine goes on meanwhile.  The interrupt-status clear acts at once: with
 * MSI the host's pending interrupt is the message it took, which its
 * handler consumes when it writes the clear. */
static void ep_write(void *dev, uint64_t off, uint32_t v)
{
	struct vb_psdma *d = dev;
	struct vb_pcie *p = d->p;
	uint64_t t = pd_tlp(p, PD_DOWN, p->sched->now, 4, p->prm.bar0 + off) + p->ep_ps;
	if (off % PSDMA_CHAN_STRIDE == PSDMA_PCIE_INTR_STATUS)
		pd_dma_write(d, off, v, p->sched->now);
	else
		pd_dma_post(d, t, off, v, p->sched->now);
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

void *vb_pcie_engine(struct vb_pcie *p, int side) { return p ? &p->dma[side] : NULL; }

/* ---- for the binding ------------------------------------------------------------- */

void pd_apm(struct vb_pcie *p, int which, struct vb_pcie_apm *out)
{
	const struct vb_apm *a = which ? &p->apm_ep : &p->apm_ps;
	out->rd_bytes = a->rd_bytes;
	out->wr_bytes = a->wr_bytes;
	out->rd_txns = a->rd_txns;
	out->wr_txns = a->wr_txns;
	for (int i = 0; i < PD_NCLASS; i++) {
		out->rd_class[i] = a->rd_class[i];
		out->wr_class[i] = a->wr_class[i];
	}
}

void pd_apm_count_cpu(struct vb_pcie *p, bool write, uint64_t bytes)
{
	struct vb_apm *a = &p->apm_ps;
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

void pd_link_stats(struct vb_pcie *p, struct vb_pcie_link_stats *out)
{
	const struct pd_link *l = &p->link;
	for (int d = 0; d < 2; d++) {
		out->tlps[d] = l->d[d].tlps;
		out->wire_bytes[d] = l->d[d].wire_bytes;
		out->payload[d] = l->d[d].payload;
	}
	out->rate_mbps = pd_link_rate_mbps(&p->prm);
}

uint8_t *pd_ep_ptr(struct vb_pcie *p, uint64_t axi, uint64_t len)
{
	const struct vb_pcie_params *m = &p->prm;
	if (axi < m->ep_ddr_axi || len > m->ep_ddr_size || axi - m->ep_ddr_axi > m->ep_ddr_size - len)
		return NULL;
	return p->ep_mem + (axi - m->ep_ddr_axi);
}

/* The channel's interrupt line: status bits AND their enables, once the
 * interrupt has reached the host (an endpoint's MSI crosses the link). */
bool pd_irq(struct vb_pcie *p, int side, unsigned chan, uint64_t *t_irq)
{
	const struct pd_chan *c = &p->dma[side].ch[chan];
	uint32_t ctl = side == PD_ROOT ? c->axi_icntrl : c->pcie_icntrl;
	uint32_t st = side == PD_ROOT ? c->axi_istat : c->pcie_istat;
	uint32_t en = ((ctl & PSDMA_INTR_ERR_EN) ? PSDMA_ISTAT_ERR : 0) | ((ctl & PSDMA_INTR_SGL_EN) ? PSDMA_ISTAT_SGL : 0);

	if (t_irq)
		*t_irq = c->t_irq;
	return (ctl & PSDMA_INTR_ENABLE) && (st & en) && p->sched->now >= c->t_irq;
}

bool pd_last_error(struct vb_pcie *p, struct vb_pcie_error *out)
{
	const struct pd_error *e = &p->err;
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

void pd_clear_error(struct vb_pcie *p) { p->err.valid = false; }
uint64_t pd_guest_errors(struct vb_pcie *p) { return p->guest_errors; }
const struct vb_pcie_params *pd_params(struct vb_pcie *p) { return &p->prm; }

void pd_set_trained(struct vb_pcie *p, bool up) { p->prm.trained = up; }
