// SPDX-License-Identifier: MIT
/*
 * test_dram.c - unit tests of the virtual board's DRAM timing model
 * (csrc/vboard/dram.c) against first principles and the DDR4 figures of
 * reference/calibration.md: row hit ~17 ns, closed row ~30 ns, row conflict
 * ~45 ns for DDR4-2400 without controller; refresh every tREFI costing tRFC.
 */
#include <stdio.h>
#include <string.h>

#include "mem/dram.h"

/* ---- tiny harness (as test_driver.c) -------------------------------------- */

#include "harness.h"

#define CHECK_NEAR(a, b, tol) do { \
	double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol); \
	if (!(a_ - b_ <= t_ && b_ - a_ <= t_)) { \
		checks_failed_in_test++; \
		printf("  FAIL %s:%d: %s ~ %s (%.0f vs %.0f, tolerance %.0f)\n", __FILE__, __LINE__, \
		       #a, #b, a_, b_, t_); \
	} \
} while (0)

/* ---- parameters ------------------------------------------------------------ */

#define NS 1000ull   /* ps */

/* DDR4-2400, Micron MT40A512M16 -083E bin (calibration.md), four x16 devices. */
static struct vb_dram_params ddr4(void)
{
	return (struct vb_dram_params){
		.tck_ns = 0.833333, .bus_bytes = 8, .burst_len = 8, .cl = 16, .cwl = 12,
		.trcd_ns = 13.32, .trp_ns = 13.32, .tras_ns = 32.0, .trrd_s_ns = 5.3, .trrd_l_ns = 6.4,
		.tfaw_ns = 30.0, .twtr_ns = 7.5, .trtw_ns = 8.333333, .tccd_l_ns = 5.0, .trtp_ns = 7.5,
		.twr_ns = 15.0, .trefi_ns = 0, .trfc_ns = 350.0, .bank_groups = 2, .banks_per_group = 4,
		.row_bytes = 8192, .mapping = 0, .interleave_bytes = 64, .ctrl_latency_ns = 0.0,
		.efficiency_cap = 0.0, .enabled = 1,
	};
}

/* DDR3-1066F, 32-bit, 8 banks, no bank groups. */
static struct vb_dram_params ddr3(void)
{
	return (struct vb_dram_params){
		.tck_ns = 1.875, .bus_bytes = 4, .burst_len = 8, .cl = 7, .cwl = 6,
		.trcd_ns = 13.125, .trp_ns = 13.125, .tras_ns = 37.5, .trrd_s_ns = 7.5, .trrd_l_ns = 7.5,
		.tfaw_ns = 37.5, .twtr_ns = 7.5, .trtw_ns = 13.125, .tccd_l_ns = 7.5, .trtp_ns = 7.5,
		.twr_ns = 15.0, .trefi_ns = 7800.0, .trfc_ns = 160.0, .bank_groups = 1, .banks_per_group = 8,
		.row_bytes = 4096, .mapping = 0, .interleave_bytes = 64, .ctrl_latency_ns = 56.0,
		.efficiency_cap = 0.0, .enabled = 1,
	};
}

static uint64_t read_at(struct vb_dram *d, uint64_t t, uint64_t addr, uint32_t len, uint64_t *done)
{
	return vb_dram_access(d, t, addr, len, false, done);
}

/* ---- tests ----------------------------------------------------------------- */

static void test_derived_timings(void)
{
	struct vb_dram_params p = ddr4();
	struct vb_dram d;
	char err[200];

	CHECK_EQ(vb_dram_check(&p, err, sizeof(err)), 0);
	vb_dram_init(&d, &p, 0);
	CHECK_EQ(d.t_burst, 3333);          /* BL8 = 4 tCK */
	CHECK_EQ(d.t_cl, 13333);            /* 16 tCK */
	CHECK_EQ(d.t_rcd, 13333);           /* 13.32 ns -> 16 clocks (JEDEC rounding) */
	CHECK_EQ(d.t_rp, 13333);
	CHECK_EQ(d.t_ras, 32500);           /* 32 ns -> 39 clocks */
	CHECK_EQ(d.t_ccd_l, 5000);          /* 6 clocks */
	CHECK_EQ(d.t_faw, 30000);           /* 36 clocks */
	CHECK_EQ(d.n_banks, 8);
	CHECK_EQ(vb_dram_next_refresh(&d, 0), VB_DRAM_NO_TIME);   /* trefi 0: no refresh */
}

