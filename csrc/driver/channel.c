// SPDX-License-Identifier: MIT
/*
 * channel.c - PG021 channel control and simple (direct register) mode.
 *
 * All register I/O goes through the platform table.  Every wait polls a
 * register at most cfg.poll_limit times.  Requests that break a PG021 rule
 * are refused before any register is written; failures that involve the
 * hardware carry a register snapshot in the sg_error.
 */
#include "sgdma/driver.h"

#include "internal.h"

#define BD_ADDR_MASK (~(uint64_t)(PG021_BD_ALIGN - 1u))

/* DMACR fields that sg_chan_set_irq owns. */

/* ---- small helpers -------------------------------------------------------- */

static enum sg_status chan_fail(const struct sg_chan *c, struct sg_error *err,
			   enum sg_status code, uint64_t value, uint64_t limit)
{
	return sg_error_fill(err, code, c ? c->cfg.dir : SG_MM2S, SG_NO_INDEX, value, limit);
}

/* A failure the hardware was part of: add the register snapshot. */
static enum sg_status chan_fail_hw(const struct sg_chan *c, struct sg_error *err,
			      enum sg_status code, uint64_t value, uint64_t limit)
{
	chan_fail(c, err, code, value, limit);
	if (err) {
		sg_chan_snapshot(c, &err->snap);
		err->has_snapshot = true;
	}
	return code;
}

static bool wide_addr(const struct sg_chan *c)
{
	return c->cfg.addr_width > 32;
}

static uint32_t read_sr(const struct sg_chan *c)
{
	return sg_chan_read(c, PG021_DMASR);
}

/* Write a 64-bit address register pair; the MSB exists only above 32 bits
 * and is written last because for TAILDESC it is the trigger. */
static void write_addr(const struct sg_chan *c, uint32_t lsb_off, uint64_t value)
{
	sg_chan_write(c, lsb_off, (uint32_t)value);
	if (wide_addr(c))
		sg_chan_write(c, lsb_off + 4u, (uint32_t)(value >> 32));
}

static uint64_t read_addr(const struct sg_chan *c, uint32_t lsb_off)
{
	uint64_t v = sg_chan_read(c, lsb_off);

	if (wide_addr(c))
		v |= (uint64_t)sg_chan_read(c, lsb_off + 4u) << 32;
	return v;
}

/* DMACR as read, minus the self-clearing Reset bit, which must never be
 * written back by a read-modify-write. */
static uint32_t read_cr(const struct sg_chan *c)
{
	return sg_chan_read(c, PG021_DMACR) & ~PG021_CR_RESET;
}

static bool is_pow2(unsigned v)
{
	return v && !(v & (v - 1u));
}

/* ---- register access and state -------------------------------------------- */

uint32_t sg_chan_read(const struct sg_chan *c, uint32_t off)
{
	return c->plat.ops->read32(c->plat.ctx, c->regs + off);
}

void sg_chan_write(const struct sg_chan *c, uint32_t off, uint32_t value)
{
	c->plat.ops->write32(c->plat.ctx, c->regs + off, value);
}

bool sg_chan_halted(const struct sg_chan *c)
{
	return read_sr(c) & PG021_SR_HALTED;
}

bool sg_chan_idle(const struct sg_chan *c)
{
	return read_sr(c) & PG021_SR_IDLE;
}

uint64_t sg_chan_max_length(const struct sg_chan *c)
{
	return ((uint64_t)1 << c->cfg.length_width) - 1u;
}

/*
 * Read everything a human needs to diagnose a stuck or failed channel.  The
 * STATUS word of the BD at CURDESC is read through the CPU view of memory,
 * after invalidating it, because the hardware wrote it behind the cache.
 */
void sg_chan_snapshot(const struct sg_chan *c, struct sg_snapshot *s)
{
	const struct sg_platform_ops *ops = c->plat.ops;
	const volatile struct pg021_bd *bd = NULL;

	s->dmacr = sg_chan_read(c, PG021_DMACR);
	s->dmasr = read_sr(c);
	s->curdesc = read_addr(c, PG021_CURDESC);
	s->taildesc = read_addr(c, PG021_TAILDESC);
	s->cur_bd_status = 0;
	s->cur_bd_valid = false;

	/* CURDESC means nothing without the SG engine. */
	if (!c->has_sg || !ops->cpu_ptr)
		return;
	bd = ops->cpu_ptr(c->plat.ctx, s->curdesc & BD_ADDR_MASK, PG021_BD_SIZE);
	if (!bd)
		return;
	if (ops->cache_invalidate)
		ops->cache_invalidate(c->plat.ctx, (const void *)bd, PG021_BD_SIZE);
	s->cur_bd_status = bd->status;
	s->cur_bd_valid = true;
}

