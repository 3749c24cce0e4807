/*
 * cpuops.c - the CPU as a memory master (cpuops.h).  An operation is a run of
 * cache-line (or, uncached, word) requests that enter the DDR controller
 * through the CPU port at the times the CPU issues them.  Before each request
 * the board's devices are stepped up to its issue time, so the DMA's requests
 * that come earlier reach the controller first and the two streams
 * interleave, as they do at the controller's ports.
 *
 * Pacing.  Cached operations issue a line every ns_per_line (the CPU's own
 * limit: its copy or load bandwidth, or its maintenance op per line) and end
 * when the CPU has issued the last line and the last line fill it waits for
 * has arrived; write-backs (evictions of the copy's destination, memset's
 * lines, a clean's dirty lines) are posted, except that a clean or flush ends
 * with a barrier that waits for them.  Uncached loads keep at most
 * `outstanding` requests in flight: one for strongly-ordered memory, where
 * each waits for its data; several for Normal non-cacheable (write-combine)
 * memory, whose loads may overlap (arm-host-path.md sec. 1.1-1.4).  Uncached
 * stores are posted, one request per access (strongly ordered) or per merged
 * burst (write-combine), and the barrier at the end waits for the last one.
 */
#include <stdio.h>

#include "board.h"
#include "cpu/cpuops.h"
#include "mem/coherency.h"

/* A copy's run: fills of one 4 KiB page of the source, then its write-backs. */
#define RUN_BYTES 4096u

static const char *const names[VB_CPUOP_KINDS] = {
	"read", "copy", "memset", "clean", "invalidate", "flush", "uncached_read", "uncached_write",
};

const char *vb_cpuop_name(enum vb_cpuop_kind k) { return (unsigned)k < VB_CPUOP_KINDS ? names[k] : "?"; }
const struct vb_cpuop_stats *vb_cpuop_stats(const vb_board *b) { return &b->cpuops; }

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* One operation in flight: the issue clock and what it has cost so far. */
struct op_run {
	vb_board *b;
	uint64_t next_event;     /* the earliest device event not yet run */
	uint64_t last_done;      /* the latest completion the op must wait for */
	struct vb_cpuop_result *r;
};

/* Run the devices up to t (the CPU issues at t).  Devices interact only
 * through memory timing, charged when each issues, so a CPU request never
 * moves another device's next event: the cached next_event stays valid. */
static void catch_up(struct op_run *o, uint64_t t)
{
	const struct vb_timed *m;

	if (t > o->b->sched.now)
		o->b->sched.now = t;
	if (t < o->next_event)
		return;
	vb_sched_sync(&o->b->sched);
	o->next_event = vb_sched_next_event(&o->b->sched, &m);
}

static uint64_t request(struct op_run *o, uint64_t t, uint64_t addr, uint32_t len, bool write)
{
	uint64_t done;

	catch_up(o, t);
	vb_ddrc_request(&o->b->ddrc, VB_PORT_CPU, t, addr, len, write, &done);
	o->r->requests++;
	if (write)
		o->r->write_bytes += len;
	else
		o->r->read_bytes += len;
	return done;
}

static uint64_t nlines(uint64_t addr, uint64_t len, unsigned line)
{
	return len ? (addr + len + line - 1) / line - addr / line : 0;
}

struct wb_ctx {
	struct op_run *o;
	uint64_t t0, first_line;
	double ps_per_line;
	unsigned line;
};

/* A dirty line of a clean/flush: written back when the walk reaches it. */
static void write_back(void *ctx, uint64_t line_addr)
{
	struct wb_ctx *w = ctx;
	uint64_t k = line_addr / w->line - w->first_line;
	uint64_t t = w->t0 + (uint64_t)((double)k * w->ps_per_line + 0.5);
	uint64_t done = request(w->o, t, line_addr, w->line, true);

	w->o->last_done = max64(w->o->last_done, done);
}

/* The CPU's scratch area for copies whose destination the caller leaves to
 * the board: the page above the background load's buffers, else the first
 * DDR region's base (any DDR address gives the right bank and row pattern). */
static uint64_t scratch_dst(const vb_board *b)
{
	if (b->memory.n_mem == 0)
		return 0;
	return b->memory.mem[0].r.base + (b->memory.mem[0].r.size > (16u << 20) ? b->memory.mem[0].r.size - (8u << 20) : 0);
}

/* The most uncached loads one operation keeps in flight (the A9's M0 port
 * issues at most 10 reads, the A53 at most 8 per core: arm-host-path.md
 * sec. 1.2, 1.4); the window's completion times are kept in a ring. */
#define MAX_OUTSTANDING 16u

/* The longest CPU time one operation may take: 10^6 s, far below the u64 ps clock's 2^64 ps. */
#define CPUOP_MAX_PS 1e18

static bool in_memory(const vb_board *b, uint64_t addr, uint64_t len)
{
	for (unsigned i = 0; i < b->memory.n_mem; i++) {
		const struct vb_region *r = &b->memory.mem[i].r;
		if (addr >= r->base && len <= r->size && addr - r->base <= r->size - len)
			return true;
	}
	return false;
}

