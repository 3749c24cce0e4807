/*
 * board.c - the virtual board: CPU accesses through the bus, virtual time, the
 * seeded generator and the platform-ops table the driver core runs on.  It
 * names no device: machine.c maps them, the bus dispatches to their ops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mem/coherency.h"
#include "pcie/pcie_api.h"
#include "pl/rtio.h"
#include "sgdma/splitmix.h"

/* splitmix64 seeds xoshiro256**: one generator for everything random. */
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t vb_rng_next(vb_board *b)
{
	uint64_t *s = b->rng, r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

uint8_t *vb_scratch(vb_board *b, uint64_t len)
{
	if (len > b->scratch_cap) {
		uint8_t *n = realloc(b->scratch, len);
		if (!n) {
			fprintf(stderr, "sgdma virtual board: out of host memory (%llu bytes)\n",
				(unsigned long long)len);
			abort();
		}
		b->scratch = n;
		b->scratch_cap = len;
	}
	return b->scratch;
}

vb_board *vb_create(const struct vb_config *cfg, uint64_t seed, char *err, size_t errlen)
{
	vb_board *b;

	if (vb_config_check(cfg, err, errlen) < 0)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(err, errlen, "out of host memory");
		return NULL;
	}
	b->cfg = *cfg;
	b->clk_ps = 1e6 / cfg->dma_clock_mhz;
	b->lat = (struct vb_dma_lat){
		.clock = vb_clocks(b, 1),
		.tail_to_sg_ar = vb_clocks(b, PG021_LAT_TAIL_TO_SG_AR),
		.sg_ar_to_data_ar = vb_clocks(b, PG021_LAT_SG_AR_TO_MM2S_AR),
		.ar_to_tvalid = vb_clocks(b, PG021_LAT_MM2S_AR_TO_TVALID),
		.s2mm_tvalid_to_aw = vb_clocks(b, PG021_LAT_S2MM_TVALID_TO_AW),
		.bd_beats = vb_clocks(b, PG021_BD_HW_BYTES / 4 - 1),
	};
	b->len_mask = (uint32_t)((1u << cfg->length_width) - 1);
	b->data_bytes = cfg->data_width / 8;
	b->addr_mask = cfg->addr_width >= 64 ? UINT64_MAX : (1ull << cfg->addr_width) - 1;
	b->ic_request_ps = vb_ns(cfg->ic_request_ns);
	b->ic_response_ps = vb_ns(cfg->ic_response_ns);
	b->ic_ps_per_byte = cfg->ic_width_bits ? 1e6 / (cfg->ic_clock_mhz * cfg->ic_width_bits / 8.0) : 0.0;
	b->consumer_ps = (uint64_t)(b->clk_ps / cfg->consumer_rate + 0.5);
	vb_reseed(b, seed);
	if (vb_mem_init(b, err, errlen) < 0) {
		vb_destroy(b);
		return NULL;
	}
	vb_cpuload_init(b);
	b->load.next_t = b->now;
	if (vb_coherency_init(b) < 0) {
		snprintf(err, errlen, "out of host memory");
		vb_destroy(b);
		return NULL;
	}
	if (vb_machine_attach(b, err, errlen) < 0) {
		vb_destroy(b);
		return NULL;
	}
	vb_bus_reset(&b->bus);
	return b;
}

void vb_reseed(vb_board *b, uint64_t seed)
{
	uint64_t s = seed;
	uint64_t refi = (uint64_t)(b->cfg.dram.trefi_ns * 1000.0 + 0.5), r;

	for (int i = 0; i < 4; i++)
		b->rng[i] = sg_splitmix64(&s);
	/* Refresh runs asynchronously to everything else: a seeded phase (drawn
	 * even for ideal memory, so enabling the DRAM model does not shift the
	 * other random streams). */
	r = vb_rng_next(b);
	/* anchored at "now": a trial's outcome depends on its seed, not on history */
	vb_dram_init(&b->dram, &b->cfg.dram, b->now + (refi ? r % refi : 0));
	vb_ddrc_init(b);
	b->ic_last_arrive = b->ic_read_free = b->ic_write_free = b->now;
	b->load.next_t = b->now;
	/* the PL clock's edges, anchored at now too (no draw: the other streams stay put) */
	vb_edge_origin(b, b->now);
	if (b->trace.on) {                   /* a trace spans one clock origin */
		vb_trace_fini(b);
		b->trace.on = true;
		b->trace.clk_origin = b->clk_origin;
	}
	vb_pcie_reseed(b, b->now);
}

