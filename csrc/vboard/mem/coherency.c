/*
 * coherency.c - the coherency checker (semantics in coherency.h).
 *
 * Buffers live in an array sorted by address (they never overlap), so a hook
 * finds the buffers a range touches by binary search.  A SYNC buffer's line
 * states are three bitmaps in one allocation made at registration; every event
 * works on whole 64-bit words of them, so a hook over a 128 KiB buffer with
 * 32-byte lines touches 64 words per bitmap and allocates nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/coherency.h"
#include "mem/memory.h"

#define NO_INDEX ((size_t)-1)
#define NO_KIND  (-1)

struct vb_coh_buf {
	int id;
	enum vb_coh_policy policy;
	uint64_t base, size;
	uint64_t line0;             /* line number of the first line (base >> shift) */
	uint64_t nlines, words;
	uint64_t *dirty, *cached, *fresh;  /* SYNC only: 3 * words, one allocation */
	char name[VB_COH_NAME_LEN];
	/* one mistake, one report: the latest violation and what has happened since */
	uint64_t wr, mt, dw;        /* CPU writes, cache maintenance, DMA writes on this buffer */
	int last_kind;
	uint64_t last_seq;          /* episode key (episode()) when it was reported */
	size_t last_index;          /* into the stored violations, NO_INDEX if not stored */
};

/* ---- text ----------------------------------------------------------------- */

static const char *const kind_names[VB_COH_KINDS] = {
	"UNCLEANED_READ", "DIRTY_OVERWRITE", "STALE_READ", "DISCARDED_WRITE",
};

static const char *const whats[VB_COH_KINDS] = {
	"the DMA read memory the CPU had not written back: missing flush()/clean before the transfer",
	"a dirty CPU line may later be evicted over the DMA's data: clean/invalidate before arming the buffer",
	"CPU read DMA-written data without invalidate(): it may see the stale cached copy",
	"invalidate() discarded CPU writes that were never cleaned: flush() first if the CPU's data matters",
};

static const char *const missing[VB_COH_KINDS] = {
	"call flush() (Xil_DCacheFlushRange / dma_sync_single_for_device) on the buffer after the CPU writes it "
	"and before starting MM2S",
	"call flush() or invalidate() (Xil_DCacheFlushRange / Xil_DCacheInvalidateRange) on the buffer after the "
	"CPU last wrote it and before arming S2MM on it",
	"call invalidate() (Xil_DCacheInvalidateRange / dma_sync_single_for_cpu) on the buffer after S2MM "
	"completes and before the CPU reads it",
	"call flush() (Xil_DCacheFlushRange) before invalidate() on data the CPU wrote, or do not write a buffer "
	"the DMA is about to fill",
};

const char *vb_coherency_kind_name(enum vb_coh_kind k) { return (unsigned)k < VB_COH_KINDS ? kind_names[k] : "?"; }
const char *vb_coherency_what(enum vb_coh_kind k) { return (unsigned)k < VB_COH_KINDS ? whats[k] : "?"; }
const char *vb_coherency_missing_call(enum vb_coh_kind k) { return (unsigned)k < VB_COH_KINDS ? missing[k] : "?"; }

/* ---- bitmaps -------------------------------------------------------------- */

/* Bits of word w inside the line range [lo, hi). */
static inline uint64_t wmask(uint64_t lo, uint64_t hi, uint64_t w)
{
	uint64_t s = w * 64, m = ~0ull;
	if (lo > s)
		m &= ~0ull << (lo - s);
	if (hi < s + 64)
		m &= ~0ull >> (64 - (hi - s));
	return m;
}

struct hits {
	uint64_t count, first;
	bool at_lo, at_last;        /* the range's first / last line is offending */
};

