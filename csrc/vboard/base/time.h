/*
 * time.h - units of virtual time (integer picoseconds) and a clock's edges.
 */
#ifndef SGDMA_VBOARD_TIME_H
#define SGDMA_VBOARD_TIME_H

#include <stdbool.h>
#include <stdint.h>

#define VB_NO_TIME UINT64_MAX   /* "never": no event pending */

static inline uint64_t vb_ns(double ns)
{
	return (uint64_t)(ns * 1000.0 + 0.5);
}

/* A clock: its period, the time of its edge 0 and where edge arithmetic is exact. */
struct vb_clock {
	double ps;                /* period */
	uint64_t origin;          /* time of edge 0 (set with vb_edge_origin) */
	uint64_t exact_end;       /* vb_edge_exact() holds for edges in [origin, exact_end) */
};

/* `clocks` periods in ps, rounded. */
static inline uint64_t vb_clock_ticks(const struct vb_clock *c, double clocks)
{
	return (uint64_t)(clocks * c->ps + 0.5);
}

/* PL clock edges: index of the first DMA clock edge at or after t (times within
 * 2 ps after an edge are that edge: integer-ps rounding of the edge times), and
 * an edge's time.  Edge 0 is at c->origin.  Stream beats and PL registers
 * change only on these edges. */
static inline uint64_t vb_edge_index(const struct vb_clock *c, uint64_t t)
{
	double k = ((double)t - (double)c->origin - 2.0) / c->ps;
	uint64_t i = k <= 0 ? 0 : (uint64_t)k;
	return (double)i < k ? i + 1 : i;
}
static inline uint64_t vb_edge_time(const struct vb_clock *c, uint64_t k)
{
	return c->origin + (uint64_t)((double)k * c->ps + 0.5);
}
/* vb_edge_index(vb_edge_time(k)) == k when that edge t is below 2^53 ps (times
 * convert to double exactly), less than 2^50 ps after clk_origin, and clk_ps >= 4:
 * t - origin is within 0.75 ps of k * clk_ps, so (t - origin - 2) / clk_ps lies
 * in (k - 2.75/clk_ps, k - 1.25/clk_ps], inside (k - 1, k) with a margin of
 * 0.3 that the division's rounding (< k * 2^-53 < 0.03) cannot cross.
 * tests/c/test_edges.c checks it against the two formulas above. */
#define VB_EDGE_EXACT_SPAN_PS (1ull << 50)
static inline void vb_edge_origin(struct vb_clock *c, uint64_t origin)
{
	uint64_t end = origin + VB_EDGE_EXACT_SPAN_PS;

	c->origin = origin;
	c->exact_end = c->ps < 4.0 ? 0 : end < (1ull << 53) ? end : (1ull << 53);
}
static inline bool vb_edge_exact(const struct vb_clock *c, uint64_t t)
{
	return t >= c->origin && t < c->exact_end;
}

#endif
