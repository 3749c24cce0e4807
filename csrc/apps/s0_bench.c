/*
 * s0_bench.c - S0's RPU benchmark program (see s0_bench.h).  Only the driver
 * core, the platform ops and the timing engine's GPIO contract.
 */
#include "sgdma/s0_bench.h"

#include "sgdma/csm.h"
#include "sgdma/splitmix.h"

#define FILL_CHUNK 128u

/* Distinct random slots without a table: an odd-multiplier affine map is a
 * bijection on [0, 2^k); values >= n are skipped (cycle walking). */
struct slot_walk {
	uint64_t mask, mul, add, i, n;
};

static void walk_init(struct slot_walk *w, uint64_t n, uint64_t *rng)
{
	uint64_t m = 1;
	while (m < n)
		m <<= 1;
	w->mask = m - 1;
	w->mul = (sg_splitmix64(rng) | 1u) & w->mask;
	if (!w->mul)
		w->mul = 1;
	w->add = sg_splitmix64(rng) & w->mask;
	w->i = 0;
	w->n = n;
}

static uint64_t walk_next(struct slot_walk *w)
{
	uint64_t v;
	do
		v = (w->mul * w->i++ + w->add) & w->mask;
	while (v >= w->n);
	return v;
}

static uint32_t rd(struct sg_platform *pl, uint64_t a) { return pl->ops->read32(pl->ctx, a); }
static void wr(struct sg_platform *pl, uint64_t a, uint32_t v) { pl->ops->write32(pl->ctx, a, v); }

static enum sg_status fail(struct sg_error *err, enum sg_status code, uint64_t value, uint64_t limit)
{
	return sg_error_fill(err, code, SG_MM2S, SG_NO_INDEX, value, limit);
}

static enum sg_status build_ring(struct sg_ring *r, struct sg_chan *c, const struct s0_bench *b,
				 const struct s0_point *p, uint64_t seed, struct sg_error *err)
{
	/* 32-bit divisions only: the R5 divides in hardware, 64-bit would need libgcc */
	uint32_t stride = (p->bytes_per_bd + b->data_bytes - 1) / b->data_bytes * b->data_bytes;
	uint32_t region = b->buffer_bytes > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)b->buffer_bytes;
	uint64_t addr[FILL_CHUNK], rng = seed;
	uint32_t len[FILL_CHUNK];
	uint8_t flags[FILL_CHUNK];
	struct slot_walk w;
	enum sg_status st;

	if (p->bds > b->bd_capacity)
		return fail(err, SG_E_RING_FULL, p->bds, b->bd_capacity);
	if ((uint64_t)stride * p->bds > region)
		return fail(err, SG_E_ADDR_RANGE, (uint64_t)stride * p->bds, region);
	st = sg_ring_create(r, c, b->bd_cpu, b->bd_dev, p->bds, err);
	if (st != SG_OK)
		return st;
	walk_init(&w, region / stride, &rng);
	for (uint32_t i = 0; i < p->bds; i += FILL_CHUNK) {
		uint32_t n = p->bds - i < FILL_CHUNK ? p->bds - i : FILL_CHUNK;
		for (uint32_t k = 0; k < n; k++) {
			uint64_t slot = p->random ? walk_next(&w) : i + k;
			addr[k] = b->buffer_base + slot * (uint64_t)stride;
			len[k] = p->bytes_per_bd;
			flags[k] = SG_BD_SOF | SG_BD_EOF;
		}
		st = sg_ring_fill(r, n, addr, len, flags, (const uint32_t *)0, err);
		if (st != SG_OK)
			return st;
	}
	return SG_OK;
}

static enum sg_status poll_status(struct sg_platform *pl, const struct s0_bench *b, uint32_t bit,
				  struct sg_error *err)
{
	for (uint32_t i = 0; i < b->poll_limit; i++)
		if (rd(pl, b->gpio_base + CSM_GPIO2_DATA) & bit)
			return SG_OK;
	return fail(err, SG_E_TIMEOUT, b->poll_limit, b->poll_limit);
}

