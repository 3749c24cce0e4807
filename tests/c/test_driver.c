// SPDX-License-Identifier: MIT
/*
 * test_driver.c - unit tests of the sgdma driver core against a fake platform.
 *
 * The fake is a register file plus a host buffer that plays device memory
 * (device address = mem_dev + offset).  It models only what the driver's
 * logic depends on: Reset self-clears, RS clears Halted, clearing RS sets it,
 * DMASR IRQ bits are write-1-to-clear.  Each behaviour can be made to stick
 * so the bounded waits can be tested.  It records every register write in
 * order and counts cache maintenance.  "Hardware" completion is done by the
 * tests writing BD STATUS words directly.
 */
#include <stdio.h>
#include <string.h>

#include "sgdma/driver.h"

/* ---- tiny harness --------------------------------------------------------- */

#include "harness.h"

#define CHECK_STR(a, b) do { \
	const char *a_ = (a), *b_ = (b); \
	if (strcmp(a_, b_)) { \
		checks_failed_in_test++; \
		printf("  FAIL %s:%d:\n    got  \"%s\"\n    want \"%s\"\n", __FILE__, __LINE__, \
		       a_, b_); \
	} \
} while (0)

/* ---- fake platform -------------------------------------------------------- */

#define REG_BASE  0x40400000ull
#define MEM_SIZE  (64u * 1024u)
#define LOG_MAX   512u
#define POLL      50u

struct reg_write {
	uint32_t off;          /* offset from REG_BASE */
	uint32_t value;
};

struct fake {
	uint32_t regs[PG021_REG_SPAN / 4];
	uint64_t mem_dev;
	bool sgincld;
	bool reset_sticks;      /* DMACR.Reset never self-clears */
	bool halt_sticks;       /* clearing RS never sets Halted */
	bool run_sticks;        /* setting RS never clears Halted */
	uint32_t s2mm_actual;   /* simple S2MM: LENGTH reads back this when set */
	struct reg_write log[LOG_MAX];
	unsigned n_log;
	unsigned reads, sr_reads;
	unsigned cleans, invalidates, barriers;
	size_t cleaned_bytes;
};

static struct fake F;
static _Alignas(64) uint8_t mem[MEM_SIZE + 64];

static uint32_t *reg(uint32_t off)
{
	return &F.regs[off / 4];
}

static uint32_t chan_base(enum sg_dir dir)
{
	return dir == SG_MM2S ? PG021_MM2S_BASE : PG021_S2MM_BASE;
}

static void fake_defaults(void)
{
	enum sg_dir d;

	for (d = SG_MM2S; d <= SG_S2MM; d++) {
		*reg(chan_base(d) + PG021_DMACR) = PG021_CR_RESET_VALUE;
		*reg(chan_base(d) + PG021_DMASR) =
			PG021_SR_HALTED | (F.sgincld ? PG021_SR_SGINCLD : 0);
	}
}

static void fake_setup(bool sg, uint64_t mem_dev)
{
	memset(&F, 0, sizeof(F));
	memset(mem, 0, sizeof(mem));
	F.sgincld = sg;
	F.mem_dev = mem_dev;
	fake_defaults();
}

static uint32_t fake_read32(void *ctx, uint64_t addr)
{
	uint32_t off = (uint32_t)(addr - REG_BASE);

	(void)ctx;
	F.reads++;
	if (off == PG021_DMASR || off == PG021_S2MM_BASE + PG021_DMASR)
		F.sr_reads++;
	return off < PG021_REG_SPAN ? *reg(off) : 0xdeadbeefu;
}

static void fake_write_cr(uint32_t base, uint32_t v)
{
	uint32_t *sr = reg(base + PG021_DMASR);

	if (v & PG021_CR_RESET) {
		if (F.reset_sticks) {
			*reg(base + PG021_DMACR) = v | PG021_CR_RSVD1;
			return;
		}
		fake_defaults();    /* both channels */
		return;
	}
	*reg(base + PG021_DMACR) = v | PG021_CR_RSVD1;
	if ((v & PG021_CR_RS) && !F.run_sticks)
		*sr &= ~PG021_SR_HALTED;
	if (!(v & PG021_CR_RS) && !F.halt_sticks)
		*sr = (*sr | PG021_SR_HALTED) & ~PG021_SR_IDLE;
}

static void fake_write32(void *ctx, uint64_t addr, uint32_t v)
{
	uint32_t off = (uint32_t)(addr - REG_BASE);
	uint32_t base = off >= PG021_S2MM_BASE ? PG021_S2MM_BASE : PG021_MM2S_BASE;

	(void)ctx;
	if (F.n_log < LOG_MAX)
		F.log[F.n_log++] = (struct reg_write){ off, v };
	if (off >= PG021_REG_SPAN)
		return;
	switch (off - base) {
	case PG021_DMACR:
		fake_write_cr(base, v);
		break;
	case PG021_DMASR:
		*reg(off) &= ~(v & PG021_SR_IRQ_ALL);
		break;
	case PG021_LENGTH:
		*reg(off) = (base == PG021_S2MM_BASE && F.s2mm_actual) ? F.s2mm_actual : v;
		break;
	default:
		*reg(off) = v;
	}
}

static void fake_barrier(void *ctx)
{
	(void)ctx;
	F.barriers++;
}

static void fake_clean(void *ctx, const void *cpu, size_t len)
{
	(void)ctx;
	(void)cpu;
	F.cleans++;
	F.cleaned_bytes += len;
}

static void fake_invalidate(void *ctx, const void *cpu, size_t len)
{
	(void)ctx;
	(void)cpu;
	(void)len;
	F.invalidates++;
}

static uint64_t fake_dev_addr(void *ctx, const void *cpu)
{
	const uint8_t *p = cpu;

	(void)ctx;
	if (p < mem || p >= mem + MEM_SIZE)
		return SG_NO_DEV_ADDR;
	return F.mem_dev + (uint64_t)(p - mem);
}

static void *fake_cpu_ptr(void *ctx, uint64_t dev, size_t len)
{
	(void)ctx;
	if (dev < F.mem_dev || dev - F.mem_dev + len > MEM_SIZE)
		return NULL;
	return mem + (dev - F.mem_dev);
}

static const struct sg_platform_ops fake_ops = {
	.read32 = fake_read32,
	.write32 = fake_write32,
	.barrier = fake_barrier,
	.cache_clean = fake_clean,
	.cache_invalidate = fake_invalidate,
	.dev_addr = fake_dev_addr,
	.cpu_ptr = fake_cpu_ptr,
};

static const struct sg_platform PLAT = { &fake_ops, NULL };

/* Index of the first logged write to channel offset off at or after from, or -1. */
static int log_find(enum sg_dir dir, uint32_t off, int from)
{
	unsigned i;

	for (i = (unsigned)from; i < F.n_log; i++)
		if (F.log[i].off == chan_base(dir) + off)
			return (int)i;
	return -1;
}

static unsigned log_count(enum sg_dir dir, uint32_t off)
{
	unsigned i, n = 0;

	for (i = 0; i < F.n_log; i++)
		n += F.log[i].off == chan_base(dir) + off;
	return n;
}

static void log_clear(void)
{
	F.n_log = 0;
	F.reads = F.sr_reads = 0;
	F.cleans = F.invalidates = F.barriers = 0;
	F.cleaned_bytes = 0;
}

static struct sg_chan_config config(enum sg_dir dir, unsigned addr_width)
{
	struct sg_chan_config cfg = {
		.base = REG_BASE,
		.dir = dir,
		.addr_width = addr_width,
		.length_width = 14,
		.data_bytes = 8,
		.has_dre = false,
		.poll_limit = POLL,
	};
	return cfg;
}

static void chan_setup(struct sg_chan *c, enum sg_dir dir, unsigned addr_width, bool sg,
		       uint64_t mem_dev)
{
	struct sg_chan_config cfg = config(dir, addr_width);
	struct sg_error err;

	fake_setup(sg, mem_dev);
	CHECK_EQ(sg_chan_init(c, PLAT, &cfg, &err), SG_OK);
	log_clear();
}

/* Channel plus a ring of count BDs at the start of the fake memory. */
static struct pg021_bd *ring_setup(struct sg_chan *c, struct sg_ring *r, enum sg_dir dir,
				   unsigned addr_width, uint64_t mem_dev, uint32_t count)
{
	struct sg_error err;

	chan_setup(c, dir, addr_width, true, mem_dev);
	CHECK_EQ(sg_ring_create(r, c, mem, mem_dev, count, &err), SG_OK);
	log_clear();
	return (struct pg021_bd *)mem;
}

/* Buffers live after the BDs in the fake memory. */
static uint64_t buf_dev(uint32_t i)
{
	return F.mem_dev + 0x8000u + i * 0x100u;
}

static enum sg_status fill1(struct sg_ring *r, uint64_t addr, uint32_t len, uint8_t flags,
			    struct sg_error *err)
{
	return sg_ring_fill(r, 1, &addr, &len, &flags, NULL, err);
}

/* The fake engine finishes BD i. */
static void hw_complete(struct pg021_bd *bd, uint32_t i, uint32_t extra)
{
	bd[i].status = PG021_BD_STS_CMPLT | extra |
		       ((bd[i].control & PG021_BD_LEN_MASK));
}

/* ---- diagnostics ---------------------------------------------------------- */

static void test_status_names(void)
{
	CHECK_STR(sg_status_name(SG_OK), "SG_OK");
	CHECK_STR(sg_status_name(SG_E_ALIGN), "SG_E_ALIGN");
	CHECK_STR(sg_status_name(SG_E_HW), "SG_E_HW");
	CHECK_STR(sg_status_rule(SG_E_RING_FULL), "no free BD in the ring");
	CHECK_STR(sg_status_fix(SG_E_RING_EMPTY), "fill BDs before submitting");
	CHECK_STR(sg_status_name((enum sg_status)SG_STATUS_COUNT), "SG_E_UNKNOWN");
	CHECK_STR(sg_status_name((enum sg_status)-1), "SG_E_UNKNOWN");
}