static void test_closed_hit_conflict_latency(void)
{
	struct vb_dram_params p = ddr4();
	struct vb_dram d;
	uint64_t t, first, done, closed, hit, conflict;
	const uint64_t stripe = 8192 * 8;   /* same bank, next row */

	vb_dram_init(&d, &p, 0);
	/* closed row: ACT, tRCD, CAS, CL, one BL8 */
	t = 1000 * NS;
	first = read_at(&d, t, 0, 64, &done);
	closed = done - t;
	CHECK_EQ(first - t, d.t_rcd + d.t_cl);
	CHECK_EQ(closed, d.t_rcd + d.t_cl + d.t_burst);
	CHECK_NEAR(closed, 30 * NS, 1 * NS);              /* calibration.md: closed row ~30 ns */
	/* row hit */
	t = 2000 * NS;
	first = read_at(&d, t, 64, 64, &done);
	hit = done - t;
	CHECK_EQ(first - t, d.t_cl);
	CHECK_NEAR(hit, 17 * NS, 1 * NS);                 /* row hit ~17 ns */
	/* row conflict: PRE, tRP, ACT, tRCD, CAS, CL */
	t = 3000 * NS;
	first = read_at(&d, t, stripe, 64, &done);
	conflict = done - t;
	CHECK_EQ(conflict, d.t_rp + d.t_rcd + d.t_cl + d.t_burst);
	CHECK_NEAR(conflict, 45 * NS, 2 * NS);            /* row conflict ~45 ns (tRC-based) */
	CHECK_EQ(d.stats.row_misses, 1);
	CHECK_EQ(d.stats.row_hits, 1);
	CHECK_EQ(d.stats.row_conflicts, 1);
	CHECK_EQ(d.stats.reads, 3);

	/* the controller pipeline adds to both returned times */
	p.ctrl_latency_ns = 83.3;
	vb_dram_init(&d, &p, 0);
	t = 1000 * NS;
	first = read_at(&d, t, 0, 64, &done);
	CHECK_EQ(first - t, d.t_rcd + d.t_cl + 83300);
	CHECK_EQ(done - t, d.t_rcd + d.t_cl + d.t_burst + 83300);

	/* tRAS: a conflict right after the ACT waits for ACT + tRAS before PRE */
	p.ctrl_latency_ns = 0;
	vb_dram_init(&d, &p, 0);
	read_at(&d, 0, 0, 64, &done);
	first = read_at(&d, 0, stripe, 64, &done);
	CHECK_EQ(first, d.t_ras + d.t_rp + d.t_rcd + d.t_cl);
}

static void test_row_streams_at_bus_rate(void)
{
	struct vb_dram_params p = ddr4();
	struct vb_dram d;
	uint64_t first, done, prev_done = 0, t0 = 0;
	const double bus_rate = 8.0 * 2 / 0.833333e3;      /* bytes per ps */
	double rate;

	/* one long request inside a row */
	vb_dram_init(&d, &p, 0);
	first = read_at(&d, 0, 0, 8192, &done);
	rate = 8192.0 / (double)(done - first);
	CHECK(rate <= bus_rate * 1.0001);
	CHECK(rate >= bus_rate * 0.99);
	CHECK_EQ(d.stats.row_misses, 1);
	CHECK_EQ(d.stats.row_hits + d.stats.row_conflicts, 0);
	CHECK_EQ(done - first, 128 * d.t_burst);

	/* the same as a write */
	vb_dram_init(&d, &p, 0);
	first = vb_dram_access(&d, 0, 0, 8192, true, &done);
	CHECK_EQ(first, d.t_rcd + d.t_cwl);
	CHECK_EQ(done - first, 128 * d.t_burst);

	/* sequential 512-byte requests (a DMA's bursts), bank-interleaved map:
	 * row hits after the first lap over the banks, at the bus rate */
	p.mapping = 1;
	vb_dram_init(&d, &p, 0);
	for (unsigned i = 0; i < 128; i++) {                  /* 64 KiB = one row in every bank */
		first = read_at(&d, 0, (uint64_t)i * 512, 512, &done);
		if (i == 0)
			t0 = first;
		else
			CHECK(first == prev_done);                  /* back to back on the bus */
		prev_done = done;
	}
	rate = 65536.0 / (double)(prev_done - t0);
	CHECK(rate >= bus_rate * 0.99);
	CHECK_EQ(d.stats.row_misses, 8);
	CHECK_EQ(d.stats.row_hits, 127 * 8);
	CHECK_EQ(d.stats.row_conflicts, 0);

	/* row:bank:column: back-to-back requests to one bank group pay tCCD_L
	 * (6 clocks) instead of a burst (4 clocks) between them */
	p.mapping = 0;
	vb_dram_init(&d, &p, 0);
	read_at(&d, 0, 0, 64, &done);
	first = read_at(&d, 0, 64, 64, &done);
	CHECK_EQ(first, d.t_rcd + d.t_cl + d.t_ccd_l);
	/* a request across a row boundary opens the next bank too */
	vb_dram_init(&d, &p, 0);
	first = read_at(&d, 0, 8192 - 256, 512, &done);
	CHECK_EQ(d.stats.row_misses, 2);
	CHECK_EQ(done - first, 8 * d.t_burst);               /* the second ACT hides behind the first half */
}