/* ---- init ----------------------------------------------------------------- */

static enum sg_status check_config(const struct sg_chan_config *cfg, struct sg_error *err)
{
	if (cfg->dir != SG_MM2S && cfg->dir != SG_S2MM)
		return chan_fail(NULL, err, SG_E_CONFIG, (uint64_t)cfg->dir, SG_S2MM);
	if (cfg->addr_width < 32 || cfg->addr_width > 64)
		return chan_fail(NULL, err, SG_E_CONFIG, cfg->addr_width, 64);
	if (cfg->length_width < PG021_LENGTH_WIDTH_MIN ||
	    cfg->length_width > PG021_LENGTH_WIDTH_MAX)
		return chan_fail(NULL, err, SG_E_CONFIG, cfg->length_width,
			    PG021_LENGTH_WIDTH_MAX);
	if (!is_pow2(cfg->data_bytes) || cfg->data_bytes > 128)
		return chan_fail(NULL, err, SG_E_CONFIG, cfg->data_bytes, 128);
	/* Registers are 32-bit words. */
	if (cfg->base & 3u)
		return chan_fail(NULL, err, SG_E_CONFIG, cfg->base, 4);
	return SG_OK;
}

/*
 * Validate the configuration, then ask the hardware whether the SG engine is
 * built in (DMASR.SGIncld), the way Xilinx's drivers auto-detect the mode.
 * The one register read happens only after the configuration passed.
 */
enum sg_status sg_chan_init(struct sg_chan *c, struct sg_platform plat,
			    const struct sg_chan_config *cfg, struct sg_error *err)
{
	enum sg_status st;

	if (!c || !cfg || !plat.ops || !plat.ops->read32 || !plat.ops->write32)
		return chan_fail(NULL, err, SG_E_ARG, 0, 0);
	st = check_config(cfg, err);
	if (st != SG_OK) {
		if (err)
			err->dir = cfg->dir == SG_S2MM ? SG_S2MM : SG_MM2S;
		return st;
	}

	c->plat = plat;
	c->cfg = *cfg;
	if (!c->cfg.poll_limit)
		c->cfg.poll_limit = SG_DEFAULT_POLL_LIMIT;
	if (!c->cfg.irq_timeout_us)
		c->cfg.irq_timeout_us = SG_DEFAULT_IRQ_TIMEOUT_US;
	c->regs = cfg->base + (cfg->dir == SG_MM2S ? PG021_MM2S_BASE : PG021_S2MM_BASE);
	/* The IRQ settings the hardware has after reset. */
	c->irq_cr = SG_FIELD_PREP(PG021_CR_THRESHOLD, 1u);
	c->ring = NULL;
	c->has_sg = read_sr(c) & PG021_SR_SGINCLD;
	return SG_OK;
}

/* ---- reset, halt, interrupts ---------------------------------------------- */

/*
 * Soft reset.  PG021: Reset resets the whole core, both channels, after
 * in-flight AXI transactions finish; it self-clears when done.  Afterwards
 * both channels are halted with the default DMACR, so this channel's IRQ
 * settings are written back (RS stays 0).  The other channel's are not: its
 * owner must restore them.
 */
enum sg_status sg_chan_reset(struct sg_chan *c, struct sg_error *err)
{
	uint32_t i;

	sg_chan_write(c, PG021_DMACR, PG021_CR_RESET);
	for (i = 0; i < c->cfg.poll_limit; i++) {
		if (!(sg_chan_read(c, PG021_DMACR) & PG021_CR_RESET)) {
			sg_chan_write(c, PG021_DMACR, c->irq_cr);
			return SG_OK;
		}
	}
	return chan_fail_hw(c, err, SG_E_TIMEOUT, c->cfg.poll_limit, c->cfg.poll_limit);
}