static void test_format_registers(void)
{
	char buf[256];
	size_t n;

	n = sg_format_dmacr(0x00011003, buf, sizeof(buf));
	CHECK_STR(buf, "0x00011003 [RS IRQThreshold=1 IRQDelay=0 IOC_IrqEn]");
	CHECK_EQ(n, strlen(buf));
	sg_format_dmacr(0x00010003, buf, sizeof(buf));
	CHECK_STR(buf, "0x00010003 [RS IRQThreshold=1 IRQDelay=0]");
	sg_format_dmacr(0x05ff701c, buf, sizeof(buf));
	CHECK_STR(buf, "0x05ff701c [Reset Keyhole Cyclic IRQThreshold=255 IRQDelay=5 "
		       "IOC_IrqEn Dly_IrqEn Err_IrqEn]");

	sg_format_dmasr(0x00010011, buf, sizeof(buf));
	CHECK_STR(buf, "0x00010011 [Halted DMAIntErr IRQThresholdSts=1]");
	sg_format_dmasr(0x0300777b, buf, sizeof(buf));
	CHECK_STR(buf, "0x0300777b [Halted Idle SGIncld DMAIntErr DMASlvErr DMADecErr "
		       "SGIntErr SGSlvErr SGDecErr IOC_Irq Dly_Irq Err_Irq "
		       "IRQThresholdSts=0 IRQDelaySts=3]");

	sg_format_bd_status(0x90000020, buf, sizeof(buf));
	CHECK_STR(buf, "0x90000020 [Cmplt DMAIntErr bytes=32]");
	sg_format_bd_status(0x8c003fff, buf, sizeof(buf));
	CHECK_STR(buf, "0x8c003fff [Cmplt RXSOF RXEOF bytes=16383]");
	sg_format_bd_status(0, buf, sizeof(buf));
	CHECK_STR(buf, "0x00000000 [bytes=0]");
}

static void test_format_truncates(void)
{
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	CHECK_EQ(sg_format_dmacr(0x00011003, buf, 8), 7);
	CHECK_STR(buf, "0x00011");
	CHECK_EQ(buf[8], 'x');                 /* nothing past n */
	buf[0] = 'x';
	CHECK_EQ(sg_format_dmasr(0, buf, 0), 0);
	CHECK_EQ(buf[0], 'x');                 /* n == 0 writes nothing */
	CHECK_EQ(sg_format_bd_status(0, buf, 1), 0);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(sg_format_error(NULL, buf, sizeof(buf)), 0);
	CHECK_EQ(sg_format_dmacr(0, NULL, 10), 0);
}

static void test_format_error(void)
{
	struct sg_error e;
	char buf[1024];

	memset(&e, 0, sizeof(e));
	e.code = SG_E_LENGTH_WIDTH;
	e.dir = SG_S2MM;
	e.bd_index = 3;
	e.value = 16384;
	e.limit = 16383;
	sg_format_error(&e, buf, sizeof(buf));
	CHECK_STR(buf, "s2mm: SG_E_LENGTH_WIDTH: length exceeds 2^length_width - 1 bytes; "
		       "value=16384, limit=16383, BD index=3; fix: split the buffer over "
		       "several BDs or rebuild the IP with a wider length register");

	e.code = SG_E_RING_EMPTY;
	e.dir = SG_MM2S;
	e.bd_index = SG_NO_INDEX;
	e.value = 0;
	e.limit = 0;
	sg_format_error(&e, buf, sizeof(buf));
	CHECK_STR(buf, "mm2s: SG_E_RING_EMPTY: nothing to submit; fix: fill BDs before submitting");

	e.code = SG_E_ALIGN;
	e.value = 0x123456789ull;
	e.limit = 64;
	sg_format_error(&e, buf, sizeof(buf));
	CHECK(strstr(buf, "value=0x0000000123456789, limit=64;") != NULL);

	e.code = SG_E_LENGTH_WIDTH;
	e.value = UINT64_MAX;
	sg_format_error(&e, buf, sizeof(buf));
	CHECK(strstr(buf, "value=18446744073709551615,") != NULL);

	e.code = SG_E_HW;
	e.value = PG021_SR_DMAINTERR;
	e.limit = 0;
	e.bd_index = 1;
	e.has_snapshot = true;
	e.snap.dmacr = 0x00010002;
	e.snap.dmasr = 0x00010011;
	e.snap.curdesc = 0x10000040;
	e.snap.taildesc = 0x100000c0;
	e.snap.cur_bd_status = 0x90000020;
	e.snap.cur_bd_valid = true;
	sg_format_error(&e, buf, sizeof(buf));
	CHECK_STR(buf, "mm2s: SG_E_HW: the DMA reported an error in DMASR; value=0x00000010, "
		       "BD index=1; fix: read the decoded bits; recover with a soft reset "
		       "(it resets both channels); registers: "
		       "DMACR=0x00010002 [IRQThreshold=1 IRQDelay=0] "
		       "DMASR=0x00010011 [Halted DMAIntErr IRQThresholdSts=1] "
		       "CURDESC=0x10000040 TAILDESC=0x100000c0 "
		       "BD@CURDESC.STATUS=0x90000020 [Cmplt DMAIntErr bytes=32]");

	e.snap.cur_bd_valid = false;
	sg_format_snapshot(&e.snap, buf, sizeof(buf));
	CHECK(strstr(buf, "BD@CURDESC") == NULL);
}

/* ---- channel -------------------------------------------------------------- */

static void test_init_config(void)
{
	static const struct { unsigned aw, lw, db; uint64_t base; uint64_t value; } bad[] = {
		{ 31, 14, 8, REG_BASE, 31 }, { 65, 14, 8, REG_BASE, 65 },
		{ 32, 7, 8, REG_BASE, 7 }, { 32, 27, 8, REG_BASE, 27 },
		{ 32, 14, 0, REG_BASE, 0 }, { 32, 14, 3, REG_BASE, 3 },
		{ 32, 14, 256, REG_BASE, 256 }, { 32, 14, 8, REG_BASE + 2, REG_BASE + 2 },
	};
	struct sg_chan c;
	struct sg_error err;
	struct sg_chan_config cfg;
	unsigned i;

	fake_setup(true, 0x10000000);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cfg = config(SG_S2MM, bad[i].aw);
		cfg.length_width = bad[i].lw;
		cfg.data_bytes = bad[i].db;
		cfg.base = bad[i].base;
		CHECK_EQ(sg_chan_init(&c, PLAT, &cfg, &err), SG_E_CONFIG);
		CHECK_EQ(err.value, bad[i].value);
		CHECK_EQ(err.dir, SG_S2MM);
	}
	CHECK_EQ(F.reads + F.n_log, 0);    /* refused without touching hardware */

	cfg = config(SG_S2MM, 64);
	cfg.poll_limit = 0;
	CHECK_EQ(sg_chan_init(&c, PLAT, &cfg, &err), SG_OK);
	CHECK(c.has_sg);
	CHECK_EQ(c.regs, REG_BASE + PG021_S2MM_BASE);
	CHECK_EQ(c.cfg.poll_limit, SG_DEFAULT_POLL_LIMIT);
	CHECK_EQ(sg_chan_max_length(&c), 16383);

	fake_setup(false, 0x10000000);
	cfg = config(SG_MM2S, 32);
	CHECK_EQ(sg_chan_init(&c, PLAT, &cfg, &err), SG_OK);
	CHECK(!c.has_sg);
	CHECK_EQ(c.regs, REG_BASE);
}

static void test_reset_and_irq(void)
{
	struct sg_chan c;
	struct sg_error err;
	int w;

	chan_setup(&c, SG_S2MM, 32, true, 0x10000000);
	CHECK_EQ(sg_chan_set_irq(&c, 0x1, 1, 0, &err), SG_E_ARG);
	CHECK_EQ(sg_chan_set_irq(&c, PG021_CR_IRQ_ALL, 0, 0, &err), SG_E_ARG);
	CHECK_EQ(sg_chan_set_irq(&c, PG021_CR_IRQ_ALL, 256, 0, &err), SG_E_ARG);
	CHECK_EQ(err.value, 256);
	CHECK_EQ(sg_chan_set_irq(&c, PG021_CR_IRQ_ALL, 1, 256, &err), SG_E_ARG);
	CHECK_EQ(F.n_log, 0);

	*reg(PG021_S2MM_BASE + PG021_DMACR) |= PG021_CR_RS;
	CHECK_EQ(sg_chan_set_irq(&c, PG021_CR_IOC_IRQEN | PG021_CR_ERR_IRQEN, 8, 3, &err), SG_OK);
	CHECK_EQ(*reg(PG021_S2MM_BASE + PG021_DMACR),
		 PG021_CR_RS | PG021_CR_RSVD1 | PG021_CR_IOC_IRQEN | PG021_CR_ERR_IRQEN |
		 SG_FIELD_PREP(PG021_CR_THRESHOLD, 8) | SG_FIELD_PREP(PG021_CR_DELAY, 3));

	log_clear();
	CHECK_EQ(sg_chan_reset(&c, &err), SG_OK);
	w = log_find(SG_S2MM, PG021_DMACR, 0);
	CHECK(w >= 0 && F.log[w].value == PG021_CR_RESET);
	w = log_find(SG_S2MM, PG021_DMACR, w + 1);
	CHECK(w >= 0 && F.log[w].value == c.irq_cr);     /* restored, RS stays 0 */
	CHECK(!(*reg(PG021_S2MM_BASE + PG021_DMACR) & PG021_CR_RS));
	CHECK(*reg(PG021_S2MM_BASE + PG021_DMACR) & PG021_CR_ERR_IRQEN);

	/* W1C: exactly the set IRQ bits are written back and cleared. */
	*reg(PG021_S2MM_BASE + PG021_DMASR) |= PG021_SR_IOC_IRQ | PG021_SR_ERR_IRQ;
	log_clear();
	CHECK_EQ(sg_chan_irq_ack(&c), PG021_SR_IOC_IRQ | PG021_SR_ERR_IRQ);
	CHECK_EQ(F.n_log, 1);
	CHECK_EQ(F.log[0].value, PG021_SR_IOC_IRQ | PG021_SR_ERR_IRQ);
	CHECK_EQ(*reg(PG021_S2MM_BASE + PG021_DMASR) & PG021_SR_IRQ_ALL, 0);
	CHECK(*reg(PG021_S2MM_BASE + PG021_DMASR) & PG021_SR_HALTED);
	CHECK_EQ(sg_chan_irq_ack(&c), 0);
	CHECK_EQ(F.n_log, 1);
}

