/*
 * rtio_types.h - the ARTIQ-style RTIO subsystem's state and clock arithmetic;
 * no function of a .c file is declared here (each file's header declares its
 * own, so calls between the files only point down: rtio.c -> engines -> SED ->
 * analyzer -> memory adapter; the kernel CPU's API is cpu/rtio_kernel.h).  One device (rtio.c, whose own
 * header is rtio.h) made of the event core (SED lanes, CRI), the event DMA
 * (rtio_dma.c), the analyzer (rtio_analyzer.c), the ACP kernel initiator
 * (rtio_acpki.c) and the credit write FIFO (rtio_wfifo.c); the kernel CPU's
 * side of the three initiators is ../cpu/rtio_kernel.c.  Facts and sources:
 * /work/shared/reference/artiq-rtio.md; the byte layouts: sgdma/rtio_layout.h.
 */
#ifndef SGDMA_VBOARD_RTIO_TYPES_H
#define SGDMA_VBOARD_RTIO_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "sgdma/rtio_layout.h"
#include "vboard.h"
#include "base/sched.h"
#include "mem/ic.h"
#include "mem/memory.h"

#define RTIO_MAX_LANES 16
#define RTIO_WQ 64            /* posted CSR stores in flight on the register port */
#define RTIO_DMA_BURSTS 128   /* the AXI reader's in-flight counter limit (sec. 3.3) */
#define RTIO_AN_OUT 256

/* Who drives the CRI write in progress. */
enum rtio_src { RTIO_SRC_KI = 0, RTIO_SRC_DMA, RTIO_SRC_ACP, RTIO_SRC_WF, RTIO_NSRC };
enum rtio_initiator { RTIO_INIT_CSR = 0, RTIO_INIT_ACP, RTIO_INIT_ACP_BATCH, RTIO_INIT_FIFO };

struct rtio_event {
	int64_t ts;               /* mu */
	uint32_t chan;
	uint8_t addr, nwords;
	uint32_t data[RTIO_RECORD_MAX_WORDS];
};

struct rtio_lane {
	struct rtio_event *q;
	unsigned head, count;
	int64_t last_coarse;      /* last coarse timestamp written: strictly increasing per lane */
};

struct rtio_dma {
	uint64_t base, offset;
	enum { DMA_IDLE, DMA_FLOWING, DMA_FLUSH } phase;
	uint32_t error, err_chan, err_addr;
	uint64_t err_ts;
	bool bus_error;
	uint64_t rd_next, avail_end, ar_free, rec_addr, t_free;
	uint64_t burst_done[RTIO_DMA_BURSTS], burst_end[RTIO_DMA_BURSTS];
	unsigned bh, bn;
	bool waiting, rd_stop;
	uint64_t lc_addr;         /* record_len's cache: the length byte read at lc_addr (host pointer lc_ok) */
	uint32_t lc_len;
	bool lc_ok;
	uint64_t records, dropped, t_start, t_end;
	uint32_t sl_level;        /* RawSlicer: bytes buffered (it outputs only with a whole max record in) */
	bool nx_ok;               /* nx holds rtio_dma_next's answer: nothing it reads has changed since */
	uint64_t nx;
};

struct rtio_analyzer {
	bool enabled;
	uint32_t base, last;
	uint64_t wr_addr, byte_count;
	bool overflow, bus_error;
	uint8_t *fifo;            /* analyzer_fifo messages of 32 bytes */
	unsigned fh, fn;
	uint64_t w_free;          /* writer's W channel free at */
	uint64_t out_done[RTIO_AN_OUT];
	uint64_t done_max;        /* the latest completion issued: the last outstanding write's, while any is */
	unsigned oh, on;
	uint64_t messages, lost;
};

struct rtio_acpki {
	bool enable;
	uint32_t in_base, out_base;
	enum { ACP_IDLE, ACP_CRI, ACP_WAIT, ACP_NEXT, ACP_WRITEBACK } phase;
	uint64_t t_next;
	uint32_t count, idx, status;
	struct rtio_event ev;
	uint64_t t_reply;         /* status line written back (CPU sees it after a re-fetch) */
	bool replied;
};

struct rtio_wfifo {
	struct rtio_event *q;
	unsigned head, n;
	struct rtio_event stage;
	uint64_t t_free;
	bool waiting;
	uint32_t error, err_chan;
	uint64_t err_ts, overruns;
};

/* One TTL input channel [artiq-rtio.md sec. 1.3]: the pin, its gate (sensitivity, set by output
 * events at address 2/3), the input FIFO with its sticky overflow, and the pin's stimulus. */
struct rtio_input_event { int64_t ts; uint32_t data; uint64_t avail; };
struct rtio_inchan {
	uint8_t sens, level;
	bool overflow;
	struct rtio_input_event *q;
	unsigned head, n;
	int64_t *st_t;            /* stimulus: the pin's transitions (mu, increasing) and levels */
	uint8_t *st_v;
	size_t st_n, st_i;
	int loop_to;              /* loopback: this channel's output drives that channel's pin (-1: none) */
};

struct rtio_input {
	struct rtio_inchan *ch;   /* ttl_channels of them */
	unsigned stim_pending;    /* channels with stimulus left (0: nothing to schedule) */
	unsigned loops;           /* loopbacks wired */
	/* the CRI read in flight (KI i_timeout write) and its result registers */
	bool busy;
	uint32_t chan;
	int64_t timeout;
	uint64_t t_ready;         /* the read cannot complete before */
	uint32_t status, data;
	int64_t ts;
	uint64_t events, lost, reads, timeouts, overflows;
};