static int check(const vb_board *b, const struct vb_cpuop *op, char *err, size_t errlen)
{
	double words, lines, ps;

	if ((unsigned)op->kind >= VB_CPUOP_KINDS) {
		snprintf(err, errlen, "cpu op kind %d: not an operation (0..%d)", (int)op->kind, VB_CPUOP_KINDS - 1);
		return -1;
	}
	if (!(op->ns_per_line >= 0) || !(op->ns_per_word >= 0) || !(op->fixed_ns >= 0)) {
		snprintf(err, errlen, "cpu op %s: ns_per_line, ns_per_word and fixed_ns must be >= 0 (got %g, %g, %g)",
			 names[op->kind], op->ns_per_line, op->ns_per_word, op->fixed_ns);
		return -1;
	}
	if ((op->kind == VB_CPUOP_UNCACHED_READ || op->kind == VB_CPUOP_UNCACHED_WRITE) &&
	    (op->word_bytes == 0 || op->word_bytes > 64 || (op->word_bytes & (op->word_bytes - 1)))) {
		snprintf(err, errlen, "cpu op %s: word_bytes = %u; an uncached access is 1, 2, 4, 8 or 16 bytes, "
			 "a merged or multi-register burst 32 or 64", names[op->kind], op->word_bytes);
		return -1;
	}
	if (op->outstanding > MAX_OUTSTANDING) {
		snprintf(err, errlen, "cpu op %s: outstanding = %u; a CPU keeps at most %u loads in flight",
			 names[op->kind], op->outstanding, MAX_OUTSTANDING);
		return -1;
	}
	if (op->len > (1ull << 40) || op->addr + op->len < op->addr) {
		snprintf(err, errlen, "cpu op %s: %llu bytes at 0x%llx runs past the address space", names[op->kind],
			 (unsigned long long)op->len, (unsigned long long)op->addr);
		return -1;
	}
	/* DRAM traffic needs DRAM behind it: a range outside every memory region
	 * would be timed as if it were DDR (and a huge length loops for hours) */
	if (op->len && (!in_memory(b, op->addr, op->len) ||
			(op->kind == VB_CPUOP_COPY && op->dst && !in_memory(b, op->dst, op->len)))) {
		snprintf(err, errlen, "cpu op %s: %llu bytes at 0x%llx%s are not inside one of the board's memory "
			 "regions; give a range in DDR (VirtualBoard.regions())", names[op->kind],
			 (unsigned long long)op->len, (unsigned long long)op->addr,
			 in_memory(b, op->addr, op->len) ? " (the copy's destination)" : "");
		return -1;
	}
	/* the op's CPU time is added to the board's ps clock: keep it finite and far below 2^64 ps */
	words = op->word_bytes ? (double)((op->len + op->word_bytes - 1) / op->word_bytes) : 0.0;
	lines = (double)nlines(op->addr, op->len, b->cfg.cache_line_bytes) * 2.0;   /* a copy: fills + write-backs */
	ps = (lines * op->ns_per_line + words * op->ns_per_word + op->fixed_ns) * 1000.0;
	if (!(ps <= CPUOP_MAX_PS)) {
		snprintf(err, errlen, "cpu op %s: ns_per_line %g, ns_per_word %g, fixed_ns %g make %g s of CPU time "
			 "for %llu bytes; one operation may take at most %g s (give per-line/word costs in ns)",
			 names[op->kind], op->ns_per_line, op->ns_per_word, op->fixed_ns, ps / 1e12,
			 (unsigned long long)op->len, CPUOP_MAX_PS / 1e12);
		return -1;
	}
	return 0;
}

/* One operation from issue to its last request: the loop interleaves the CPU's
 * requests with the devices' events in time order, which is why it is one
 * function (its state is the loop's). */
