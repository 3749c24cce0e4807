/*
 * s0_fast.c - S0's trials at the fast fidelity: an exact prefix, then the rest
 * extrapolated over whole DRAM refresh periods.
 *
 * Each trial runs S0's program (csrc/apps/s0_bench.c) exactly as the exact
 * fidelity does, polling the engine's DONE with the same GPIO reads, and
 * watches the sink's per-BD completion times (one packet per BD) between
 * polls.  After `warmup` BDs it takes a window of `periods` whole refresh
 * periods from the next refresh start, measures the time per BD P over it and
 * estimates the error (the quarters' rates, the largest deviation from the
 * trend, the refresh alignments the window has not seen, one BD).  When the
 * relative estimate is at most `accept` the trial stops there and the last beat
 * is extrapolated as window end + remaining BDs x P; otherwise the window grows
 * by one period up to `max_periods`, then doubles, until the estimate passes or
 * the trial reaches DONE, which is the exact trial.  So latency and set-up are
 * always the exact counters, and a trial too short for a window is exact.
 */
#include <math.h>
#include <stdlib.h>

#include "core.h"
#include "mem/ddrc.h"
#include "sgdma/csm.h"
#include "sgdma/s0_bench.h"

enum { OUT_SETUP, OUT_LATENCY, OUT_THROUGHPUT, OUT_EXTRAPOLATED, OUT_EXACT_BDS, OUT_ERROR, OUT_SIM_PS, OUT_N };

struct fast_cfg {
	uint32_t warmup, periods, max_periods;
	double accept, clk_ps, trfc_ps;
};

