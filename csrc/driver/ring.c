// SPDX-License-Identifier: MIT
/*
 * ring.c - PG021 buffer-descriptor rings over caller memory.
 *
 * Ownership is three contiguous arcs of the ring, tracked by three indices:
 *
 *   [reclaim, submit)  hardware owns them (n_hw)
 *   [submit, fill)     filled, not yet given to hardware (n_filled)
 *   [fill, reclaim)    free (n_free)
 *
 * so n_free + n_filled + n_hw == count always, and every operation moves one
 * boundary forward.  BD memory is shared with the engine: it is accessed
 * through volatile pointers, cleaned before the engine may fetch it and
 * invalidated before the CPU reads what the engine wrote.  Every request is
 * validated completely before the first BD word or register is written.
 */
#include <stddef.h>

#include "sgdma/driver.h"

#include "internal.h"

#define FILL_FLAGS_ALL (SG_BD_SOF | SG_BD_EOF)

/* Index arithmetic and cache ranges assume the BD struct is the BD stride. */
_Static_assert(sizeof(struct pg021_bd) == PG021_BD_SIZE, "struct pg021_bd must be 64 bytes");
/* store_pair writes NXTDESC/NXTDESC_MSB, BUFFER/BUFFER_MSB and CONTROL/STATUS as aligned 8-byte pairs. */
_Static_assert(offsetof(struct pg021_bd, nxtdesc) % 8u == 0 &&
	       offsetof(struct pg021_bd, nxtdesc_msb) == offsetof(struct pg021_bd, nxtdesc) + 4u,
	       "NXTDESC_MSB must follow NXTDESC in one aligned 8-byte pair");
_Static_assert(offsetof(struct pg021_bd, buffer) % 8u == 0 &&
	       offsetof(struct pg021_bd, buffer_msb) == offsetof(struct pg021_bd, buffer) + 4u,
	       "BUFFER_MSB must follow BUFFER in one aligned 8-byte pair");
_Static_assert(offsetof(struct pg021_bd, control) % 8u == 0 &&
	       offsetof(struct pg021_bd, status) == offsetof(struct pg021_bd, control) + 4u,
	       "STATUS must follow CONTROL in one aligned 8-byte pair");

/* ---- small helpers -------------------------------------------------------- */

static enum sg_status fail_bd(const struct sg_ring *r, struct sg_error *err, enum sg_status code,
			      uint32_t index, uint64_t value, uint64_t limit)
{
	return sg_error_fill(err, code, r->chan->cfg.dir, index, value, limit);
}

static enum sg_status ring_fail(const struct sg_ring *r, struct sg_error *err, enum sg_status code,
			   uint64_t value, uint64_t limit)
{
	return fail_bd(r, err, code, SG_NO_INDEX, value, limit);
}

/* A failure the hardware was part of: add the register snapshot. */
static enum sg_status ring_fail_hw(const struct sg_ring *r, struct sg_error *err, enum sg_status code,
			      uint32_t index, uint64_t value, uint64_t limit)
{
	fail_bd(r, err, code, index, value, limit);
	if (err) {
		sg_chan_snapshot(r->chan, &err->snap);
		err->has_snapshot = true;
	}
	return code;
}

/* Two adjacent words of a BD, the lower-addressed first (NXTDESC/NXTDESC_MSB,
 * BUFFER/BUFFER_MSB, CONTROL/STATUS, ...): on a little-endian GCC target one
 * 8-byte store; writing BDs is store-bound, so a fill costs three stores per
 * BD instead of five and zeroing one eight instead of sixteen. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
typedef uint64_t __attribute__((may_alias)) sg_u64_alias;

static void store_pair(volatile uint32_t *lo, uint32_t lo_word, uint32_t hi_word)
{
	*(volatile sg_u64_alias *)lo = lo_word | (uint64_t)hi_word << 32;
}
#else
static void store_pair(volatile uint32_t *lo, uint32_t lo_word, uint32_t hi_word)
{
	lo[0] = lo_word;
	lo[1] = hi_word;
}
#endif

/* (i + n) % count without a division; requires i < count and n <= count. */
static uint32_t ring_add(const struct sg_ring *r, uint32_t i, uint32_t n)
{
	uint64_t sum = (uint64_t)i + n;

	return (uint32_t)(sum >= r->count ? sum - r->count : sum);
}

static uint32_t ring_prev(const struct sg_ring *r, uint32_t i)
{
	return i ? i - 1u : r->count - 1u;
}

static volatile struct pg021_bd *bd_at(const struct sg_ring *r, uint32_t i)
{
	return (volatile struct pg021_bd *)&r->bd[i];
}

static uint64_t bd_buffer(const volatile struct pg021_bd *b)
{
	return b->buffer | (uint64_t)b->buffer_msb << 32;
}

static uint64_t bd_next(const volatile struct pg021_bd *b)
{
	return b->nxtdesc | (uint64_t)b->nxtdesc_msb << 32;
}

