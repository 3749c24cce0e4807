/*
 * gpio.c - three AXI GPIO blocks (PG144 register layout) shared by the CPUs and
 * the PL: block A carries the timing engine's handshake (csm.c), block B its
 * counters, block C is a plain APU <-> RPU mailbox (both channels read/write,
 * as S0 passes the BD ring address through PL GPIO).  Channel data written by
 * the PL side ignores CPU writes.
 */
#include "sgdma/csm.h"
#include "pl/gpio.h"

enum { GPIO_DATA = CSM_GPIO_DATA, GPIO_TRI = 0x4, GPIO2_DATA = CSM_GPIO2_DATA, GPIO2_TRI = 0xC,
       GPIO_GIER = 0x11C, GPIO_ISR = 0x120, GPIO_IER = 0x128 };

static uint32_t block_regs(struct vb_gpio *g, uint32_t off)
{
	switch (off) {
	case GPIO_TRI: return g->tri[0];
	case GPIO2_TRI: return g->tri[1];
	case GPIO_GIER: return g->gier;
	case GPIO_ISR: return g->isr;
	case GPIO_IER: return g->ier;
	default: return 0;
	}
}

static void block_write(struct vb_gpio *g, uint32_t off, uint32_t value)
{
	switch (off) {
	case GPIO_TRI: g->tri[0] = value; break;
	case GPIO2_TRI: g->tri[1] = value; break;
	case GPIO_GIER: g->gier = value & 0x80000000u; break;
	case GPIO_ISR: g->isr ^= value & 3u; break;   /* toggle-on-write (PG144) */
	case GPIO_IER: g->ier = value & 3u; break;
	default: break;
	}
}

static uint32_t gpio_read(struct vb_gpio *g, uint32_t off)
{
	unsigned block = g->index;

	if (block == 0 && off == GPIO_DATA)
		return g->data[0];
	if (block == 0 && off == GPIO2_DATA)
		return vb_csm_status(g->csm);
	if (block == 1 && off == GPIO_DATA)
		return vb_csm_counter(g->csm, g->a->data[0]);
	if (block == 1 && off == GPIO2_DATA)
		return g->csm->expected_beats;
	if (block == 2 && (off == GPIO_DATA || off == GPIO2_DATA))
		return g->data[off == GPIO2_DATA];
	return block_regs(g, off);
}

static void gpio_write(struct vb_gpio *g, uint32_t off, uint32_t value)
{
	unsigned block = g->index;

	if (block == 0 && off == GPIO_DATA) {
		uint32_t old = g->data[0];
		g->data[0] = value;
		vb_trace_gpio(g->trace, g->sched->now, VB_TRACE_CTL, value);
		vb_csm_control(g->csm, old, value);
		return;
	}
	if (block == 1 && off == GPIO2_DATA) {
		g->csm->expected_beats = value;
		vb_trace_gpio(g->trace, g->sched->now, VB_TRACE_LEN, value);
		return;
	}
	if (block == 2 && (off == GPIO_DATA || off == GPIO2_DATA)) {
		g->data[off == GPIO2_DATA] = value;
		return;
	}
	if (off == GPIO_DATA || off == GPIO2_DATA)
		return;                                   /* PL-driven inputs */
	block_write(g, off, value);
}

/* ---- bus glue: one window per block (dev = the block) ---------------------- */

static uint32_t ops_read(void *dev, uint64_t off) { return gpio_read(dev, (uint32_t)off); }
static void ops_write(void *dev, uint64_t off, uint32_t v) { gpio_write(dev, (uint32_t)off, v); }

const struct vb_device_ops vb_gpio_ops = {
	.name = "axi_gpio",
	.read = ops_read,
	.write = ops_write,
};