static void test_act_spacing(void)
{
	struct vb_dram_params p = ddr4();
	struct vb_dram d;
	uint64_t first[8], done;

	/* eight reads, one per bank (row:bank:column, banks row_bytes apart), all at t = 0 */
	vb_dram_init(&d, &p, 0);
	for (unsigned i = 0; i < 8; i++)
		first[i] = read_at(&d, 0, (uint64_t)i * 8192, 64, &done);
	CHECK_EQ(d.stats.row_misses, 8);
	/* ACTs: 0, tRRD_S (other group), then tRRD_S / tRRD_L, and the fifth waits for tFAW */
	CHECK_EQ(first[0], d.t_rcd + d.t_cl);
	CHECK_EQ(first[1] - first[0], d.t_rrd_s);
	CHECK(first[2] - first[0] >= d.t_rrd_l);
	CHECK(first[4] - first[0] >= d.t_faw);
	CHECK_EQ(first[4] - first[0], d.t_faw);
	for (unsigned i = 1; i < 8; i++)
		CHECK(first[i] >= first[i - 1] + d.t_burst);

	/* two ACTs in one bank group (banks 0 and 2): tRRD_L, not tRRD_S */
	vb_dram_init(&d, &p, 0);
	first[0] = read_at(&d, 0, 0, 64, &done);
	first[1] = read_at(&d, 0, 2 * 8192, 64, &done);
	CHECK_EQ(first[1] - first[0], d.t_rrd_l);
	CHECK(d.t_rrd_l > d.t_rrd_s);

	/* bank-interleaved map: a bank whose only chunk went out before the
	 * stream stalled on a later bank may be precharged tRTP after that
	 * chunk's CAS, not after the stall */
	p.mapping = 1;
	vb_dram_init(&d, &p, 0);
	read_at(&d, 0, 0, 6 * 64, &done);                          /* banks 0-5: row 0 */
	read_at(&d, 0, 65536 + 6 * 64, 2 * 64, &done);             /* banks 6, 7: row 1 */
	first[0] = read_at(&d, 1000 * NS, 0, 512, &done);          /* 6 hits, then 2 conflicts stall */
	CHECK_EQ(first[0], 1000 * NS + d.t_cl);
	CHECK(done > first[0] + 8 * d.t_burst);                    /* the stall */
	first[1] = read_at(&d, 1000 * NS, 2 * 65536, 64, &done);   /* bank 0, row 2 */
	CHECK(first[1] <= 1000 * NS + d.t_rtp + d.t_rp + d.t_rcd + d.t_cl + d.t_rrd_s);
	CHECK(first[1] >= 1000 * NS + d.t_rtp + d.t_rp + d.t_rcd + d.t_cl);
}