/* Is this BD the last of its packet?  MM2S says so in CONTROL.TXEOF; for
 * S2MM the stream decides, so only the caller's fill-time hint is known. */
static bool bd_marked_eof(const struct sg_ring *r, const volatile struct pg021_bd *b)
{
	if (r->chan->cfg.dir == SG_MM2S)
		return b->control & PG021_BD_CTRL_TXEOF;
	return b->sw[0] & SG_BD_EOF;
}

/* Cache maintenance over n BDs starting at first, split at the ring's end. */
typedef void (*cache_op)(void *ctx, const void *cpu, size_t len);

static void cache_range(const struct sg_ring *r, cache_op op, uint32_t first, uint32_t n)
{
	uint32_t head = r->count - first;

	if (!op || !n)
		return;
	if (n <= head) {
		op(r->chan->plat.ctx, &r->bd[first], (size_t)n * PG021_BD_SIZE);
		return;
	}
	op(r->chan->plat.ctx, &r->bd[first], (size_t)head * PG021_BD_SIZE);
	op(r->chan->plat.ctx, &r->bd[0], (size_t)(n - head) * PG021_BD_SIZE);
}

static void clean_bds(const struct sg_ring *r, uint32_t first, uint32_t n)
{
	cache_range(r, r->chan->plat.ops->cache_clean, first, n);
}

static void invalidate_bds(const struct sg_ring *r, uint32_t first, uint32_t n)
{
	cache_range(r, r->chan->plat.ops->cache_invalidate, first, n);
}

static void plat_barrier(const struct sg_chan *c)
{
	if (c->plat.ops->barrier)
		c->plat.ops->barrier(c->plat.ctx);
}

/*
 * Set RS on a halted channel with its IRQ settings and the cyclic bit as
 * given in cr, then wait (bounded) for Halted to clear: a tail write that
 * lands while the channel is still halted only records the tail and starts
 * nothing (PG021), so Linux's xilinx_dma waits here too.
 */
static enum sg_status run_channel(struct sg_ring *r, uint32_t cr, struct sg_error *err)
{
	struct sg_chan *c = r->chan;
	uint32_t i;

	sg_chan_write(c, PG021_DMACR, cr | c->irq_cr | PG021_CR_RS);
	for (i = 0; i < c->cfg.poll_limit; i++) {
		if (!(sg_chan_read(c, PG021_DMASR) & PG021_SR_HALTED))
			return SG_OK;
	}
	return ring_fail_hw(r, err, SG_E_TIMEOUT, SG_NO_INDEX, c->cfg.poll_limit, c->cfg.poll_limit);
}

/* DMACR as read, without the self-clearing Reset bit, RS and the IRQ
 * fields: the base every start sequence builds on. */
static uint32_t cr_base(const struct sg_chan *c)
{
	return sg_chan_read(c, PG021_DMACR) &
	       ~(PG021_CR_RESET | PG021_CR_RS | PG021_CR_IRQ_FIELDS);
}

/* ---- creation and layout -------------------------------------------------- */

uint64_t sg_ring_bd_dev(const struct sg_ring *r, uint32_t index)
{
	return r->dev + (uint64_t)index * PG021_BD_SIZE;
}

uint32_t sg_ring_index_of(const struct sg_ring *r, uint64_t dev) { return sg_ring_bd_index(r, dev); }

/*
 * NXTDESC of BD i is BD i+1; the last points back at the first when closed
 * and at 0 when open.  The engine follows these links on its own, so they
 * are only rewritten while it owns no BD of this ring; otherwise the call
 * changes nothing (r->closed tells the caller which layout is in force).
 */
void sg_ring_link(struct sg_ring *r, bool closed)
{
	uint64_t next = r->dev;
	uint32_t i;

	if (r->n_hw || r->cyclic || r->count == 0)   /* no BD to link (a ring sg_ring_create refused) */
		return;
	for (i = 0; i + 1u < r->count; i++) {
		next += PG021_BD_SIZE;
		store_pair(&bd_at(r, i)->nxtdesc, (uint32_t)next, (uint32_t)(next >> 32));
	}
	next = closed ? r->dev : 0;
	store_pair(&bd_at(r, r->count - 1u)->nxtdesc, (uint32_t)next, (uint32_t)(next >> 32));
	r->closed = closed;
	clean_bds(r, 0, r->count);
}

/* Every BD zeroed and linked closed in one pass (zeroing, then what
 * sg_ring_link(r, true) writes); BDs are 64-byte aligned, so every word pair
 * is 8-byte aligned.  volatile also keeps the compiler from turning the loop
 * into a memset call we do not have. */
