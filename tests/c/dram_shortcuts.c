// SPDX-License-Identifier: MIT
/*
 * dram_shortcuts.c - prints a digest of the DRAM model's answers to DMA-like
 * traffic.  The Makefile builds it twice, with and without
 * -DVB_DRAM_NO_SHORTCUTS (every request through dram.c's general loop), and
 * requires the two outputs to be the same: the all-hit step and the owed
 * precharge bounds must never change a time or a count.
 */
#include <stdio.h>

#include "mem/dram.h"

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 1099511628211ull; }

/* A data mover's bursts through buffers (sequential, then elsewhere), BD reads
 * and STATUS writes in a ring region, writes mixed in; arrivals back to back
 * (a saturated bus) or spread out. */
static uint64_t run(const struct vb_dram_params *p, uint64_t seed, unsigned n)
{
	struct vb_dram d;
	uint64_t s = seed, t = 0, h = 1469598103934665603ull, buf = 0, left = 0, bd = 0;
	uint32_t burst = 2048;

	vb_dram_init(&d, p, seed % 7000000);
	for (unsigned i = 0; i < n; i++) {
		const uint64_t r = rnd(&s);
		uint64_t addr, first, done;
		uint32_t len;
		bool write;

		t += (r & 3) == 0 ? (r >> 8) % 3000000 : (r & 3) == 1 ? (r >> 8) % 200000 : 0;
		if (((r >> 4) & 7) == 0) {                       /* a BD read or STATUS write */
			addr = (1ull << 28) + (bd++ % 64) * 64 + ((r >> 7) & 1 ? 28 : 0);
			len = (r >> 7) & 1 ? 4 : 64;
			write = (r >> 7) & 1;
		} else {
			if (!left) {                                 /* the next buffer */
				buf = (r >> 12) % 3 == 0 ? (rnd(&s) % (1ull << 27)) & ~63ull : buf + 8192;
				left = 64u << (rnd(&s) % 9);             /* 64 B .. 16 KiB */
				burst = 256u << ((r >> 20) % 5);         /* 256 B .. 4 KiB */
			}
			len = (uint32_t)(left < burst ? left : burst);
			addr = buf;
			buf += len;
			left -= len;
			write = ((r >> 24) & 15) == 0;
		}
		first = vb_dram_access(&d, t, addr, len, write, &done);
		h = mix(mix(h, first), done);
		if (((r >> 40) & 31) == 0 && len >= 2048) {
			/* the other direction right behind, then the bank of the first
			 * request's last burst in another row (1 MiB on: same bank) */
			first = vb_dram_access(&d, t, addr + len, len, !write, &done);
			h = mix(mix(h, first), done);
			first = vb_dram_access(&d, t, addr + len - 64 + (1u << 20), 64, false, &done);
			h = mix(mix(h, first), done);
		}
	}
	h = mix(h, d.stats.row_hits);
	h = mix(h, d.stats.row_misses);
	h = mix(h, d.stats.row_conflicts);
	h = mix(h, d.stats.refresh_stalls);
	return mix(h, d.stats.refresh_stall_ps);
}

int main(void)
{
	/* DDR4-2400 x64 as the ZCU111's PL DDR (4 groups x 4 banks, BL8 interleave),
	 * then other interleaves, DDR3 (8 banks, one group) and row:bank:column. */
	const struct vb_dram_params ddr4 = {
		.tck_ns = 0.833333, .bus_bytes = 8, .burst_len = 8, .cl = 16, .cwl = 12,
		.trcd_ns = 13.32, .trp_ns = 13.32, .tras_ns = 32.0, .trrd_s_ns = 3.3, .trrd_l_ns = 4.9,
		.tfaw_ns = 21.0, .twtr_ns = 7.5, .trtw_ns = 8.333333, .tccd_l_ns = 5.0, .trtp_ns = 7.5,
		.twr_ns = 15.0, .trefi_ns = 7800, .trfc_ns = 350.0, .bank_groups = 4, .banks_per_group = 4,
		.row_bytes = 8192, .mapping = 1, .interleave_bytes = 64, .ctrl_latency_ns = 83.3,
		.efficiency_cap = 0.0, .enabled = 1,
	};
	const struct vb_dram_params ddr3 = {
		.tck_ns = 1.875, .bus_bytes = 4, .burst_len = 8, .cl = 7, .cwl = 6,
		.trcd_ns = 13.125, .trp_ns = 13.125, .tras_ns = 37.5, .trrd_s_ns = 7.5, .trrd_l_ns = 7.5,
		.tfaw_ns = 37.5, .twtr_ns = 7.5, .trtw_ns = 13.125, .tccd_l_ns = 7.5, .trtp_ns = 7.5,
		.twr_ns = 15.0, .trefi_ns = 7800.0, .trfc_ns = 160.0, .bank_groups = 1, .banks_per_group = 8,
		.row_bytes = 4096, .mapping = 1, .interleave_bytes = 32, .ctrl_latency_ns = 56.0,
		.efficiency_cap = 0.0, .enabled = 1,
	};
	struct vb_dram_params p[6] = { ddr4, ddr4, ddr4, ddr3, ddr3, ddr4 };

	p[1].interleave_bytes = 256;
	p[2].bank_groups = 2;
	p[2].trtp_ns = 3.0;            /* tWTR + tRTP < tWR: owed bounds of reads and writes cross */
	p[4].mapping = 0;
	p[5].efficiency_cap = 0.8;
	for (unsigned i = 0; i < 6; i++)
		for (uint64_t seed = 1; seed <= 4; seed++)
			printf("%u %llu %016llx\n", i, (unsigned long long)seed,
			       (unsigned long long)run(&p[i], seed * 104729, 40000));
	return 0;
}