enum sg_status s0_trial_start(struct s0_run *run, struct sg_platform plat, const struct s0_bench *b,
			      const struct s0_point *p, uint64_t seed, struct sg_error *err)
{
	uint64_t a = b->gpio_base, cnt = b->gpio_base + CSM_GPIO_SPAN, tail = 0, buffer = b->buffer_base;
	uint32_t beats_per_bd;
	struct sg_chan_config cfg;
	struct sg_chan *c = &run->c;
	enum sg_status st;

	run->plat = plat;
	run->b = b;
	run->p = p;
	cfg.base = b->dma_base;
	cfg.dir = SG_MM2S;
	cfg.addr_width = b->addr_width;
	cfg.length_width = b->length_width;
	cfg.data_bytes = b->data_bytes;
	cfg.has_dre = false;
	cfg.poll_limit = b->poll_limit;
	if (p->bytes_per_bd == 0)
		return fail(err, SG_E_LENGTH_ZERO, 0, 1);
	if (p->bds == 0 || p->cycles == 0) {
		fail(err, SG_E_ARG, p->bds ? p->cycles : p->bds, 1);
		err->what = p->bds ? "cycles must be >= 1" : "bds must be >= 1";
		return SG_E_ARG;
	}
	st = sg_chan_init(c, plat, &cfg, err);     /* validates data_bytes before it divides */
	if (st == SG_OK)
		st = sg_chan_reset(c, err);
	if (st != SG_OK)
		return st;
	beats_per_bd = (p->bytes_per_bd + b->data_bytes - 1) / b->data_bytes;

	/* Prime everything but the trigger (S0: the RPU does it before the handshake). */
	if (p->simple) {
		if (p->bytes_per_bd < 1 || p->bytes_per_bd > sg_chan_max_length(c))
			return fail(err, SG_E_LENGTH_WIDTH, p->bytes_per_bd, sg_chan_max_length(c));
		sg_chan_write(c, PG021_DMACR, PG021_CR_RS);
		sg_chan_write(c, PG021_ADDR, (uint32_t)buffer);
		if (b->addr_width > 32)
			sg_chan_write(c, PG021_ADDR_MSB, (uint32_t)(buffer >> 32));
	} else {
		st = build_ring(&run->r, c, b, p, seed, err);
		if (st == SG_OK)
			st = p->cycles > 1 ? sg_ring_prepare_cyclic(&run->r, &tail, err)
					   : sg_ring_prepare(&run->r, &tail, err);
		if (st != SG_OK)
			return st;
	}

	/* Handshake: payload length, reset pulse, READY, START, then the trigger. */
	wr(&plat, cnt + CSM_GPIO2_DATA, beats_per_bd * (p->simple ? 1u : p->bds * p->cycles));
	wr(&plat, a + CSM_GPIO_DATA, CSM_CTL_RESET);
	wr(&plat, a + CSM_GPIO_DATA, 0);
	st = poll_status(&plat, b, CSM_STS_READY, err);
	if (st != SG_OK)
		return st;
	wr(&plat, a + CSM_GPIO_DATA, CSM_CTL_START);
	if (p->simple)
		sg_chan_write(c, PG021_LENGTH, p->bytes_per_bd);
	else
		sg_chan_write_tail(c, tail);
	return SG_OK;
}

bool s0_trial_done(struct s0_run *run)
{
	return rd(&run->plat, run->b->gpio_base + CSM_GPIO2_DATA) & CSM_STS_DONE;
}

uint32_t s0_trial_counter(struct s0_run *run, uint32_t sel)
{
	uint64_t a = run->b->gpio_base;
	wr(&run->plat, a + CSM_GPIO_DATA, CSM_CTL_START | SG_FIELD_PREP(CSM_CTL_SEL, sel));
	return rd(&run->plat, a + CSM_GPIO_SPAN + CSM_GPIO_DATA);
}

enum sg_status s0_trial_finish(struct s0_run *run, struct s0_counts *out, struct sg_error *err)
{
	uint64_t a = run->b->gpio_base;

	out->setup = s0_trial_counter(run, CSM_SEL_SETUP);
	out->latency = s0_trial_counter(run, CSM_SEL_LATENCY);
	out->throughput = s0_trial_counter(run, CSM_SEL_THROUGHPUT);
	out->beats = s0_trial_counter(run, CSM_SEL_BEATS);
	wr(&run->plat, a + CSM_GPIO_DATA, CSM_CTL_ACK);
	wr(&run->plat, a + CSM_GPIO_DATA, 0);

	/* Leave the channel quiet: cyclic mode stops only by reset. */
	if (!run->p->simple && run->p->cycles > 1)
		return sg_chan_reset(&run->c, err);
	return sg_chan_wait_idle(&run->c, err);
}

enum sg_status s0_trial_stop(struct s0_run *run, struct sg_error *err)
{
	uint64_t a = run->b->gpio_base;

	wr(&run->plat, a + CSM_GPIO_DATA, CSM_CTL_RESET);
	wr(&run->plat, a + CSM_GPIO_DATA, 0);
	return sg_chan_reset(&run->c, err);
}

enum sg_status s0_trial(struct sg_platform plat, const struct s0_bench *b, const struct s0_point *p,
			uint64_t seed, struct s0_counts *out, struct sg_error *err)
{
	struct s0_run run;
	enum sg_status st = s0_trial_start(&run, plat, b, p, seed, err);

	if (st != SG_OK)
		return st;
	st = poll_status(&plat, b, CSM_STS_DONE, err);
	if (st != SG_OK) {
		sg_chan_snapshot(&run.c, &err->snap);
		err->has_snapshot = true;
		return st;
	}
	return s0_trial_finish(&run, out, err);
}
