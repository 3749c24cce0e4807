/*
 * pcie_dma.c - driver core for one PS-PCIe DMA channel (freestanding C11).
 * Follows the queue rules of UG1085/UG1087 as summarized in
 * zynqmp-pcie-dma.md sec. 5: NEXT written only while disabled, LIMIT is the
 * doorbell, STAS/STAD slots handed back by advancing their LIMIT.
 */
#include "sgdma/pcie_driver.h"

static uint64_t q_bytes(uint32_t nelem, unsigned q)
{
	uint64_t b = (uint64_t)nelem * (q < PSDMA_Q_STAS ? PSDMA_SD_SIZE : PSDMA_STA_SIZE);
	return (b + PSDMA_QUEUE_ALIGN - 1) & ~(uint64_t)(PSDMA_QUEUE_ALIGN - 1);
}

int psdma_reset(struct psdma_chan *c, uint32_t max_polls);

uint64_t psdma_queue_bytes(uint32_t nelem)
{
	uint64_t n = 0;
	for (unsigned q = 0; q < PSDMA_NQUEUES; q++)
		n += q_bytes(nelem, q);
	return n;
}

static uint32_t rd(const struct psdma_chan *c, uint32_t off) { return c->plat.ops->read32(c->plat.ctx, c->regs + off); }
static void wr(const struct psdma_chan *c, uint32_t off, uint32_t v) { c->plat.ops->write32(c->plat.ctx, c->regs + off, v); }
static uint32_t icntrl_reg(const struct psdma_chan *c) { return c->root ? PSDMA_AXI_INTR_CNTRL : PSDMA_PCIE_INTR_CNTRL; }
static uint32_t istat_reg(const struct psdma_chan *c) { return c->root ? PSDMA_AXI_INTR_STATUS : PSDMA_PCIE_INTR_STATUS; }

static void put32(uint8_t *p, uint32_t v) { *(volatile uint32_t *)(void *)p = v; }
static uint32_t get32(const uint8_t *p) { return *(const volatile uint32_t *)(const void *)p; }

static void zero(uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i += 4)
		put32(p + i, 0);
}

static void program(struct psdma_chan *c)
{
	/* root DMA: queues in PS DDR (AXI side); endpoint DMA: in host memory across PCIe */
	uint32_t loc = c->root ? PSDMA_QPTR_AXI | PSDMA_QPTR_RDATTR : 0;

	for (unsigned q = 0; q < PSDMA_NQUEUES; q++) {
		uint32_t blk = q * PSDMA_Q_STRIDE;
		zero(c->q[q], q_bytes(c->nelem, q));
		c->plat.ops->cache_clean(c->plat.ctx, c->q[q], q_bytes(c->nelem, q));
		wr(c, PSDMA_SRCQ_NXT + 4 * q, 0);
		wr(c, blk + PSDMA_Q_PTRHI, (uint32_t)(c->qdev[q] >> 32));
		wr(c, blk + PSDMA_Q_SZ, c->nelem);
		/* SRC/DST empty; every status slot but one granted to the hardware */
		wr(c, blk + PSDMA_Q_LMT, q < PSDMA_Q_STAS ? 0 : c->nelem - 1);
		wr(c, blk + PSDMA_Q_PTRLO, ((uint32_t)c->qdev[q] & PSDMA_QPTR_ADDR_MASK) | loc | PSDMA_QPTR_ENABLE);
	}
	c->head = c->tail = c->pending = 0;
	c->sta_probe[0] = c->sta_probe[1] = 0;
	c->halted = false;
	wr(c, icntrl_reg(c), PSDMA_INTR_ENABLE | PSDMA_INTR_ERR_EN | PSDMA_INTR_SGL_EN |
				     SG_FIELD_PREP(PSDMA_INTR_COALESCE, c->coalesce));
	wr(c, PSDMA_CNTRL, PSDMA_CNTRL_ENABLE | PSDMA_CNTRL_64BIT_STA);
}

int psdma_init(struct psdma_chan *c, const struct sg_platform *plat, uint64_t engine_base, unsigned index,
	       enum psdma_dir dir, bool root, void *qmem, uint32_t nelem, unsigned coalesce)
{
	uint64_t dev, off = 0;

