/*
 * driver.h - the sgdma driver core: PG021 channel control and BD rings.
 *
 * Freestanding C11.  No allocation: the caller owns every struct and the BD
 * memory.  No OS calls: all I/O goes through struct sg_platform.  Every wait is
 * bounded by cfg.poll_limit register reads; every failure fills a struct
 * sg_error with a typed code and, when the hardware was involved, a snapshot of
 * DMACR/DMASR/CURDESC/TAILDESC.  Nothing is written to BD memory or registers
 * when a request is refused up front.
 */
#ifndef SGDMA_DRIVER_H
#define SGDMA_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sgdma/pg021.h"
#include "sgdma/sg_contract.h"
#include "sgdma/platform.h"

/* enum sg_dir, SG_BD_SOF/EOF, SG_DEFAULT_POLL_LIMIT and SG_STATUS_LIST come from the contract. */

enum sg_status {
#define SG_X_ENUM(name, rule, fix) name,
	SG_STATUS_LIST(SG_X_ENUM)
#undef SG_X_ENUM
	SG_STATUS_COUNT
};

struct sg_snapshot {
	uint32_t dmacr;
	uint32_t dmasr;
	uint64_t curdesc;
	uint64_t taildesc;
	uint32_t cur_bd_status;   /* STATUS word of the BD at CURDESC, if readable */
	bool cur_bd_valid;
};

struct sg_error {
	enum sg_status code;
	enum sg_dir dir;
	uint32_t bd_index;        /* ring index the error is about, or SG_NO_INDEX */
	uint64_t value;           /* offending value (length, address, ...) */
	uint64_t limit;           /* the limit it broke, where there is one */
	bool has_snapshot;
	struct sg_snapshot snap;
	const char *what;         /* which argument or condition, when the code alone is vague (or NULL) */
};
#define SG_NO_INDEX UINT32_MAX

/* Fill err (when given) with a failure that carries no register snapshot; returns code.  The driver
 * core's one way to report one, and for programs over it (apps/s0_bench.c). */
static inline enum sg_status sg_error_fill(struct sg_error *err, enum sg_status code, enum sg_dir dir,
					  uint32_t bd_index, uint64_t value, uint64_t limit)
{
	if (err) {
		err->code = code;
		err->dir = dir;
		err->bd_index = bd_index;
		err->value = value;
		err->limit = limit;
		err->has_snapshot = false;
		err->what = 0;
	}
	return code;
}

struct sg_chan_config {
	uint64_t base;            /* AXI DMA register base (device address) */
	enum sg_dir dir;
	unsigned addr_width;      /* 32..64; > 32 uses the _MSB registers */
	unsigned length_width;    /* 8..26 */
	unsigned data_bytes;      /* stream and memory-map data width, bytes */
	bool has_dre;             /* data realignment engine: unaligned buffers OK */
	uint32_t poll_limit;      /* max register reads in any wait; 0 = default */
	uint32_t irq_timeout_us;  /* bound of one interrupt wait (ops->wait_irq); 0 = default */
};
#define SG_DEFAULT_IRQ_TIMEOUT_US 1000000u

struct sg_ring;

struct sg_chan {
	struct sg_platform plat;
	struct sg_chan_config cfg;
	uint64_t regs;            /* base of this channel's register block */
	bool has_sg;              /* read from DMASR.SGIncld at init */
	uint32_t irq_cr;          /* IRQ enables, threshold and delay kept across resets */
	struct sg_ring *ring;     /* ring last submitted on this channel */
};

/* BD ring over caller memory.
 * Invariants (checked by sg_ring_check):
 *   n_free + n_filled + n_hw == count
 *   submit == (reclaim + n_hw) % count, fill == (submit + n_filled) % count
 * BDs [reclaim, submit) belong to hardware, [submit, fill) are filled but not
 * yet given to hardware, the rest are free. */
struct sg_ring {
	struct pg021_bd *bd;
	uint64_t dev;
	uint32_t count;
	uint32_t fill, submit, reclaim;
	uint32_t n_free, n_filled, n_hw;
	bool closed;              /* last NXTDESC points at the first BD */
	bool cyclic;              /* started in cyclic mode: hardware owns every BD */
	struct sg_chan *chan;
};

struct sg_completion {
	uint32_t index;           /* ring index */
	uint32_t bytes;           /* bytes transferred (STATUS[25:0]) */
	uint32_t status;          /* raw STATUS word */
	uint32_t flags;           /* SG_BD_SOF / SG_BD_EOF as seen by the hardware */
};

/* ---- diagnostics -------------------------------------------------------- */
const char *sg_status_name(enum sg_status code);
const char *sg_status_rule(enum sg_status code);
const char *sg_status_fix(enum sg_status code);
/* Decoded text, always NUL-terminated; returns the length written. */
size_t sg_format_dmacr(uint32_t dmacr, char *buf, size_t n);
size_t sg_format_dmasr(uint32_t dmasr, char *buf, size_t n);
size_t sg_format_bd_status(uint32_t status, char *buf, size_t n);
size_t sg_format_snapshot(const struct sg_snapshot *s, char *buf, size_t n);
size_t sg_format_error(const struct sg_error *e, char *buf, size_t n);

/* ---- channel ------------------------------------------------------------ */
enum sg_status sg_chan_init(struct sg_chan *c, struct sg_platform plat,
			    const struct sg_chan_config *cfg, struct sg_error *err);