static void init_bds(struct sg_ring *r)
{
	uint64_t next = r->dev;
	uint32_t i, k;

	for (i = 0; i < r->count; i++) {
		volatile uint32_t *w = (volatile uint32_t *)&r->bd[i];

		next = i + 1u < r->count ? next + PG021_BD_SIZE : r->dev;
		store_pair(&w[0], (uint32_t)next, (uint32_t)(next >> 32));   /* NXTDESC */
		for (k = 2; k < PG021_BD_SIZE / 4u; k += 2)
			store_pair(&w[k], 0, 0);
	}
}

static enum sg_status create_check(const struct sg_chan *c, const void *cpu, uint64_t dev,
				   uint32_t count, struct sg_error *err)
{
	enum sg_dir dir = c->cfg.dir;

	if (!cpu)
		return sg_error_fill(err, SG_E_ARG, dir, SG_NO_INDEX, 0, 0);
	if (dev & (PG021_BD_ALIGN - 1u))
		return sg_error_fill(err, SG_E_ALIGN, dir, SG_NO_INDEX, dev, PG021_BD_ALIGN);
	if ((uintptr_t)cpu & (PG021_BD_ALIGN - 1u))
		return sg_error_fill(err, SG_E_ALIGN, dir, SG_NO_INDEX, (uintptr_t)cpu, PG021_BD_ALIGN);
	if (count < 1)
		return sg_what(err, sg_error_fill(err, SG_E_ARG, dir, SG_NO_INDEX, count, 1), "a ring needs at least one BD");
#if SIZE_MAX / 64u < UINT32_MAX
	/* Cache maintenance takes the whole ring's length as a size_t. */
	if (count > SIZE_MAX / PG021_BD_SIZE)
		return sg_error_fill(err, SG_E_ARG, dir, SG_NO_INDEX, count, SIZE_MAX / PG021_BD_SIZE);
#endif
	if (!sg_range_fits(c, dev, (uint64_t)count * PG021_BD_SIZE))
		return sg_error_fill(err, SG_E_ADDR_RANGE, dir, SG_NO_INDEX, dev, sg_addr_max(c));
	return SG_OK;
}

/* BDs zeroed, linked closed, all free; nothing is written when refused. */
enum sg_status sg_ring_create(struct sg_ring *r, struct sg_chan *c, void *cpu, uint64_t dev,
			      uint32_t count, struct sg_error *err)
{
	enum sg_status st;

	if (!r || !c)
		return sg_error_fill(err, SG_E_ARG, c ? c->cfg.dir : SG_MM2S, SG_NO_INDEX, 0, 0);
	st = create_check(c, cpu, dev, count, err);
	if (st != SG_OK)
		return st;

	r->chan = c;
	r->bd = cpu;
	r->dev = dev;
	r->count = count;
	r->fill = 0;
	r->submit = 0;
	r->reclaim = 0;
	r->n_free = count;
	r->n_filled = 0;
	r->n_hw = 0;
	r->closed = true;
	r->cyclic = false;
	init_bds(r);
	clean_bds(r, 0, r->count);
	return SG_OK;
}

/* The invariants of the header comment, plus the ones cyclic mode adds. */
enum sg_status sg_ring_check(const struct sg_ring *r)
{
	if (!r || !r->bd || !r->chan || !r->count)
		return SG_E_ARG;
	if (((uintptr_t)r->bd | r->dev) & (PG021_BD_ALIGN - 1u))
		return SG_E_ARG;
	if (r->fill >= r->count || r->submit >= r->count || r->reclaim >= r->count)
		return SG_E_ARG;
	if ((uint64_t)r->n_free + r->n_filled + r->n_hw != r->count)
		return SG_E_ARG;
	/* Each count is now <= count, so ring_add is exact. */
	if (r->submit != ring_add(r, r->reclaim, r->n_hw) ||
	    r->fill != ring_add(r, r->submit, r->n_filled))
		return SG_E_ARG;
	/* Cyclic: the engine loops over a closed ring and owns every BD. */
	if (r->cyclic && (!r->closed || r->n_hw != r->count))
		return SG_E_ARG;
	return SG_OK;
}

/* ---- filling -------------------------------------------------------------- */

/* PG021: length 1..2^length_width-1 (0 is DMAIntErr), buffer aligned to the
 * memory-map width unless the DRE is built in, and reachable with the
 * configured address width. */
enum sg_status sg_ring_check_buffer(const struct sg_ring *r, uint64_t addr, uint64_t len,
				    uint32_t flags, uint32_t index, struct sg_error *err)
{
	const struct sg_chan *c = r->chan;

	if (flags & ~FILL_FLAGS_ALL)
		return sg_what(err, fail_bd(r, err, SG_E_ARG, index, flags, FILL_FLAGS_ALL),
			       "BD flags may only be SG_BD_SOF and SG_BD_EOF");
	if (!len)
		return fail_bd(r, err, SG_E_LENGTH_ZERO, index, 0, 1);
	if (len > sg_chan_max_length(c))
		return fail_bd(r, err, SG_E_LENGTH_WIDTH, index, len, sg_chan_max_length(c));
	if (!c->cfg.has_dre && (addr & (c->cfg.data_bytes - 1u)))
		return fail_bd(r, err, SG_E_ALIGN, index, addr, c->cfg.data_bytes);
	if (!sg_range_fits(c, addr, len))
		return fail_bd(r, err, SG_E_ADDR_RANGE, index, addr, sg_addr_max(c));
	return SG_OK;
}

