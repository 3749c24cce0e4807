/*
 * ddrc.c - the DDR controller's ports, queues and arbitration: every master's
 * DRAM request enters here through the port it is wired to.  The scheme, its
 * parameters and what is left out are in ddrc.h.
 */
#include <stdio.h>

#include "mem/cpuload.h"
#include "mem/ddrc.h"
#include "mem/dram.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static const char *const store_name[VB_STORE_COUNT] = { "lpr", "hpr", "w" };
static const char *const port_name[VB_PORT_COUNT] = { "cpu", "pl" };

int vb_ddrc_check(const struct vb_ddrc_params *p, char *err, size_t n)
{
#define FAIL(...) do { if (err && n) snprintf(err, n, __VA_ARGS__); return -1; } while (0)
	if (p->scheme > 1)
		FAIL("ddrc.scheme = %u: must be 0 (in order) or 1 (arbitrated: per-port queues, aging, read/write "
		     "stores)", p->scheme);
	if (p->cpu_queue > VB_DDRC_QMAX)
		FAIL("ddrc.cpu_queue = %u: the CPU port holds 1 .. %u requests", p->cpu_queue, VB_DDRC_QMAX);
	if (p->scheme == 0)
		return 0;
	if (!(p->clock_ratio >= 0.125 && p->clock_ratio <= 8))
		FAIL("ddrc.clock_ratio = %g: the controller clock over the DRAM clock must be in [0.125, 8] (Zynq-7000: "
		     "1, a 1:2 controller: 0.5)", p->clock_ratio);
	if (p->aging != 1)
		FAIL("ddrc.aging = %u: scheme 1 needs aging on (1); without it a low-priority port can starve without "
		     "bound (UG585 p.301 recommends aging on); use ddrc.scheme = 0 for in-order service", p->aging);
	for (unsigned i = 0; i < VB_PORT_COUNT; i++) {
		if (p->rd_priority[i] > 1023 || p->wr_priority[i] > 1023)
			FAIL("ddrc.%s_rd_priority = %u, ddrc.%s_wr_priority = %u: 10-bit values, 0 (highest) .. 1023",
			     port_name[i], p->rd_priority[i], port_name[i], p->wr_priority[i]);
		if (p->hpr[i] > 1)
			FAIL("ddrc.%s_hpr = %u: 0 (reads in the LPR store) or 1 (HPR)", port_name[i], p->hpr[i]);
	}
	for (unsigned s = 0; s < VB_STORE_COUNT; s++) {
		if (p->max_starve[s] < 1 || p->max_starve[s] > (1u << 20))
			FAIL("ddrc.%s_max_starve_clocks = %u: must be 1 .. 2^20 clocks", store_name[s], p->max_starve[s]);
		if (p->run_length[s] < 1 || p->run_length[s] > 1024)
			FAIL("ddrc.%s_run_length = %u: must be 1 .. 1024 requests", store_name[s], p->run_length[s]);
		if (p->min_non_critical[s] > (1u << 20))
			FAIL("ddrc.%s_min_non_critical_clocks = %u: at most 2^20 clocks", store_name[s],
			     p->min_non_critical[s]);
	}
	if (p->cpu_queue < 1 || p->cpu_queue > VB_DDRC_QMAX)
		FAIL("ddrc.cpu_queue = %u: the CPU port holds 1 .. %u requests", p->cpu_queue, VB_DDRC_QMAX);
#undef FAIL
	return 0;
}

void vb_ddrc_init(struct vb_ddrc *c, const struct vb_ddrc_params *p, double tck_ns, uint64_t now)
{
	*c = (struct vb_ddrc){ .p = *p, .dram = c->dram, .load = c->load };
	c->clk_ps = c->p.clock_ratio > 0 ? (uint64_t)(tck_ns * 1e3 / c->p.clock_ratio + 0.5) : 1;
	if (!c->clk_ps)
		c->clk_ps = 1;
	for (unsigned i = 0; i < VB_PORT_COUNT; i++)
		c->last_grant[i][0] = c->last_grant[i][1] = now;
	for (unsigned s = 0; s < VB_STORE_COUNT; s++)
		c->store_last[s] = now;
}