	if (!c || !plat || !qmem || index >= PSDMA_CHANNELS || nelem < 2 || nelem > PSDMA_MAX_ELEMS ||
	    coalesce > PSDMA_COALESCE_MAX || (dir != PSDMA_S2C && dir != PSDMA_C2S))
		return PSDMA_E_ARG;
	dev = plat->ops->dev_addr(plat->ctx, qmem);
	if (dev == SG_NO_DEV_ADDR || (dev & (PSDMA_QUEUE_ALIGN - 1)))
		return PSDMA_E_ARG;
	c->plat = *plat;
	c->regs = engine_base + (uint64_t)index * PSDMA_CHAN_STRIDE;
	c->index = index;
	c->dir = dir;
	c->root = root;
	c->nelem = nelem;
	c->coalesce = coalesce;
	c->err.code = PSDMA_OK;
	for (unsigned q = 0; q < PSDMA_NQUEUES; q++) {
		c->q[q] = (uint8_t *)qmem + off;
		c->qdev[q] = dev + off;
		off += q_bytes(nelem, q);
	}
	if (!(rd(c, PSDMA_STATUS) & PSDMA_STATUS_PRESENT))
		return PSDMA_E_ABSENT;
	/* queue registers may be programmed only once dma_running reads 0 */
	return psdma_reset(c, PSDMA_DEFAULT_POLLS);
}

uint32_t psdma_free(const struct psdma_chan *c) { return c->nelem - 1 - c->pending; }

static void put_elem(struct psdma_chan *c, unsigned q, uint64_t addr, uint32_t ctrl, uint16_t handle)
{
	uint8_t *e = c->q[q] + (uint64_t)c->head * PSDMA_SD_SIZE;
	put32(e + PSDMA_SD_ADDR, (uint32_t)addr);
	put32(e + PSDMA_SD_ADDR + 4, (uint32_t)(addr >> 32));
	put32(e + PSDMA_SD_CTRL, ctrl);
	put32(e + PSDMA_SD_HANDLE, handle | (q == PSDMA_Q_SRC ? 1u << 16 : 0));   /* user id 1, as Linux */
	c->plat.ops->cache_clean(c->plat.ctx, e, PSDMA_SD_SIZE);
}

static uint32_t side_bits(bool axi)
{
	return axi ? PSDMA_SD_AXI | SG_FIELD_PREP(PSDMA_SD_ATTR, PSDMA_ATTR_AXI)
		   : SG_FIELD_PREP(PSDMA_SD_ATTR, PSDMA_ATTR_PCIE);
}

int psdma_post_raw(struct psdma_chan *c, uint64_t src, bool src_axi, uint64_t dst, bool dst_axi, uint32_t len,
		   bool irq)
{
	uint32_t idx;

	if (c->halted)
		return PSDMA_E_HALTED;
	if (len == 0 || len > PSDMA_SD_MAX_BYTES)
		return PSDMA_E_LENGTH;
	if (psdma_free(c) == 0)
		return PSDMA_E_FULL;
	idx = c->head;
	put_elem(c, PSDMA_Q_SRC, src, len | side_bits(src_axi) | PSDMA_SD_EOP | (irq ? PSDMA_SD_INTR : 0),
		 (uint16_t)idx);
	put_elem(c, PSDMA_Q_DST, dst, len | side_bits(dst_axi) | PSDMA_SD_EOP, (uint16_t)idx);
	c->head = (c->head + 1) % c->nelem;
	c->pending++;
	c->plat.ops->barrier(c->plat.ctx);
	/* DST first: the packet can start as soon as SRC's doorbell rings */
	wr(c, PSDMA_DSTQ_PTRLO + PSDMA_Q_LMT, c->head);
	wr(c, PSDMA_SRCQ_LMT, c->head);
	return (int)idx;
}

int psdma_post(struct psdma_chan *c, uint64_t src, uint64_t dst, uint32_t len, bool irq)
{
	/* root DMA: host buffers are AXI, card buffers PCIe; endpoint DMA the other way round */
	bool host_is_axi = c->root;
	bool src_host = c->dir == PSDMA_S2C;
	return psdma_post_raw(c, src, src_host ? host_is_axi : !host_is_axi, dst, src_host ? !host_is_axi : host_is_axi,
			      len, irq);
}

static uint8_t *sta(struct psdma_chan *c, unsigned which)
{
	uint8_t *p = c->q[PSDMA_Q_STAS + which] + (uint64_t)c->sta_probe[which] * PSDMA_STA_SIZE;
	c->plat.ops->cache_invalidate(c->plat.ctx, p, PSDMA_STA_SIZE);
	return p;
}