/* Lines of [lo, hi) set in a (and in b, if given). */
static bool find_hits(const uint64_t *a, const uint64_t *b, uint64_t lo, uint64_t hi, struct hits *h)
{
	h->count = 0;
	h->first = UINT64_MAX;
	for (uint64_t w = lo / 64; w <= (hi - 1) / 64; w++) {
		uint64_t v = a[w] & wmask(lo, hi, w);
		if (b)
			v &= b[w];
		if (!v)
			continue;
		if (h->first == UINT64_MAX)
			h->first = w * 64 + (uint64_t)__builtin_ctzll(v);
		h->count += (uint64_t)__builtin_popcountll(v);
	}
	if (!h->count)
		return false;
	h->at_lo = h->first == lo;
	h->at_last = (a[(hi - 1) / 64] >> ((hi - 1) % 64)) & 1;
	if (b)
		h->at_last = h->at_last && ((b[(hi - 1) / 64] >> ((hi - 1) % 64)) & 1);
	return true;
}

static void bits_set(uint64_t *a, uint64_t lo, uint64_t hi)
{
	for (uint64_t w = lo / 64; w <= (hi - 1) / 64; w++)
		a[w] |= wmask(lo, hi, w);
}

static void bits_clear(uint64_t *a, uint64_t lo, uint64_t hi)
{
	for (uint64_t w = lo / 64; w <= (hi - 1) / 64; w++)
		a[w] &= ~wmask(lo, hi, w);
}

/* a |= b over [lo, hi) */
static void bits_or(uint64_t *a, const uint64_t *b, uint64_t lo, uint64_t hi)
{
	for (uint64_t w = lo / 64; w <= (hi - 1) / 64; w++)
		a[w] |= b[w] & wmask(lo, hi, w);
}

/* ---- board life ----------------------------------------------------------- */

static void update_active(struct vb_coherency *c) { c->active = c->enabled && c->n_sync > 0; }

struct vb_coherency *vb_coh_new(unsigned line)
{
	struct vb_coherency *c = calloc(1, sizeof(*c));
	unsigned shift = 0;

	if (!c)
		return NULL;
	while ((1u << shift) < line)
		shift++;
	c->line_shift = shift;
	c->enabled = true;
	c->next_id = 1;
	update_active(c);
	return c;
}

void vb_coh_free(struct vb_coherency *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->bufs[i].dirty);
	free(c->bufs);
	free(c->v);
	free(c);
}

/* ---- registration --------------------------------------------------------- */