static void test_bounded_waits(void)
{
	struct sg_chan c;
	struct sg_error err;

	/* Idle never comes. */
	chan_setup(&c, SG_MM2S, 32, true, 0x10000000);
	*reg(PG021_DMASR) &= ~PG021_SR_HALTED;
	CHECK_EQ(sg_chan_wait_idle(&c, &err), SG_E_TIMEOUT);
	CHECK(err.has_snapshot);
	CHECK_EQ(err.code, SG_E_TIMEOUT);
	CHECK_EQ(F.sr_reads, POLL + 1);    /* the bound, plus the snapshot */

	/* A halted channel without error is still only reported at the bound. */
	*reg(PG021_DMASR) |= PG021_SR_HALTED;
	CHECK_EQ(sg_chan_wait_idle(&c, &err), SG_E_TIMEOUT);

	/* Error bits end the wait at once. */
	log_clear();
	*reg(PG021_DMASR) |= PG021_SR_DMASLVERR;
	CHECK_EQ(sg_chan_wait_idle(&c, &err), SG_E_HW);
	CHECK_EQ(err.value, PG021_SR_DMASLVERR);
	CHECK(err.snap.dmasr & PG021_SR_DMASLVERR);
	CHECK_EQ(F.sr_reads, 2);
	CHECK_EQ(sg_chan_check(&c, &err), SG_E_HW);

	/* Reset that never self-clears. */
	chan_setup(&c, SG_MM2S, 32, true, 0x10000000);
	F.reset_sticks = true;
	CHECK_EQ(sg_chan_reset(&c, &err), SG_E_TIMEOUT);
	CHECK(err.has_snapshot && (err.snap.dmacr & PG021_CR_RESET));

	/* Halt that never completes. */
	chan_setup(&c, SG_MM2S, 32, true, 0x10000000);
	*reg(PG021_DMASR) &= ~PG021_SR_HALTED;
	F.halt_sticks = true;
	CHECK_EQ(sg_chan_halt(&c, &err), SG_E_TIMEOUT);
	F.halt_sticks = false;
	CHECK_EQ(sg_chan_halt(&c, &err), SG_OK);
	CHECK(!(*reg(PG021_DMACR) & PG021_CR_RS));
}

static void test_curdesc_and_cyclic_bit(void)
{
	struct sg_chan c;
	struct sg_error err;

	chan_setup(&c, SG_MM2S, 32, true, 0x10000000);
	CHECK_EQ(sg_chan_set_curdesc(&c, 0x10000020, &err), SG_E_ALIGN);
	CHECK_EQ(sg_chan_set_curdesc(&c, 0x100000000ull, &err), SG_E_ADDR_RANGE);
	CHECK_EQ(sg_chan_set_curdesc(&c, 0xffffffc0ull, &err), SG_OK);   /* last BD slot */
	CHECK_EQ(log_count(SG_MM2S, PG021_CURDESC_MSB), 0);              /* 32-bit build */
	*reg(PG021_DMASR) &= ~PG021_SR_HALTED;
	log_clear();
	CHECK_EQ(sg_chan_set_curdesc(&c, 0x10000040, &err), SG_E_NOT_HALTED);
	CHECK(err.has_snapshot);
	CHECK_EQ(sg_chan_set_cyclic(&c, true, &err), SG_E_NOT_HALTED);
	CHECK_EQ(F.n_log, 0);

	chan_setup(&c, SG_MM2S, 40, true, 0x10000000);
	CHECK_EQ(sg_chan_set_curdesc(&c, 0xab12345680ull, &err), SG_OK);
	CHECK_EQ(F.n_log, 2);
	CHECK_EQ(F.log[0].off, PG021_CURDESC);
	CHECK_EQ(F.log[0].value, 0x12345680);
	CHECK_EQ(F.log[1].off, PG021_CURDESC_MSB);
	CHECK_EQ(F.log[1].value, 0xab);
	CHECK_EQ(sg_chan_set_curdesc(&c, 1ull << 40, &err), SG_E_ADDR_RANGE);
	CHECK_EQ(sg_chan_set_cyclic(&c, true, &err), SG_OK);
	CHECK(*reg(PG021_DMACR) & PG021_CR_CYCLIC);
	CHECK_EQ(sg_chan_set_cyclic(&c, false, &err), SG_OK);
	CHECK(!(*reg(PG021_DMACR) & PG021_CR_CYCLIC));

	chan_setup(&c, SG_MM2S, 32, false, 0x10000000);
	CHECK_EQ(sg_chan_set_curdesc(&c, 0x10000000, &err), SG_E_MODE);
}

static void test_simple_mode(void)
{
	struct sg_chan c;
	struct sg_error err;
	uint32_t actual = 0;
	int rs, a, am, l;

	chan_setup(&c, SG_MM2S, 32, true, 0x10000000);
	CHECK_EQ(sg_simple_start(&c, 0x10000000, 64, &err), SG_E_MODE);

	chan_setup(&c, SG_S2MM, 64, false, 0x10000000);
	CHECK_EQ(sg_simple_start(&c, 0x10000000, 0, &err), SG_E_LENGTH_ZERO);
	CHECK_EQ(sg_simple_start(&c, 0x10000000, 16384, &err), SG_E_LENGTH_WIDTH);
	CHECK_EQ(err.value, 16384);
	CHECK_EQ(err.limit, 16383);
	CHECK_EQ(sg_simple_start(&c, 0x10000004, 64, &err), SG_E_ALIGN);
	CHECK_EQ(err.limit, 8);
	CHECK_EQ(sg_simple_start(&c, UINT64_MAX - 63, 128, &err), SG_E_ADDR_RANGE);
	CHECK_EQ(F.n_log, 0);

	CHECK_EQ(sg_chan_set_irq(&c, PG021_CR_IOC_IRQEN, 1, 0, &err), SG_OK);
	log_clear();
	F.s2mm_actual = 100;
	CHECK_EQ(sg_simple_start(&c, 0x1234567800ull, 16383, &err), SG_OK);
	rs = log_find(SG_S2MM, PG021_DMACR, 0);
	a = log_find(SG_S2MM, PG021_ADDR, 0);
	am = log_find(SG_S2MM, PG021_ADDR_MSB, 0);
	l = log_find(SG_S2MM, PG021_LENGTH, 0);
	CHECK(rs >= 0 && rs < a && a < am && am < l);
	CHECK(F.log[rs].value & PG021_CR_RS);
	CHECK(F.log[rs].value & PG021_CR_IOC_IRQEN);
	CHECK_EQ(F.log[a].value, 0x34567800);
	CHECK_EQ(F.log[am].value, 0x12);
	CHECK_EQ(F.log[l].value, 16383);

	/* Running and not idle: busy.  Idle: done, LENGTH read back. */
	CHECK_EQ(sg_simple_start(&c, 0x10000000, 64, &err), SG_E_BUSY);
	CHECK_EQ(sg_simple_wait(&c, &actual, &err), SG_E_TIMEOUT);
	*reg(PG021_S2MM_BASE + PG021_DMASR) |= PG021_SR_IDLE;
	CHECK_EQ(sg_simple_wait(&c, &actual, &err), SG_OK);
	CHECK_EQ(actual, 100);

	/* Second transfer while running and idle: no new RS write. */
	log_clear();
	CHECK_EQ(sg_simple_start(&c, 0x10000000, 64, &err), SG_OK);
	CHECK_EQ(log_count(SG_S2MM, PG021_DMACR), 0);

	/* With the DRE an unaligned buffer is fine. */
	{
		struct sg_chan_config cfg = config(SG_MM2S, 32);

		fake_setup(false, 0x10000000);
		cfg.has_dre = true;
		CHECK_EQ(sg_chan_init(&c, PLAT, &cfg, &err), SG_OK);
		CHECK_EQ(sg_simple_start(&c, 0x10000003, 5, &err), SG_OK);
		CHECK_EQ(log_count(SG_MM2S, PG021_ADDR_MSB), 0);
	}
}

/* ---- ring: creation and filling ------------------------------------------- */