static int fail(struct psdma_chan *c, unsigned which, uint32_t flags, uint32_t handle)
{
	c->halted = true;
	c->err.code = PSDMA_E_DMA;
	c->err.queue = (flags & PSDMA_STA_DST_ERR) || which ? PSDMA_Q_DST : PSDMA_Q_SRC;
	if (flags & PSDMA_STA_SRC_ERR)
		c->err.queue = PSDMA_Q_SRC;
	c->err.index = handle & 0xFFFFu;
	c->err.status = flags;
	return PSDMA_E_DMA;
}

static void give_back(struct psdma_chan *c, unsigned which, uint8_t *p)
{
	uint32_t blk = (PSDMA_Q_STAS + which) * PSDMA_Q_STRIDE;
	put32(p + PSDMA_STA_FLAGS, 0);
	put32(p + PSDMA_STA_HANDLE, 0);
	c->plat.ops->cache_clean(c->plat.ctx, p, PSDMA_STA_SIZE);
	/* the slot we just read goes back to the hardware: LIMIT trails the probe by one */
	wr(c, blk + PSDMA_Q_LMT, (c->sta_probe[which] + c->nelem - 1) % c->nelem);
}

int psdma_reap(struct psdma_chan *c, struct psdma_done *out, unsigned max)
{
	unsigned n = 0;

	if (c->halted)
		return PSDMA_E_HALTED;
	while (n < max && c->pending) {
		uint8_t *s = sta(c, 0), *d = sta(c, 1);
		uint32_t fs = get32(s + PSDMA_STA_FLAGS), fd = get32(d + PSDMA_STA_FLAGS);
		bool cs = fs & PSDMA_STA_COMPLETED, cd = fd & PSDMA_STA_COMPLETED;

		if ((cs && ((fs & PSDMA_STA_ERRORS) || !(fs & PSDMA_STA_UPPER_NZ))))
			return fail(c, 0, fs, get32(s + PSDMA_STA_HANDLE));
		if ((cd && ((fd & PSDMA_STA_ERRORS) || !(fd & PSDMA_STA_UPPER_NZ))))
			return fail(c, 1, fd, get32(d + PSDMA_STA_HANDLE));
		if (!cs || !cd)
			break;
		out[n].index = get32(s + PSDMA_STA_HANDLE) & 0xFFFFu;
		out[n].bytes = SG_FIELD_GET(PSDMA_STA_COUNT, fs);
		n++;
		for (unsigned w = 0; w < 2; w++) {
			c->sta_probe[w] = (c->sta_probe[w] + 1) % c->nelem;
			give_back(c, w, w ? d : s);
		}
		c->tail = (c->tail + 1) % c->nelem;
		c->pending--;
	}
	return (int)n;
}

uint32_t psdma_irq_ack(struct psdma_chan *c)
{
	uint32_t v = rd(c, istat_reg(c));
	if (v)
		wr(c, istat_reg(c), v);   /* write 1 to clear */
	if (v & PSDMA_ISTAT_ERR)
		c->halted = true;
	return v;
}

int psdma_reset(struct psdma_chan *c, uint32_t max_polls)
{
	uint32_t i;

	wr(c, PSDMA_CNTRL, 0);
	for (i = 0; i < max_polls && (rd(c, PSDMA_STATUS) & PSDMA_STATUS_RUNNING); i++)
		;
	if (i == max_polls)
		return PSDMA_E_BUSY;
	wr(c, PSDMA_CNTRL, PSDMA_CNTRL_RESET);
	wr(c, PSDMA_CNTRL, 0);
	wr(c, istat_reg(c), PSDMA_ISTAT_ERR | PSDMA_ISTAT_SGL | PSDMA_ISTAT_SW);
	c->err.code = PSDMA_OK;
	program(c);
	return PSDMA_OK;
}

const char *psdma_strerror(int code)
{
	switch (code) {
	case PSDMA_OK: return "ok";
	case PSDMA_E_ARG: return "bad argument";
	case PSDMA_E_ABSENT: return "channel not present (STATUS.channel_present = 0)";
	case PSDMA_E_LENGTH: return "byte count 0 or over the 24-bit element field (max 16777215)";
	case PSDMA_E_FULL: return "queue full: no free SRC/DST element";
	case PSDMA_E_HALTED: return "channel stopped on an error: reset it";
	case PSDMA_E_DMA: return "a status element reported an error";
	case PSDMA_E_TIMEOUT: return "bounded wait ran out";
	case PSDMA_E_BUSY: return "dma_running did not drop";
	default: return "unknown error";
	}
}