/*
 * CONTROL carries the length and, for MM2S, SOF/EOF.  The caller's flags also
 * go to sw[0] (bytes 52..63 are never touched by hardware) so an S2MM EOF
 * hint survives for validation and rearm.  STATUS is cleared: a BD whose
 * Cmplt is still set when fetched is SGIntErr.
 *
 * Writes m BDs from b on, which do not wrap (the caller splits at the ring's
 * end).  NXTDESC, the reserved words and sw[1..2] are kept, so each BD's line
 * is read once and written once; no stored word is read back.
 */
static void write_run(volatile struct pg021_bd *b, uint32_t m, enum sg_dir dir, const uint64_t *addr,
		      const uint32_t *len, const uint8_t *flags, const uint32_t *app)
{
	const uint32_t sof = dir == SG_MM2S ? PG021_BD_CTRL_TXSOF : 0u;
	const uint32_t eof = dir == SG_MM2S ? PG021_BD_CTRL_TXEOF : 0u;
	uint32_t i, k;

	for (i = 0; i < m; i++, b++) {
		uint32_t f = flags ? flags[i] : 0u;
		uint64_t a = addr[i];

		store_pair(&b->buffer, (uint32_t)a, (uint32_t)(a >> 32));
		store_pair(&b->control, len[i] | ((f & SG_BD_SOF) ? sof : 0u) | ((f & SG_BD_EOF) ? eof : 0u), 0);
		if (app) {
			for (k = 0; k < PG021_BD_APP_COUNT; k++)
				b->app[k] = app[(size_t)i * PG021_BD_APP_COUNT + k];
		}
		b->sw[0] = f;
	}
}

/* Free BDs [fill, fill + n) become filled: fill and n_filled grow by n,
 * n_free shrinks by n; the other arcs are untouched. */
static void mark_filled(struct sg_ring *r, uint32_t n)
{
	r->fill = ring_add(r, r->fill, n);
	r->n_free -= n;
	r->n_filled += n;
}

#if defined(__GNUC__) && (defined(__SSE2__) || defined(__ARM_NEON) || defined(__aarch64__))
/* GCC vector extensions where the target has SIMD registers: four BDs per step
 * (-O2 does not vectorise a loop of unknown count on its own). */
#define SG_RING_SIMD 1
typedef uint64_t sg_v2u64 __attribute__((vector_size(16), aligned(8)));
typedef uint32_t sg_v4u32 __attribute__((vector_size(16), aligned(4)));
typedef uint8_t sg_v16u8 __attribute__((vector_size(16), aligned(1)));
#endif

/* The OR of all addresses, of all (uint32)(len - 1) and of all flags. */
static void or_inputs(uint32_t n, const uint64_t *addr, const uint32_t *len, const uint8_t *flags,
		      uint64_t *or_addr, uint32_t *or_len1, uint8_t *or_flags)
{
	uint64_t oa = 0;
	uint32_t ol = 0, i = 0, k;
	uint8_t of = 0;

#ifdef SG_RING_SIMD
	{
		sg_v2u64 va = { 0, 0 };
		sg_v4u32 vl = { 0, 0, 0, 0 };

		for (; i + 4u <= n; i += 4u) {
			va |= *(const sg_v2u64 *)&addr[i] | *(const sg_v2u64 *)&addr[i + 2u];
			vl |= *(const sg_v4u32 *)&len[i] - 1u;
		}
		oa = va[0] | va[1];
		ol = vl[0] | vl[1] | vl[2] | vl[3];
	}
#endif
	for (; i < n; i++) {
		oa |= addr[i];
		ol |= len[i] - 1u;
	}
	if (flags) {
		i = 0;
#ifdef SG_RING_SIMD
		{
			sg_v16u8 vf = { 0 };

			for (; i + 16u <= n; i += 16u)
				vf |= *(const sg_v16u8 *)&flags[i];
			for (k = 0; k < 16u; k++)
				of |= vf[k];
		}
#endif
		for (; i < n; i++)
			of |= flags[i];
	}
	(void)k;
	*or_addr = oa;
	*or_len1 = ol;
	*or_flags = of;
}

/* The OR of all last-byte addresses addr + len - 1 (no wrap: every addr < 2^63). */
static uint64_t or_ends(uint32_t n, const uint64_t *addr, const uint32_t *len)
{
	uint64_t oe = 0;
	uint32_t i = 0;

#ifdef SG_RING_SIMD
	{
		sg_v2u64 ve = { 0, 0 };

		for (; i + 4u <= n; i += 4u) {
			sg_v4u32 l1 = *(const sg_v4u32 *)&len[i] - 1u;
			sg_v2u64 e0 = { l1[0], l1[1] }, e1 = { l1[2], l1[3] };

			ve |= (*(const sg_v2u64 *)&addr[i] + e0) | (*(const sg_v2u64 *)&addr[i + 2u] + e1);
		}
		oe = ve[0] | ve[1];
	}
#endif
	for (; i < n; i++)
		oe |= addr[i] + (uint32_t)(len[i] - 1u);
	return oe;
}

