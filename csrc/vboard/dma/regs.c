/*
 * regs.c - the AXI DMA's register file (PG021 v7.1, register map in
 * sgdma/pg021.h): one read and one write dispatch over register indices,
 * DMASR's write-1-to-clear interrupt bits, the fields each register keeps,
 * and the reset through the device's ops table.  What a write sets in motion
 * is the channel's business (channel.c).
 */
#include <stdio.h>

#include "dma/regs.h"

/* Register index within a channel's block (byte offset / 4). */
enum vb_dma_reg {
	R_DMACR        = PG021_DMACR / 4,
	R_DMASR        = PG021_DMASR / 4,
	R_CURDESC      = PG021_CURDESC / 4,
	R_CURDESC_MSB  = PG021_CURDESC_MSB / 4,
	R_TAILDESC     = PG021_TAILDESC / 4,
	R_TAILDESC_MSB = PG021_TAILDESC_MSB / 4,
	R_ADDR         = PG021_ADDR / 4,
	R_ADDR_MSB     = PG021_ADDR_MSB / 4,
	R_LENGTH       = PG021_LENGTH / 4,
};

static bool sg_build(const struct vb_dma *d) { return vb_sg(d); }
static bool addr64(const struct vb_dma *d) { return vb_addr64(d); }
static bool has_error(const struct vb_chan *c) { return (c->dmasr & PG021_SR_ERR_ALL) != 0; }
static bool running(const struct vb_chan *c) { return !vb_chan_halted(c); }
static unsigned threshold_of(uint32_t dmacr) { return SG_FIELD_GET(PG021_CR_THRESHOLD, dmacr); }

static uint64_t set_lo(uint64_t reg, uint32_t v) { return (reg & 0xFFFFFFFF00000000ull) | v; }
static uint64_t set_hi(uint64_t reg, uint32_t v) { return (reg & 0xFFFFFFFFull) | ((uint64_t)v << 32); }
static uint32_t bd_aligned(uint32_t v) { return v & ~(uint32_t)(PG021_BD_ALIGN - 1); }

static uint32_t msb_mask(const struct vb_dma *d)
{
	return d->prm->addr_width >= 64 ? 0xFFFFFFFFu : (uint32_t)((1ull << (d->prm->addr_width - 32)) - 1);
}

/* The channel block an offset falls in and its register index; false for
 * SG_CTL, the space past both channels and misaligned offsets. */
static bool decode(struct vb_dma *d, uint32_t off, struct vb_chan **c, enum vb_dma_reg *r)
{
	if (off >= PG021_REG_SPAN || off == PG021_SG_CTL || (off & 3u))
		return false;
	*c = &d->ch[off >= PG021_S2MM_BASE];
	*r = (enum vb_dma_reg)((off % PG021_CHAN_SPAN) / 4);
	return true;
}

/* DMACR: the writable fields; Reset starts a soft reset of the whole core. */
static void cr_write(struct vb_dma *d, struct vb_chan *c, uint32_t v)
{
	const uint32_t writable = PG021_CR_RS | PG021_CR_KEYHOLE | PG021_CR_CYCLIC | PG021_CR_IRQ_ALL |
				  PG021_CR_THRESHOLD | PG021_CR_DELAY;
	uint32_t old = c->dmacr, now;

	if (v & PG021_CR_RESET) {
		vb_dma_soft_reset(d);
		return;
	}
	now = (v & writable) | PG021_CR_RSVD1;
	/* Cyclic and keyhole may only change while the channel does not run. */
	if (running(c))
		now = (now & ~(PG021_CR_CYCLIC | PG021_CR_KEYHOLE)) | (old & (PG021_CR_CYCLIC | PG021_CR_KEYHOLE));
	/* Threshold 0 is outside PG021's 1..255: the model keeps the old value. */
	if (threshold_of(now) == 0)
		now = (now & ~PG021_CR_THRESHOLD) | (old & PG021_CR_THRESHOLD);
	/* An error halts the channel until a soft reset: RS cannot be set again. */
	if (has_error(c))
		now &= ~PG021_CR_RS;
	vb_chan_control(d, c, old, now);
}

/* DMASR: the interrupt bits are write-1-to-clear, the rest read-only. */
static void sr_write(struct vb_chan *c, uint32_t v)
{
	c->dmasr &= ~(v & PG021_SR_IRQ_ALL);
}