/* ---- the arbiter's predicates (scheme 1) ----------------------------------- */

static unsigned store_of(const struct vb_ddrc *c, unsigned port, bool write)
{
	return write ? VB_STORE_WR : c->p.hpr[port] ? VB_STORE_HPR : VB_STORE_LPR;
}

static uint64_t clocks(const struct vb_ddrc *c, uint64_t from, uint64_t to)
{
	return to > from ? (to - from) / c->clk_ps : 0;
}

/* The port's aging counter at t: its priority less the clocks it has waited
 * since its request arrived or its last grant reloaded the counter. */
static unsigned counter(const struct vb_ddrc *c, unsigned port, const struct vb_ddrc_req *r, uint64_t t)
{
	unsigned prio = r->write ? c->p.wr_priority[port] : c->p.rd_priority[port];
	uint64_t w = clocks(c, max64(r->t, c->last_grant[port][r->write]), t);
	return w >= prio ? 0 : prio - (unsigned)w;
}

/* Stage 3: a store is critical once its pending request has waited
 * max_starve clocks, unless it is in its hard non-critical window. */
static bool critical(const struct vb_ddrc *c, unsigned s, const struct vb_ddrc_req *r, uint64_t t)
{
	return t >= c->noncrit_until[s] && clocks(c, max64(r->t, c->store_last[s]), t) >= c->p.max_starve[s];
}

/* Does a (port pa) win the grant over b (port pb) when both wait at t? */
static bool wins(const struct vb_ddrc *c, unsigned pa, const struct vb_ddrc_req *a, unsigned pb,
		 const struct vb_ddrc_req *b, uint64_t t)
{
	unsigned ca, cb;

	if (pa == pb)
		return a->t <= b->t;                 /* one port: its FIFO order */
	ca = counter(c, pa, a, t);
	cb = counter(c, pb, b, t);
	if (a->write != b->write) {                  /* stages 2 and 3: read vs write */
		bool a_same = a->write == c->last_write;
		const struct vb_ddrc_req *other = a_same ? b : a;
		unsigned po = a_same ? pb : pa, c_same = a_same ? ca : cb, c_other = a_same ? cb : ca;
		if (critical(c, store_of(c, po, other->write), other, t))
			return !a_same;
		if (c_same == 0)
			return a_same;
		if (c_other == 0)
			return !a_same;
		return a_same;
	}
	if (!a->write) {                             /* HPR over LPR unless the LPR store starves */
		unsigned sa = store_of(c, pa, false), sb = store_of(c, pb, false);
		if (sa != sb) {
			bool a_lpr = sa == VB_STORE_LPR;
			return critical(c, VB_STORE_LPR, a_lpr ? a : b, t) ? a_lpr : !a_lpr;
		}
	}
	if ((ca == 0) != (cb == 0))                  /* stage 1: a counter at 0 wins */
		return ca == 0;
	if ((ca >> 5) != (cb >> 5))                  /* then the top 5 bits of 10 */
		return (ca >> 5) < (cb >> 5);
	return c->last_port != pa;                   /* tie: round-robin */
}

/* ---- granting ------------------------------------------------------------- */

/* The request gets the data bus: into the DRAM (nondecreasing issue times),
 * counted for its port. */
static inline __attribute__((always_inline)) uint64_t grant(struct vb_ddrc *c, unsigned port, const struct vb_ddrc_req *r,
							 uint64_t *t_done)
{
	struct vb_ddrc_port_stats *s = &c->stats[port];
	const uint64_t g = max64(r->t, c->dram->bus_free), wait = g - r->t;
	uint64_t done, first = vb_dram_access(c->dram, max64(r->t, c->dram->last_arrive), r->addr, r->len, r->write,
					      &done);

	s->bytes += r->len;
	s->wait_ps += wait;
	if (wait > s->max_wait_ps)
		s->max_wait_ps = wait;
	if (r->write) {
		s->writes++;
		s->write_latency_ps += done - r->t;
	} else {
		uint64_t lat = first - r->t;
		s->reads++;
		s->read_latency_ps += lat;
		if (lat > s->max_read_latency_ps)
			s->max_read_latency_ps = lat;
	}
	if (c->p.scheme && c->load->period_ps) {       /* the arbiter's state matters only with a lazy master */
		unsigned st = store_of(c, port, r->write);
		if (critical(c, st, r, g) && ++c->crit_served[st] >= c->p.run_length[st]) {
			c->crit_served[st] = 0;
			c->noncrit_until[st] = g + (uint64_t)c->p.min_non_critical[st] * c->clk_ps;
		}
		c->store_last[st] = g;
		c->last_grant[port][r->write] = g;
	}
	c->last_port = port;
	c->last_write = r->write;
	if (t_done)
		*t_done = done;
	return first;
}