/* First buffer whose end lies above addr (ends are sorted as bases are). */
static size_t first_above(const struct vb_coherency *c, uint64_t addr)
{
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->bufs[mid].base + c->bufs[mid].size <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void reset_lines(struct vb_coh_buf *f)
{
	if (f->dirty)
		memset(f->dirty, 0, 3 * f->words * sizeof(uint64_t));
	f->last_kind = NO_KIND;
	f->last_index = NO_INDEX;
}

int vb_coh_register(struct vb_coherency *c, struct vb_memory *mem, uint64_t addr, uint64_t len,
		    enum vb_coh_policy policy, const char *name, char *err, size_t errlen)
{
	struct vb_coh_buf f = { 0 };
	size_t at;

	if (!c) {
		snprintf(err, errlen, "coherency checker not initialised");
		return -1;
	}
	if (len == 0 || addr + len < addr) {
		snprintf(err, errlen, "buffer 0x%llx+%llu: the length must be > 0", (unsigned long long)addr,
			 (unsigned long long)len);
		return -1;
	}
	if ((unsigned)policy > VB_COH_COHERENT) {
		snprintf(err, errlen, "unknown policy %d (0 sync, 1 uncached, 2 coherent)", (int)policy);
		return -1;
	}
	if (!vb_memory_ptr(mem, addr, len)) {
		snprintf(err, errlen, "buffer 0x%llx+%llu is not inside one DDR region of the board",
			 (unsigned long long)addr, (unsigned long long)len);
		return -1;
	}
	at = first_above(c, addr);
	if (at < c->n && c->bufs[at].base < addr + len) {
		const struct vb_coh_buf *o = &c->bufs[at];
		snprintf(err, errlen, "buffer 0x%llx+%llu overlaps registered buffer %d '%s' (0x%llx+%llu)",
			 (unsigned long long)addr, (unsigned long long)len, o->id, o->name,
			 (unsigned long long)o->base, (unsigned long long)o->size);
		return -1;
	}
	f.id = c->next_id;
	f.policy = policy;
	f.base = addr;
	f.size = len;
	f.line0 = addr >> c->line_shift;
	f.nlines = ((addr + len - 1) >> c->line_shift) - f.line0 + 1;
	f.words = (f.nlines + 63) / 64;
	f.last_kind = NO_KIND;
	f.last_index = NO_INDEX;
	if (name && *name)
		snprintf(f.name, sizeof(f.name), "%s", name);
	else
		snprintf(f.name, sizeof(f.name), "buffer %d @0x%llx", f.id, (unsigned long long)addr);
	if (policy == VB_COH_SYNC) {
		f.dirty = calloc(3 * f.words, sizeof(uint64_t));
		if (!f.dirty) {
			snprintf(err, errlen, "out of host memory for %llu cache lines", (unsigned long long)f.nlines);
			return -1;
		}
		f.cached = f.dirty + f.words;
		f.fresh = f.cached + f.words;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;
		struct vb_coh_buf *n = realloc(c->bufs, cap * sizeof(*n));
		if (!n) {
			free(f.dirty);
			snprintf(err, errlen, "out of host memory");
			return -1;
		}
		c->bufs = n;
		c->cap = cap;
	}
	memmove(&c->bufs[at + 1], &c->bufs[at], (c->n - at) * sizeof(*c->bufs));
	c->bufs[at] = f;
	c->n++;
	c->next_id++;
	if (policy == VB_COH_SYNC)
		c->n_sync++;
	update_active(c);
	return f.id;
}

int vb_coh_unregister(struct vb_coherency *c, int id)
{
	for (size_t i = 0; c && i < c->n; i++) {
		if (c->bufs[i].id != id)
			continue;
		if (c->bufs[i].policy == VB_COH_SYNC)
			c->n_sync--;
		free(c->bufs[i].dirty);
		memmove(&c->bufs[i], &c->bufs[i + 1], (c->n - i - 1) * sizeof(*c->bufs));
		c->n--;
		update_active(c);
		return 0;
	}
	return -1;
}

size_t vb_coh_buffer_count(const struct vb_coherency *c) { return c ? c->n : 0; }

void vb_coh_enable(struct vb_coherency *c, bool on)
{
	if (!c)
		return;
	if (on && !c->enabled)       /* what happened while off is unknown: start clean */
		for (size_t i = 0; i < c->n; i++)
			reset_lines(&c->bufs[i]);
	c->enabled = on;
	update_active(c);
}

bool vb_coh_enabled(const struct vb_coherency *c) { return c && c->enabled; }
void vb_coh_set_speculative(struct vb_coherency *c, bool on) { if (c) c->speculative = on; }
bool vb_coh_speculative(const struct vb_coherency *c) { return c && c->speculative; }

/* ---- violations ----------------------------------------------------------- */

/* Events that start a new episode of a kind of mistake: a new CPU write or a
 * maintenance call for the DMA-side kinds (the DMA walking on through the
 * buffer, or CPU reads, do not), a new DMA fill for a stale read, a new CPU
 * write or DMA fill for a discarded write (invalidating in pieces does not).
 * The counters only grow, so a sum changes iff one of them did. */
static uint64_t episode(const struct vb_coh_buf *f, enum vb_coh_kind k)
{
	switch (k) {
	case VB_COH_STALE_READ: return f->dw;
	case VB_COH_DISCARDED_WRITE: return f->wr + f->dw;
	default: return f->wr + f->mt;
	}
}

/* Offending lines h of the access [ca, ce) (already clipped to the buffer). */
static void report(struct vb_coherency *c, struct vb_coh_buf *f, enum vb_coh_kind k, const struct hits *h,
		   uint64_t ca, uint64_t ce, uint64_t lo, uint64_t hi, uint64_t t)
{
	unsigned sh = c->line_shift;
	uint64_t line = 1ull << sh;
	uint64_t first = (f->line0 + h->first) << sh;
	uint64_t offset = (first > ca ? first : ca) - f->base;
	uint64_t nbytes = h->count * line;
	uint64_t seq = episode(f, k);
	struct vb_coh_violation *v;

	if (h->at_lo)
		nbytes -= ca - ((f->line0 + lo) << sh);
	if (h->at_last)
		nbytes -= ((f->line0 + hi) << sh) - ce;

	/* The same mistake still unfolding: extend its report. */
	if (f->last_kind == (int)k && f->last_seq == seq) {
		if (f->last_index != NO_INDEX) {
			v = &c->v[f->last_index];
			v->nbytes += nbytes;
			if (offset < v->offset)
				v->offset = offset;
		}
		return;
	}
	c->count++;
	f->last_kind = (int)k;
	f->last_seq = seq;
	f->last_index = NO_INDEX;
	if (c->nv >= VB_COH_MAX_STORED)
		return;
	if (c->nv == c->capv) {
		size_t cap = c->capv ? 2 * c->capv : 16;
		struct vb_coh_violation *n;
		if (cap > VB_COH_MAX_STORED)
			cap = VB_COH_MAX_STORED;
		n = realloc(c->v, cap * sizeof(*n));
		if (!n)
			return;               /* counted, not stored */
		c->v = n;
		c->capv = cap;
	}
	v = &c->v[c->nv];
	v->kind = k;
	v->buffer_id = f->id;
	memcpy(v->name, f->name, sizeof(v->name));
	v->buffer_addr = f->base;
	v->offset = offset;
	v->nbytes = nbytes;
	v->t_ps = t;
	f->last_index = c->nv++;
}

uint64_t vb_coh_count(const struct vb_coherency *c) { return c ? c->count : 0; }
size_t vb_coh_stored(const struct vb_coherency *c) { return c ? c->nv : 0; }
uint64_t vb_coh_dma_checks(const struct vb_coherency *c) { return c ? c->dma_checks : 0; }

const struct vb_coh_violation *vb_coh_violation(const struct vb_coherency *c, size_t i)
{
	return c && i < c->nv ? &c->v[i] : NULL;
}

void vb_coh_clear(struct vb_coherency *c)
{
	if (!c)
		return;
	c->nv = 0;
	c->count = 0;
	for (size_t i = 0; i < c->n; i++) {
		c->bufs[i].last_kind = NO_KIND;
		c->bufs[i].last_index = NO_INDEX;
	}
}

/* ---- events --------------------------------------------------------------- */

enum event { EV_CPU_READ, EV_CPU_WRITE, EV_CLEAN, EV_INVALIDATE, EV_DMA_READ, EV_DMA_WRITE };

static void event_on(struct vb_coherency *c, struct vb_coh_buf *f, enum event ev, uint64_t addr, uint64_t end,
		     uint64_t t)
{
	uint64_t ca = addr > f->base ? addr : f->base;
	uint64_t ce = end < f->base + f->size ? end : f->base + f->size;
	uint64_t lo = (ca >> c->line_shift) - f->line0, hi = ((ce - 1) >> c->line_shift) - f->line0 + 1;
	struct hits h;

	switch (ev) {
	case EV_CPU_WRITE:
		f->wr++;
		bits_set(f->dirty, lo, hi);
		bits_set(f->cached, lo, hi);
		break;
	case EV_CPU_READ:
		/* fresh lines are always cached ones (an invalidate clears both) */
		if (find_hits(f->fresh, NULL, lo, hi, &h)) {
			report(c, f, VB_COH_STALE_READ, &h, ca, ce, lo, hi, t);
			bits_clear(f->fresh, lo, hi);
		}
		bits_set(f->cached, lo, hi);
		break;
	case EV_CLEAN:
		f->mt++;
		bits_clear(f->dirty, lo, hi);
		break;
	case EV_INVALIDATE:
		f->mt++;
		if (find_hits(f->dirty, NULL, lo, hi, &h))
			report(c, f, VB_COH_DISCARDED_WRITE, &h, ca, ce, lo, hi, t);
		bits_clear(f->dirty, lo, hi);
		bits_clear(f->cached, lo, hi);
		bits_clear(f->fresh, lo, hi);
		break;
	case EV_DMA_READ:
		if (find_hits(f->dirty, NULL, lo, hi, &h)) {
			report(c, f, VB_COH_UNCLEANED_READ, &h, ca, ce, lo, hi, t);
			bits_clear(f->dirty, lo, hi);   /* reported once */
		}
		break;
	case EV_DMA_WRITE:
		f->dw++;
		if (find_hits(f->dirty, NULL, lo, hi, &h)) {
			report(c, f, VB_COH_DIRTY_OVERWRITE, &h, ca, ce, lo, hi, t);
			bits_clear(f->dirty, lo, hi);   /* reported once */
		}
		if (c->speculative) {           /* the CPU may have prefetched any line */
			bits_set(f->cached, lo, hi);
			bits_set(f->fresh, lo, hi);
		} else {
			bits_or(f->fresh, f->cached, lo, hi);
		}
		break;
	}
}

/* The event on every SYNC buffer [addr, addr+len) touches; returns how many. */
static unsigned event(struct vb_coherency *c, enum event ev, uint64_t addr, uint64_t len, uint64_t t)
{
	uint64_t end = addr + len;
	unsigned n = 0;

	if (end < addr)
		end = UINT64_MAX;
	for (size_t i = first_above(c, addr); i < c->n && c->bufs[i].base < end; i++) {
		if (c->bufs[i].policy == VB_COH_SYNC) {
			event_on(c, &c->bufs[i], ev, addr, end, t);
			n++;
		}
	}
	return n;
}

bool vb_coh_watching(const struct vb_coherency *c) { return c && c->active; }

void vb_coh_cpu_event(struct vb_coherency *c, uint64_t addr, uint64_t len, bool write, uint64_t t)
{
	event(c, write ? EV_CPU_WRITE : EV_CPU_READ, addr, len, t);
}

void vb_coh_clean(struct vb_coherency *c, uint64_t addr, uint64_t len, uint64_t t)
{
	if (c && c->active && len)
		event(c, EV_CLEAN, addr, len, t);
}

void vb_coh_invalidate(struct vb_coherency *c, uint64_t addr, uint64_t len, uint64_t t)
{
	if (c && c->active && len)
		event(c, EV_INVALIDATE, addr, len, t);
}

void vb_coherency_dma_slow(struct vb_coherency *c, uint64_t addr, uint64_t len, bool write, uint64_t t)
{
	if (c && c->active && len && event(c, write ? EV_DMA_WRITE : EV_DMA_READ, addr, len, t))
		c->dma_checks++;
}

/* The dirty lines of SYNC buffers in [addr, addr+len): fn(ctx, line address)
 * for each, in address order (cpuops.c writes them back on a clean).  Lines
 * outside registered SYNC buffers are unknown to the checker: none reported. */
uint64_t vb_coh_dirty_lines(struct vb_coherency *c, uint64_t addr, uint64_t len, void (*fn)(void *ctx, uint64_t line),
			    void *ctx)
{
	uint64_t end = addr + len, n = 0;

	if (!c || !c->active || !len)
		return 0;
	if (end < addr)
		end = UINT64_MAX;
	for (size_t i = first_above(c, addr); i < c->n && c->bufs[i].base < end; i++) {
		const struct vb_coh_buf *f = &c->bufs[i];
		uint64_t ca = addr > f->base ? addr : f->base;
		uint64_t ce = end < f->base + f->size ? end : f->base + f->size;
		uint64_t lo, hi;

		if (f->policy != VB_COH_SYNC || ce <= ca)
			continue;
		lo = (ca >> c->line_shift) - f->line0;
		hi = ((ce - 1) >> c->line_shift) - f->line0 + 1;
		for (uint64_t k = lo; k < hi; k++) {
			uint64_t w = f->dirty[k / 64];
			if (!w) {                 /* skip a clean word of 64 lines */
				k |= 63;
				continue;
			}
			if (w >> (k % 64) & 1) {
				n++;
				if (fn)
					fn(ctx, (f->line0 + k) << c->line_shift);
			}
		}
	}
	return n;
}