struct rtio_kernel {
	enum rtio_initiator init;
	int64_t now;              /* ACP / FIFO: the cursor lives in a CPU register */
	int64_t credit;           /* FIFO: lower bound of free entries */
	uint64_t acp_out, acp_in; /* ACPKI buffers in cached DDR */
	uint32_t batch_n, batch_cap;
	bool batching;
	uint64_t port_free, last_write_arrive;
	uint32_t err_chan;        /* last error's channel and timestamp */
	int64_t err_ts;
	uint64_t gp_reads, gp_writes, sevs, credit_refreshes;
};

struct vb_rtio {
	struct vb_sched *sched;   /* read now (the kernel CPU, cpu/rtio_kernel.c, also moves it) */
	struct vb_ic *ic;         /* the HP ports' way into the memory path */
	struct vb_memory *memory; /* what an address holds */
	struct vb_rtio_params p;
	uint64_t coarse_ps;
	double mu_ps;
	unsigned nchan;
	struct rtio_lane lane[RTIO_MAX_LANES];
	uint32_t lane_mask;       /* bit i: lane i holds an event (the scan for the earliest visits only these) */
	unsigned cur_lane;
	/* the lane whose head goes out first (-1: all empty), cached between pops when fast */
	bool fast, early_ok;
	int early;
	uint64_t early_ps;        /* that head's output time (valid with early_ok) */
	/* the engines' next-event times as ops_next found them, for the ops_step that follows (fast only) */
	bool nx_ok;
	uint64_t nx_dma, nx_acp, nx_wf, nx_an, nx_in;
	int64_t *chan_last;       /* per channel: coarse timestamp of the last output */
	/* the one CRI write waiting for lane space (o_status.wait) */
	bool pend;
	enum rtio_src pend_src;
	unsigned pend_lane;
	struct rtio_event pend_ev;
	uint32_t src_status[RTIO_NSRC];
	/* asynchronous errors: counted and logged, never raised */
	uint64_t written, emitted, underflows, sequence_errors, collisions, busy_waits;
	/* output edges */
	bool log_on;
	int64_t *log_t;
	uint32_t *log_ch, *log_addr, *log_data;
	size_t n_log, cap_log;
	/* kernel initiator CSRs */
	uint32_t ki_target, ki_odata[RTIO_RECORD_MAX_WORDS];
	uint64_t ki_now, counter, ki_i_timeout;
	unsigned cri_sel;
	/* posted CSR stores travelling to the window */
	struct { uint64_t t; uint32_t off, v; } wq[RTIO_WQ];
	unsigned wq_head, wq_n;
	struct rtio_dma dma;
	struct rtio_analyzer an;
	struct rtio_acpki acp;
	struct rtio_wfifo wf;
	struct rtio_input in;
	struct rtio_kernel k;
	unsigned trace_align;
};

/* The RTIO clock: full timestamp (mu) at t, cycles as ps, edges, output times. */
static inline int64_t rtio_counter_at(const struct vb_rtio *r, uint64_t t_ps)
{
	return (int64_t)(t_ps / r->coarse_ps) << r->p.fine_bits;
}

static inline uint64_t rtio_ps_of_cycles(const struct vb_rtio *r, double cycles)
{
	return (uint64_t)(cycles * (double)r->coarse_ps + 0.5);
}

/* Whole cycles: the same value as rtio_ps_of_cycles (exact in a double below 2^53 ps) without the conversions. */
static inline uint64_t rtio_ps_of(const struct vb_rtio *r, uint64_t cycles) { return cycles * r->coarse_ps; }

/* Ring index i + 1 (or i + n, n < size) without a division. */
static inline unsigned rtio_wrap(unsigned i, unsigned size) { return i >= size ? i - size : i; }

/* The first RTIO clock edge at or after t. */
static inline uint64_t rtio_next_edge(const struct vb_rtio *r, uint64_t t_ps)
{
	return (t_ps + r->coarse_ps - 1) / r->coarse_ps * r->coarse_ps;
}

static inline int64_t rtio_coarse(const struct vb_rtio *r, int64_t ts) { return ts >> r->p.fine_bits; }

/* The output time of timestamp ts (fine steps within the coarse cycle). */
static inline uint64_t rtio_emit_ps(const struct vb_rtio *r, int64_t ts)
{
	return ts <= 0 ? 0 : (uint64_t)((double)ts * r->mu_ps + 0.5);
}

/* ACPKI memory structures [artiq-rtio.md sec. 5.2]: OutBuffer header, then
 * 80-byte OutTransactions; the 24-byte InTransaction the gateware writes back. */
enum rtio_acp_layout {
	ACP_HDR_PTR = 0,          /* i32: batch length (0 = a single transaction) */
	ACP_HDR_RUNNING = 4,
	ACP_TX_CMD = 0, ACP_TX_WIDTH = 1, ACP_TX_TARGET = 4, ACP_TX_TIMESTAMP = 8, ACP_TX_DATA = 16,
	ACP_IN_STATUS = 0, ACP_IN_DATA = 4, ACP_IN_TIMESTAMP = 8, ACP_IN_BATCH_CNT = 16,
};

#endif
