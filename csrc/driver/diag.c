// SPDX-License-Identifier: MIT
/*
 * diag.c - status names and decoded register text for sgdma errors.
 *
 * Freestanding: no snprintf, no string.h.  All text goes through a tiny
 * appender that drops what does not fit, always NUL-terminates and returns
 * the length actually stored, so a too-small buffer gives a shorter message,
 * never an overrun.  No 64-bit division either: on Cortex-R5 that would pull
 * in libgcc's __aeabi_uldivmod.
 */
#include "sgdma/driver.h"

/* ---- status table --------------------------------------------------------- */

#define SG_X_NAME(name, rule, fix) #name,
#define SG_X_RULE(name, rule, fix) rule,
#define SG_X_FIX(name, rule, fix) fix,

static const char *const status_names[SG_STATUS_COUNT] = { SG_STATUS_LIST(SG_X_NAME) };
static const char *const status_rules[SG_STATUS_COUNT] = { SG_STATUS_LIST(SG_X_RULE) };
static const char *const status_fixes[SG_STATUS_COUNT] = { SG_STATUS_LIST(SG_X_FIX) };

#undef SG_X_NAME
#undef SG_X_RULE
#undef SG_X_FIX

static bool status_known(enum sg_status code)
{
	/* The enum may be signed or unsigned; compare as unsigned to catch both. */
	return (unsigned)code < (unsigned)SG_STATUS_COUNT;
}

const char *sg_status_name(enum sg_status code)
{
	return status_known(code) ? status_names[code] : "SG_E_UNKNOWN";
}

const char *sg_status_rule(enum sg_status code)
{
	return status_known(code) ? status_rules[code] : "unknown status code";
}

const char *sg_status_fix(enum sg_status code)
{
	return status_known(code) ? status_fixes[code] : "";
}

/* ---- appender ------------------------------------------------------------- */

struct text {
	char *buf;
	size_t cap;     /* bytes in buf, including the NUL */
	size_t len;     /* characters stored; always < cap when cap > 0 */
};

static void text_init(struct text *t, char *buf, size_t n)
{
	t->buf = buf;
	t->cap = buf ? n : 0;
	t->len = 0;
	if (t->cap)
		t->buf[0] = '\0';
}

static void put_char(struct text *t, char ch)
{
	/* Keep one byte for the terminator; drop what does not fit. */
	if (t->len + 1 >= t->cap)
		return;
	t->buf[t->len++] = ch;
	t->buf[t->len] = '\0';
}

static void put_str(struct text *t, const char *s)
{
	if (!s)
		return;
	while (*s)
		put_char(t, *s++);
}

static void put_hex_digits(struct text *t, uint64_t v, unsigned digits)
{
	static const char hex[] = "0123456789abcdef";

	while (digits--)
		put_char(t, hex[(v >> (digits * 4u)) & 0xfu]);
}

/* 0x%08x */
static void put_hex32(struct text *t, uint32_t v)
{
	put_str(t, "0x");
	put_hex_digits(t, v, 8);
}

/* Addresses: 8 digits while they fit in 32 bits, 16 beyond. */
static void put_hex64(struct text *t, uint64_t v)
{
	put_str(t, "0x");
	put_hex_digits(t, v, (v >> 32) ? 16 : 8);
}

static const uint64_t pow10_table[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
	10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
	100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull,
	10000000000000000000ull,
};

/* Unsigned decimal by repeated subtraction: at most 9 per digit. */
static void put_dec(struct text *t, uint64_t v)
{
	int i = 19;

	while (i > 0 && pow10_table[i] > v)
		i--;
	for (; i >= 0; i--) {
		char digit = '0';

		while (v >= pow10_table[i]) {
			v -= pow10_table[i];
			digit++;
		}
		put_char(t, digit);
	}
}

/* " NAME" for each set bit of a table, in table order. */
struct bit_name {
	uint32_t mask;
	const char *name;
};

static void put_bits(struct text *t, uint32_t v, const struct bit_name *names,
		     size_t count, bool *first)
{
	size_t i;

	for (i = 0; i < count; i++) {
		if (!(v & names[i].mask))
			continue;
		if (!*first)
			put_char(t, ' ');
		put_str(t, names[i].name);
		*first = false;
	}
}