/* Clear RS; the engine finishes in-flight work, then sets Halted. */
enum sg_status sg_chan_halt(struct sg_chan *c, struct sg_error *err)
{
	uint32_t i;

	sg_chan_write(c, PG021_DMACR, read_cr(c) & ~PG021_CR_RS);
	for (i = 0; i < c->cfg.poll_limit; i++) {
		if (read_sr(c) & PG021_SR_HALTED)
			return SG_OK;
	}
	return chan_fail_hw(c, err, SG_E_TIMEOUT, c->cfg.poll_limit, c->cfg.poll_limit);
}

/*
 * PG021: threshold 1..255 (0 is invalid), delay 0..255 (0 disables the
 * timer).  Writing the threshold reloads the hardware counter, so this may be
 * called while running; RS and the cyclic bit are kept as they are.
 */
enum sg_status sg_chan_set_irq(struct sg_chan *c, uint32_t enables, unsigned threshold,
			       unsigned delay, struct sg_error *err)
{
	uint32_t irq;

	if (enables & ~PG021_CR_IRQ_ALL)
		return sg_what(err, chan_fail(c, err, SG_E_ARG, enables, PG021_CR_IRQ_ALL),
			       "IRQ enables must be DMACR bits 12..14 (IOC, Dly, Err)");
	if (threshold < 1 || threshold > PG021_THRESHOLD_MAX)
		return sg_what(err, chan_fail(c, err, SG_E_ARG, threshold, PG021_THRESHOLD_MAX),
			       "IRQThreshold must be 1..255");
	if (delay > 255u)
		return sg_what(err, chan_fail(c, err, SG_E_ARG, delay, 255u), "IRQDelay must be 0..255");

	irq = enables | SG_FIELD_PREP(PG021_CR_THRESHOLD, threshold) |
	      SG_FIELD_PREP(PG021_CR_DELAY, delay);
	sg_chan_write(c, PG021_DMACR, (read_cr(c) & ~PG021_CR_IRQ_FIELDS) | irq);
	c->irq_cr = irq;
	return SG_OK;
}

/* IRQ bits are write-1-to-clear: writing back exactly the bits seen clears
 * those and never an event that arrived after the read. */
uint32_t sg_chan_irq_ack(struct sg_chan *c)
{
	uint32_t pending = read_sr(c) & PG021_SR_IRQ_ALL;

	if (pending)
		sg_chan_write(c, PG021_DMASR, pending);
	return pending;
}

enum sg_status sg_chan_check(struct sg_chan *c, struct sg_error *err)
{
	uint32_t errs = read_sr(c) & PG021_SR_ERR_ALL;

	if (errs)
		return chan_fail_hw(c, err, SG_E_HW, errs, 0);
	return SG_OK;
}

/* ---- SG pointers and modes ------------------------------------------------ */

/* PG021: CURDESC is writable only while halted; bits 5:0 are reserved, so a
 * BD address must be 64-byte aligned. */
enum sg_status sg_chan_set_curdesc(struct sg_chan *c, uint64_t dev, struct sg_error *err)
{
	if (!c->has_sg)
		return chan_fail(c, err, SG_E_MODE, 0, 0);
	if (dev & (PG021_BD_ALIGN - 1u))
		return chan_fail(c, err, SG_E_ALIGN, dev, PG021_BD_ALIGN);
	if (!sg_range_fits(c, dev, PG021_BD_SIZE))
		return chan_fail(c, err, SG_E_ADDR_RANGE, dev, sg_addr_max(c));
	if (!sg_chan_halted(c))
		return chan_fail_hw(c, err, SG_E_NOT_HALTED, dev, 0);

	write_addr(c, PG021_CURDESC, dev);
	return SG_OK;
}

/* PG021: the cyclic bit may be set or cleared only while not running. */
enum sg_status sg_chan_set_cyclic(struct sg_chan *c, bool on, struct sg_error *err)
{
	uint32_t cr;

	if (!c->has_sg)
		return chan_fail(c, err, SG_E_MODE, 0, 0);
	if (!sg_chan_halted(c))
		return chan_fail_hw(c, err, SG_E_NOT_HALTED, on, 0);

	cr = read_cr(c);
	cr = on ? (cr | PG021_CR_CYCLIC) : (cr & ~PG021_CR_CYCLIC);
	sg_chan_write(c, PG021_DMACR, cr);
	return SG_OK;
}