/* ---- guest errors: illegal accesses are logged once per kind and counted ---- */

static const char *const guest_error_names[VB_GE_COUNT] = {
	[VB_GE_RESERVED] = "reserved offset",
	[VB_GE_READ_ONLY] = "write to a read-only field",
	[VB_GE_MISALIGNED] = "misaligned access",
};

const char *vb_guest_error_name(enum vb_guest_error kind)
{
	return kind < VB_GE_COUNT ? guest_error_names[kind] : "?";
}


static void guest_error(struct vb_dma *d, enum vb_guest_error kind, bool write, uint32_t off, uint32_t v)
{
	struct vb_dma_guest_errors *g = &d->guest;
	g->count[kind]++;
	g->last_offset[kind] = off;
	if (g->logged[kind])
		return;
	g->logged[kind] = true;
	fprintf(stderr, "sgdma virtual board: AXI DMA guest error: %s: %s of 0x%08x at offset 0x%02x (the illegal "
		"part has no effect%s; logged once, counted in the register snapshot)\n", guest_error_names[kind],
		write ? "write" : "read", write ? v : 0u, off, write ? "" : ", the read returns 0");
}

/* An offset inside the register span that names a register of PG021's map (any build). */
static bool mapped_offset(uint32_t off)
{
	switch (off % PG021_CHAN_SPAN) {
	case PG021_DMACR: case PG021_DMASR: case PG021_CURDESC: case PG021_CURDESC_MSB:
	case PG021_TAILDESC: case PG021_TAILDESC_MSB: case PG021_ADDR: case PG021_ADDR_MSB: case PG021_LENGTH:
		return off < PG021_REG_SPAN && off != PG021_SG_CTL;
	default:
		return false;
	}
}

/* A register this build has (SG registers or simple-mode registers; MSB halves only beyond 32 bits). */
static bool built_offset(const struct vb_dma *d, uint32_t off)
{
	switch (off % PG021_CHAN_SPAN) {
	case PG021_CURDESC: case PG021_TAILDESC: return sg_build(d);
	case PG021_CURDESC_MSB: case PG021_TAILDESC_MSB: return sg_build(d) && addr64(d);
	case PG021_ADDR: case PG021_LENGTH: return !sg_build(d);
	case PG021_ADDR_MSB: return !sg_build(d) && addr64(d);
	default: return true;
	}
}

/* Reads: misaligned or unmapped offsets are guest errors (absent registers of the map read 0 quietly:
 * drivers read the MSB halves on every build).  Writes also may not target absent registers, reserved
 * DMACR bits or DMASR's read-only bits, nor CURDESC while the channel runs. */
static bool guest_read_ok(struct vb_dma *d, uint32_t off)
{
	if (off & 3)
		guest_error(d, VB_GE_MISALIGNED, false, off, 0);
	else if (!mapped_offset(off))
		guest_error(d, VB_GE_RESERVED, false, off, 0);
	else
		return true;
	return false;
}

static bool guest_write_ok(struct vb_dma *d, uint32_t off, uint32_t v)
{
	const uint32_t cr_defined = PG021_CR_RS | PG021_CR_RSVD1 | PG021_CR_RESET | PG021_CR_KEYHOLE |
				    PG021_CR_CYCLIC | PG021_CR_IRQ_ALL | PG021_CR_THRESHOLD | PG021_CR_DELAY;
	const struct vb_chan *c = &d->ch[off >= PG021_S2MM_BASE];
	if (off & 3) {
		guest_error(d, VB_GE_MISALIGNED, true, off, v);
		return false;
	}
	if (!mapped_offset(off) || !built_offset(d, off)) {
		guest_error(d, VB_GE_RESERVED, true, off, v);
		return false;
	}
	switch (off % PG021_CHAN_SPAN) {
	case PG021_DMACR:
		if (v & ~cr_defined)
			guest_error(d, VB_GE_RESERVED, true, off, v);   /* the defined bits still take effect */
		return true;
	case PG021_DMASR:
		if (v & ~(PG021_SR_IRQ_ALL | PG021_SR_THRESHOLD_STS | PG021_SR_DELAY_STS) & ~c->dmasr)
			guest_error(d, VB_GE_READ_ONLY, true, off, v);   /* writing back what was read is fine */
		return true;
	case PG021_CURDESC: case PG021_CURDESC_MSB:
		if (!vb_chan_halted(c))
			guest_error(d, VB_GE_READ_ONLY, true, off, v);
		return true;
	default:
		return true;
	}
}