static void put_field(struct text *t, const char *name, uint64_t value, bool *first)
{
	if (!*first)
		put_char(t, ' ');
	put_str(t, name);
	put_char(t, '=');
	put_dec(t, value);
	*first = false;
}

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- register and BD decoders --------------------------------------------- */

static const struct bit_name dmacr_ctl_bits[] = {
	{ PG021_CR_RS, "RS" },
	{ PG021_CR_RESET, "Reset" },
	{ PG021_CR_KEYHOLE, "Keyhole" },
	{ PG021_CR_CYCLIC, "Cyclic" },
};

static const struct bit_name dmacr_irq_bits[] = {
	{ PG021_CR_IOC_IRQEN, "IOC_IrqEn" },
	{ PG021_CR_DLY_IRQEN, "Dly_IrqEn" },
	{ PG021_CR_ERR_IRQEN, "Err_IrqEn" },
};

static const struct bit_name dmasr_bits[] = {
	{ PG021_SR_HALTED, "Halted" },
	{ PG021_SR_IDLE, "Idle" },
	{ PG021_SR_SGINCLD, "SGIncld" },
	{ PG021_SR_DMAINTERR, "DMAIntErr" },
	{ PG021_SR_DMASLVERR, "DMASlvErr" },
	{ PG021_SR_DMADECERR, "DMADecErr" },
	{ PG021_SR_SGINTERR, "SGIntErr" },
	{ PG021_SR_SGSLVERR, "SGSlvErr" },
	{ PG021_SR_SGDECERR, "SGDecErr" },
	{ PG021_SR_IOC_IRQ, "IOC_Irq" },
	{ PG021_SR_DLY_IRQ, "Dly_Irq" },
	{ PG021_SR_ERR_IRQ, "Err_Irq" },
};

static const struct bit_name bd_status_bits[] = {
	{ PG021_BD_STS_CMPLT, "Cmplt" },
	{ PG021_BD_STS_INTERR, "DMAIntErr" },
	{ PG021_BD_STS_SLVERR, "DMASlvErr" },
	{ PG021_BD_STS_DECERR, "DMADecErr" },
	{ PG021_BD_STS_RXSOF, "RXSOF" },
	{ PG021_BD_STS_RXEOF, "RXEOF" },
};

/* "0x00011003 [RS IRQThreshold=1 IRQDelay=0 IOC_IrqEn]" */
static void put_dmacr(struct text *t, uint32_t v)
{
	bool first = true;

	put_hex32(t, v);
	put_str(t, " [");
	put_bits(t, v, dmacr_ctl_bits, ARRAY_LEN(dmacr_ctl_bits), &first);
	put_field(t, "IRQThreshold", SG_FIELD_GET(PG021_CR_THRESHOLD, v), &first);
	put_field(t, "IRQDelay", SG_FIELD_GET(PG021_CR_DELAY, v), &first);
	put_bits(t, v, dmacr_irq_bits, ARRAY_LEN(dmacr_irq_bits), &first);
	put_char(t, ']');
}

/* "0x00010011 [Halted DMAIntErr IRQThresholdSts=1]"; the delay counter is
 * shown only while it runs, the threshold counter always. */
static void put_dmasr(struct text *t, uint32_t v)
{
	bool first = true;
	uint32_t delay = SG_FIELD_GET(PG021_SR_DELAY_STS, v);

	put_hex32(t, v);
	put_str(t, " [");
	put_bits(t, v, dmasr_bits, ARRAY_LEN(dmasr_bits), &first);
	put_field(t, "IRQThresholdSts", SG_FIELD_GET(PG021_SR_THRESHOLD_STS, v), &first);
	if (delay)
		put_field(t, "IRQDelaySts", delay, &first);
	put_char(t, ']');
}

/* "0x90000020 [Cmplt DMAIntErr bytes=32]" */
static void put_bd_status(struct text *t, uint32_t v)
{
	bool first = true;

	put_hex32(t, v);
	put_str(t, " [");
	put_bits(t, v, bd_status_bits, ARRAY_LEN(bd_status_bits), &first);
	put_field(t, "bytes", v & PG021_BD_LEN_MASK, &first);
	put_char(t, ']');
}