static void test_turnaround(void)
{
	struct vb_dram_params p = ddr4();
	struct vb_dram d;
	uint64_t r1, r1_done, w, w_done, r2, r2_done, rr[3], done;

	/* row open, then read -> write -> read to it, all arriving together */
	vb_dram_init(&d, &p, 0);
	read_at(&d, 0, 0, 64, &done);
	r1 = read_at(&d, 1000 * NS, 0, 64, &r1_done);
	w = vb_dram_access(&d, 1000 * NS, 4096, 64, true, &w_done);
	r2 = read_at(&d, 1000 * NS, 0, 64, &r2_done);
	/* write CAS >= read CAS + tRTW; write data = CAS + CWL */
	CHECK_EQ(w, (r1 - d.t_cl) + d.t_rtw + d.t_cwl);
	/* read CAS >= end of write data + tWTR */
	CHECK_EQ(r2, w_done + d.t_wtr + d.t_cl);
	CHECK_EQ(d.stats.writes, 1);

	/* the same three as reads: tCCD_L apart only */
	vb_dram_init(&d, &p, 0);
	read_at(&d, 0, 0, 64, &done);
	for (unsigned i = 0; i < 3; i++)
		rr[i] = read_at(&d, 1000 * NS, i == 1 ? 4096 : 0, 64, &done);
	CHECK(r2 - r1 > rr[2] - rr[0]);
	CHECK(r2 - r1 >= rr[2] - rr[0] + d.t_wtr);

	/* read then precharge: a conflict right after a read waits tRTP */
	vb_dram_init(&d, &p, 0);
	read_at(&d, 0, 0, 64, &done);
	r1 = read_at(&d, 1000 * NS, 0, 64, &r1_done);                     /* CAS at 1000 ns */
	r2 = read_at(&d, 1000 * NS, 65536, 64, &r2_done);                 /* same bank, next row */
	CHECK_EQ(r1, 1000 * NS + d.t_cl);
	CHECK_EQ(r2, 1000 * NS + d.t_rtp + d.t_rp + d.t_rcd + d.t_cl);

	/* write then precharge: a conflict after a write waits tWR */
	vb_dram_init(&d, &p, 0);
	vb_dram_access(&d, 0, 0, 64, true, &w_done);
	r1 = read_at(&d, 1000 * NS, 65536, 64, &r1_done);
	CHECK_EQ(r1, 1000 * NS + d.t_rp + d.t_rcd + d.t_cl);          /* long after: no wait */
	vb_dram_init(&d, &p, 0);
	vb_dram_access(&d, 0, 0, 64, true, &w_done);
	r1 = read_at(&d, 0, 65536, 64, &r1_done);
	CHECK(r1 >= w_done + d.t_wr + d.t_rp + d.t_rcd + d.t_cl);
}

