/*
 * cpu.c - the CPU as an initiator: each register or memory access costs the
 * preset's time and catches the model up to it (the scheduler, base/sched.c)
 * before the device answers; cache maintenance by address; and the
 * platform-ops table the driver core runs on.  It names no device: the bus
 * dispatches to their ops.
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "cpu/cpuops.h"

/* A CPU that computes for ps (no accesses): time moves, the model catches up. */
void vb_advance_ps(vb_board *b, uint64_t ps)
{
	vb_sched_advance(&b->sched, ps);
}

/* ---- CPU side ----------------------------------------------------------- */

/* A CPU access that decodes to no device and no memory: the interconnect
 * answers DECERR.  Logged once per address run and counted, as QEMU logs guest
 * errors; the read returns 0. */
static void decerr(vb_board *b, uint64_t addr, bool write)
{
	if (b->bus.decerr_count == 0 || b->bus.last_decerr_addr != addr)
		fprintf(stderr, "sgdma virtual board: CPU %s of 0x%llx decodes to no device or memory (DECERR)\n",
			write ? "write" : "read", (unsigned long long)addr);
	b->bus.decerr_count++;
	b->bus.last_decerr_addr = addr;
	b->bus.last_decerr_write = write;
}

/* One CPU access of `cost_ps`: the register blocks answer as MMIO; DDR is
 * plain memory at that cost, or, when `through_dram`, waits for the DRAM model
 * too (an uncached access to PL DDR sees refresh, a GPIO register does not). */
static uint32_t cpu_read(vb_board *b, uint64_t addr, uint64_t cost_ps, bool through_dram)
{
	uint64_t start = b->sched.now, done;
	const struct vb_mapping *m = vb_bus_find(&b->bus, addr);
	void *p;
	uint32_t v = 0;

	b->sched.now += cost_ps;
	b->mmio_reads++;
	vb_sched_sync(&b->sched);
	if (m) {
		b->bus.answer_at = 0;
		v = m->ops->read(m->dev, addr - m->base);
		if (b->bus.answer_at > b->sched.now)
			b->sched.now = b->bus.answer_at;   /* the read crossed a link: the CPU stalled for it */
		return v;
	}
	p = vb_memory_ptr(&b->memory, addr, 4);     /* a device window decodes first */
	if (!p) {
		decerr(b, addr, false);
		return 0;
	}
	if (through_dram) {
		vb_ic_read(&b->ic, start, addr, 4, &done);
		if (done > b->sched.now) {
			b->sched.now = done;
			vb_sched_sync(&b->sched);
		}
	}
	memcpy(&v, p, 4);
	return v;
}

static void cpu_write(vb_board *b, uint64_t addr, uint32_t value, uint64_t cost_ps, bool through_dram)
{
	uint64_t start = b->sched.now, done;
	const struct vb_mapping *m = vb_bus_find(&b->bus, addr);
	void *p;

	b->sched.now += cost_ps;
	b->mmio_writes++;
	vb_sched_sync(&b->sched);
	if (m) {
		m->ops->write(m->dev, addr - m->base, value);
		vb_sched_sync(&b->sched);   /* a write may start work that is already due */
		return;
	}
	p = vb_memory_ptr(&b->memory, addr, 4);
	if (!p) {
		decerr(b, addr, true);
		return;
	}
	if (through_dram) {
		done = vb_ic_write(&b->ic, start, addr, 4);
		if (done > b->sched.now) {
			b->sched.now = done;
			vb_sched_sync(&b->sched);
		}
	}
	memcpy(p, &value, 4);
}

uint32_t vb_read32(vb_board *b, uint64_t addr) { return cpu_read(b, addr, vb_ns(b->cfg.mmio_read_ns), false); }

void vb_write32(vb_board *b, uint64_t addr, uint32_t value)
{
	cpu_write(b, addr, value, vb_ns(b->cfg.mmio_write_ns), false);
}

uint32_t vb_cpu_read32(vb_board *b, uint64_t addr, uint64_t cost_ps) { return cpu_read(b, addr, cost_ps, true); }

void vb_cpu_write32(vb_board *b, uint64_t addr, uint32_t value, uint64_t cost_ps)
{
	cpu_write(b, addr, value, cost_ps, true);
}

/* Cache maintenance by address: cfg.cache_line_ns per line of CPU time, and
 * a clean's write-backs of the dirty lines on the CPU port (cpu/cpuops.c). */
static void cache_op(vb_board *b, enum vb_cpuop_kind kind, uint64_t addr, uint64_t len)
{
	struct vb_cpuop op = { .kind = kind, .addr = addr, .len = len, .ns_per_line = b->cfg.cache_line_ns };
	struct vb_cpuop_result r;
	char err[160];

	if (len == 0 || vb_cpuop_run(b, &op, &r, err, sizeof err) < 0)
		vb_sched_sync(&b->sched);
}

void vb_cache_clean(vb_board *b, uint64_t addr, uint64_t len) { cache_op(b, VB_CPUOP_CLEAN, addr, len); }
void vb_cache_invalidate(vb_board *b, uint64_t addr, uint64_t len) { cache_op(b, VB_CPUOP_INVALIDATE, addr, len); }

/* ---- platform ops for the driver core ------------------------------------ */

static uint32_t ops_read32(void *ctx, uint64_t reg) { return vb_read32(ctx, reg); }
static void ops_write32(void *ctx, uint64_t reg, uint32_t v) { vb_write32(ctx, reg, v); }
static void ops_barrier(void *ctx) { (void)ctx; }

static struct vb_memory *ops_memory(void *ctx) { return &((vb_board *)ctx)->memory; }

static void ops_clean(void *ctx, const void *cpu, size_t len)
{
	uint64_t a = vb_memory_addr(ops_memory(ctx), cpu);
	if (a != SG_NO_DEV_ADDR)
		vb_cache_clean(ctx, a, len);
}

static void ops_invalidate(void *ctx, const void *cpu, size_t len)
{
	uint64_t a = vb_memory_addr(ops_memory(ctx), cpu);
	if (a != SG_NO_DEV_ADDR)
		vb_cache_invalidate(ctx, a, len);
}

static uint64_t ops_dev_addr(void *ctx, const void *cpu) { return vb_memory_addr(ops_memory(ctx), cpu); }
static void *ops_cpu_ptr(void *ctx, uint64_t dev, size_t len) { return vb_memory_ptr(ops_memory(ctx), dev, len); }

static const struct sg_platform_ops vb_ops = {
	.read32 = ops_read32,
	.write32 = ops_write32,
	.barrier = ops_barrier,
	.cache_clean = ops_clean,
	.cache_invalidate = ops_invalidate,
	.dev_addr = ops_dev_addr,
	.cpu_ptr = ops_cpu_ptr,
};

const struct sg_platform_ops *vb_platform_ops(void) { return &vb_ops; }
