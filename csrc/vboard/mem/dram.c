/*
 * dram.c - DRAM controller + device timing model.  See dram.h for the
 * semantics and every simplification.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "dram.h"

#define NO_ROW VB_DRAM_NO_TIME

/* Built with -DVB_DRAM_NO_SHORTCUTS (tests/c), every portion takes the general
 * loop and commits eagerly: the test requires the same answers either way. */
#ifdef VB_DRAM_NO_SHORTCUTS
#define SHORTCUTS 0
#else
#define SHORTCUTS 1
#endif

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static bool pow2(unsigned x) { return x && !(x & (x - 1)); }

static unsigned log2u(unsigned x)
{
	unsigned n = 0;
	while (x > 1) {
		x >>= 1;
		n++;
	}
	return n;
}

static uint64_t ps_round(double ps) { return ps > 0 ? (uint64_t)(ps + 0.5) : 0; }

/* A timing in ns as whole clocks, rounded up with JEDEC's 2.5 % tolerance
 * (JESD79-4 "rounding algorithm"), back in ps.  0 stays 0. */
static uint64_t clocks_ps(double ns, double tck_ns)
{
	double x;
	uint64_t n;

	if (!(ns > 0))
		return 0;
	x = ns / tck_ns - 0.025;
	n = x > 0 ? (uint64_t)x : 0;
	if ((double)n < x)
		n++;
	if (n == 0)
		n = 1;
	return ps_round((double)n * tck_ns * 1000.0);
}

/* ---- parameters ----------------------------------------------------------- */