static void test_refresh(void)
{
	struct vb_dram_params p = ddr4();
	struct vb_dram d;
	const uint64_t phase = 1234567, refi = 7800 * NS, rfc = 350 * NS;
	uint64_t first, done, w;

	p.trefi_ns = 7800;
	vb_dram_init(&d, &p, phase + 5 * refi);             /* phase taken modulo tREFI */
	CHECK_EQ(d.refresh_phase, phase);
	CHECK_EQ(vb_dram_next_refresh(&d, 0), phase);
	CHECK_EQ(vb_dram_next_refresh(&d, phase), phase);
	CHECK_EQ(vb_dram_next_refresh(&d, phase + 1), phase + refi);
	CHECK_EQ(vb_dram_next_refresh(&d, phase + 1000 * refi), phase + 1000 * refi);

	/* arriving at a window's start: waits tRFC, then a closed row */
	first = read_at(&d, phase, 0, 64, &done);
	CHECK_EQ(first, phase + rfc + d.t_rcd + d.t_cl);
	CHECK_EQ(d.stats.refresh_stalls, 1);
	CHECK_EQ(d.stats.refresh_stall_ps, rfc);            /* stall = tRFC */

	/* arriving inside a window: waits until its end; the open row was closed */
	w = phase + refi;
	read_at(&d, w - 1000 * NS, 0, 64, &done);           /* row hit before the window */
	CHECK_EQ(d.stats.row_hits, 1);
	first = read_at(&d, w + 100 * NS, 0, 64, &done);
	CHECK_EQ(first, w + rfc + d.t_rcd + d.t_cl);
	CHECK_EQ(d.stats.row_misses, 2);
	CHECK_EQ(d.stats.refresh_stalls, 2);
	CHECK_EQ(d.stats.refresh_stall_ps, rfc + rfc - 100 * NS);   /* blocked for the rest of the window */

	/* running into a window: the bursts that fit go first, the rest after it */
	w = phase + 2 * refi;
	read_at(&d, w - 2000 * NS, 0, 64, &done);           /* row hit (opened after the last window) */
	first = read_at(&d, w - 30 * NS, 0, 4096, &done);
	CHECK(first < w);
	CHECK(first + d.t_burst <= w);
	CHECK_EQ(d.stats.refresh_stalls, 3);
	/* after the window: ACT + tRCD + CL, then the remaining bursts */
	{
		uint64_t before = (w - first) / d.t_burst;     /* bursts that fit */
		CHECK_EQ(done, w + rfc + d.t_rcd + d.t_cl + (64 - before) * d.t_burst);
	}

	/* a window falling inside a bank's chunk (interleave 4 bursts): the cut is
	 * at the first burst that does not fit, not at the next bank's piece */
	{
		struct vb_dram e;
		struct vb_dram_params q = p;
		uint64_t cut, w2 = phase + 3 * refi;

		q.mapping = 1;
		q.interleave_bytes = 256;
		vb_dram_init(&e, &q, phase);
		read_at(&e, w2 - 2000 * NS, 0, 2048, &done);                /* open a row in every bank */
		first = read_at(&e, w2 - 33 * NS, 0, 2048, &done);          /* all hits, 5 bursts fit */
		cut = (w2 - first) / e.t_burst;
		CHECK(cut % 4 != 0);
		CHECK_EQ(first, w2 - 33 * NS + e.t_cl);
		CHECK_EQ(e.stats.refresh_stalls, 1);
		/* after the window: ACT bank (cut / 4), tRCD, CL, then the remaining bursts */
		CHECK(done >= w2 + rfc + e.t_rcd + e.t_cl + (32 - cut) * e.t_burst);
		CHECK(done <= w2 + rfc + e.t_rcd + e.t_cl + (32 - cut) * e.t_burst + 2 * e.t_faw);
		CHECK_EQ(e.bus_free, done);
	}

	/* windows every tREFI with the given phase; a window passing while the
	 * memory is idle closes the rows too */
	for (unsigned k = 3; k < 40; k++) {
		uint64_t ws = phase + k * refi, s0 = d.stats.refresh_stalls, m0 = d.stats.row_misses;
		uint64_t h0 = d.stats.row_hits;
		CHECK_EQ(vb_dram_next_refresh(&d, ws - 1000 * NS), ws);
		first = read_at(&d, ws - 1000 * NS, 0, 64, &done);  /* before: not stalled, a hit */
		CHECK(done <= ws);
		CHECK_EQ(d.stats.refresh_stalls, s0);
		CHECK_EQ(d.stats.row_hits, h0 + 1);
		if (k & 1) {
			first = read_at(&d, ws + 1 * NS, 0, 64, &done);     /* inside: waits */
			CHECK_EQ(first, ws + rfc + d.t_rcd + d.t_cl);
			CHECK_EQ(d.stats.refresh_stalls, s0 + 1);
		} else {
			first = read_at(&d, ws + rfc + 500 * NS, 0, 64, &done);   /* after: not stalled */
			CHECK_EQ(first, ws + rfc + 500 * NS + d.t_rcd + d.t_cl);
			CHECK_EQ(d.stats.refresh_stalls, s0);
		}
		CHECK_EQ(d.stats.row_misses, m0 + 1);               /* the window closed the row */
	}

	/* the refresh is visible: reads at a steady rate see a latency tail of ~tRFC */
	vb_dram_init(&d, &p, phase);
	{
		uint64_t worst = 0, slow = 0, inside = 0, n = 0;
		for (uint64_t t = 0; t < 100 * refi; t += 97 * NS, n++) {
			uint64_t w = vb_dram_next_refresh(&d, t > rfc ? t - rfc + 1 : 0);
			first = read_at(&d, t, 0, 64, &done);
			if (done - t > worst)
				worst = done - t;
			if (done - t > 100 * NS)
				slow++;
			if (t >= w)
				inside++;
		}
		CHECK(worst >= rfc);
		/* arriving up to CL + a burst before a window, then tRFC, ACT, CL, burst */
		CHECK(worst <= d.t_cl + d.t_burst + rfc + d.t_rcd + d.t_cl + d.t_burst);
		/* every read arriving in a window stalls, plus at most one per window
		 * arriving too late to finish before it; that is (tRFC + CL + BL/2) /
		 * tREFI = 4.7 % of the reads */
		CHECK(d.stats.refresh_stalls >= inside && d.stats.refresh_stalls <= inside + 100);
		CHECK(d.stats.refresh_stalls >= slow);
		CHECK(d.stats.refresh_stalls * 1000 >= n * 40 && d.stats.refresh_stalls * 1000 <= n * 55);
	}
}