/*
 * The barrier makes every BD write reach memory before the engine can fetch;
 * with > 32-bit addressing the MSB write is the trigger, so LSB goes first
 * (writing MSB first starts the engine on a half-written address).
 */
void sg_chan_write_tail(struct sg_chan *c, uint64_t dev)
{
	if (c->plat.ops->barrier)
		c->plat.ops->barrier(c->plat.ctx);
	write_addr(c, PG021_TAILDESC, dev);
}

/*
 * Idle means the BD equal to TAILDESC completed (SG) or the transfer is done
 * (simple).  Error bits end the wait at once; a halted channel without error
 * simply never becomes idle, and the bound reports it with the snapshot.
 */
/*
 * Between two DMASR reads of a bounded wait: sleep on the channel's interrupt
 * when the platform has one and the channel raises it (IOC or Err enabled;
 * the Err IRQ is how a halted-with-error channel wakes us).  The IRQ bits are
 * acked after waking, since the line is level and would fire again at once.
 * Returns false when the interrupt did not come within irq_timeout_us.
 */
static bool sleep_on_irq(struct sg_chan *c)
{
	const struct sg_platform_ops *ops = c->plat.ops;
	int r;

	if (!ops->wait_irq || !(c->irq_cr & (PG021_CR_IOC_IRQEN | PG021_CR_ERR_IRQEN)))
		return true;
	r = ops->wait_irq(c->plat.ctx, (unsigned)c->cfg.dir, c->cfg.irq_timeout_us);
	if (r == SG_IRQ_TIMEOUT)
		return false;
	if (r == SG_IRQ_FIRED)
		sg_chan_irq_ack(c);
	return true;
}

/* The one bounded wait for DMASR.Idle (or error bits) behind wait_idle and
 * simple_wait. */
static enum sg_status wait_sr_idle(struct sg_chan *c, struct sg_error *err)
{
	uint32_t i, sr;

	for (i = 0; i < c->cfg.poll_limit; i++) {
		sr = read_sr(c);
		if (sr & PG021_SR_ERR_ALL)
			return chan_fail_hw(c, err, SG_E_HW, sr & PG021_SR_ERR_ALL, 0);
		if (sr & PG021_SR_IDLE)
			return SG_OK;
		if (!sleep_on_irq(c))
			return sg_what(err, chan_fail_hw(c, err, SG_E_TIMEOUT, c->cfg.irq_timeout_us,
						    c->cfg.irq_timeout_us),
				       "no interrupt within irq_timeout_us");
	}
	return chan_fail_hw(c, err, SG_E_TIMEOUT, c->cfg.poll_limit, c->cfg.poll_limit);
}

enum sg_status sg_chan_wait_idle(struct sg_chan *c, struct sg_error *err)
{
	return wait_sr_idle(c, err);
}

/* ---- recovery ------------------------------------------------------------- */

/*
 * After a reset nothing the ring handed to hardware will complete: every BD
 * becomes free, its STATUS is cleared (so a stale Cmplt can never be fetched
 * again, which would be SGIntErr), and the cleared words are cleaned out to
 * memory.  BUFFER/CONTROL/NXTDESC are kept.
 */
static void ring_forget(struct sg_ring *r)
{
	const struct sg_platform_ops *ops = r->chan->plat.ops;
	volatile struct pg021_bd *bd = r->bd;
	uint32_t i;

	for (i = 0; i < r->count; i++)
		bd[i].status = 0;
	if (ops->cache_clean)
		ops->cache_clean(r->chan->plat.ctx, r->bd,
				 (size_t)r->count * PG021_BD_SIZE);
	r->fill = 0;
	r->submit = 0;
	r->reclaim = 0;
	r->n_free = r->count;
	r->n_filled = 0;
	r->n_hw = 0;
	r->cyclic = false;
}

/*
 * The error (or the reason the caller gave up) is captured before the reset
 * destroys it: err holds SG_E_HW + the pre-reset snapshot when DMASR carried
 * error bits, SG_OK + the snapshot otherwise, and the return value says
 * whether the reset itself worked.  If the reset times out, err describes
 * that instead, because a stuck reset is the more urgent fact.  The reset
 * clears the cyclic bit and RS; sg_chan_reset restores the IRQ settings.
 */