/*
 * A filter in front of sg_ring_check_buffer: false means no BD of the n can
 * fail it; true means one may, and the caller runs the exact per-BD check,
 * which names the first offender (or finds none).  OR-reductions, which
 * run at memory speed, prove each rule for all BDs at once:
 *  - flags: the OR of all flags has no bit outside FILL_FLAGS_ALL (exact);
 *  - length: each (uint32)(len - 1) is at most their OR, so OR < max_len
 *    means every length is 1..max_len (a length of 0 wraps to 2^32 - 1);
 *  - alignment: the OR of all addresses has no bit below the data width (exact);
 *  - range (top = 2^w - 1): no address has a bit at or above w (for w = 64:
 *    bit 63, so nothing below wraps).  Each addr + len - 1 is at most
 *    OR(addr) + OR(len - 1); only when that bound passes top are the ends
 *    themselves ORed and tested the same way.
 * So validating a fill costs a fraction of a memset of its BDs.
 */
static bool may_have_bad_buffer(const struct sg_ring *r, uint32_t n, const uint64_t *addr, const uint32_t *len,
				const uint8_t *flags)
{
	const struct sg_chan *c = r->chan;
	const uint64_t max_len = sg_chan_max_length(c), top = sg_addr_max(c);
	const uint64_t align = c->cfg.has_dre ? 0 : c->cfg.data_bytes - 1u;
	const uint64_t high = ~top ? ~top : (uint64_t)1 << 63;
	uint64_t or_addr;
	uint32_t or_len1;
	uint8_t or_flags;

	or_inputs(n, addr, len, flags, &or_addr, &or_len1, &or_flags);
	if ((or_flags & ~FILL_FLAGS_ALL) || or_len1 >= max_len || (or_addr & align) || (or_addr & high))
		return true;
	if (or_addr <= top - or_len1)   /* top >= 2^32 - 1 > or_len1 */
		return false;
	return (or_ends(n, addr, len) & high) != 0;
}

enum sg_status sg_ring_fill(struct sg_ring *r, uint32_t n, const uint64_t *addr, const uint32_t *len,
			    const uint8_t *flags, const uint32_t *app, struct sg_error *err)
{
	enum sg_status st;
	uint32_t i, head;

	if (r->cyclic)
		return ring_fail(r, err, SG_E_MODE, 0, 0);
	if (!n)
		return SG_OK;
	if (!addr || !len)
		return ring_fail(r, err, SG_E_ARG, 0, 0);
	if (n > r->n_free)
		return ring_fail(r, err, SG_E_RING_FULL, n, r->n_free);

	/* All of them first: a refused fill writes nothing. */
	if (may_have_bad_buffer(r, n, addr, len, flags)) {
		for (i = 0; i < n; i++) {
			st = sg_ring_check_buffer(r, addr[i], len[i], flags ? flags[i] : 0,
						  ring_add(r, r->fill, i), err);
			if (st != SG_OK)
				return st;
		}
	}
	/* [fill, count) first, then the part that wraps to BD 0 */
	head = r->count - r->fill < n ? r->count - r->fill : n;
	write_run(bd_at(r, r->fill), head, r->chan->cfg.dir, addr, len, flags, app);
	if (head < n)
		write_run(bd_at(r, 0), n - head, r->chan->cfg.dir, addr + head, len + head, flags ? flags + head : NULL,
			  app ? app + (size_t)head * PG021_BD_APP_COUNT : NULL);
	mark_filled(r, n);
	return SG_OK;
}

/*
 * PG021: every BD of a packet except the last must be a multiple of the
 * stream width (else DMAIntErr).  MM2S knows its packet ends (TXEOF) and a
 * submission must not end inside a packet; S2MM packet ends come from the
 * stream, so only BDs the caller hinted as EOF may be a partial beat.
 */
enum sg_status sg_ring_validate(const struct sg_ring *r, struct sg_error *err)
{
	const struct sg_chan *c = r->chan;
	uint32_t width_mask = c->cfg.data_bytes - 1u;
	uint32_t i, index = r->submit;
	const volatile struct pg021_bd *b = NULL;