int vb_dram_check(const struct vb_dram_params *p, char *err, size_t n)
{
	const struct { const char *name; double v; } t[] = {
		{ "trcd_ns", p->trcd_ns }, { "trp_ns", p->trp_ns }, { "tras_ns", p->tras_ns },
		{ "trrd_s_ns", p->trrd_s_ns }, { "trrd_l_ns", p->trrd_l_ns }, { "tfaw_ns", p->tfaw_ns },
		{ "twtr_ns", p->twtr_ns }, { "trtw_ns", p->trtw_ns }, { "tccd_l_ns", p->tccd_l_ns },
		{ "trtp_ns", p->trtp_ns }, { "twr_ns", p->twr_ns }, { "trefi_ns", p->trefi_ns },
		{ "trfc_ns", p->trfc_ns }, { "ctrl_latency_ns", p->ctrl_latency_ns },
	};
	unsigned burst_bytes, banks;
	double row_cycle;
#define FAIL(...) do { if (err && n) snprintf(err, n, __VA_ARGS__); return -1; } while (0)
	if (p->enabled > 1)
		FAIL("dram.enabled = %u: must be 0 (ideal memory) or 1 (timed DRAM)", p->enabled);
	if (!(p->tck_ns > 0) || p->tck_ns > 100)
		FAIL("dram.tck_ns = %g: the memory clock period must be in (0, 100] ns", p->tck_ns);
	if (!pow2(p->bus_bytes) || p->bus_bytes > 128)
		FAIL("dram.bus_bytes = %u: must be a power of two, 1..128 bytes", p->bus_bytes);
	if (p->burst_len < 2 || p->burst_len > 16 || !pow2(p->burst_len))
		FAIL("dram.burst_len = %u: must be 2, 4, 8 or 16 (DDR3/DDR4: 8)", p->burst_len);
	if (p->cl < 1 || p->cl > 64)
		FAIL("dram.cl = %u: CAS latency must be 1..64 clocks", p->cl);
	if (p->cwl < 1 || p->cwl > 64)
		FAIL("dram.cwl = %u: CAS write latency must be 1..64 clocks", p->cwl);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!(t[i].v >= 0) || t[i].v > 1e7)
			FAIL("dram.%s = %g: must be a finite time >= 0 ns", t[i].name, t[i].v);
	if (!pow2(p->bank_groups) || p->bank_groups > VB_DRAM_MAX_GROUPS)
		FAIL("dram.bank_groups = %u: must be a power of two, 1..%u (DDR3: 1)", p->bank_groups,
		     VB_DRAM_MAX_GROUPS);
	if (!pow2(p->banks_per_group))
		FAIL("dram.banks_per_group = %u: must be a power of two", p->banks_per_group);
	banks = p->bank_groups * p->banks_per_group;
	if (banks > VB_DRAM_MAX_BANKS)
		FAIL("dram.bank_groups x dram.banks_per_group = %u: at most %u banks", banks, VB_DRAM_MAX_BANKS);
	burst_bytes = p->bus_bytes * p->burst_len;
	if (!pow2(p->row_bytes) || p->row_bytes < burst_bytes || p->row_bytes > (1u << 20))
		FAIL("dram.row_bytes = %u: must be a power of two, from one burst (bus_bytes x burst_len = %u) "
		     "to 1 MiB", p->row_bytes, burst_bytes);
	if (p->mapping > 1)
		FAIL("dram.mapping = %u: 0 = row:bank:column, 1 = row:column-high:bank:column-low", p->mapping);
	if (p->mapping == 1 && (!pow2(p->interleave_bytes) || p->interleave_bytes < burst_bytes ||
				p->interleave_bytes > p->row_bytes))
		FAIL("dram.interleave_bytes = %u: with mapping 1 must be a power of two from one burst (%u) to "
		     "dram.row_bytes (%u)", p->interleave_bytes, burst_bytes, p->row_bytes);
	if (!(p->efficiency_cap >= 0) || p->efficiency_cap > 1)
		FAIL("dram.efficiency_cap = %g: must be 0 (none) or in (0, 1]", p->efficiency_cap);
	if (p->efficiency_cap > 0 && p->efficiency_cap < 0.05)
		FAIL("dram.efficiency_cap = %g: below 5 %% is not a memory controller", p->efficiency_cap);
	if (p->trefi_ns > 0) {
		if (!(p->trfc_ns > 0))
			FAIL("dram.trfc_ns = %g: must be > 0 when refresh is on (dram.trefi_ns > 0)", p->trfc_ns);
		if (!(p->trefi_ns > p->trfc_ns))
			FAIL("dram.trefi_ns = %g must exceed dram.trfc_ns = %g (or be 0: no refresh)",
			     p->trefi_ns, p->trfc_ns);
		/* Between two windows there must be room for at least one access. */
		row_cycle = p->trcd_ns + p->trp_ns + p->tras_ns + p->tfaw_ns + p->trrd_l_ns + p->twtr_ns +
			    p->trtw_ns + p->tccd_l_ns +
			    (double)((p->cl > p->cwl ? p->cl : p->cwl) + 2 * p->burst_len) * p->tck_ns /
			    (p->efficiency_cap > 0 ? p->efficiency_cap : 1.0);
		if (!(p->trefi_ns > p->trfc_ns + row_cycle))
			FAIL("dram.trefi_ns = %g must exceed dram.trfc_ns = %g plus one access (%g ns)",
			     p->trefi_ns, p->trfc_ns, row_cycle);
	}
#undef FAIL
	return 0;
}

static void settle_all(struct vb_dram *d);

static void close_all(struct vb_dram *d, uint64_t t_act_ok)
{
	settle_all(d);
	d->urow = NO_ROW;
	for (unsigned i = 0; i < d->n_banks; i++) {
		d->bank[i].row = NO_ROW;
		d->bank[i].t_act_ok = t_act_ok;
	}
}