uint32_t sg_chan_read(const struct sg_chan *c, uint32_t off);
void sg_chan_write(const struct sg_chan *c, uint32_t off, uint32_t value);
void sg_chan_snapshot(const struct sg_chan *c, struct sg_snapshot *s);
bool sg_chan_halted(const struct sg_chan *c);
bool sg_chan_idle(const struct sg_chan *c);
uint64_t sg_chan_max_length(const struct sg_chan *c);
/* Soft reset (both channels!), bounded poll of DMACR.Reset. */
enum sg_status sg_chan_reset(struct sg_chan *c, struct sg_error *err);
/* Clear RS and poll DMASR.Halted. */
enum sg_status sg_chan_halt(struct sg_chan *c, struct sg_error *err);
/* enables: PG021_CR_*_IRQEN mask; threshold 1..255; delay 0..255. */
enum sg_status sg_chan_set_irq(struct sg_chan *c, uint32_t enables, unsigned threshold,
			       unsigned delay, struct sg_error *err);
/* Read DMASR, write back its set IRQ bits (W1C); returns the bits cleared. */
uint32_t sg_chan_irq_ack(struct sg_chan *c);
/* SG_E_HW with snapshot if DMASR carries error bits. */
enum sg_status sg_chan_check(struct sg_chan *c, struct sg_error *err);
enum sg_status sg_chan_set_curdesc(struct sg_chan *c, uint64_t dev, struct sg_error *err);
enum sg_status sg_chan_set_cyclic(struct sg_chan *c, bool on, struct sg_error *err);
/* Tail write in the order PG021 needs: LSB, then MSB (the trigger). */
void sg_chan_write_tail(struct sg_chan *c, uint64_t dev);
/* Poll until DMASR.Idle (or an error / the bound).  With a platform
 * interrupt wait and IOC or Err IRQs enabled, the channel sleeps on its
 * interrupt between reads instead (bounded by cfg.irq_timeout_us), acking the
 * IRQ bits it woke for. */
enum sg_status sg_chan_wait_idle(struct sg_chan *c, struct sg_error *err);
/* Snapshot into err, soft reset, restore IRQ settings, reset the ring's
 * bookkeeping (hardware-owned BDs are dropped, STATUS cleared). */
enum sg_status sg_chan_recover(struct sg_chan *c, struct sg_error *err);

/* ---- simple (direct register) mode -------------------------------------- */
enum sg_status sg_simple_start(struct sg_chan *c, uint64_t dev, uint32_t len, struct sg_error *err);
/* Wait for Idle; *actual = bytes moved (S2MM: read back from LENGTH). */
enum sg_status sg_simple_wait(struct sg_chan *c, uint32_t *actual, struct sg_error *err);

/* ---- BD ring ------------------------------------------------------------ */
enum sg_status sg_ring_create(struct sg_ring *r, struct sg_chan *c, void *cpu, uint64_t dev,
			      uint32_t count, struct sg_error *err);
void sg_ring_link(struct sg_ring *r, bool closed);
enum sg_status sg_ring_check(const struct sg_ring *r);
uint64_t sg_ring_bd_dev(const struct sg_ring *r, uint32_t index);
/* Index of a BD by device address, or SG_NO_INDEX. */
uint32_t sg_ring_index_of(const struct sg_ring *r, uint64_t dev);
/* Validate one BD's buffer without writing anything. */
enum sg_status sg_ring_check_buffer(const struct sg_ring *r, uint64_t addr, uint64_t len,
				    uint32_t flags, uint32_t index, struct sg_error *err);
/* Fill n BDs at the fill position.  All are validated before any is written.
 * app may be NULL, else 5 words per BD. */
enum sg_status sg_ring_fill(struct sg_ring *r, uint32_t n, const uint64_t *addr, const uint32_t *len,
			    const uint8_t *flags, const uint32_t *app, struct sg_error *err);
/* Packet rule over filled-not-submitted BDs (multiple of stream width, EOF at end). */
enum sg_status sg_ring_validate(const struct sg_ring *r, struct sg_error *err);
/* Give filled BDs to hardware: CURDESC only while halted, RS before tail,
 * tail LSB then MSB. */
enum sg_status sg_ring_submit(struct sg_ring *r, struct sg_error *err);
/* sg_ring_submit without the trigger: *tail is the address to write with
 * sg_chan_write_tail when the caller is ready (e.g. after a PL handshake).
 * The BDs already count as given to hardware. */
enum sg_status sg_ring_prepare(struct sg_ring *r, uint64_t *tail, struct sg_error *err);
/* Write TAILDESC = tail after checking it names a BD of this ring. */
enum sg_status sg_ring_kick(struct sg_ring *r, uint64_t tail, struct sg_error *err);
/* Collect completed BDs as whole packets into out[0..max).  *n_out = BDs
 * returned.  A BD the hardware marked with an error ends the walk with SG_E_HW. */
enum sg_status sg_ring_reclaim(struct sg_ring *r, struct sg_completion *out, uint32_t max,
			       uint32_t *n_out, struct sg_error *err);
/* Free BDs become filled again with their previous buffer and length and
 * STATUS cleared (buffer recycling for capture). */
enum sg_status sg_ring_rearm(struct sg_ring *r, uint32_t n, struct sg_error *err);
/* Closed, fully filled ring; Cyclic before RS; tail outside the chain. */
enum sg_status sg_ring_start_cyclic(struct sg_ring *r, struct sg_error *err);
/* sg_ring_start_cyclic without the trigger: *trigger is the tail address
 * (outside the chain) to write with sg_chan_write_tail when ready. */
enum sg_status sg_ring_prepare_cyclic(struct sg_ring *r, uint64_t *trigger, struct sg_error *err);

#endif /* SGDMA_DRIVER_H */