/* The background load's requests that arrived by t enter the CPU port's FIFO
 * while it has room; a full FIFO holds the CPU back. */
static void fill(struct vb_ddrc *c, uint64_t t)
{

	while (c->q_n < c->p.cpu_queue) {
		struct vb_ddrc_req *r = &c->q[(c->q_head + c->q_n) % VB_DDRC_QMAX];
		if (!vb_cpuload_take(c->load, t, r))
			return;
		c->q_n++;
	}
}

static void grant_queued(struct vb_ddrc *c)
{
	const struct vb_ddrc_req r = c->q[c->q_head];
	bool was_full = c->q_n == c->p.cpu_queue;

	c->q_head = (c->q_head + 1) % VB_DDRC_QMAX;
	c->q_n--;
	if (was_full)                                /* the stalled CPU issues its next request now */
		vb_cpuload_stall(c->load, max64(r.t, c->dram->bus_free));
	grant(c, VB_PORT_CPU, &r, NULL);
}

/* In order, the CPU port's FIFO still bounds the load: request k + depth
 * issues no earlier than request k leaves the FIFO (its data starts), so a
 * load above the DRAM's peak is throttled instead of queueing without bound
 * ahead of every later DMA request.  depth = ddrc.cpu_queue, or the model's
 * limit when a preset has no [ddrc] table. */
static void hold_in_order(struct vb_ddrc *c, uint64_t started)
{
	const unsigned depth = c->p.cpu_queue ? c->p.cpu_queue : VB_DDRC_QMAX;

	c->started[c->n_started++ % depth] = started;
	if (c->n_started >= depth)
		vb_cpuload_stall(c->load, c->started[c->n_started % depth]);
}

/* A request while the lazy CPU load runs: its requests due first. */
static __attribute__((noinline)) uint64_t request_with_load(struct vb_ddrc *c, enum vb_ddrc_port port,
							    const struct vb_ddrc_req *rq, uint64_t *t_done)
{
	const struct vb_ddrc_req r = *rq;
	const uint64_t t_arrive = r.t;
	struct vb_ddrc_req h;

	if (!c->p.scheme) {                          /* in order: the load's earlier requests first */
		while (vb_cpuload_take(c->load, t_arrive, &h))
			hold_in_order(c, grant(c, VB_PORT_CPU, &h, NULL));
		return grant(c, port, &r, t_done);
	}
	for (;;) {
		const uint64_t ready = c->dram->bus_free, d = max64(t_arrive, ready);
		const struct vb_ddrc_req *q;

		fill(c, d);
		if (!c->q_n)
			break;
		q = &c->q[c->q_head];
		if (max64(q->t, ready) < t_arrive) { /* the bus takes it before this request arrives */
			grant_queued(c);
			continue;
		}
		if (!wins(c, VB_PORT_CPU, q, port, &r, d)) {
			if (q->t <= t_arrive)
				c->stats[VB_PORT_CPU].overtaken++;
			break;
		}
		if (t_arrive <= q->t)
			c->stats[port].overtaken++;
		grant_queued(c);
	}
	return grant(c, port, &r, t_done);
}

uint64_t vb_ddrc_request(struct vb_ddrc *c, enum vb_ddrc_port port, uint64_t t_arrive, uint64_t addr, uint32_t len,
			 bool write, uint64_t *t_done)
{
	const struct vb_ddrc_req r = { t_arrive, addr, len, write };

	if (!c->load->period_ps)                      /* fast path: no lazy master */
		return grant(c, port, &r, t_done);
	return request_with_load(c, port, &r, t_done);
}