void vb_dram_init(struct vb_dram *d, const struct vb_dram_params *p, uint64_t refresh_phase_ps)
{
	const double tck = p->tck_ns;
	double tb = p->burst_len / 2.0 * tck * 1000.0;
	unsigned chunk = p->mapping == 1 ? p->interleave_bytes : p->row_bytes;

	memset(d, 0, sizeof(*d));
	d->p = *p;
	if (p->efficiency_cap > 0)
		tb /= p->efficiency_cap;
	d->t_burst = ps_round(tb) ? ps_round(tb) : 1;
	d->t_cl = ps_round(p->cl * tck * 1000.0);
	d->t_cwl = ps_round(p->cwl * tck * 1000.0);
	d->t_rcd = clocks_ps(p->trcd_ns, tck);
	d->t_rp = clocks_ps(p->trp_ns, tck);
	d->t_ras = clocks_ps(p->tras_ns, tck);
	d->t_rrd_s = clocks_ps(p->trrd_s_ns, tck);
	d->t_rrd_l = clocks_ps(p->trrd_l_ns, tck);
	d->t_faw = clocks_ps(p->tfaw_ns, tck);
	d->t_wtr = clocks_ps(p->twtr_ns, tck);
	d->t_rtw = clocks_ps(p->trtw_ns, tck);
	d->t_ccd_l = clocks_ps(p->tccd_l_ns, tck);
	d->t_rtp = clocks_ps(p->trtp_ns, tck);
	d->t_wr = clocks_ps(p->twr_ns, tck);
	d->t_refi = ps_round(p->trefi_ns * 1000.0);
	d->t_rfc = ps_round(p->trfc_ns * 1000.0);
	d->t_ctrl = ps_round(p->ctrl_latency_ns * 1000.0);

	d->burst_shift = log2u(p->bus_bytes * p->burst_len);
	d->chunk_shift = log2u(chunk) - d->burst_shift;
	d->n_banks = p->bank_groups * p->banks_per_group;
	d->bank_shift = log2u(d->n_banks);
	d->bank_mask = d->n_banks - 1;
	d->group_mask = p->bank_groups - 1;
	d->stripe_shift = log2u(p->row_bytes) - d->burst_shift + d->bank_shift;
	close_all(d, 0);

	if (p->enabled && d->t_refi) {
		d->refresh_phase = refresh_phase_ps % d->t_refi;
		d->ref_start = d->refresh_phase;
		d->ref_end = d->ref_start + d->t_rfc;
	} else {
		d->refresh_phase = 0;
		d->ref_start = d->ref_end = VB_DRAM_NO_TIME;
	}
}

uint64_t vb_dram_next_refresh(const struct vb_dram *d, uint64_t t)
{
	uint64_t k;

	if (!d->p.enabled || !d->t_refi)
		return VB_DRAM_NO_TIME;
	if (t <= d->refresh_phase)
		return d->refresh_phase;
	k = (t - d->refresh_phase + d->t_refi - 1) / d->t_refi;
	return d->refresh_phase + k * d->t_refi;
}

/* Windows that ended by t (the memory idle meanwhile) closed every row. */
static void pass_windows(struct vb_dram *d, uint64_t t)
{
	if (t < d->ref_end)
		return;
	if (t - d->ref_end < d->t_refi)
		d->ref_start += d->t_refi;
	else
		d->ref_start = vb_dram_next_refresh(d, t - d->t_rfc + 1);
	d->ref_end = d->ref_start + d->t_rfc;
	close_all(d, 0);
}

/* ---- one row stripe of a request ------------------------------------------ */

struct portion {
	uint64_t t0;     /* start of the portion's first burst */
	uint64_t t_end;  /* end of its last transferred burst */
};

/* ---- precharge bounds owed by a long portion ------------------------------
 * A portion of at least two laps of every bank leaves each bank a PRE bound
 * (tRTP / tWR after its last burst) that follows from the portion's base
 * alone; it is kept as one record and applied to a bank only when the bank's
 * t_pre_ok is next read (a row conflict) or the rows close.  Exact: t_pre_ok
 * is a maximum, and a later record of the same direction bounds every bank
 * later than the one it replaces (its bursts all follow the earlier ones). */

static inline void settle_bank(struct vb_dram *d, unsigned bk)
{
	const struct vb_dram_owed *o = &d->owed;

	if (o->on) {
		const uint64_t k = (o->last_c - bk) & d->bank_mask;   /* chunks from the bank's last to the last */
		struct vb_dram_bank *b = &d->bank[bk];
		b->t_pre_ok = max64(b->t_pre_ok, k ? o->full - k * o->step : o->at_last);
	}
}

static void settle_all(struct vb_dram *d)
{
	if (!d->owed.on)
		return;
	for (unsigned i = 0; i < d->n_banks; i++)
		settle_bank(d, i);
	d->owed.on = false;
}

/* When bank bk (group g) can take a CAS for `row` of a request arriving at ta:
 * a row hit waits for tRCD of the open row; otherwise *act is the ACT time
 * (after tRP of a conflict's PRE, tRRD_S/L and tFAW).  tCCD_L to the group. */