static void test_ring_create(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	struct pg021_bd *bd = (struct pg021_bd *)mem;
	uint32_t i;

	chan_setup(&c, SG_MM2S, 64, true, 0x100000000ull);
	memset(mem, 0xa5, 4096);
	CHECK_EQ(sg_ring_create(&r, &c, mem, F.mem_dev + 32, 4, &err), SG_E_ALIGN);
	CHECK_EQ(err.value, F.mem_dev + 32);
	CHECK_EQ(sg_ring_create(&r, &c, mem + 8, F.mem_dev, 4, &err), SG_E_ALIGN);
	CHECK_EQ(sg_ring_create(&r, &c, mem, F.mem_dev, 0, &err), SG_E_ARG);
	CHECK_EQ(mem[0], 0xa5);
	CHECK_EQ(mem[4095], 0xa5);
	CHECK_EQ(F.cleans, 0);

	CHECK_EQ(sg_ring_create(&r, &c, mem, F.mem_dev, 4, &err), SG_OK);
	CHECK_EQ(sg_ring_check(&r), SG_OK);
	CHECK(r.closed);
	CHECK_EQ(r.n_free, 4);
	for (i = 0; i < 4; i++) {
		uint64_t next = F.mem_dev + ((i + 1) % 4) * 64;

		CHECK_EQ(bd[i].nxtdesc, (uint32_t)next);
		CHECK_EQ(bd[i].nxtdesc_msb, 1);
		CHECK_EQ(bd[i].control, 0);
		CHECK_EQ(bd[i].sw[2], 0);
	}
	CHECK_EQ(mem[4 * 64], 0xa5);          /* nothing past the ring */
	CHECK(F.cleaned_bytes >= 4 * 64);
	sg_ring_link(&r, false);
	CHECK(!r.closed);
	CHECK_EQ(bd[3].nxtdesc, 0);
	CHECK_EQ(bd[3].nxtdesc_msb, 0);
	CHECK_EQ(sg_ring_index_of(&r, F.mem_dev + 128), 2);
	CHECK_EQ(sg_ring_index_of(&r, F.mem_dev + 130), SG_NO_INDEX);
	CHECK_EQ(sg_ring_index_of(&r, F.mem_dev + 256), SG_NO_INDEX);
	CHECK_EQ(sg_ring_index_of(&r, F.mem_dev - 64), SG_NO_INDEX);

	/* The ring end must fit the address width. */
	chan_setup(&c, SG_MM2S, 32, true, 0x10000000);
	CHECK_EQ(sg_ring_create(&r, &c, mem, 0xffffff80ull, 2, &err), SG_OK);
	CHECK_EQ(sg_ring_create(&r, &c, mem, 0xffffff80ull, 3, &err), SG_E_ADDR_RANGE);
}

static void test_fill_lengths_and_alignment(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	struct pg021_bd *bd = ring_setup(&c, &r, SG_MM2S, 32, 0x10000000, 8);

	CHECK_EQ(fill1(&r, buf_dev(0), 16384, SG_BD_EOF, &err), SG_E_LENGTH_WIDTH);
	CHECK_EQ(err.value, 16384);
	CHECK_EQ(err.limit, 16383);
	CHECK_EQ(err.bd_index, 0);
	CHECK_EQ(fill1(&r, buf_dev(0), 0, SG_BD_EOF, &err), SG_E_LENGTH_ZERO);
	CHECK_EQ(fill1(&r, buf_dev(0) + 4, 64, SG_BD_EOF, &err), SG_E_ALIGN);
	CHECK_EQ(err.value, buf_dev(0) + 4);
	CHECK_EQ(err.limit, 8);
	CHECK_EQ(fill1(&r, 0xffffff00ull, 0x200, SG_BD_EOF, &err), SG_E_ADDR_RANGE);
	CHECK_EQ(fill1(&r, 0xffffff00ull, 0x100, SG_BD_EOF, &err), SG_OK);  /* ends at 2^32 */
	CHECK_EQ(fill1(&r, buf_dev(0), 64, 0x80, &err), SG_E_ARG);
	CHECK_EQ(r.n_filled, 1);

	CHECK_EQ(fill1(&r, buf_dev(1), 16383, SG_BD_SOF | SG_BD_EOF, &err), SG_OK);
	CHECK_EQ(bd[1].control, 16383u | PG021_BD_CTRL_TXSOF | PG021_BD_CTRL_TXEOF);
	CHECK_EQ(bd[1].buffer, (uint32_t)buf_dev(1));
	CHECK_EQ(bd[1].status, 0);
	CHECK_EQ(bd[1].sw[0], SG_BD_SOF | SG_BD_EOF);
	CHECK_EQ(r.fill, 2);
	CHECK_EQ(r.n_free, 6);
	CHECK_EQ(sg_ring_check(&r), SG_OK);

	{
		uint64_t addr[7] = { 0 };
		uint32_t len[7] = { 0 };

		CHECK_EQ(sg_ring_fill(&r, 7, addr, len, NULL, NULL, &err), SG_E_RING_FULL);
		CHECK_EQ(err.value, 7);
		CHECK_EQ(err.limit, 6);
	}
	CHECK_EQ(F.n_log, 0);   /* filling never touches registers */

	/* With the DRE, unaligned buffers are accepted; S2MM ignores SOF/EOF in CONTROL. */
	{
		struct sg_chan_config cfg = config(SG_S2MM, 32);
		struct sg_chan d;
		struct sg_ring q;

		fake_setup(true, 0x10000000);
		cfg.has_dre = true;
		CHECK_EQ(sg_chan_init(&d, PLAT, &cfg, &err), SG_OK);
		CHECK_EQ(sg_ring_create(&q, &d, mem, F.mem_dev, 4, &err), SG_OK);
		CHECK_EQ(fill1(&q, buf_dev(0) + 3, 61, SG_BD_EOF, &err), SG_OK);
		CHECK_EQ(bd[0].control, 61);
		CHECK_EQ(bd[0].sw[0], SG_BD_EOF);
	}
}

static void test_fill_validates_all_first(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	static uint8_t before[8 * 64];
	uint64_t addr[4] = { buf_dev(0), buf_dev(1), buf_dev(2), buf_dev(3) };
	uint32_t len[4] = { 64, 64, 0, 64 };
	uint8_t flags[4] = { SG_BD_SOF, 0, 0, SG_BD_EOF };
	uint32_t app[4 * PG021_BD_APP_COUNT];
	unsigned i;

	ring_setup(&c, &r, SG_MM2S, 32, 0x10000000, 8);
	memcpy(before, mem, sizeof(before));
	CHECK_EQ(sg_ring_fill(&r, 4, addr, len, flags, NULL, &err), SG_E_LENGTH_ZERO);
	CHECK_EQ(err.bd_index, 2);
	CHECK(memcmp(before, mem, sizeof(before)) == 0);
	CHECK_EQ(r.fill, 0);
	CHECK_EQ(r.n_free, 8);
	CHECK_EQ(r.n_filled, 0);

	len[2] = 16384;
	CHECK_EQ(sg_ring_fill(&r, 4, addr, len, flags, NULL, &err), SG_E_LENGTH_WIDTH);
	CHECK(memcmp(before, mem, sizeof(before)) == 0);

	for (i = 0; i < 4 * PG021_BD_APP_COUNT; i++)
		app[i] = 0x1000 + i;
	len[2] = 64;
	CHECK_EQ(sg_ring_fill(&r, 4, addr, len, flags, app, &err), SG_OK);
	CHECK_EQ(((struct pg021_bd *)mem)[3].app[4], 0x1000 + 3 * 5 + 4);
	CHECK_EQ(r.n_filled, 4);
	CHECK_EQ(sg_ring_check(&r), SG_OK);
}

/* ---- ring: packet rules and submission ------------------------------------ */