uint32_t vb_dma_read(struct vb_dma *d, uint32_t off)
{
	struct vb_chan *c;
	enum vb_dma_reg r;

	if (!guest_read_ok(d, off) || !decode(d, off, &c, &r))
		return 0;
	switch (r) {
	case R_DMACR: return c->dmacr;
	case R_DMASR: return vb_chan_dmasr(d, c);
	case R_CURDESC: return sg_build(d) ? (uint32_t)c->curdesc : 0;
	case R_CURDESC_MSB: return sg_build(d) && addr64(d) ? (uint32_t)(c->curdesc >> 32) : 0;
	case R_TAILDESC: return sg_build(d) ? (uint32_t)c->taildesc : 0;
	case R_TAILDESC_MSB: return sg_build(d) && addr64(d) ? (uint32_t)(c->taildesc >> 32) : 0;
	case R_ADDR: return sg_build(d) ? 0 : (uint32_t)c->addr;
	case R_ADDR_MSB: return !sg_build(d) && addr64(d) ? (uint32_t)(c->addr >> 32) : 0;
	case R_LENGTH: return sg_build(d) ? 0 : c->length;
	default: return 0;
	}
}

void vb_dma_write(struct vb_dma *d, uint32_t off, uint32_t v)
{
	struct vb_chan *c;
	enum vb_dma_reg r;

	d->next_valid = false;    /* a write may start, stop or move the engine */
	if (!guest_write_ok(d, off, v) || vb_dma_resetting(d) || !decode(d, off, &c, &r))
		return;
	switch (r) {
	case R_DMACR:
		cr_write(d, c, v);
		break;
	case R_DMASR:
		sr_write(c, v);
		break;
	case R_CURDESC:
		/* Writable only while halted; bits 5:0 reserved. */
		if (sg_build(d) && vb_chan_halted(c))
			c->next_bd = c->curdesc = set_lo(c->curdesc, bd_aligned(v));
		break;
	case R_CURDESC_MSB:
		if (sg_build(d) && addr64(d) && vb_chan_halted(c))
			c->next_bd = c->curdesc = set_hi(c->curdesc, v & msb_mask(d));
		break;
	case R_TAILDESC:
		if (!sg_build(d))
			break;
		c->taildesc = set_lo(c->taildesc, bd_aligned(v));
		if (!addr64(d))
			vb_chan_tail_written(d, c);   /* > 32-bit: the MSB write is the trigger */
		break;
	case R_TAILDESC_MSB:
		if (sg_build(d) && addr64(d)) {
			c->taildesc = set_hi(c->taildesc, v & msb_mask(d));
			vb_chan_tail_written(d, c);
		}
		break;
	case R_ADDR:
		if (!sg_build(d) && !vb_chan_busy(c))
			c->addr = set_lo(c->addr, v);
		break;
	case R_ADDR_MSB:
		if (!sg_build(d) && addr64(d) && !vb_chan_busy(c))
			c->addr = set_hi(c->addr, v & msb_mask(d));
		break;
	case R_LENGTH:
		if (!sg_build(d))
			vb_chan_length_written(d, c, v);
		break;
	default:
		break;
	}
}

/* ---- bus glue: the DMA's register window (dev = its struct vb_dma) ---------------- */

static uint32_t ops_read(void *dev, uint64_t off) { return vb_dma_read(dev, (uint32_t)off); }
static void ops_write(void *dev, uint64_t off, uint32_t v) { vb_dma_write(dev, (uint32_t)off, v); }
static void ops_reset(void *dev) { vb_dma_reset(dev); }
static uint64_t ops_next_event(void *dev) { return vb_dma_next_event(dev); }
static void ops_step(void *dev, uint64_t t) { vb_dma_step(dev, t); }

const struct vb_device_ops vb_axidma_ops = {
	.name = "axi_dma",
	.read = ops_read,
	.write = ops_write,
	.reset = ops_reset,
};

const struct vb_timed_ops vb_axidma_timed = {
	.next_event = ops_next_event,
	.step = ops_step,
};