static inline uint64_t cas_time(struct vb_dram *d, unsigned bk, unsigned g, uint64_t row, uint64_t ta, uint64_t *act)
{
	const struct vb_dram_bank *b = &d->bank[bk];
	uint64_t cas, a;

	if (b->row == row) {
		cas = max64(ta, b->t_cas_ok);
	} else {
		if (b->row == NO_ROW) {
			a = max64(ta, b->t_act_ok);
		} else {
			settle_bank(d, bk);
			a = max64(ta, b->t_pre_ok) + d->t_rp;
		}
		a = max64(a, d->act_ok_any);
		a = max64(a, d->act_ok_group[g]);
		a = max64(a, d->faw[d->faw_i]);
		*act = a;
		cas = a + d->t_rcd;
	}
	return max64(cas, d->cas_ok_group[g]);
}

/* Commit the piece's row: a hit counts; a miss or conflict opens `row` with
 * its ACT at act and books the ACT-to-ACT windows. */
static inline __attribute__((always_inline)) void open_row(struct vb_dram *d, struct vb_dram_bank *b, unsigned g,
						     uint64_t row, uint64_t act)
{
	if (b->row == row) {
		d->stats.row_hits++;
		return;
	}
	if (b->row == NO_ROW)
		d->stats.row_misses++;
	else
		d->stats.row_conflicts++;
	if (row == d->urow)
		d->off &= ~(1u << (b - d->bank));
	else
		d->off |= 1u << (b - d->bank);
	b->row = row;
	b->t_cas_ok = act + d->t_rcd;
	d->cas_ok_max = max64(d->cas_ok_max, b->t_cas_ok);
	b->t_pre_ok = act + d->t_ras;
	d->act_ok_any = act + d->t_rrd_s;
	d->act_ok_group[g] = act + d->t_rrd_l;
	d->faw[d->faw_i] = act + d->t_faw;
	d->faw_i = (d->faw_i + 1) & 3;
}

/* The bus after a portion's data: who may use it next, and when. */
static void bus_after(struct vb_dram *d, uint64_t end, bool write)
{
	const uint64_t tb = d->t_burst;

	d->bus_free = end;
	d->last_write = write;
	d->last_data_end = end;
	if (write)
		d->rd_data_ok = max64(d->rd_data_ok, end + d->t_wtr + d->t_cl);
	else
		d->wr_data_ok = max64(d->wr_data_ok, end - tb - d->t_cl + d->t_rtw + d->t_cwl);
}

/* The common small request: one chunk, so one bank and one piece (a BD
 * fetch, a STATUS write, a burst inside one interleave unit).  The same
 * arithmetic as portion()'s loop and commit for nch = 1, without the loops. */
static inline __attribute__((always_inline)) uint64_t portion_one_bank(struct vb_dram *d, uint64_t ta, uint64_t p0,
								    uint64_t p1, bool write, struct portion *out)
{
	const uint64_t tb = d->t_burst, lat = write ? d->t_cwl : d->t_cl, ref = d->ref_start;
	const uint64_t n = p1 - p0 + 1, row = p0 >> d->stripe_shift;
	const unsigned bk = (unsigned)(p0 >> d->chunk_shift) & d->bank_mask, g = bk & d->group_mask;
	struct vb_dram_bank *b = &d->bank[bk];
	const uint64_t before = max64(d->bus_free, write ? d->wr_data_ok : d->rd_data_ok);
	uint64_t base = before, cas, act = 0, t;

	cas = cas_time(d, bk, g, row, ta, &act);
	base = max64(base, cas + lat);
	out->t0 = base;
	if (base + tb > ref) {                           /* the first burst hits the window */
		out->t_end = before;
		return 0;
	}
	open_row(d, b, g, row, act);
	if (base + n * tb > ref) {                       /* the tail runs into the window */
		uint64_t cut = (ref - base) / tb;
		out->t_end = base + cut * tb;
		d->bus_free = out->t_end;
		return cut;
	}
	t = base + (n - 1) * tb;                         /* the last burst */
	b->t_pre_ok = max64(b->t_pre_ok, write ? t + tb + d->t_wr : t - lat + d->t_rtp);
	d->cas_ok_group[g] = t - lat + d->t_ccd_l;
	bus_after(d, base + n * tb, write);
	out->t_end = d->bus_free;
	return n;
}