static void test_stream_multiple(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	uint64_t addr[2] = { buf_dev(0), buf_dev(1) };
	uint32_t len[2] = { 100, 64 };
	uint8_t flags[2] = { SG_BD_SOF, SG_BD_EOF };

	ring_setup(&c, &r, SG_MM2S, 32, 0x10000000, 8);
	CHECK_EQ(sg_ring_fill(&r, 2, addr, len, flags, NULL, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_E_STREAM_MULTIPLE);
	CHECK_EQ(err.bd_index, 0);
	CHECK_EQ(err.value, 100);
	CHECK_EQ(err.limit, 8);
	CHECK_EQ(F.n_log, 0);
	CHECK_EQ(r.n_filled, 2);

	/* The last BD of a packet may be any length. */
	ring_setup(&c, &r, SG_MM2S, 32, 0x10000000, 8);
	len[0] = 64;
	len[1] = 100;
	CHECK_EQ(sg_ring_fill(&r, 2, addr, len, flags, NULL, &err), SG_OK);
	CHECK_EQ(sg_ring_validate(&r, &err), SG_OK);

	/* S2MM: only BDs hinted EOF may be a partial beat. */
	ring_setup(&c, &r, SG_S2MM, 32, 0x10000000, 8);
	len[0] = 100;
	len[1] = 64;
	flags[0] = 0;
	flags[1] = 0;
	CHECK_EQ(sg_ring_fill(&r, 2, addr, len, flags, NULL, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_E_STREAM_MULTIPLE);
	CHECK_EQ(err.dir, SG_S2MM);
	CHECK_EQ(err.bd_index, 0);
	ring_setup(&c, &r, SG_S2MM, 32, 0x10000000, 8);
	flags[0] = SG_BD_EOF;
	CHECK_EQ(sg_ring_fill(&r, 2, addr, len, flags, NULL, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);   /* S2MM may end without EOF */
}

static void test_packet_open(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	uint64_t addr[2] = { buf_dev(0), buf_dev(1) };
	uint32_t len[2] = { 64, 64 };
	uint8_t flags[2] = { SG_BD_SOF, 0 };

	ring_setup(&c, &r, SG_MM2S, 32, 0x10000000, 8);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_E_RING_EMPTY);
	CHECK_EQ(sg_ring_fill(&r, 2, addr, len, flags, NULL, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_E_PACKET_OPEN);
	CHECK_EQ(err.bd_index, 1);
	CHECK_EQ(F.n_log + F.cleans, 0);
	CHECK_EQ(r.n_hw, 0);
	CHECK_EQ(fill1(&r, buf_dev(2), 64, SG_BD_EOF, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);
	CHECK_EQ(r.n_hw, 3);
}

static void test_submit_order(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	uint64_t dev = 0x812340000ull;
	int cd, cdm, rs, td, tdm;

	ring_setup(&c, &r, SG_MM2S, 64, dev, 8);
	CHECK_EQ(sg_chan_set_irq(&c, PG021_CR_IOC_IRQEN, 4, 0, &err), SG_OK);
	log_clear();
	CHECK_EQ(fill1(&r, buf_dev(0), 64, SG_BD_SOF, &err), SG_OK);
	CHECK_EQ(fill1(&r, buf_dev(1), 64, SG_BD_EOF, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);

	cd = log_find(SG_MM2S, PG021_CURDESC, 0);
	cdm = log_find(SG_MM2S, PG021_CURDESC_MSB, 0);
	rs = log_find(SG_MM2S, PG021_DMACR, 0);
	td = log_find(SG_MM2S, PG021_TAILDESC, 0);
	tdm = log_find(SG_MM2S, PG021_TAILDESC_MSB, 0);
	CHECK(cd >= 0 && cd < cdm && cdm < rs && rs < td && td < tdm);
	CHECK_EQ(tdm, (int)F.n_log - 1);            /* the MSB write is the trigger: last */
	CHECK_EQ(F.log[cd].value, (uint32_t)dev);
	CHECK_EQ(F.log[cdm].value, 8);
	CHECK(F.log[rs].value & PG021_CR_RS);
	CHECK_EQ(F.log[rs].value & ~(PG021_CR_RS | PG021_CR_RSVD1), c.irq_cr);
	CHECK_EQ(F.log[td].value, (uint32_t)(dev + 64));
	CHECK_EQ(F.log[tdm].value, 8);
	CHECK_EQ(F.cleaned_bytes, 2 * 64);
	CHECK(F.barriers >= 1);
	CHECK_EQ(r.n_hw, 2);
	CHECK_EQ(r.submit, 2);
	CHECK(c.ring == &r);

	/* Running: only the tail moves, LSB then MSB. */
	log_clear();
	CHECK_EQ(fill1(&r, buf_dev(2), 64, SG_BD_SOF | SG_BD_EOF, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);
	CHECK_EQ(log_count(SG_MM2S, PG021_CURDESC) + log_count(SG_MM2S, PG021_CURDESC_MSB), 0);
	CHECK_EQ(log_count(SG_MM2S, PG021_DMACR), 0);
	CHECK_EQ(F.n_log, 2);
	CHECK_EQ(F.log[0].off, PG021_TAILDESC);
	CHECK_EQ(F.log[0].value, (uint32_t)(dev + 128));
	CHECK_EQ(F.log[1].off, PG021_TAILDESC_MSB);

	/* A 32-bit build never writes the MSB registers. */
	ring_setup(&c, &r, SG_S2MM, 32, 0x10000000, 4);
	CHECK_EQ(fill1(&r, buf_dev(0), 64, 0, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);
	CHECK_EQ(log_count(SG_S2MM, PG021_CURDESC_MSB) + log_count(SG_S2MM, PG021_TAILDESC_MSB), 0);
	CHECK_EQ(log_count(SG_S2MM, PG021_CURDESC), 1);
	CHECK_EQ(log_count(SG_S2MM, PG021_TAILDESC), 1);
}

static void test_submit_refusals(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	struct pg021_bd *bd;
	uint32_t n;
	struct sg_completion out[4];

	/* An errored channel is not fed. */
	ring_setup(&c, &r, SG_MM2S, 32, 0x10000000, 4);
	CHECK_EQ(fill1(&r, buf_dev(0), 64, SG_BD_EOF, &err), SG_OK);
	*reg(PG021_DMASR) |= PG021_SR_SGDECERR;
	CHECK_EQ(sg_ring_submit(&r, &err), SG_E_HW);
	CHECK_EQ(err.value, PG021_SR_SGDECERR);
	CHECK(err.has_snapshot);
	CHECK_EQ(F.n_log, 0);

	/* Running with a chain we do not know: CURDESC cannot be written. */
	ring_setup(&c, &r, SG_MM2S, 32, 0x10000000, 4);
	CHECK_EQ(fill1(&r, buf_dev(0), 64, SG_BD_EOF, &err), SG_OK);
	*reg(PG021_DMASR) &= ~PG021_SR_HALTED;
	CHECK_EQ(sg_ring_submit(&r, &err), SG_E_NOT_HALTED);
	CHECK_EQ(F.n_log, 0);

	/* Open ring: a batch may not run over the end, and a running engine
	 * paused on the last BD cannot reach BD 0. */
	bd = ring_setup(&c, &r, SG_MM2S, 32, 0x10000000, 4);
	sg_ring_link(&r, false);
	{
		uint64_t addr[3] = { buf_dev(0), buf_dev(1), buf_dev(2) };
		uint32_t len[3] = { 64, 64, 64 };
		uint8_t flags[3] = { SG_BD_EOF, SG_BD_EOF, SG_BD_EOF };

		CHECK_EQ(sg_ring_fill(&r, 3, addr, len, flags, NULL, &err), SG_OK);
		CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);
		CHECK_EQ(fill1(&r, buf_dev(3), 64, SG_BD_EOF, &err), SG_OK);
		CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);
		hw_complete(bd, 0, 0);
		hw_complete(bd, 1, 0);
		CHECK_EQ(sg_ring_reclaim(&r, out, 4, &n, &err), SG_OK);
		CHECK_EQ(n, 2);
		CHECK_EQ(sg_ring_rearm(&r, 2, &err), SG_OK);   /* BDs 0,1 again */
		log_clear();
		CHECK_EQ(sg_ring_submit(&r, &err), SG_E_NOT_HALTED);
		CHECK_EQ(F.n_log, 0);
	}

	/* Not an SG build. */
	chan_setup(&c, SG_MM2S, 32, false, 0x10000000);
	CHECK_EQ(sg_ring_create(&r, &c, mem, F.mem_dev, 4, &err), SG_OK);
	CHECK_EQ(fill1(&r, buf_dev(0), 64, SG_BD_EOF, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_E_MODE);
}

static void test_submit_wrap_and_restart(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	struct sg_completion out[8];
	struct pg021_bd *bd = ring_setup(&c, &r, SG_S2MM, 32, 0x10000000, 4);
	uint64_t addr[3] = { buf_dev(0), buf_dev(1), buf_dev(2) };
	uint32_t len[3] = { 64, 64, 64 };
	uint8_t flags[3] = { 0, 0, 0 };
	uint32_t n;
	int cd;

	CHECK_EQ(sg_ring_fill(&r, 3, addr, len, flags, NULL, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);
	hw_complete(bd, 0, PG021_BD_STS_RXSOF | PG021_BD_STS_RXEOF);
	hw_complete(bd, 1, PG021_BD_STS_RXSOF | PG021_BD_STS_RXEOF);
	CHECK_EQ(sg_ring_reclaim(&r, out, 8, &n, &err), SG_OK);
	CHECK_EQ(n, 2);
	CHECK_EQ(r.reclaim, 2);

	/* The caller halts the engine with BD 2 still untouched: the restart
	 * must begin at BD 2, not at the new BDs, or BD 2 is lost. */
	CHECK_EQ(sg_chan_halt(&c, &err), SG_OK);
	CHECK_EQ(sg_ring_fill(&r, 2, addr, len, flags, NULL, &err), SG_OK);   /* BDs 3, 0 */
	log_clear();
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);
	cd = log_find(SG_S2MM, PG021_CURDESC, 0);
	CHECK(cd >= 0 && F.log[cd].value == (uint32_t)(F.mem_dev + 2 * 64));
	CHECK_EQ(F.cleans, 2);                 /* BD 3, then BD 0: two ranges */
	CHECK_EQ(F.cleaned_bytes, 2 * 64);
	CHECK_EQ(F.log[F.n_log - 1].value, (uint32_t)F.mem_dev);   /* tail = BD 0 */
	CHECK_EQ(sg_ring_check(&r), SG_OK);
	CHECK_EQ(r.n_hw, 3);
}

/* ---- ring: completion ----------------------------------------------------- */

static void test_reclaim_whole_packets(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	struct sg_completion out[8];
	struct pg021_bd *bd = ring_setup(&c, &r, SG_MM2S, 32, 0x10000000, 8);
	uint64_t addr[5] = { buf_dev(0), buf_dev(1), buf_dev(2), buf_dev(3), buf_dev(4) };
	uint32_t len[5] = { 64, 40, 128, 64, 8 };
	uint8_t flags[5] = { SG_BD_SOF, SG_BD_EOF, SG_BD_SOF, 0, SG_BD_EOF };
	uint32_t n = 99;

	CHECK_EQ(sg_ring_fill(&r, 5, addr, len, flags, NULL, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);

	CHECK_EQ(sg_ring_reclaim(&r, out, 8, &n, &err), SG_OK);
	CHECK_EQ(n, 0);
	hw_complete(bd, 0, 0);
	CHECK_EQ(sg_ring_reclaim(&r, out, 8, &n, &err), SG_OK);
	CHECK_EQ(n, 0);                          /* packet A half done */
	CHECK(F.invalidates > 0);
	hw_complete(bd, 1, 0);
	hw_complete(bd, 2, 0);
	hw_complete(bd, 3, 0);
	CHECK_EQ(sg_ring_reclaim(&r, out, 8, &n, &err), SG_OK);
	CHECK_EQ(n, 2);                          /* A only: B lacks its EOF BD */
	CHECK_EQ(out[0].index, 0);
	CHECK_EQ(out[0].bytes, 64);
	CHECK_EQ(out[0].flags, SG_BD_SOF);
	CHECK_EQ(out[1].index, 1);
	CHECK_EQ(out[1].bytes, 40);
	CHECK_EQ(out[1].flags, SG_BD_EOF);
	CHECK_EQ(out[1].status, PG021_BD_STS_CMPLT | 40);
	CHECK_EQ(r.n_free, 5);
	CHECK_EQ(r.n_hw, 3);
	CHECK_EQ(sg_ring_check(&r), SG_OK);

	hw_complete(bd, 4, 0);
	CHECK_EQ(sg_ring_reclaim(&r, out, 2, &n, &err), SG_E_ARG);   /* 3-BD packet, max 2 */
	CHECK_EQ(n, 0);
	CHECK_EQ(err.limit, 2);
	CHECK_EQ(sg_ring_reclaim(&r, out, 0, &n, &err), SG_E_ARG);
	CHECK_EQ(r.n_hw, 3);
	CHECK_EQ(sg_ring_reclaim(&r, out, 3, &n, &err), SG_OK);
	CHECK_EQ(n, 3);
	CHECK_EQ(out[2].index, 4);
	CHECK_EQ(out[2].bytes, 8);
	CHECK_EQ(r.n_hw, 0);
	CHECK_EQ(r.n_free, 8);
	CHECK_EQ(sg_ring_check(&r), SG_OK);
	/* Reclaim does not clear STATUS: that happens on refill/rearm. */
	CHECK(bd[4].status & PG021_BD_STS_CMPLT);
}

static void test_reclaim_fit_and_s2mm(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	struct sg_completion out[8];
	struct pg021_bd *bd = ring_setup(&c, &r, SG_S2MM, 32, 0x10000000, 4);
	uint64_t addr[4] = { buf_dev(0), buf_dev(1), buf_dev(2), buf_dev(3) };
	uint32_t len[4] = { 64, 64, 64, 64 };
	uint32_t n;

	CHECK_EQ(sg_ring_fill(&r, 4, addr, len, NULL, NULL, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);
	/* Packets from the stream: [0] alone, [1, 2] together, 3 still open. */
	bd[0].status = PG021_BD_STS_CMPLT | PG021_BD_STS_RXSOF | PG021_BD_STS_RXEOF | 10;
	bd[1].status = PG021_BD_STS_CMPLT | PG021_BD_STS_RXSOF | 64;
	bd[2].status = PG021_BD_STS_CMPLT | PG021_BD_STS_RXEOF | 3;
	bd[3].status = PG021_BD_STS_CMPLT | PG021_BD_STS_RXSOF | 64;
	CHECK_EQ(sg_ring_reclaim(&r, out, 2, &n, &err), SG_OK);   /* [1,2] does not fit */
	CHECK_EQ(n, 1);
	CHECK_EQ(out[0].bytes, 10);
	CHECK_EQ(out[0].flags, SG_BD_SOF | SG_BD_EOF);
	CHECK_EQ(sg_ring_reclaim(&r, out, 8, &n, &err), SG_OK);
	CHECK_EQ(n, 2);
	CHECK_EQ(out[0].flags, SG_BD_SOF);
	CHECK_EQ(out[1].flags, SG_BD_EOF);
	CHECK_EQ(out[1].bytes, 3);
	CHECK_EQ(r.reclaim, 3);
	CHECK_EQ(r.n_hw, 1);
	CHECK_EQ(sg_ring_check(&r), SG_OK);
}

static void test_reclaim_error(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	struct sg_completion out[8];
	struct pg021_bd *bd = ring_setup(&c, &r, SG_MM2S, 32, 0x10000000, 4);
	uint64_t addr[3] = { buf_dev(0), buf_dev(1), buf_dev(2) };
	uint32_t len[3] = { 64, 64, 64 };
	uint8_t flags[3] = { SG_BD_SOF | SG_BD_EOF, SG_BD_SOF | SG_BD_EOF, SG_BD_SOF | SG_BD_EOF };
	uint32_t n, st;

	CHECK_EQ(sg_ring_fill(&r, 3, addr, len, flags, NULL, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);
	hw_complete(bd, 0, 0);
	hw_complete(bd, 1, PG021_BD_STS_INTERR);
	st = bd[1].status;
	/* What the engine does on an error: halt, CURDESC at the faulting BD. */
	*reg(PG021_DMASR) |= PG021_SR_HALTED | PG021_SR_DMAINTERR;
	*reg(PG021_DMACR) &= ~PG021_CR_RS;
	*reg(PG021_CURDESC) = (uint32_t)sg_ring_bd_dev(&r, 1);

	CHECK_EQ(sg_ring_reclaim(&r, out, 8, &n, &err), SG_E_HW);
	CHECK_EQ(n, 1);                          /* the good packet before it */
	CHECK_EQ(out[0].index, 0);
	CHECK_EQ(err.bd_index, 1);
	CHECK_EQ(err.value, st);
	CHECK(err.has_snapshot);
	CHECK(err.snap.cur_bd_valid);
	CHECK_EQ(err.snap.cur_bd_status, st);
	CHECK_EQ(r.n_hw, 2);
	CHECK_EQ(sg_ring_check(&r), SG_OK);

	/* Recover: pre-reset snapshot kept, ring forgotten, IRQ settings back. */
	c.irq_cr = PG021_CR_ERR_IRQEN | SG_FIELD_PREP(PG021_CR_THRESHOLD, 2);
	CHECK_EQ(sg_chan_recover(&c, &err), SG_OK);
	CHECK_EQ(err.code, SG_E_HW);
	CHECK_EQ(err.value, PG021_SR_DMAINTERR);
	CHECK(err.snap.dmasr & PG021_SR_DMAINTERR);
	CHECK_EQ(err.bd_index, 1);
	CHECK_EQ(*reg(PG021_DMASR) & PG021_SR_ERR_ALL, 0);
	CHECK_EQ(*reg(PG021_DMACR), c.irq_cr | PG021_CR_RSVD1);
	CHECK_EQ(r.n_free, 4);
	CHECK_EQ(r.fill + r.submit + r.reclaim + r.n_hw + r.n_filled, 0);
	CHECK_EQ(bd[1].status, 0);
	CHECK_EQ(bd[1].control, 64u | PG021_BD_CTRL_TXSOF | PG021_BD_CTRL_TXEOF);
	CHECK_EQ(sg_ring_check(&r), SG_OK);

	/* A fetch error writes no BD STATUS: reclaim still reports it. */
	bd = ring_setup(&c, &r, SG_MM2S, 32, 0x10000000, 4);
	CHECK_EQ(fill1(&r, buf_dev(0), 64, SG_BD_EOF, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);
	*reg(PG021_DMASR) |= PG021_SR_HALTED | PG021_SR_SGDECERR;
	CHECK_EQ(sg_ring_reclaim(&r, out, 8, &n, &err), SG_E_HW);
	CHECK_EQ(n, 0);
	CHECK_EQ(err.value, PG021_SR_SGDECERR);
	(void)bd;
}

static void test_rearm(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	struct sg_completion out[8];
	struct pg021_bd *bd = ring_setup(&c, &r, SG_S2MM, 64, 0x2000000000ull, 4);
	static uint8_t before[4 * 64];
	uint64_t addr[2] = { buf_dev(0), buf_dev(1) };
	uint32_t len[2] = { 256, 512 };
	uint8_t flags[2] = { 0, SG_BD_EOF };
	uint32_t n;

	CHECK_EQ(sg_ring_fill(&r, 2, addr, len, flags, NULL, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);
	bd[0].status = PG021_BD_STS_CMPLT | PG021_BD_STS_RXSOF | 256;
	bd[1].status = PG021_BD_STS_CMPLT | PG021_BD_STS_RXEOF | 100;
	CHECK_EQ(sg_ring_reclaim(&r, out, 8, &n, &err), SG_OK);
	CHECK_EQ(n, 2);

	/* Free BDs 2 and 3 were never filled: refused, nothing written. */
	memcpy(before, mem, sizeof(before));
	CHECK_EQ(sg_ring_rearm(&r, 3, &err), SG_E_LENGTH_ZERO);
	CHECK_EQ(err.bd_index, 2);
	CHECK(memcmp(before, mem, sizeof(before)) == 0);
	CHECK_EQ(sg_ring_rearm(&r, 5, &err), SG_E_RING_FULL);

	/* Fill 2, 3 and recycle them, then come round to 0 and 1. */
	CHECK_EQ(sg_ring_fill(&r, 2, addr, len, flags, NULL, &err), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);
	bd[2].status = PG021_BD_STS_CMPLT | PG021_BD_STS_RXSOF | 256;
	bd[3].status = PG021_BD_STS_CMPLT | PG021_BD_STS_RXEOF | 7;
	CHECK_EQ(sg_ring_reclaim(&r, out, 8, &n, &err), SG_OK);
	CHECK_EQ(r.fill, 0);
	CHECK_EQ(sg_ring_rearm(&r, 2, &err), SG_OK);
	CHECK_EQ(bd[0].status, 0);
	CHECK_EQ(bd[1].status, 0);
	CHECK_EQ(bd[0].control, 256);
	CHECK_EQ(bd[1].control, 512);
	CHECK_EQ(bd[1].buffer, (uint32_t)buf_dev(1));
	CHECK_EQ(bd[1].buffer_msb, (uint32_t)(buf_dev(1) >> 32));
	CHECK_EQ(bd[1].sw[0], SG_BD_EOF);
	CHECK(bd[2].status & PG021_BD_STS_CMPLT);    /* not rearmed yet */
	CHECK_EQ(r.n_filled, 2);
	CHECK_EQ(r.fill, 2);
	CHECK_EQ(sg_ring_check(&r), SG_OK);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_OK);
}

/* ---- ring: cyclic and kick ------------------------------------------------ */

static void fill_all(struct sg_ring *r, uint32_t count)
{
	struct sg_error err;
	uint32_t i;

	for (i = 0; i < count; i++)
		CHECK_EQ(fill1(r, buf_dev(i), 64, SG_BD_SOF | SG_BD_EOF, &err), SG_OK);
}

static void test_cyclic(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	struct sg_completion out[4];
	uint32_t n;
	int cyc, cd, rs, td;

	ring_setup(&c, &r, SG_MM2S, 32, 0x10000000, 4);
	fill_all(&r, 3);
	CHECK_EQ(sg_ring_start_cyclic(&r, &err), SG_E_ARG);
	CHECK_EQ(err.value, 3);
	CHECK_EQ(err.limit, 4);
	fill_all(&r, 1);
	sg_ring_link(&r, false);
	CHECK_EQ(sg_ring_start_cyclic(&r, &err), SG_E_ARG);
	sg_ring_link(&r, true);
	*reg(PG021_DMASR) &= ~PG021_SR_HALTED;
	CHECK_EQ(sg_ring_start_cyclic(&r, &err), SG_E_NOT_HALTED);
	*reg(PG021_DMASR) |= PG021_SR_HALTED;
	CHECK_EQ(log_count(SG_MM2S, PG021_DMACR) + log_count(SG_MM2S, PG021_TAILDESC), 0);

	CHECK_EQ(sg_chan_set_irq(&c, PG021_CR_IOC_IRQEN, 1, 0, &err), SG_OK);
	log_clear();
	CHECK_EQ(sg_ring_start_cyclic(&r, &err), SG_OK);
	cyc = log_find(SG_MM2S, PG021_DMACR, 0);
	cd = log_find(SG_MM2S, PG021_CURDESC, 0);
	rs = log_find(SG_MM2S, PG021_DMACR, cyc + 1);
	td = log_find(SG_MM2S, PG021_TAILDESC, 0);
	CHECK(cyc >= 0 && cyc < cd && cd < rs && rs < td);
	CHECK(F.log[cyc].value & PG021_CR_CYCLIC);
	CHECK(!(F.log[cyc].value & PG021_CR_RS));           /* cyclic bit while halted */
	CHECK_EQ(F.log[rs].value & (PG021_CR_CYCLIC | PG021_CR_RS | PG021_CR_IOC_IRQEN),
		 PG021_CR_CYCLIC | PG021_CR_RS | PG021_CR_IOC_IRQEN);
	CHECK_EQ(F.log[cd].value, (uint32_t)F.mem_dev);
	CHECK_EQ(F.log[td].value, (uint32_t)(F.mem_dev + 4 * 64));   /* outside the chain */
	CHECK_EQ(sg_ring_index_of(&r, F.log[td].value), SG_NO_INDEX);
	CHECK(F.cleaned_bytes >= 4 * 64);
	CHECK(r.cyclic);
	CHECK_EQ(r.n_hw, 4);
	CHECK_EQ(sg_ring_check(&r), SG_OK);

	/* Hardware owns everything: no fill, submit, reclaim, rearm or kick. */
	CHECK_EQ(fill1(&r, buf_dev(0), 64, SG_BD_EOF, &err), SG_E_MODE);
	CHECK_EQ(sg_ring_submit(&r, &err), SG_E_MODE);
	CHECK_EQ(sg_ring_reclaim(&r, out, 4, &n, &err), SG_E_MODE);
	CHECK_EQ(sg_ring_rearm(&r, 1, &err), SG_E_MODE);
	CHECK_EQ(sg_ring_kick(&r, F.mem_dev, &err), SG_E_MODE);
	CHECK_EQ(sg_ring_start_cyclic(&r, &err), SG_E_MODE);

	/* Stop = reset. */
	CHECK_EQ(sg_chan_recover(&c, &err), SG_OK);
	CHECK_EQ(err.code, SG_OK);
	CHECK(!r.cyclic);
	CHECK(!(*reg(PG021_DMACR) & PG021_CR_CYCLIC));
	CHECK_EQ(sg_ring_check(&r), SG_OK);
}

static void test_cyclic_tail_at_top(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	uint64_t dev = 0x100000000ull - 4 * 64;   /* ring ends exactly at 2^32 */
	int td;

	chan_setup(&c, SG_MM2S, 32, true, dev);
	CHECK_EQ(sg_ring_create(&r, &c, mem, dev, 4, &err), SG_OK);
	{
		struct sg_error e2;
		uint32_t i;

		for (i = 0; i < 4; i++)
			CHECK_EQ(fill1(&r, 0x10000000u + i * 64, 64, SG_BD_EOF, &e2), SG_OK);
	}
	log_clear();
	CHECK_EQ(sg_ring_start_cyclic(&r, &err), SG_OK);
	td = log_find(SG_MM2S, PG021_TAILDESC, 0);
	CHECK(td >= 0 && F.log[td].value == (uint32_t)(dev - 64));
}

static void test_kick(void)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;

	ring_setup(&c, &r, SG_MM2S, 64, 0x300000000ull, 4);
	CHECK_EQ(sg_ring_kick(&r, F.mem_dev + 4 * 64, &err), SG_E_TAIL_NOT_IN_RING);
	CHECK_EQ(err.value, F.mem_dev + 4 * 64);
	CHECK_EQ(sg_ring_kick(&r, F.mem_dev + 65, &err), SG_E_TAIL_NOT_IN_RING);
	CHECK_EQ(sg_ring_kick(&r, F.mem_dev - 64, &err), SG_E_TAIL_NOT_IN_RING);
	CHECK_EQ(F.n_log, 0);
	CHECK_EQ(sg_ring_kick(&r, F.mem_dev + 3 * 64, &err), SG_OK);
	CHECK_EQ(F.n_log, 2);
	CHECK_EQ(F.log[0].off, PG021_TAILDESC);
	CHECK_EQ(F.log[0].value, (uint32_t)(F.mem_dev + 3 * 64));
	CHECK_EQ(F.log[1].off, PG021_TAILDESC_MSB);
	CHECK_EQ(F.log[1].value, 3);
}

/* ---- random operation sequences ------------------------------------------- */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (uint32_t)(rng_state % n) : 0;
}

/* The fake engine completes up to k not-yet-complete hardware-owned BDs,
 * in order, as the real one would. */
static void hw_progress(struct sg_ring *r, uint32_t k)
{
	struct pg021_bd *bd = r->bd;
	uint32_t i, index = r->reclaim;

	for (i = 0; i < r->n_hw && k; i++, index = (index + 1) % r->count) {
		uint32_t extra = 0;

		if (bd[index].status & PG021_BD_STS_CMPLT)
			continue;
		if (r->chan->cfg.dir == SG_S2MM && (bd[index].sw[0] & SG_BD_EOF))
			extra = PG021_BD_STS_RXEOF;
		hw_complete(bd, index, extra);
		k--;
	}
}

struct model {
	uint32_t filled, submitted, reclaimed;   /* totals over the run */
	uint32_t next_reclaim;
};

/* Over all runs: proof that the sequences reach the interesting paths. */
static struct {
	unsigned submits, refused_fills, reclaimed, rearmed, wrapped_submits;
} coverage;

static void random_fill(struct sg_ring *r, struct model *m)
{
	uint64_t addr[8];
	uint32_t len[8];
	uint8_t flags[8];
	uint32_t n = 1 + rnd(8), i;
	bool bad = rnd(10) == 0;
	bool full = n > r->n_free;
	struct sg_error err;
	enum sg_status st;
	static uint8_t before[16 * 64];

	for (i = 0; i < n; i++) {
		flags[i] = rnd(3) == 0 || i == n - 1 ? SG_BD_EOF : 0;
		addr[i] = buf_dev(i);
		len[i] = (flags[i] & SG_BD_EOF) ? 1 + rnd(16383) : 8 * (1 + rnd(64));
	}
	if (bad)
		len[rnd(n)] = rnd(2) ? 0 : 16384;
	memcpy(before, mem, sizeof(before));
	st = sg_ring_fill(r, n, addr, len, flags, NULL, &err);
	if (bad || full) {
		coverage.refused_fills++;
		CHECK(st != SG_OK);
		CHECK(memcmp(before, mem, sizeof(before)) == 0);
		return;
	}
	CHECK_EQ(st, SG_OK);
	m->filled += n;
}

static void random_reclaim(struct sg_ring *r, struct model *m)
{
	struct sg_completion out[16];
	uint32_t max = 1 + rnd(16), n, i;
	struct sg_error err;
	enum sg_status st;

	st = sg_ring_reclaim(r, out, max, &n, &err);
	CHECK(st == SG_OK || st == SG_E_ARG);
	for (i = 0; i < n; i++) {
		CHECK_EQ(out[i].index, m->next_reclaim);
		CHECK(out[i].status & PG021_BD_STS_CMPLT);
		m->next_reclaim = (m->next_reclaim + 1) % r->count;
	}
	if (n)
		CHECK(out[n - 1].flags & SG_BD_EOF);   /* whole packets only */
	m->reclaimed += n;
	coverage.reclaimed += n;
}

static void random_run(uint64_t seed, enum sg_dir dir)
{
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	struct model m = { 0, 0, 0, 0 };
	uint32_t count = 1 + (uint32_t)(seed % 16), op;

	rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
	ring_setup(&c, &r, dir, 64, 0x100000000ull, count);
	for (op = 0; op < 2000; op++) {
		uint32_t before_filled = r.n_filled;

		switch (rnd(5)) {
		case 0:
			random_fill(&r, &m);
			break;
		case 1: {
			bool wraps = (uint64_t)r.submit + r.n_filled > r.count;

			if (sg_ring_submit(&r, &err) == SG_OK) {
				m.submitted += before_filled;
				coverage.submits++;
				coverage.wrapped_submits += wraps;
			}
			break;
		}
		case 2:
			hw_progress(&r, rnd(4));
			break;
		case 3:
			random_reclaim(&r, &m);
			break;
		case 4:
			if (sg_ring_rearm(&r, rnd(r.n_free + 1), &err) == SG_OK) {
				m.filled += r.n_filled - before_filled;
				coverage.rearmed += r.n_filled - before_filled;
			}
			break;
		}
		CHECK_EQ(sg_ring_check(&r), SG_OK);
		CHECK_EQ(r.n_hw + r.n_filled, m.filled - m.reclaimed);
		CHECK_EQ(r.n_hw, m.submitted - m.reclaimed);
		CHECK_EQ(r.reclaim, m.next_reclaim);
		if (checks_failed_in_test) {
			printf("  seed %llu op %u\n", (unsigned long long)seed, op);
			return;
		}
	}
}

static void test_random_sequences(void)
{
	uint64_t seed;

	for (seed = 1; seed <= 40 && !checks_failed_in_test; seed++)
		random_run(seed, seed & 1 ? SG_S2MM : SG_MM2S);
	printf("     %u submits (%u wrapping), %u BDs reclaimed, %u rearmed, %u fills refused\n",
	       coverage.submits, coverage.wrapped_submits, coverage.reclaimed,
	       coverage.rearmed, coverage.refused_fills);
	CHECK(coverage.submits > 1000);
	CHECK(coverage.wrapped_submits > 50);
	CHECK(coverage.reclaimed > 1000);
	CHECK(coverage.rearmed > 100);
	CHECK(coverage.refused_fills > 100);
}

/*
 * sg_ring_fill checks a whole batch with OR-reductions and names the first
 * offender only when one may exist: random batches with values at every rule's
 * edge, under several channel configurations, against PG021's rules applied
 * to each BD here.  Accepted: the BD words at their PG021 byte offsets.
 * Refused: the first offender named, and not one byte of BD memory written.
 */
static uint32_t le32_at(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static enum sg_status expect_bd(const struct sg_chan_config *cfg, uint64_t addr, uint32_t len, uint8_t flags)
{
	uint64_t top = cfg->addr_width >= 64 ? UINT64_MAX : ((uint64_t)1 << cfg->addr_width) - 1u;

	if (flags & ~(SG_BD_SOF | SG_BD_EOF))
		return SG_E_ARG;
	if (len == 0)
		return SG_E_LENGTH_ZERO;
	if (len >= (uint64_t)1 << cfg->length_width)
		return SG_E_LENGTH_WIDTH;
	if (!cfg->has_dre && addr % cfg->data_bytes)
		return SG_E_ALIGN;
	if (addr > top || len - 1u > top - addr)
		return SG_E_ADDR_RANGE;
	return SG_OK;
}

static uint64_t edge_addr(const struct sg_chan_config *cfg)
{
	uint64_t top = cfg->addr_width >= 64 ? UINT64_MAX : ((uint64_t)1 << cfg->addr_width) - 1u;
	uint64_t base;

	switch (rnd(6)) {
	case 0: base = 0x10000000u; break;
	case 1: base = (top >> 1) + 1u; break;          /* the top half: the coarse bound fails */
	case 2: base = top - 0xffffu; break;            /* near the end of the address space */
	case 3: base = top + 1u; break;                 /* just past it (0 for 64 bits) */
	case 4: base = (uint64_t)1 << 63; break;
	default: base = ((uint64_t)rnd(1u << 30) << 32 | rnd(1u << 30)) & top; break;
	}
	base += (uint64_t)rnd(64) * 64u;
	if (rnd(8) == 0)
		base += 1u + rnd(cfg->data_bytes);           /* misaligned (unless the DRE) */
	return base;
}

static uint32_t edge_len(const struct sg_chan_config *cfg)
{
	uint32_t max = (uint32_t)(((uint64_t)1 << cfg->length_width) - 1u);

	switch (rnd(8)) {
	case 0: return 0;
	case 1: return max;
	case 2: return max + 1u;
	case 3: return UINT32_MAX;
	case 4: return 0x10000u;
	default: return 1u + rnd(4096);
	}
}

static void test_fill_filter_matches_rules(void)
{
	static const unsigned widths[][2] = { { 32, 14 }, { 32, 26 }, { 40, 23 }, { 63, 26 }, { 64, 26 }, { 64, 8 } };
	static const unsigned data_bytes[] = { 4, 8, 64 };
	static uint8_t before[MEM_SIZE];
	struct sg_chan c;
	struct sg_ring r;
	struct sg_error err;
	uint64_t addr[40];
	uint32_t len[40], app[40 * PG021_BD_APP_COUNT];
	uint8_t flags[40];
	unsigned accepted = 0, refused = 0, trial;

	rng_state = 0x5eedf11u;
	for (trial = 0; trial < 3000 && !checks_failed_in_test; trial++) {
		struct sg_chan_config cfg = config(trial & 1 ? SG_S2MM : SG_MM2S, widths[rnd(6)][0]);
		uint32_t n = 1 + rnd(40), count = 48, start = rnd(count), i, j, first = UINT32_MAX;
		enum sg_status want = SG_OK, got;
		bool pristine = rnd(2) != 0, with_flags = rnd(4) != 0, with_app = rnd(4) == 0;

		cfg.length_width = widths[trial % 6][1];
		cfg.data_bytes = data_bytes[rnd(3)];
		cfg.has_dre = rnd(4) == 0;
		fake_setup(true, 0x10000000);
		CHECK_EQ(sg_chan_init(&c, PLAT, &cfg, &err), SG_OK);
		CHECK_EQ(sg_ring_create(&r, &c, mem, F.mem_dev, count, &err), SG_OK);
		/* start the batch at a random BD so that some batches wrap */
		r.fill = r.submit = r.reclaim = start;
		for (i = 0; i < n; i++) {
			addr[i] = pristine ? F.mem_dev + 0x8000u + i * 0x100u : edge_addr(&cfg);
			len[i] = pristine ? 64u : edge_len(&cfg);
			flags[i] = (uint8_t)(pristine || rnd(8) ? rnd(4) : 1u << rnd(8));
			for (j = 0; j < PG021_BD_APP_COUNT; j++)
				app[i * PG021_BD_APP_COUNT + j] = rnd(UINT32_MAX);
		}
		if (pristine && rnd(2)) {          /* one bad BD among good ones */
			i = rnd(n);
			switch (rnd(4)) {
			case 0: len[i] = 0; break;
			case 1: len[i] = (uint32_t)((uint64_t)1 << cfg.length_width); break;
			case 2: addr[i] += cfg.data_bytes / 2u; break;
			default: addr[i] = edge_addr(&cfg); break;
			}
		}
		for (i = 0; i < n && want == SG_OK; i++) {
			want = expect_bd(&cfg, addr[i], len[i], with_flags ? flags[i] : 0);
			first = i;
		}
		memcpy(before, mem, sizeof(before));
		got = sg_ring_fill(&r, n, addr, len, with_flags ? flags : NULL, with_app ? app : NULL, &err);
		CHECK_EQ(got, want);
		if (want != SG_OK) {
			refused++;
			CHECK_EQ(err.bd_index, (start + first) % count);
			CHECK(memcmp(before, mem, sizeof(before)) == 0);
			CHECK_EQ(r.n_filled, 0);
			continue;
		}
		accepted++;
		CHECK_EQ(r.n_filled, n);
		for (i = 0; i < n; i++) {
			const uint8_t *b = mem + (size_t)((start + i) % count) * 64u;
			uint32_t f = with_flags ? flags[i] : 0, ctl = len[i];

			if (cfg.dir == SG_MM2S)
				ctl |= (f & SG_BD_SOF ? 1u << 27 : 0) | (f & SG_BD_EOF ? 1u << 26 : 0);
			CHECK_EQ(le32_at(b + 0x08), (uint32_t)addr[i]);
			CHECK_EQ(le32_at(b + 0x0c), (uint32_t)(addr[i] >> 32));
			CHECK_EQ(le32_at(b + 0x18), ctl);
			CHECK_EQ(le32_at(b + 0x1c), 0);
			for (j = 0; j < PG021_BD_APP_COUNT; j++)
				CHECK_EQ(le32_at(b + 0x20 + 4 * j), with_app ? app[i * PG021_BD_APP_COUNT + j] : 0);
			CHECK_EQ(le32_at(b + 0x34), f);
			/* NXTDESC as linked at creation */
			CHECK_EQ(le32_at(b + 0x00), (uint32_t)(F.mem_dev + ((start + i + 1) % count) * 64u));
		}
		if (checks_failed_in_test)
			printf("  trial %u\n", trial);
	}
	printf("     %u batches accepted, %u refused\n", accepted, refused);
	CHECK(accepted > 500);
	CHECK(refused > 500);
}

static void test_ring_check_detects_damage(void)
{
	struct sg_chan c;
	struct sg_ring r;

	ring_setup(&c, &r, SG_MM2S, 32, 0x10000000, 4);
	CHECK_EQ(sg_ring_check(&r), SG_OK);
	r.n_free--;
	CHECK_EQ(sg_ring_check(&r), SG_E_ARG);
	r.n_free++;
	r.n_filled = 1;
	r.n_free = 3;
	CHECK_EQ(sg_ring_check(&r), SG_E_ARG);     /* fill != submit + n_filled */
	r.fill = 1;
	CHECK_EQ(sg_ring_check(&r), SG_OK);
	r.reclaim = 4;
	CHECK_EQ(sg_ring_check(&r), SG_E_ARG);
	r.reclaim = 0;
	r.cyclic = true;
	CHECK_EQ(sg_ring_check(&r), SG_E_ARG);
	CHECK_EQ(sg_ring_check(NULL), SG_E_ARG);
}

int main(void)
{
	RUN(test_status_names);
	RUN(test_format_registers);
	RUN(test_format_truncates);
	RUN(test_format_error);
	RUN(test_init_config);
	RUN(test_reset_and_irq);
	RUN(test_bounded_waits);
	RUN(test_curdesc_and_cyclic_bit);
	RUN(test_simple_mode);
	RUN(test_ring_create);
	RUN(test_fill_lengths_and_alignment);
	RUN(test_fill_validates_all_first);
	RUN(test_fill_filter_matches_rules);
	RUN(test_stream_multiple);
	RUN(test_packet_open);
	RUN(test_submit_order);
	RUN(test_submit_refusals);
	RUN(test_submit_wrap_and_restart);
	RUN(test_reclaim_whole_packets);
	RUN(test_reclaim_fit_and_s2mm);
	RUN(test_reclaim_error);
	RUN(test_rearm);
	RUN(test_cyclic);
	RUN(test_cyclic_tail_at_top);
	RUN(test_kick);
	RUN(test_random_sequences);
	RUN(test_ring_check_detects_damage);
	return report();
}