/* The first packet whose completion is at or after t (n if none). */
static size_t first_at(vb_board *b, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (vb_sink_packet(b, mid)->t_last_ps < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Completed BDs by time t: linear between completion times (F(c_i) = i + 1); t inside the recorded span. */
static double completed_by(vb_board *b, size_t n, uint64_t t)
{
	size_t lo = first_at(b, n, t);
	if (lo == 0)
		return 0.0;
	if (lo >= n)
		return (double)n;
	{
		uint64_t a = vb_sink_packet(b, lo - 1)->t_last_ps, z = vb_sink_packet(b, lo)->t_last_ps;
		return (double)lo + (z > a ? (double)(t - a) / (double)(z - a) : 0.0);
	}
}

/* The largest deviation of a completion in the window [ts, te) from the straight line through (ts, fs) at
 * p per BD: how far any single completion, hence the count at either window edge, may sit off the trend. */
static double deviation(vb_board *b, size_t n, uint64_t ts, uint64_t te, double fs, double p)
{
	size_t lo = first_at(b, n, ts);
	double worst = 0.0;
	for (size_t i = lo; i < n && vb_sink_packet(b, i)->t_last_ps < te; i++) {
		double d = fabs((double)vb_sink_packet(b, i)->t_last_ps - ((double)ts + ((double)(i + 1) - fs) * p));
		if (d > worst)
			worst = d;
	}
	return worst;
}

/* Alignments the drift test tries: a BD period near p/q refresh periods for q up to this and K - 2 (pynq-z2's
 * 4 KiB BDs lock at 3 BDs per 2 refreshes; ZC706's 512 B BDs drift near 16 + 3/5 BDs per refresh). */
#define PHASE_Q 16
/* Steps of the alignment closer than this (in BDs) over the window are one steady drift. */
#define PHASE_STEADY 0.1
/* The longest window (2^20 refresh periods, 8 s of DDR4): past it the trial runs exact. */
#define MAX_WINDOW_PERIODS (1u << 20)

/* The BDs' own cycle in the window, in BDs: the smallest L <= PHASE_Q such that most completion-to-completion
 * times (a strict majority) equal the one L BDs later within a clock.  1 when the BDs take the same time; on
 * zedboard 8 KiB BDs run for stretches as 1030, 1037, 1037 clocks (L = 3), where a refresh's cost depends on
 * where in the three BDs it lands, not only on its fraction of one BD. */
static uint32_t bd_cycle(vb_board *b, size_t n, uint64_t ts, uint64_t te, double clk_ps)
{
	size_t lo = first_at(b, n, ts), end;
	for (end = lo; end < n && vb_sink_packet(b, end)->t_last_ps < te; end++)
		;
	for (uint32_t l = 1; l <= PHASE_Q; l++) {
		size_t pairs = end > lo + 1 + l ? end - lo - 1 - l : 0, differ = 0;
		for (size_t i = lo + 1; i + l < end && 2 * differ < pairs; i++) {
			int64_t d0 = (int64_t)(vb_sink_packet(b, i)->t_last_ps - vb_sink_packet(b, i - 1)->t_last_ps);
			int64_t d1 = (int64_t)(vb_sink_packet(b, i + l)->t_last_ps
					       - vb_sink_packet(b, i + l - 1)->t_last_ps);
			differ += fabs((double)(d1 - d0)) > clk_ps;
		}
		if (2 * differ < pairs || pairs == 0)
			return l;
	}
	return 1;
}

/* The share of the refresh's alignments to the BDs' cycle the window has not seen.  Sampled at each refresh
 * start, the completed count f_k = F(ts + kT) says where in the cycle of L BDs (bd_cycle) that refresh lands.
 * When L BDs' time is near p/q refresh periods the alignments recur every q refreshes up to a steady step d,
 * so the window's K periods sweep only K |d| of the cycle's L BDs and the refresh's cost at the other
 * alignments, which the rest of the trial reaches, is unseen: on pynq-z2 the rate steps when the drift
 * reaches an alignment where the refresh hides in a BD's gap, and locks there; on zedboard it moves the BDs
 * between a 1030/1031-clock and a 1030/1037/1037-clock pattern, 0.09 % apart in rate.  0 when the steps are
 * not steady at any q <= PHASE_Q (the alignments spread over the cycle) or are zero within `lock` BDs (a
 * lock: stationary; a drift slower than one clock per q refreshes passes as one, the residue
 * docs/performance.md describes). */
static double unseen_alignments(const double *fk, uint32_t k_periods, double lock, uint32_t cycle, bool *drift)
{
	double l = (double)cycle;
	*drift = false;
	for (uint32_t q = 1; q <= PHASE_Q && q + 2 <= k_periods; q++) {
		double sum = 0.0, lo = l, hi = -l, m;
		for (uint32_t k = 0; k + q <= k_periods; k++) {
			double d = fk[k + q] - fk[k];
			d -= l * nearbyint(d / l);
			sum += d;
			lo = d < lo ? d : lo;
			hi = d > hi ? d : hi;
		}
		if (hi - lo > PHASE_STEADY)
			continue;
		m = fabs(sum / (double)(k_periods - q + 1));
		if (m <= lock)
			return 0.0;
		*drift = true;
		if ((double)k_periods * m < l)
			return 1.0 - (double)k_periods * m / l;
	}
	return 0.0;
}

struct estimate {
	double t_end_ps, error;   /* extrapolated last beat; relative error bound of the first->last span */
};

/* The estimate from the window [ts, ts + periods * T); false if the sink cannot support it. */
static bool estimate(vb_board *b, const struct fast_cfg *f, uint64_t total, uint64_t ts, uint64_t period,
		     uint32_t periods, uint64_t t_first, struct estimate *e)
{
	size_t n = vb_sink_count(b);
	uint64_t te = ts + periods * period;
	double fs = completed_by(b, n, ts), fe = completed_by(b, n, te), fq[5];
	double p, pq_min = 0.0, pq_max = 0.0, c_min = 0.0, c_max = 0.0, rem, dev, err_ps, unseen, unseen_ps = 0.0, *fk;

	/* the window's rate, and its quarters' (whole periods when R is a multiple of 4, else near) */
	for (unsigned q = 0; q <= 4; q++)
		fq[q] = completed_by(b, n, ts + (uint64_t)((double)(te - ts) * q / 4.0));
	if (fe - fs <= 0.0)
		return false;
	p = (double)(te - ts) / (fe - fs);
	for (unsigned q = 0; q < 4; q++) {
		double pq;
		if (fq[q + 1] - fq[q] <= 0.0)
			return false;
		pq = (double)(te - ts) / 4.0 / (fq[q + 1] - fq[q]);
		pq_min = q == 0 || pq < pq_min ? pq : pq_min;
		pq_max = q == 0 || pq > pq_max ? pq : pq_max;
	}
	rem = (double)total - fe;
	if (rem < 0.0)
		rem = 0.0;
	e->t_end_ps = (double)te + rem * p;
	/* Alignments the window has not seen (unseen_alignments): over that share of the cycle the refresh may
	 * cost anything from nothing (hidden in a BD's gap) to its whole tRFC per period, or the range of the
	 * per-period counts seen, twice over, if that is more.  The counts at the refresh starts, once. */
	fk = malloc(((size_t)periods + 1) * sizeof *fk);
	if (!fk)
		return false;
	for (uint32_t k = 0; k <= periods; k++)
		fk[k] = completed_by(b, n, ts + (uint64_t)k * period);
	{
		/* The BDs' cycle (a scan of the window) is looked for only when the alignments drift mod 1 BD:
		 * a drift mod L shows mod 1 too unless its step is a whole number of BDs, a case this skips for
		 * speed (a step of whole BDs per refresh moves no refresh within its BD). */
		bool drift;
		uint32_t cycle;
		unseen = unseen_alignments(fk, periods, f->clk_ps / p, 1, &drift);
		if (drift && (cycle = bd_cycle(b, n, ts, te, f->clk_ps)) > 1)
			unseen = unseen_alignments(fk, periods, f->clk_ps / p, cycle, &drift);
	}
	if (unseen > 0.0) {
		double range;
		for (uint32_t k = 0; k < periods; k++) {
			double c = fk[k + 1] - fk[k];
			c_min = k == 0 || c < c_min ? c : c_min;
			c_max = k == 0 || c > c_max ? c : c_max;
		}
		if (c_min <= 0.0) {
			free(fk);
			return false;
		}
		range = 2.0 * (c_max - c_min) / c_min;
		if (f->trfc_ps / (double)period > range)
			range = f->trfc_ps / (double)period;
		unseen_ps = unseen * rem * p * range;
	}
	free(fk);
	/* The spread of the quarters' rates (drift, and variation slower than a refresh period) over the
	 * remaining BDs; the count at each window edge may be off by the largest deviation from the trend
	 * (refresh stalls included), which moves P by up to 2 dev / window and the anchor at te by dev; one BD
	 * of end effect and one clock of counting.  The deviation scans the window's completions: skipped when
	 * the rest already exceeds what is accepted (the window grows either way). */
	err_ps = (pq_max - pq_min) * rem + p + f->clk_ps + unseen_ps;
	if (err_ps / (e->t_end_ps - (double)t_first) <= f->accept) {
		dev = deviation(b, n, ts, te, fs, p);
		err_ps = (pq_max - pq_min) * rem + dev * (1.0 + 2.0 * rem * p / (double)(te - ts)) + p + f->clk_ps;
		err_ps += unseen_ps;
	}
	e->error = err_ps / (e->t_end_ps - (double)t_first);
	return true;
}

/* Requests the CPU port of the DDR controller has taken so far (0 on a board whose DMA memory has none). */
static uint64_t cpu_requests(vb_board *b)
{
	const struct vb_ddrc_port_stats *s = vb_ddrc_stats(b, VB_PORT_CPU);
	return s ? s->reads + s->writes : 0;
}

/* One trial; fills out[OUT_N]. */
static enum sg_status fast_trial(vb_board *b, struct sg_platform plat, const struct s0_bench *bench,
				 const struct s0_point *pt, uint64_t seed, struct fast_cfg *f, double *out,
				 struct sg_error *err)
{
	struct s0_run run;
	struct s0_counts cnt;
	uint64_t t0 = vb_now_ps(b), total = (uint64_t)pt->bds * pt->cycles, ts = 0, period = 0;
	uint64_t cpu_seen = cpu_requests(b), cpu_quiet_since = t0;
	uint32_t periods = f->periods;
	bool window = false, gave_up = false;
	enum sg_status st = s0_trial_start(&run, plat, bench, pt, seed, err);

	if (st != SG_OK)
		return st;
	for (uint32_t i = 0; i < bench->poll_limit; i++) {
		size_t n;
		if (s0_trial_done(&run)) {
			st = s0_trial_finish(&run, &cnt, err);
			out[OUT_SETUP] = cnt.setup;
			out[OUT_LATENCY] = cnt.latency;
			out[OUT_THROUGHPUT] = cnt.throughput;
			out[OUT_EXTRAPOLATED] = 0;
			out[OUT_EXACT_BDS] = (double)total;
			out[OUT_ERROR] = 0;
			out[OUT_SIM_PS] = (double)(vb_now_ps(b) - t0);
			return st;
		}
		if (gave_up)
			continue;
		n = vb_sink_count(b);
		if (!window) {
			/* Warm-up: W BDs, and the CPU's own DRAM traffic (the ring it wrote, draining from its
			 * caches and write buffers) quiet for a refresh period, so the window sees the DMA alone. */
			uint64_t now = vb_now_ps(b), seen = cpu_requests(b), t_warm;
			if (seen != cpu_seen) {
				cpu_seen = seen;
				cpu_quiet_since = now;
			}
			if (n < f->warmup || n == 0)
				continue;
			if (!period) {
				uint64_t r0 = vb_next_refresh(b, now);
				period = r0 < UINT64_MAX / 4 ? vb_next_refresh(b, r0 + 1) - r0 : 0;
				if (!period || period > UINT64_MAX / 8 / MAX_WINDOW_PERIODS) {
					gave_up = true;       /* refresh off: no period to average over */
					continue;
				}
			}
			if (now - cpu_quiet_since < period)
				continue;
			t_warm = vb_sink_packet(b, f->warmup ? f->warmup - 1 : 0)->t_last_ps;
			ts = vb_next_refresh(b, t_warm > cpu_quiet_since ? t_warm : cpu_quiet_since);
			window = true;
		}
		if (vb_sink_packet(b, n - 1)->t_last_ps <= ts + periods * period)
			continue;
		{
			struct estimate e;
			uint64_t t_first = vb_sink_packet(b, 0)->t_first_ps, t_stop;
			if (!estimate(b, f, total, ts, period, periods, t_first, &e)) {
				gave_up = true;
				continue;
			}
			if (e.error > f->accept) {
				/* the shortest window that meets it: one period more at a time up to
				 * max_periods (lengths that are not all multiples of a lock's period, and more
				 * alignment steps tested), then doubling; a window past the trial's end is never
				 * reached (the trial is exact) */
				periods = periods < f->max_periods ? periods + 1 : periods * 2;
				if (periods > MAX_WINDOW_PERIODS)
					gave_up = true;
				continue;
			}
			out[OUT_SETUP] = s0_trial_counter(&run, CSM_SEL_SETUP);
			out[OUT_LATENCY] = s0_trial_counter(&run, CSM_SEL_LATENCY);
			/* the engine counts first..last beat inclusive, in clocks */
			out[OUT_THROUGHPUT] = (e.t_end_ps - (double)t_first) / f->clk_ps + 1.0;
			out[OUT_EXTRAPOLATED] = 1;
			out[OUT_EXACT_BDS] = (double)n;
			out[OUT_ERROR] = e.error;
			t_stop = vb_now_ps(b);
			st = s0_trial_stop(&run, err);
			out[OUT_SIM_PS] = (double)(vb_now_ps(b) - t0) + (e.t_end_ps > (double)t_stop
									  ? e.t_end_ps - (double)t_stop : 0.0);
			return st;
		}
	}
	err->code = SG_E_TIMEOUT;
	err->dir = SG_MM2S;
	err->bd_index = SG_NO_INDEX;
	err->value = err->limit = bench->poll_limit;
	err->what = 0;
	sg_chan_snapshot(&run.c, &err->snap);
	err->has_snapshot = true;
	return SG_E_TIMEOUT;
}

/* s0_fast_trials(board, <s0_trials' arguments>, warmup, periods, max_periods, accept, clk_ps):
 * n x OUT_N float64 (setup, latency, throughput clocks, extrapolated 0/1, exact BDs, error, simulated ps). */
static PyObject *s0_fast_trials(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "board", "dma_base", "gpio_base", "bd_dev", "bd_capacity", "buffer_base",
				  "buffer_bytes", "addr_width", "length_width", "data_bytes", "poll_limit",
				  "bytes_per_bd", "bds", "cycles", "random", "seeds", "warmup", "periods",
				  "max_periods", "accept", "clk_ps", "trfc_ps", NULL };
	BoardObject *board;
	struct s0_bench bench = { 0 };
	struct s0_point pt = { 0 };
	struct fast_cfg f = { 0 };
	uint64_t bd_capacity;
	Py_buffer seeds;
	PyObject *res;
	struct sg_platform plat;
	struct sg_error err;
	enum sg_status st = SG_OK;
	Py_ssize_t n, done = 0;
	int random = 0;
	(void)m;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O&O&O&O&O&O&O&O&O&O&O&O&O&py*O&O&O&ddd", kwlist, &BoardType,
					 &board, sgpy_u64, &bench.dma_base, sgpy_u64, &bench.gpio_base, sgpy_u64,
					 &bench.bd_dev, sgpy_u64, &bd_capacity, sgpy_u64, &bench.buffer_base, sgpy_u64,
					 &bench.buffer_bytes, sgpy_u32, &bench.addr_width, sgpy_u32, &bench.length_width,
					 sgpy_u32, &bench.data_bytes, sgpy_u32, &bench.poll_limit, sgpy_u32,
					 &pt.bytes_per_bd, sgpy_u32, &pt.bds, sgpy_u32, &pt.cycles, &random, &seeds, sgpy_u32,
					 &f.warmup, sgpy_u32, &f.periods, sgpy_u32, &f.max_periods, &f.accept, &f.clk_ps, &f.trfc_ps))
		return NULL;
	if (sgpy_board_ready(board) < 0 || bd_capacity > UINT32_MAX || f.periods < 2 || f.max_periods < f.periods
	    || !(f.clk_ps > 0) || !(f.accept >= 0) || !(f.trfc_ps >= 0)) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_ValueError, "s0_fast_trials: bd_capacity over 2^32, periods < 2, "
					"max_periods < periods, or clk_ps/accept out of range");
		PyBuffer_Release(&seeds);
		return NULL;
	}
	bench.bd_capacity = (uint32_t)bd_capacity;
	pt.random = random;
	bench.bd_cpu = vb_mem_ptr(board->b, bench.bd_dev, bd_capacity * PG021_BD_SIZE);
	if (!bench.bd_cpu || seeds.len % 8) {
		PyBuffer_Release(&seeds);
		PyErr_SetString(PyExc_ValueError, "s0_fast_trials: BD region not in board memory, or seeds not uint64");
		return NULL;
	}
	n = seeds.len / 8;
	res = PyBytes_FromStringAndSize(NULL, n * OUT_N * (Py_ssize_t)sizeof(double));
	if (!res) {
		PyBuffer_Release(&seeds);
		return NULL;
	}
	plat.ops = vb_platform_ops();
	plat.ctx = board->b;
	{
		const uint64_t *seed = seeds.buf;
		double *out = (double *)PyBytes_AS_STRING(res);
		SGPY_SIMULATE(board, {
			for (; done < n; done++) {
				vb_reseed(board->b, seed[done]);
				vb_sink_clear(board->b);
				st = fast_trial(board->b, plat, &bench, &pt, seed[done], &f, out + done * OUT_N, &err);
				if (st != SG_OK)
					break;
			}
		});
	}
	PyBuffer_Release(&seeds);
	if (st != SG_OK) {
		Py_DECREF(res);
		return sgpy_raise(&err);
	}
	return res;
}

static PyMethodDef fast_methods[] = {
	{ "s0_fast_trials", (PyCFunction)(void (*)(void))s0_fast_trials, METH_VARARGS | METH_KEYWORDS,
	  "S0's trials at the fast fidelity: exact prefix, extrapolation over whole refresh periods" },
	{ NULL, NULL, 0, NULL },
};

int sgpy_register_fast(PyObject *m)
{
	return PyModule_AddFunctions(m, fast_methods);
}