/*
 * Bursts p0..p1 (absolute burst numbers, all in one row stripe), commands no
 * earlier than ta.  Returns how many bursts were transferred before the next
 * refresh window: all of them, or fewer if the window cuts the portion (then
 * only the data bus time is committed; the caller closes every row).  At
 * least two chunks (one goes to portion_one_bank).
 *
 * The portion's pieces are its chunks (interleave units), chunk j in bank
 * (c0 + j) mod banks; piece j's first burst is k_j bursts into the portion.
 * Each piece of the first lap may push the whole portion back (its bank's
 * CAS, its group's tCCD_L); later laps find their banks ready.
 */
static inline __attribute__((always_inline)) uint64_t portion(struct vb_dram *d, uint64_t ta, uint64_t p0, uint64_t p1,
							   bool write, struct portion *out)
{
	const uint64_t tb = d->t_burst, lat = write ? d->t_cwl : d->t_cl, ref = d->ref_start;
	const unsigned cs = d->chunk_shift, gmask = d->group_mask;
	const uint64_t n = p1 - p0 + 1, c0 = p0 >> cs, nch = (p1 >> cs) - c0 + 1;
	const unsigned lap = nch < d->n_banks ? (unsigned)nch : d->n_banks;
	const uint64_t row = p0 >> d->stripe_shift;
	const uint64_t kstep = 1ull << cs, koff = p0 - (c0 << cs);   /* k_j = j * kstep - koff, j >= 1 */
	uint64_t pbase[VB_DRAM_MAX_BANKS];                           /* base once piece j is placed */
	unsigned npb;                                                /* pbase[j >= npb] is the final base */

	const uint64_t base0 = max64(d->bus_free, write ? d->wr_data_ok : d->rd_data_ok);
	uint64_t base = base0;

	if (SHORTCUTS && d->urow == row && (ta >= d->cas_ok_max || d->cas_ok_max + lat <= base0)) {
		/* Every bank has the row open but those in `off` (BD reads and
		 * STATUS writes opened other rows there), and the open rows' tRCD
		 * is behind the request (or behind the bus: that bound is in base0
		 * already).  A hit piece then waits only for the request (ta) and
		 * its group's tCCD_L: a later hit piece of a group has its first
		 * piece's bound and starts later, so only the first piece of each
		 * group and the reopened banks can push the portion back.  The
		 * reopened banks take their ACTs in piece order exactly as the loop
		 * below does (hits move no ACT window), on a copy of the windows
		 * until the portion is known to end before the refresh window. */
		const unsigned nb = d->n_banks, npg = gmask + 1 < lap ? gmask + 1 : lap;
		uint64_t oneed[VB_DRAM_MAX_BANKS], oact[VB_DRAM_MAX_BANKS], t0;
		uint32_t offs = 0;                /* the reopened banks this portion touches, bit j: piece j */
		unsigned bk1 = 0;                 /* ... when it is one bank, and its ACT */
		uint64_t act1 = 0;

		if (d->off) {
			const unsigned sh = (unsigned)c0 & d->bank_mask;
			offs = ((d->off >> sh) | (d->off << ((nb - sh) & 31))) & (nb == 32 ? UINT32_MAX : (1u << nb) - 1);
			if (lap < nb)
				offs &= (1u << lap) - 1;
		}

		base = max64(base0, max64(ta, d->cas_ok_group[(unsigned)c0 & gmask]) + lat);
		t0 = pbase[0] = base;
		for (unsigned j = 1; j < npg; j++) {
			const uint64_t k = j * kstep - koff;
			const uint64_t need = max64(ta, d->cas_ok_group[(unsigned)(c0 + j) & gmask]) + lat;
			if (base + k * tb < need)
				base = need - k * tb;
			pbase[j] = base;
		}
		if (offs && !(offs & (offs - 1))) {
			/* one reopened bank: no other piece moves the ACT windows it waits for */
			const unsigned j = (unsigned)__builtin_ctz(offs);
			const uint64_t k = j ? j * kstep - koff : 0;
			uint64_t need;

			bk1 = (unsigned)(c0 + j) & d->bank_mask;
			need = cas_time(d, bk1, bk1 & gmask, row, ta, &act1) + lat;
			oneed[j] = need;
			if (base + k * tb < need)
				base = need - k * tb;
			if (!j)   /* piece 0's own bound, not the hit formula's */
				t0 = max64(base0, need);
		} else if (offs) {
			uint64_t any = d->act_ok_any, grp[VB_DRAM_MAX_GROUPS], faw[4];
			unsigned fi = d->faw_i;

			for (unsigned g = 0; g <= gmask; g++)
				grp[g] = d->act_ok_group[g];
			memcpy(faw, d->faw, sizeof(faw));
			for (uint32_t m = offs; m; m &= m - 1) {
				const unsigned j = (unsigned)__builtin_ctz(m), bk = (unsigned)(c0 + j) & d->bank_mask;
				const unsigned g = bk & gmask;
				const struct vb_dram_bank *b = &d->bank[bk];
				const uint64_t k = j ? j * kstep - koff : 0;
				uint64_t a, need;

				if (b->row == NO_ROW) {
					a = max64(ta, b->t_act_ok);
				} else {
					settle_bank(d, bk);
					a = max64(ta, b->t_pre_ok) + d->t_rp;
				}
				a = max64(max64(a, any), max64(grp[g], faw[fi]));
				any = a + d->t_rrd_s;
				grp[g] = a + d->t_rrd_l;
				faw[fi] = a + d->t_faw;
				fi = (fi + 1) & 3;
				need = max64(a + d->t_rcd, d->cas_ok_group[g]) + lat;
				oact[j] = a;
				oneed[j] = need;
				if (base + k * tb < need)
					base = need - k * tb;
				if (!j)   /* piece 0's own bound, not the hit formula's */
					t0 = max64(base0, need);
			}
		}
		if (base + n * tb <= ref) {       /* no window: the loop below would take the same steps */
			out->t0 = t0;
			d->stats.row_hits += lap;
			if (offs && !(offs & (offs - 1))) {
				d->stats.row_hits--;
				open_row(d, &d->bank[bk1], bk1 & gmask, row, act1);
			} else for (uint32_t m = offs; m; m &= m - 1) {
				const unsigned j = (unsigned)__builtin_ctz(m), bk = (unsigned)(c0 + j) & d->bank_mask;
				d->stats.row_hits--;
				open_row(d, &d->bank[bk], bk & gmask, row, oact[j]);
			}
			if (nch >= 2 * (uint64_t)nb || (nch >= nb && t0 == base)) {
				npb = 0;                  /* every bound below reads the final base */
			} else {
				/* pbase[j]: the base once piece j is placed (a prefix maximum) */
				uint64_t run = base0;
				for (unsigned j = 0; j < lap; j++) {
					if (offs >> j & 1) {
						const uint64_t k = j ? j * kstep - koff : 0;
						if (run + k * tb < oneed[j])
							run = oneed[j] - k * tb;
					}
					if (j < npg && pbase[j] > run)
						run = pbase[j];
					pbase[j] = run;
				}
				npb = lap;
			}
			goto commit;
		}
		base = base0;
	}

	{
		/* base < near: the whole portion ends by the window (base only grows,
		 * so the two window tests are needed only from near on) */
		const uint64_t near = ref >= n * tb ? ref - n * tb + 1 : 0;

		for (unsigned j = 0; j < lap; j++) {
			const unsigned bk = (unsigned)(c0 + j) & d->bank_mask, g = bk & gmask;
			const uint64_t k = j ? j * kstep - koff : 0, before = base;
			uint64_t cas, act = 0;

			if (j && base >= near && base + k * tb > ref) {   /* the previous pieces run into the window */
				uint64_t cut = (ref - base) / tb;
				out->t_end = base + cut * tb;
				d->bus_free = out->t_end;
				return cut;
			}
			cas = cas_time(d, bk, g, row, ta, &act);
			if (base + k * tb < cas + lat)
				base = cas + lat - k * tb;
			if (!j)
				out->t0 = base;
			if (base >= near && base + (k + 1) * tb > ref) {   /* this piece's first burst hits the window */
				out->t_end = before + k * tb;
				if (k)
					d->bus_free = out->t_end;
				return k;
			}
			open_row(d, &d->bank[bk], g, row, act);
			pbase[j] = base;
		}
		if (base + n * tb > ref) {                       /* the tail runs into the window */
			uint64_t cut = (ref - base) / tb;
			out->t_end = base + cut * tb;
			d->bus_free = out->t_end;
			return cut;
		}
		npb = lap;
		if (lap == d->n_banks) {
			d->urow = row;                           /* every bank opened or kept `row` */
			d->off = 0;
		}
	}

commit:
	/* When each bank may be precharged (write recovery after its last data,
	 * read-to-precharge after its last CAS: t - lat + tRTP, modular), each
	 * group's last CAS, the bus.  Bank of piece j: its last piece is jl. */
	{
		const uint64_t pre = write ? tb + d->t_wr : d->t_rtp - lat;

		if (SHORTCUTS && (nch >= 2 * (uint64_t)d->n_banks ||
				  (nch >= d->n_banks && (!npb || pbase[0] == base)))) {
			/* Every bank's last piece is in a later lap, or every bank has a
			 * piece and none moved the portion after the first: each bank's
			 * bound follows from base alone, so it is owed. */
			if (d->owed.on && d->owed.write != write)
				settle_all(d);
			/* chunk i < nch - 1 ends (i + 1) chunks into the portion, the last at n */
			d->owed = (struct vb_dram_owed){ .on = true, .write = write, .last_c = c0 + nch - 1,
							 .at_last = base + (n - 1) * tb + pre,
							 .full = base + (nch * kstep - koff - 1) * tb + pre,
							 .step = kstep * tb };
		} else if (SHORTCUTS && nch <= d->n_banks) {
			/* one lap (every piece placed, npb = lap): piece j is its bank's
			 * last, ending (j + 1) chunks into the portion, the last at n */
			const unsigned m = d->bank_mask;
			const uint64_t step = kstep * tb;
			uint64_t at = (kstep - koff - 1) * tb + pre;
			unsigned bk = (unsigned)c0 & m;

			for (unsigned j = 0; j + 1 < lap; j++, at += step, bk = (bk + 1) & m)
				d->bank[bk].t_pre_ok = max64(d->bank[bk].t_pre_ok, pbase[j] + at);
			d->bank[bk].t_pre_ok = max64(d->bank[bk].t_pre_ok, pbase[lap - 1] + (n - 1) * tb + pre);
		} else {
			for (unsigned j = 0; j < lap; j++) {
				const uint64_t jl = j + (((nch - 1 - j) >> d->bank_shift) << d->bank_shift);
				const uint64_t lb = min64(p1, ((c0 + jl + 1) << cs) - 1);
				const uint64_t t = (jl < npb ? pbase[jl] : base) + (lb - p0) * tb;
				struct vb_dram_bank *b = &d->bank[(unsigned)(c0 + j) & d->bank_mask];
				b->t_pre_ok = max64(b->t_pre_ok, t + pre);
			}
		}
	}
	if (SHORTCUTS && nch - 1 >= (uint64_t)npb + gmask) {
		/* each group's last piece reads the final base: piece i's last burst
		 * is (i + 1) chunks into the portion, the last piece's at n */
		const uint64_t i0 = nch - 1 - gmask, step = kstep * tb, ccd = d->t_ccd_l - lat;
		uint64_t at = base + ((i0 + 1) * kstep - koff - 1) * tb + ccd;
		unsigned g = (unsigned)(c0 + i0) & gmask;

		for (unsigned i = 0; i < gmask; i++, at += step, g = (g + 1) & gmask)
			d->cas_ok_group[g] = at;
		d->cas_ok_group[g] = base + (n - 1) * tb + ccd;
	} else {
		for (uint64_t i = nch > (uint64_t)gmask + 1 ? nch - gmask - 1 : 0; i < nch; i++) {
			const uint64_t lb = min64(p1, ((c0 + i + 1) << cs) - 1);
			const uint64_t t = (i < npb ? pbase[i] : base) + (lb - p0) * tb;
			d->cas_ok_group[(unsigned)(c0 + i) & gmask] = t - lat + d->t_ccd_l;
		}
	}
	bus_after(d, base + n * tb, write);
	out->t_end = d->bus_free;
	return n;
}