	for (i = 0; i < r->n_filled; i++, index = ring_add(r, index, 1)) {
		uint32_t len;

		b = bd_at(r, index);
		len = b->control & PG021_BD_LEN_MASK;
		if (!len)
			return fail_bd(r, err, SG_E_LENGTH_ZERO, index, 0, 1);
		if (!bd_marked_eof(r, b) && (len & width_mask))
			return fail_bd(r, err, SG_E_STREAM_MULTIPLE, index, len,
				       c->cfg.data_bytes);
	}
	if (b && c->cfg.dir == SG_MM2S && !(b->control & PG021_BD_CTRL_TXEOF))
		return fail_bd(r, err, SG_E_PACKET_OPEN, ring_prev(r, index), 0, 0);
	return SG_OK;
}

/* ---- submission ----------------------------------------------------------- */

/*
 * While the channel runs, a tail write makes the engine continue from the
 * NXTDESC of the BD it last paused at, i.e. the last BD submitted on this
 * channel.  New BDs are reachable only if that link points at the first of
 * them.  This catches a running channel that belongs to another ring (unless
 * the caller chained the rings), and the wrap of an open ring, whose last
 * NXTDESC is 0.
 */
static bool chain_reaches(const struct sg_ring *r)
{
	const struct sg_ring *prev = r->chan->ring;

	if (!prev)
		return false;
	return bd_next(bd_at(prev, ring_prev(prev, prev->submit))) ==
	       sg_ring_bd_dev(r, r->submit);
}

/*
 * Where a halted channel must restart: the first hardware-owned BD it has
 * not completed (a halt finishes in-flight work, so every BD is either
 * complete or untouched), else the first newly filled BD.  Restarting on a
 * completed BD would be SGIntErr; skipping an untouched one would lose it.
 */
static uint32_t restart_index(const struct sg_ring *r)
{
	uint32_t i, index = r->reclaim;

	invalidate_bds(r, r->reclaim, r->n_hw);
	for (i = 0; i < r->n_hw; i++, index = ring_add(r, index, 1)) {
		if (!(bd_at(r, index)->status & PG021_BD_STS_CMPLT))
			return index;
	}
	return r->submit;
}

/* Every check of sg_ring_submit that needs no write. */
static enum sg_status submit_check(struct sg_ring *r, bool *halted, struct sg_error *err)
{
	struct sg_chan *c = r->chan;
	enum sg_status st;

	if (r->cyclic || !c->has_sg)
		return ring_fail(r, err, SG_E_MODE, 0, 0);
	st = sg_ring_validate(r, err);
	if (st != SG_OK)
		return st;
	if (!r->n_filled)
		return ring_fail(r, err, SG_E_RING_EMPTY, 0, 0);
	/* An open ring ends at its last BD: a batch may not run over it. */
	if (!r->closed && (uint64_t)r->submit + r->n_filled > r->count)
		return sg_what(err, fail_bd(r, err, SG_E_ARG, r->count - 1u, r->n_filled, r->count - r->submit),
			       "the batch runs past the end of an open ring (link it closed)");
	/* An errored channel is halted and only a reset revives it. */
	st = sg_chan_check(c, err);
	if (st != SG_OK)
		return st;
	if (c->ring && c->ring->cyclic)
		return ring_fail_hw(r, err, SG_E_MODE, SG_NO_INDEX, 0, 0);

	*halted = sg_chan_halted(c);
	if (!*halted && !chain_reaches(r))
		return ring_fail_hw(r, err, SG_E_NOT_HALTED, r->submit,
			       sg_ring_bd_dev(r, r->submit), 0);
	return SG_OK;
}

/*
 * PG021 SG start: while halted write CURDESC, then set RS, then write
 * TAILDESC (LSB, then MSB: the trigger).  While running only the tail moves.
 * prepare does all of it but the trigger, so a caller can hold the start
 * (S0's RPU writes the tail only after the PL handshake).
 */
enum sg_status sg_ring_prepare(struct sg_ring *r, uint64_t *tail, struct sg_error *err)
{
	struct sg_chan *c = r->chan;
	bool halted = false;
	enum sg_status st;
	uint32_t last, cr;

	st = submit_check(r, &halted, err);
	if (st != SG_OK)
		return st;
	last = ring_add(r, r->submit, r->n_filled - 1u);

	clean_bds(r, r->submit, r->n_filled);
	plat_barrier(c);
	if (halted) {
		st = sg_chan_set_curdesc(c, sg_ring_bd_dev(r, restart_index(r)), err);
		if (st != SG_OK)
			return st;
		cr = cr_base(c);
		/* The cyclic bit may only change while halted: clear it first. */
		if (cr & PG021_CR_CYCLIC) {
			cr &= ~PG021_CR_CYCLIC;
			sg_chan_write(c, PG021_DMACR, cr);
		}
		st = run_channel(r, cr, err);
		if (st != SG_OK)
			return st;
	}
	*tail = sg_ring_bd_dev(r, last);

	/* [submit, fill) moves to hardware: submit catches up with fill. */
	r->n_hw += r->n_filled;
	r->n_filled = 0;
	r->submit = r->fill;
	c->ring = r;
	return SG_OK;
}