static void put_snapshot(struct text *t, const struct sg_snapshot *s)
{
	put_str(t, "DMACR=");
	put_dmacr(t, s->dmacr);
	put_str(t, " DMASR=");
	put_dmasr(t, s->dmasr);
	put_str(t, " CURDESC=");
	put_hex64(t, s->curdesc);
	put_str(t, " TAILDESC=");
	put_hex64(t, s->taildesc);
	if (s->cur_bd_valid) {
		put_str(t, " BD@CURDESC.STATUS=");
		put_bd_status(t, s->cur_bd_status);
	}
}

size_t sg_format_dmacr(uint32_t dmacr, char *buf, size_t n)
{
	struct text t;

	text_init(&t, buf, n);
	put_dmacr(&t, dmacr);
	return t.len;
}

size_t sg_format_dmasr(uint32_t dmasr, char *buf, size_t n)
{
	struct text t;

	text_init(&t, buf, n);
	put_dmasr(&t, dmasr);
	return t.len;
}

size_t sg_format_bd_status(uint32_t status, char *buf, size_t n)
{
	struct text t;

	text_init(&t, buf, n);
	put_bd_status(&t, status);
	return t.len;
}

size_t sg_format_snapshot(const struct sg_snapshot *s, char *buf, size_t n)
{
	struct text t;

	text_init(&t, buf, n);
	if (s)
		put_snapshot(&t, s);
	return t.len;
}

/* ---- errors --------------------------------------------------------------- */

/* Codes whose value is an address or a register word read best in hex;
 * everything else (lengths, counts, widths) reads best in decimal. */
static bool value_is_address(enum sg_status code)
{
	return code == SG_E_ALIGN || code == SG_E_ADDR_RANGE ||
	       code == SG_E_TAIL_NOT_IN_RING || code == SG_E_HW;
}

/* Only an address range has an address as its limit (the top address). */
static bool limit_is_address(enum sg_status code)
{
	return code == SG_E_ADDR_RANGE;
}

static void put_number(struct text *t, uint64_t v, bool hex)
{
	if (hex)
		put_hex64(t, v);
	else
		put_dec(t, v);
}

/*
 * "<mm2s|s2mm>: <name>: <rule>; value=..., limit=..., BD index=...;
 *  fix: <fix>; registers: <snapshot>"
 * value/limit are shown when either is non-zero (a zero length has limit 1),
 * the BD index when there is one, the snapshot when one was taken.
 */
size_t sg_format_error(const struct sg_error *e, char *buf, size_t n)
{
	struct text t;
	bool has_numbers;
	bool need_comma = false;
	const char *fix;

	text_init(&t, buf, n);
	if (!e)
		return t.len;

	put_str(&t, e->dir == SG_S2MM ? "s2mm: " : "mm2s: ");
	put_str(&t, sg_status_name(e->code));
	put_str(&t, ": ");
	put_str(&t, sg_status_rule(e->code));
	if (e->what) {
		put_str(&t, " (");
		put_str(&t, e->what);
		put_str(&t, ")");
	}

	has_numbers = e->value || e->limit;
	if (has_numbers || e->bd_index != SG_NO_INDEX)
		put_str(&t, "; ");
	if (has_numbers) {
		put_str(&t, "value=");
		put_number(&t, e->value, value_is_address(e->code));
		need_comma = true;
		if (e->limit) {
			put_str(&t, ", limit=");
			put_number(&t, e->limit, limit_is_address(e->code));
		}
	}
	if (e->bd_index != SG_NO_INDEX) {
		if (need_comma)
			put_str(&t, ", ");
		put_str(&t, "BD index=");
		put_dec(&t, e->bd_index);
	}

	fix = sg_status_fix(e->code);
	if (*fix) {
		put_str(&t, "; fix: ");
		put_str(&t, fix);
	}
	if (e->has_snapshot) {
		put_str(&t, "; registers: ");
		put_snapshot(&t, &e->snap);
	}
	return t.len;
}