/* ---- requests ------------------------------------------------------------- */

/* A refresh window cut the request: it waits for the window's end, when
 * every row is closed.  Returns the time the request goes on from. */
static uint64_t wait_window(struct vb_dram *d, uint64_t t)
{
	d->stats.refresh_stalls++;
	d->stats.refresh_stall_ps += d->ref_end - max64(t, d->ref_start);
	t = max64(t, d->ref_end);
	close_all(d, d->ref_end);
	d->last_ref_start = d->ref_start;
	d->last_ref_end = d->ref_end;
	d->ref_start += d->t_refi;
	d->ref_end = d->ref_start + d->t_rfc;
	return t;
}

/* Bursts pos..last of a request, row stripe by row stripe, from t on; first
 * and end so far (first = VB_DRAM_NO_TIME: nothing transferred yet). */
static __attribute__((noinline)) uint64_t span(struct vb_dram *d, uint64_t t, uint64_t pos, uint64_t last,
					       bool write, uint64_t first, uint64_t end, uint64_t *t_done_ps)
{
	while (pos <= last) {
		const uint64_t pend = min64(last, (((pos >> d->stripe_shift) + 1) << d->stripe_shift) - 1);
		struct portion o = { .t0 = VB_DRAM_NO_TIME };
		uint64_t done = (pos >> d->chunk_shift) == (pend >> d->chunk_shift) ?
				portion_one_bank(d, t, pos, pend, write, &o) : portion(d, t, pos, pend, write, &o);

		if (done) {
			if (first == VB_DRAM_NO_TIME)
				first = o.t0;
			end = o.t_end;
		}
		pos += done;
		if (pos <= pend)
			t = wait_window(d, t);
	}
	if (t_done_ps)
		*t_done_ps = end + d->t_ctrl;
	return first + d->t_ctrl;
}