enum sg_status sg_ring_submit(struct sg_ring *r, struct sg_error *err)
{
	uint64_t tail;
	enum sg_status st = sg_ring_prepare(r, &tail, err);

	if (st == SG_OK)
		sg_chan_write_tail(r->chan, tail);
	return st;
}

enum sg_status sg_ring_kick(struct sg_ring *r, uint64_t tail, struct sg_error *err)
{
	if (r->cyclic || !r->chan->has_sg)
		return ring_fail(r, err, SG_E_MODE, 0, 0);
	if (sg_ring_bd_index(r, tail) == SG_NO_INDEX)
		return ring_fail(r, err, SG_E_TAIL_NOT_IN_RING, tail, 0);
	sg_chan_write_tail(r->chan, tail);
	return SG_OK;
}

/* ---- completion ----------------------------------------------------------- */

static uint32_t completion_flags(const struct sg_ring *r, const volatile struct pg021_bd *b,
				 uint32_t status)
{
	uint32_t flags = 0;

	if (r->chan->cfg.dir == SG_MM2S) {
		uint32_t control = b->control;

		if (control & PG021_BD_CTRL_TXSOF)
			flags |= SG_BD_SOF;
		if (control & PG021_BD_CTRL_TXEOF)
			flags |= SG_BD_EOF;
	} else {
		if (status & PG021_BD_STS_RXSOF)
			flags |= SG_BD_SOF;
		if (status & PG021_BD_STS_RXEOF)
			flags |= SG_BD_EOF;
	}
	return flags;
}

static bool completion_is_eof(const struct sg_ring *r, const volatile struct pg021_bd *b,
			      uint32_t status)
{
	if (r->chan->cfg.dir == SG_MM2S)
		return b->control & PG021_BD_CTRL_TXEOF;
	return status & PG021_BD_STS_RXEOF;
}

/* Hardware-owned BDs [reclaim, reclaim + n) become free: reclaim moves
 * forward, n_hw shrinks, n_free grows.  STATUS stays as the hardware wrote
 * it until the BD is filled or rearmed again. */
static void mark_reclaimed(struct sg_ring *r, uint32_t n)
{
	r->reclaim = ring_add(r, r->reclaim, n);
	r->n_hw -= n;
	r->n_free += n;
}

/*
 * The walk stopped at a BD the engine has not completed.  If DMASR carries
 * an error the engine will never complete it (SG fetch errors write no BD
 * STATUS at all), so say so instead of letting the caller poll forever.
 */
static enum sg_status check_stalled(struct sg_ring *r, struct sg_error *err)
{
	uint32_t errs;

	if (r->chan->ring != r)
		return SG_OK;
	errs = sg_chan_read(r->chan, PG021_DMASR) & PG021_SR_ERR_ALL;
	if (!errs)
		return SG_OK;
	ring_fail_hw(r, err, SG_E_HW, SG_NO_INDEX, errs, 0);
	if (err)
		err->bd_index = sg_ring_bd_index(r, err->snap.curdesc);
	return SG_E_HW;
}

/*
 * Walk the hardware-owned arc in order.  Only whole packets are returned:
 * completed BDs are collected tentatively and committed at the packet's EOF
 * if the whole packet fits in out[].  The walk ends at the first BD that is
 * not complete, carries an error, or whose packet does not fit.  Packets
 * committed before an error are still returned (*n_out) and freed.
 */
enum sg_status sg_ring_reclaim(struct sg_ring *r, struct sg_completion *out, uint32_t max,
			       uint32_t *n_out, struct sg_error *err)
{
	uint32_t done = 0, pending = 0, i, index;
	enum sg_status st = SG_OK;

	if (!n_out || (max && !out))
		return ring_fail(r, err, SG_E_ARG, 0, 0);
	*n_out = 0;
	/* Cyclic mode ignores Cmplt and never gives a BD back. */
	if (r->cyclic)
		return ring_fail(r, err, SG_E_MODE, 0, 0);
	if (!r->n_hw)
		return SG_OK;

	/* Each BD is invalidated as the walk reaches it, so a reclaim costs
	 * O(completed BDs), never O(ring): the walk stops at the first BD the
	 * engine has not completed. */
	index = r->reclaim;
	for (i = 0; i < r->n_hw; i++, index = ring_add(r, index, 1)) {
		const volatile struct pg021_bd *b = bd_at(r, index);
		uint32_t status;
		struct sg_completion *slot;

		invalidate_bds(r, index, 1);
		status = b->status;

		if (status & PG021_BD_STS_ERR_ALL) {
			st = ring_fail_hw(r, err, SG_E_HW, index, status, 0);
			break;
		}
		if (!(status & PG021_BD_STS_CMPLT)) {
			st = check_stalled(r, err);
			break;
		}
		if (done + pending >= max) {
			/* Does not fit.  If this packet alone is all there is,
			 * no max this small can ever return it. */
			if (!done)
				st = sg_what(err, fail_bd(r, err, SG_E_ARG, index, pending + 1u, max),
					     "a packet has more BDs than the completion array holds");
			break;
		}
		slot = &out[done + pending];
		slot->index = index;
		slot->bytes = status & PG021_BD_LEN_MASK;
		slot->status = status;
		slot->flags = completion_flags(r, b, status);
		pending++;
		if (completion_is_eof(r, b, status)) {
			done += pending;
			pending = 0;
		}
	}

	mark_reclaimed(r, done);
	*n_out = done;
	return st;
}