static void test_ideal_mode(void)
{
	struct vb_dram_params p = ddr4();
	struct vb_dram d;
	uint64_t done;

	p.enabled = 0;
	p.trefi_ns = 7800;
	vb_dram_init(&d, &p, 12345);
	CHECK_EQ(vb_dram_access(&d, 777, 0, 1 << 20, false, &done), 777);
	CHECK_EQ(done, 777);
	CHECK_EQ(vb_dram_access(&d, 777, 0, 64, true, &done), 777);
	CHECK_EQ(done, 777);
	CHECK_EQ(vb_dram_access(&d, 1000000, 0, 64, true, NULL), 1000000);
	CHECK_EQ(d.stats.reads, 1);
	CHECK_EQ(d.stats.writes, 2);
	CHECK_EQ(d.stats.row_hits + d.stats.row_misses + d.stats.row_conflicts, 0);
	CHECK_EQ(vb_dram_next_refresh(&d, 0), VB_DRAM_NO_TIME);
}

static void test_check_messages(void)
{
	struct vb_dram_params p;
	char err[200];

#define REJECT(field, val, word) do { \
	p = ddr4(); \
	p.field = val; \
	err[0] = 0; \
	CHECK_EQ(vb_dram_check(&p, err, sizeof(err)), -1); \
	CHECK(strstr(err, word) != NULL); \
} while (0)
	p = ddr4();
	CHECK_EQ(vb_dram_check(&p, err, sizeof(err)), 0);
	p = ddr3();
	CHECK_EQ(vb_dram_check(&p, err, sizeof(err)), 0);
	REJECT(trefi_ns, 300.0, "dram.trefi_ns");
	REJECT(bank_groups, 3, "dram.bank_groups");
	REJECT(banks_per_group, 6, "dram.banks_per_group");
	REJECT(banks_per_group, 32, "banks");
	REJECT(row_bytes, 3000, "dram.row_bytes");
	REJECT(row_bytes, 32, "dram.row_bytes");
	REJECT(bus_bytes, 6, "dram.bus_bytes");
	REJECT(tck_ns, 0.0, "dram.tck_ns");
	REJECT(trcd_ns, -1.0, "dram.trcd_ns");
	REJECT(mapping, 2, "dram.mapping");
	REJECT(efficiency_cap, 1.5, "dram.efficiency_cap");
	p = ddr4();
	p.mapping = 1;
	p.interleave_bytes = 32;
	CHECK_EQ(vb_dram_check(&p, err, sizeof(err)), -1);
	CHECK(strstr(err, "dram.interleave_bytes") != NULL);
	p.mapping = 0;                                    /* ignored with mapping 0 */
	CHECK_EQ(vb_dram_check(&p, err, sizeof(err)), 0);
#undef REJECT
}

/* xorshift64* for the property tests */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

/* Random traffic: outputs follow arrival, the bus is never over-subscribed, no
 * data moves during a refresh window, and a rerun gives the same numbers. */
static uint64_t property_run(const struct vb_dram_params *p, uint64_t seed, uint64_t phase, unsigned n)
{
	struct vb_dram d;
	uint64_t s = seed, t = 0, prev_first = 0, prev_done = 0, hash = 1469598103934665603ull;
	const uint64_t ctrl = (uint64_t)(p->ctrl_latency_ns * 1000.0 + 0.5);
	uint64_t seq = 0;

	vb_dram_init(&d, p, phase);
	for (unsigned i = 0; i < n; i++) {
		uint64_t r = rnd(&s), addr, first, done, stalls = d.stats.refresh_stalls;
		uint32_t len;
		bool write = (r & 7) == 0;
		unsigned bursts;
		const uint64_t burst_bytes = (uint64_t)p->bus_bytes * p->burst_len;

		switch ((r >> 3) & 3) {
		case 0: t += 0; break;                               /* back to back */
		case 1: t += (r >> 8) % 20000; break;                /* < 20 ns */
		case 2: t += (r >> 8) % 2000000; break;              /* < 2 us */
		default: t += (r >> 8) % 200000; break;
		}
		if ((r >> 30) & 1) {                                 /* sequential stream */
			addr = seq;
			len = 512;
			seq += 512;
		} else {                                             /* random */
			addr = (rnd(&s) % (1ull << 30));
			len = (uint32_t)(1 + rnd(&s) % 4096);
		}
		first = vb_dram_access(&d, t, addr, len, write, &done);
		bursts = (unsigned)(((addr + len - 1) / burst_bytes) - addr / burst_bytes + 1);
		CHECK(first >= t + ctrl + (write ? d.t_cwl : d.t_cl));
		CHECK(done >= first + bursts * d.t_burst);
		CHECK(first >= prev_first);
		CHECK(done >= prev_done);
		CHECK(first >= prev_done);                           /* one request at a time on the bus */
		if (d.stats.refresh_stalls == stalls) {              /* no data inside a refresh window */
			uint64_t w = vb_dram_next_refresh(&d, first - ctrl >= d.t_rfc ? first - ctrl - d.t_rfc + 1 : 0);
			CHECK(w == VB_DRAM_NO_TIME || w >= done - ctrl || w + d.t_rfc <= first - ctrl);
		}
		if (checks_failed_in_test) {
			printf("  at request %u: t %llu addr 0x%llx len %u %s\n", i, (unsigned long long)t,
			       (unsigned long long)addr, len, write ? "write" : "read");
			return 0;
		}
		prev_first = first;
		prev_done = done;
		hash = (hash ^ first) * 1099511628211ull;
		hash = (hash ^ done) * 1099511628211ull;
	}
	hash = (hash ^ d.stats.row_hits) * 1099511628211ull;
	hash = (hash ^ d.stats.row_conflicts) * 1099511628211ull;
	hash = (hash ^ d.stats.refresh_stall_ps) * 1099511628211ull;
	return hash;
}