/* The request's bursts pos..last went to one portion, which transferred
 * `done` of them: the answer, or the rest after the refresh window. */
static inline __attribute__((always_inline)) uint64_t served(struct vb_dram *d, uint64_t t, uint64_t pos,
							     uint64_t last, bool write, uint64_t done,
							     const struct portion *o, uint64_t *t_done_ps)
{
	if (done == last - pos + 1) {
		if (t_done_ps)
			*t_done_ps = o->t_end + d->t_ctrl;
		return o->t0 + d->t_ctrl;
	}
	return span(d, wait_window(d, t), pos + done, last, write, done ? o->t0 : VB_DRAM_NO_TIME,
		    done ? o->t_end : t, t_done_ps);
}

uint64_t vb_dram_access(struct vb_dram *d, uint64_t t_arrive_ps, uint64_t addr, uint32_t len, bool write,
			uint64_t *t_done_ps)
{
	uint64_t t = t_arrive_ps, pos, last;

	assert(t >= d->last_arrive && "vb_dram_access: arrival times must be nondecreasing");
	if (t < d->last_arrive)
		t = d->last_arrive;
	d->last_arrive = t;
	if (write)
		d->stats.writes++;
	else
		d->stats.reads++;
	if (!d->p.enabled || len == 0) {
		if (t_done_ps)
			*t_done_ps = t;
		return t;
	}
	pass_windows(d, t);
	if (t < d->last_ref_end) {
		/* Queued behind a request a window cut: everything it needs comes
		 * after that window, which the bank and bus state already say. */
		d->stats.refresh_stalls++;
		d->stats.refresh_stall_ps += d->last_ref_end - max64(t, d->last_ref_start);
	}

	pos = addr >> d->burst_shift;
	last = (addr + len - 1) >> d->burst_shift;
	if ((pos >> d->chunk_shift) == (last >> d->chunk_shift)) {
		/* one chunk (one bank, one stripe): a BD read, a STATUS or RTIO write */
		struct portion o = { .t0 = VB_DRAM_NO_TIME };
		return served(d, t, pos, last, write, portion_one_bank(d, t, pos, last, write, &o), &o, t_done_ps);
	}
	if ((pos >> d->stripe_shift) == (last >> d->stripe_shift)) {
		/* one row stripe: a data burst */
		struct portion o = { .t0 = VB_DRAM_NO_TIME };
		return served(d, t, pos, last, write, portion(d, t, pos, last, write, &o), &o, t_done_ps);
	}
	return span(d, t, pos, last, write, VB_DRAM_NO_TIME, t, t_done_ps);
}