enum sg_status sg_chan_recover(struct sg_chan *c, struct sg_error *err)
{
	struct sg_snapshot local;
	struct sg_snapshot *snap = err ? &err->snap : &local;
	uint32_t errs;
	enum sg_status st;

	sg_chan_snapshot(c, snap);
	errs = snap->dmasr & PG021_SR_ERR_ALL;
	if (err) {
		sg_error_fill(err, errs ? SG_E_HW : SG_OK, c->cfg.dir,
			      c->ring ? sg_ring_bd_index(c->ring, snap->curdesc) : SG_NO_INDEX, errs, 0);
		err->has_snapshot = true;
	}

	st = sg_chan_reset(c, err);
	if (st != SG_OK)
		return st;
	if (c->ring)
		ring_forget(c->ring);
	return SG_OK;
}

/* ---- simple (direct register) mode ---------------------------------------- */

/*
 * PG021 simple mode: set RS (with the IRQ settings) -> SA/DA (LSB, MSB) ->
 * LENGTH, whose non-zero write starts the transfer.  A LENGTH write while
 * halted starts nothing, so after setting RS we wait (bounded) for Halted to
 * clear, as Linux's xilinx_dma does.
 */
static enum sg_status simple_check(const struct sg_chan *c, uint64_t dev, uint32_t len,
				   struct sg_error *err)
{
	if (c->has_sg)
		return chan_fail(c, err, SG_E_MODE, 0, 0);
	if (!len)
		return chan_fail(c, err, SG_E_LENGTH_ZERO, 0, 1);
	if (len > sg_chan_max_length(c))
		return chan_fail(c, err, SG_E_LENGTH_WIDTH, len, sg_chan_max_length(c));
	if (!c->cfg.has_dre && (dev & (c->cfg.data_bytes - 1u)))
		return chan_fail(c, err, SG_E_ALIGN, dev, c->cfg.data_bytes);
	if (!sg_range_fits(c, dev, len))
		return chan_fail(c, err, SG_E_ADDR_RANGE, dev, sg_addr_max(c));
	return SG_OK;
}

static enum sg_status simple_run(struct sg_chan *c, struct sg_error *err)
{
	uint32_t i;

	sg_chan_write(c, PG021_DMACR, (read_cr(c) & ~(PG021_CR_IRQ_FIELDS | PG021_CR_CYCLIC)) |
				      c->irq_cr | PG021_CR_RS);
	for (i = 0; i < c->cfg.poll_limit; i++) {
		if (!(read_sr(c) & PG021_SR_HALTED))
			return SG_OK;
	}
	return chan_fail_hw(c, err, SG_E_TIMEOUT, c->cfg.poll_limit, c->cfg.poll_limit);
}

enum sg_status sg_simple_start(struct sg_chan *c, uint64_t dev, uint32_t len, struct sg_error *err)
{
	enum sg_status st;
	uint32_t sr;

	st = simple_check(c, dev, len, err);
	if (st != SG_OK)
		return st;

	sr = read_sr(c);
	/* An errored channel is halted and only a reset revives it. */
	if (sr & PG021_SR_ERR_ALL)
		return chan_fail_hw(c, err, SG_E_HW, sr & PG021_SR_ERR_ALL, 0);
	if (!(sr & PG021_SR_HALTED) && !(sr & PG021_SR_IDLE))
		return chan_fail_hw(c, err, SG_E_BUSY, 0, 0);
	if (sr & PG021_SR_HALTED) {
		st = simple_run(c, err);
		if (st != SG_OK)
			return st;
	}

	write_addr(c, PG021_ADDR, dev);
	sg_chan_write(c, PG021_LENGTH, len);
	return SG_OK;
}

/*
 * LENGTH reads back the programmed length for MM2S and the bytes actually
 * received for S2MM, so one read serves both directions.
 */
enum sg_status sg_simple_wait(struct sg_chan *c, uint32_t *actual, struct sg_error *err)
{
	enum sg_status st;

	if (c->has_sg)
		return chan_fail(c, err, SG_E_MODE, 0, 0);
	st = wait_sr_idle(c, err);
	if (st == SG_OK && actual)
		*actual = sg_chan_read(c, PG021_LENGTH);
	return st;
}