bool vb_bus_claims(const vb_board *b, uint64_t addr) { return vb_bus_find(&b->bus, addr) != NULL; }

uint64_t vb_bus_decerrs(const vb_board *b, uint64_t *last_addr)
{
	if (last_addr)
		*last_addr = b->bus.last_decerr_addr;
	return b->bus.decerr_count;
}

const struct vb_dram_stats *vb_dram_stats(vb_board *b) { return &b->dram.stats; }
const struct vb_ddrc_port_stats *vb_ddrc_stats(vb_board *b, unsigned port)
{
	return port < VB_PORT_COUNT ? &b->ddrc.stats[port] : NULL;
}
uint64_t vb_next_refresh(vb_board *b, uint64_t t_ps) { return vb_dram_next_refresh(&b->dram, t_ps); }

/* Reports draw BD fetches over time; the log stops growing at VB_FETCH_LOG_MAX. */
void vb_fetch_log_add(vb_board *b, struct vb_chan *c, uint64_t t_issue, uint64_t t_done)
{
	(void)b;
	if (c->n_fetch_log >= VB_FETCH_LOG_MAX) {
		c->fetch_log_dropped++;
		return;
	}
	if (2 * (c->n_fetch_log + 1) > c->cap_fetch_log &&
	    !vb_grow_into(&c->fetch_log, &c->cap_fetch_log, 2 * (c->n_fetch_log + 1), sizeof(uint64_t))) {
		c->fetch_log_dropped++;
		return;
	}
	c->fetch_log[2 * c->n_fetch_log] = t_issue;
	c->fetch_log[2 * c->n_fetch_log + 1] = t_done;
	c->n_fetch_log++;
}

const uint64_t *vb_fetch_log(vb_board *b, enum vb_chan_id ch, size_t *n, uint64_t *dropped)
{
	vb_sync(b);
	*n = b->ch[ch].n_fetch_log;
	*dropped = b->ch[ch].fetch_log_dropped;
	return b->ch[ch].fetch_log;
}

void vb_fetch_log_clear(vb_board *b, enum vb_chan_id ch)
{
	b->ch[ch].n_fetch_log = 0;
	b->ch[ch].fetch_log_dropped = 0;
}

void vb_destroy(vb_board *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < 2; i++)
		free(b->ch[i].fetch_log);
	vb_mem_fini(b);
	vb_stream_fini(b);
	vb_dac_fini(b);
	vb_trace_fini(b);
	vb_adc_fini(b);
	vb_coherency_fini(b);
	vb_pcie_destroy(b);
	vb_rtio_free(b->rtio);
	free(b->scratch);
	free(b);
}

const struct vb_config *vb_get_config(const vb_board *b) { return &b->cfg; }

/* ---- time --------------------------------------------------------------- */

uint64_t vb_now_ps(const vb_board *b) { return b->now; }

/* Catch the model up to "now": process every transaction that ends by then. */
void vb_sync(vb_board *b)
{
	const struct vb_mapping *m;
	uint64_t t;

	if (b->bus.n_timed == 1) {      /* one self-timed device: nothing to choose between */
		m = &b->bus.map[b->bus.timed[0]];
		while ((t = m->ops->next_event(m->dev)) <= b->now)
			m->ops->step(m->dev, t);
		return;
	}
	while ((t = vb_bus_next_event(&b->bus, &m)) <= b->now)
		m->ops->step(m->dev, t);
}

bool vb_step_next(vb_board *b, uint64_t limit_ps)
{
	const struct vb_mapping *m;
	uint64_t t = vb_bus_next_event(&b->bus, &m);

	if (t == VB_NO_TIME || t > limit_ps)
		return false;
	if (t > b->now)
		b->now = t;
	m->ops->step(m->dev, t);
	return true;
}

/* The CPU waits (no accesses) until done(ctx) or limit_ps.  While one device
 * owns the earliest event it is stepped directly, without rescanning the bus:
 * devices interact only through memory timing, charged when the other device
 * issues, so stepping one never moves another's next event. */
bool vb_run_until(vb_board *b, bool (*done)(void *ctx), void *ctx, uint64_t limit_ps)
{
	while (!done(ctx)) {
		const struct vb_mapping *m;
		uint64_t t = vb_bus_next_event(&b->bus, &m), t_other = VB_NO_TIME;

		if (t == VB_NO_TIME || t > limit_ps)
			return done(ctx);
		for (unsigned i = 0; i < b->bus.n; i++) {
			const struct vb_mapping *o = &b->bus.map[i];
			if (o->dev != m->dev && o->ops->next_event) {
				uint64_t to = o->ops->next_event(o->dev);
				if (to < t_other)
					t_other = to;
			}
		}
		do {
			if (t > b->now)
				b->now = t;
			m->ops->step(m->dev, t);
			if (done(ctx))
				return true;
			t = m->ops->next_event(m->dev);
		} while (t < t_other && t <= limit_ps);
	}
	return true;
}