static void test_random_traffic(void)
{
	struct vb_dram_params p[4] = { ddr4(), ddr4(), ddr3(), ddr4() };

	p[0].trefi_ns = 7800;
	p[1].trefi_ns = 7800;
	p[1].mapping = 1;
	p[1].ctrl_latency_ns = 83.3;
	p[3].trefi_ns = 7800;
	p[3].efficiency_cap = 0.9;
	p[3].mapping = 1;
	p[3].interleave_bytes = 256;
	for (unsigned i = 0; i < 4; i++)
		for (uint64_t seed = 1; seed <= 5; seed++) {
			uint64_t a = property_run(&p[i], seed * 7919, seed * 1000003, 20000);
			uint64_t b = property_run(&p[i], seed * 7919, seed * 1000003, 20000);
			CHECK(a != 0);
			CHECK_EQ(a, b);                               /* deterministic */
		}
}

static double saturated_efficiency(const struct vb_dram_params *p)
{
	struct vb_dram d;
	uint64_t first0 = 0, done = 0, bursts = 0;

	vb_dram_init(&d, p, 5000);
	for (unsigned i = 0; i < 100000; i++) {               /* 51 MB sequential, all queued at 0 */
		uint64_t f = read_at(&d, 0, (uint64_t)i * 512, 512, &done);
		if (i == 0)
			first0 = f;
		bursts += 8;
	}
	return (double)(bursts * d.t_burst) / (double)(done - first0);
}

static void test_bus_bandwidth_saturated(void)
{
	/* Everything queued at once: the bus is busy sum(bursts) x BL/2 clocks
	 * plus the gaps the model explains.  Without refresh the only gaps are the
	 * row-stripe changes every 64 KiB: eight conflicts whose ACTs tRRD/tFAW
	 * spread over >= 47 ns against 27 ns of data (~1 %).  Refresh then costs
	 * tRFC plus the restart (ACT + CL, tFAW again) every tREFI. */
	struct vb_dram_params p = ddr4();
	double e0, e1;

	p.mapping = 1;
	e0 = saturated_efficiency(&p);
	p.trefi_ns = 7800;
	e1 = saturated_efficiency(&p);
	printf("     saturated sequential reads: %.4f of the bus rate, %.4f with refresh\n", e0, e1);
	CHECK(e0 <= 1.0 && e0 > 0.985);
	CHECK(e1 <= e0 - 350.0 / 7800);
	CHECK(e1 >= e0 - (350.0 + 100.0) / 7800);
}

int main(void)
{
	RUN(test_derived_timings);
	RUN(test_closed_hit_conflict_latency);
	RUN(test_row_streams_at_bus_rate);
	RUN(test_act_spacing);
	RUN(test_turnaround);
	RUN(test_refresh);
	RUN(test_ideal_mode);
	RUN(test_check_messages);
	RUN(test_random_traffic);
	RUN(test_bus_bandwidth_saturated);
	return report();
}