/*
 * Recycle free BDs for capture: the next n free BDs (from fill) keep BUFFER,
 * CONTROL and the fill-time flags, get STATUS cleared and count as filled.
 * A BD that was never filled has length 0 and is refused like any bad fill.
 */
enum sg_status sg_ring_rearm(struct sg_ring *r, uint32_t n, struct sg_error *err)
{
	enum sg_status st;
	uint32_t i;

	if (r->cyclic)
		return ring_fail(r, err, SG_E_MODE, 0, 0);
	if (n > r->n_free)
		return ring_fail(r, err, SG_E_RING_FULL, n, r->n_free);

	for (i = 0; i < n; i++) {
		uint32_t index = ring_add(r, r->fill, i);
		const volatile struct pg021_bd *b = bd_at(r, index);

		st = sg_ring_check_buffer(r, bd_buffer(b), b->control & PG021_BD_LEN_MASK,
					  b->sw[0], index, err);
		if (st != SG_OK)
			return st;
	}
	for (i = 0; i < n; i++)
		bd_at(r, ring_add(r, r->fill, i))->status = 0;
	mark_filled(r, n);
	return SG_OK;
}

/* ---- cyclic mode ---------------------------------------------------------- */

/*
 * PG021 cyclic: TAILDESC only triggers and must name an address outside the
 * chain; the first address past the ring if the address width can express
 * it, else the one before it.  0 means no such address exists.
 */
static uint64_t cyclic_tail(const struct sg_ring *r)
{
	uint64_t end = sg_ring_bd_dev(r, r->count);

	if (end <= sg_addr_max(r->chan) && end > r->dev)
		return end;
	if (r->dev >= PG021_BD_SIZE)
		return r->dev - PG021_BD_SIZE;
	return 0;
}

static enum sg_status cyclic_check(struct sg_ring *r, uint64_t tail, struct sg_error *err)
{
	struct sg_chan *c = r->chan;
	enum sg_status st;

	if (r->cyclic || !c->has_sg)
		return ring_fail(r, err, SG_E_MODE, 0, 0);
	if (!r->closed)
		return sg_what(err, ring_fail(r, err, SG_E_ARG, 0, 1), "cyclic mode needs a closed ring (last NXTDESC -> first)");
	if (r->n_filled != r->count)
		return sg_what(err, ring_fail(r, err, SG_E_ARG, r->n_filled, r->count),
			       "cyclic mode plays the whole ring: fill every BD first");
	if (!tail)
		return ring_fail(r, err, SG_E_ADDR_RANGE, r->dev, sg_addr_max(c));
	st = sg_ring_validate(r, err);
	if (st != SG_OK)
		return st;
	st = sg_chan_check(c, err);
	if (st != SG_OK)
		return st;
	if (!sg_chan_halted(c))
		return ring_fail_hw(r, err, SG_E_NOT_HALTED, SG_NO_INDEX, 0, 0);
	return SG_OK;
}

/*
 * Order (PG021): cyclic bit while halted -> CURDESC (writable only while
 * halted) -> RS with the IRQ settings -> TAILDESC outside the chain.
 */
enum sg_status sg_ring_start_cyclic(struct sg_ring *r, struct sg_error *err)
{
	uint64_t tail;
	enum sg_status st = sg_ring_prepare_cyclic(r, &tail, err);

	if (st == SG_OK)
		sg_chan_write_tail(r->chan, tail);
	return st;
}

enum sg_status sg_ring_prepare_cyclic(struct sg_ring *r, uint64_t *trigger, struct sg_error *err)
{
	struct sg_chan *c = r->chan;
	uint64_t tail = cyclic_tail(r);
	enum sg_status st;
	uint32_t cr;

	st = cyclic_check(r, tail, err);
	if (st != SG_OK)
		return st;

	clean_bds(r, 0, r->count);
	plat_barrier(c);
	cr = cr_base(c) | PG021_CR_CYCLIC;
	sg_chan_write(c, PG021_DMACR, cr);
	st = sg_chan_set_curdesc(c, sg_ring_bd_dev(r, r->submit), err);
	if (st != SG_OK)
		return st;
	st = run_channel(r, cr, err);
	if (st != SG_OK)
		return st;
	*trigger = tail;

	/* The engine owns every BD until a reset: n_filled moves to n_hw. */
	r->n_hw = r->count;
	r->n_filled = 0;
	r->cyclic = true;
	c->ring = r;
	return SG_OK;
}