void vb_advance_ps(vb_board *b, uint64_t ps)
{
	b->now += ps;
	vb_sync(b);
}

uint64_t vb_run_until_quiet(vb_board *b, uint64_t limit_ps)
{
	if (b->bus.n_timed == 1) {      /* one self-timed device: step it without asking the bus */
		const struct vb_mapping *m = &b->bus.map[b->bus.timed[0]];
		uint64_t t;

		while ((t = m->ops->next_event(m->dev)) != VB_NO_TIME && t <= limit_ps) {
			if (t > b->now)
				b->now = t;
			m->ops->step(m->dev, t);
		}
		return b->now;
	}
	while (vb_step_next(b, limit_ps))
		;
	return b->now;
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
	uint64_t start = b->now, done;
	const struct vb_mapping *m = vb_bus_find(&b->bus, addr);
	void *p;
	uint32_t v = 0;

	b->now += cost_ps;
	b->mmio_reads++;
	vb_sync(b);
	if (m)
		return m->ops->read(m->dev, addr - m->base);
	p = vb_mem_ptr(b, addr, 4);     /* a device window decodes first */
	if (!p) {
		decerr(b, addr, false);
		return 0;
	}
	if (through_dram) {
		vb_ic_read(b, start, addr, 4, &done);
		if (done > b->now) {
			b->now = done;
			vb_sync(b);
		}
	}
	memcpy(&v, p, 4);
	return v;
}

static void cpu_write(vb_board *b, uint64_t addr, uint32_t value, uint64_t cost_ps, bool through_dram)
{
	uint64_t start = b->now, done;
	const struct vb_mapping *m = vb_bus_find(&b->bus, addr);
	void *p;

	b->now += cost_ps;
	b->mmio_writes++;
	vb_sync(b);
	if (m) {
		m->ops->write(m->dev, addr - m->base, value);
		vb_sync(b);   /* a write may start work that is already due */
		return;
	}
	p = vb_mem_ptr(b, addr, 4);
	if (!p) {
		decerr(b, addr, true);
		return;
	}
	if (through_dram) {
		done = vb_ic_write(b, start, addr, 4);
		if (done > b->now) {
			b->now = done;
			vb_sync(b);
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
 * a clean's write-backs of the dirty lines on the CPU port (mem/cpuops.c). */
static void cache_op(vb_board *b, enum vb_cpuop_kind kind, uint64_t addr, uint64_t len)
{
	struct vb_cpuop op = { .kind = kind, .addr = addr, .len = len, .ns_per_line = b->cfg.cache_line_ns };
	struct vb_cpuop_result r;
	char err[160];

	if (len == 0 || vb_cpuop_run(b, &op, &r, err, sizeof err) < 0)
		vb_sync(b);
}

void vb_cache_clean(vb_board *b, uint64_t addr, uint64_t len) { cache_op(b, VB_CPUOP_CLEAN, addr, len); }
void vb_cache_invalidate(vb_board *b, uint64_t addr, uint64_t len) { cache_op(b, VB_CPUOP_INVALIDATE, addr, len); }

/* ---- platform ops for the driver core ------------------------------------ */

static uint32_t ops_read32(void *ctx, uint64_t reg) { return vb_read32(ctx, reg); }
static void ops_write32(void *ctx, uint64_t reg, uint32_t v) { vb_write32(ctx, reg, v); }
static void ops_barrier(void *ctx) { (void)ctx; }

static void ops_clean(void *ctx, const void *cpu, size_t len)
{
	uint64_t a = vb_mem_addr(ctx, cpu);
	if (a != SG_NO_DEV_ADDR)
		vb_cache_clean(ctx, a, len);
}

static void ops_invalidate(void *ctx, const void *cpu, size_t len)
{
	uint64_t a = vb_mem_addr(ctx, cpu);
	if (a != SG_NO_DEV_ADDR)
		vb_cache_invalidate(ctx, a, len);
}

static uint64_t ops_dev_addr(void *ctx, const void *cpu) { return vb_mem_addr(ctx, cpu); }
static void *ops_cpu_ptr(void *ctx, uint64_t dev, size_t len) { return vb_mem_ptr(ctx, dev, len); }

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