int vb_cpuop_run(vb_board *b, const struct vb_cpuop *op, struct vb_cpuop_result *r, char *err, size_t errlen)
{
	const struct vb_timed *m;
	unsigned line = b->cfg.cache_line_bytes;
	double pl = op->ns_per_line * 1000.0;          /* ps per line */
	struct op_run o = { .b = b, .r = r };
	uint64_t t0, t_cpu, n, k;

	if (check(b, op, err, errlen) < 0)
		return -1;
	*r = (struct vb_cpuop_result){ 0 };
	vb_sched_sync(&b->sched);
	t0 = o.last_done = b->sched.now;
	o.next_event = vb_sched_next_event(&b->sched, &m);
	r->t_start = t0;
	n = nlines(op->addr, op->len, line);
	t_cpu = t0 + (uint64_t)((double)n * pl + 0.5);

	switch (op->kind) {
	case VB_CPUOP_READ:
	case VB_CPUOP_COPY: {
		/* The loop works in runs of RUN_BYTES, as cpuload.c's copy does: the
		 * run's line fills one per ns_per_line, then the run's dirty
		 * destination lines leave as a run of posted write-backs (the
		 * L2's eviction buffers drain them together, not one per fill). */
		uint64_t src0 = op->addr / line * line;
		uint64_t dst = op->dst ? op->dst : scratch_dst(b), dst0 = dst / line * line;
		uint64_t nd = op->kind == VB_CPUOP_COPY ? nlines(dst, op->len, line) : 0;
		uint64_t run = RUN_BYTES / line ? RUN_BYTES / line : 1, total = n > nd ? n : nd, w = 0;

		for (k = 0; k < total; k++) {
			uint64_t t = t0 + (uint64_t)((double)k * pl + 0.5);
			if (k < n)     /* the fill the loads of this line wait for */
				o.last_done = max64(o.last_done, request(&o, t, src0 + k * line, line, false));
			if ((k + 1) % run == 0 || k + 1 == total) {
				uint64_t te = t0 + (uint64_t)((double)(k + 1) * pl + 0.5);
				for (; w < nd && w <= k; w++)
					request(&o, te, dst0 + w * line, line, true);
			}
		}
		t_cpu = t0 + (uint64_t)((double)total * pl + 0.5);
		r->lines = total;
		break;
	}
	case VB_CPUOP_MEMSET: {
		uint64_t a0 = op->addr / line * line;
		for (k = 0; k < n; k++)
			request(&o, t0 + (uint64_t)((double)k * pl + 0.5), a0 + k * line, line, true);
		r->lines = n;
		break;
	}
	case VB_CPUOP_CLEAN:
	case VB_CPUOP_FLUSH:
	case VB_CPUOP_INVALIDATE: {
		struct wb_ctx w = { .o = &o, .t0 = t0, .first_line = op->addr / line, .ps_per_line = pl, .line = line };
		if (op->kind != VB_CPUOP_INVALIDATE)   /* only dirty lines go to memory */
			vb_coh_dirty_lines(b->coh, op->addr, op->len, write_back, &w);
		if (op->kind == VB_CPUOP_INVALIDATE)
			vb_coh_invalidate(b->coh, op->addr, op->len, b->sched.now);
		else
			vb_coh_clean(b->coh, op->addr, op->len, b->sched.now);
		if (op->kind == VB_CPUOP_FLUSH)
			vb_coh_invalidate(b->coh, op->addr, op->len, b->sched.now);
		r->lines = n;
		break;
	}
	case VB_CPUOP_UNCACHED_READ: {
		/* Load k leaves the core when load k-window has its data (its
		 * slot frees; the core's own issue time is far below a round
		 * trip), spends ns_per_word on the path to the controller and
		 * back, and waits for the DRAM; the op ends with the last data.
		 * window 1: each load waits for the one before it. */
		uint64_t nw = (op->len + op->word_bytes - 1) / op->word_bytes, t = t0, end = t0;
		uint64_t pw = (uint64_t)(op->ns_per_word * 1000.0 + 0.5), done[MAX_OUTSTANDING];
		unsigned window = op->outstanding > 1 ? op->outstanding : 1;
		for (k = 0; k < nw; k++) {
			uint64_t d, at;
			if (k >= window)
				t = max64(t, done[k % window]);
			at = t + pw;
			d = max64(at, request(&o, at, op->addr + k * op->word_bytes, op->word_bytes, false));
			done[k % window] = d;
			end = max64(end, d);
			catch_up(&o, window == 1 ? d : at);
		}
		t_cpu = end;
		o.last_done = max64(o.last_done, end);
		r->lines = n;
		break;
	}
	case VB_CPUOP_UNCACHED_WRITE: {
		uint64_t nw = (op->len + op->word_bytes - 1) / op->word_bytes;
		double pw = op->ns_per_word * 1000.0;
		for (k = 0; k < nw; k++) {
			uint64_t t = t0 + (uint64_t)((double)(k + 1) * pw + 0.5);
			o.last_done = max64(o.last_done,
					    request(&o, t, op->addr + k * op->word_bytes, op->word_bytes, true));
		}
		t_cpu = t0 + (uint64_t)((double)nw * pw + 0.5);
		r->lines = n;
		break;
	}
	default:
		break;
	}
	/* posted write-backs of a copy or memset do not hold the CPU; a clean,
	 * flush or uncached store sequence ends with a barrier that does */
	if (op->kind == VB_CPUOP_COPY || op->kind == VB_CPUOP_MEMSET)
		r->t_end = t_cpu;
	else
		r->t_end = max64(t_cpu, o.last_done);
	if (op->kind == VB_CPUOP_READ || op->kind == VB_CPUOP_COPY)
		r->t_end = max64(r->t_end, o.last_done);
	r->t_end += (uint64_t)(op->fixed_ns * 1000.0 + 0.5);
	b->sched.now = max64(b->sched.now, r->t_end);
	vb_sched_sync(&b->sched);
	b->cpuops.ops++;
	b->cpuops.requests += r->requests;
	b->cpuops.read_bytes += r->read_bytes;
	b->cpuops.write_bytes += r->write_bytes;
	b->cpuops.busy_ps += r->t_end - r->t_start;
	return 0;
}
