/*
 * dram.h - DRAM controller + device timing model of the virtual board
 * (DDR4 with bank groups, DDR3 as one bank group).
 *
 * Hosted C11, self-contained (no other vboard header needed), no allocation:
 * the whole state is the struct vb_dram the caller owns.  Time is in
 * picoseconds.  vb_dram_access() is O(banks touched) per request, never
 * O(bytes) or O(BL8 bursts).
 *
 * What one request does
 * ---------------------
 * A request [addr, addr + len) occupies whole BL8 bursts on the data bus
 * (burst = bus_bytes * burst_len bytes, aligned; a partial burst costs a full
 * one: reads discard, writes mask).  The address decodes as
 *   mapping 0  row : bank : column              (a whole row per bank)
 *   mapping 1  row : column-high : bank : column-low
 *              (consecutive 'interleave_bytes' chunks rotate over the banks)
 * where "bank" is the flat bank index and its low bits are the bank group, so
 * consecutive chunks alternate bank groups.  Mapping 0 is mapping 1 with
 * interleave_bytes = row_bytes.  A request is split only where it leaves a
 * "row stripe" (row_bytes * banks bytes: the same row in every bank); inside a
 * stripe each bank it touches is one piece, however many chunks it has.
 * For every piece, in address order of first touch:
 *   row open and equal        row hit      CAS >= ACT + tRCD of that row
 *   row closed                row miss     ACT, CAS = ACT + tRCD
 *   another row open          row conflict PRE >= ACT + tRAS, last read CAS +
 *                                          tRTP, last write data + tWR;
 *                                          ACT = PRE + tRP; CAS = ACT + tRCD
 *   ACT >= previous ACT + tRRD_S (other bank group) / tRRD_L (same group),
 *   ACT >= the ACT four ACTs back + tFAW,
 *   CAS >= last CAS to the same bank group (from earlier requests) + tCCD_L.
 * The request's bursts then stream back to back on the data bus
 * (burst_len / 2 clocks each): burst k starts at max(stream position, its
 * bank's CAS + CL (read) / CWL (write)), so a bank that is not ready yet
 * stalls the stream there.  The data bus serialises requests in arrival
 * order; a change of direction adds the turnaround:
 *   read after write   first read CAS  >= end of write data + tWTR
 *   write after read   first write CAS >= last read CAS + tRTW
 * (tRTW is the command-to-command delay, e.g. RL + BL/2 - WL + 2 tCK.)
 * Returned: first burst start + ctrl_latency (first data at the controller's
 * user interface / first write data accepted); *t_done = end of the last
 * burst + ctrl_latency (last read data / write response).
 *
 * Refresh: all-bank refresh windows [phase + k tREFI, + tRFC), k >= 0, block
 * every command.  A burst that would not end by a window's start waits, with
 * everything after it in its request, until the window ends and then finds
 * every row closed.  A request arriving inside a window therefore waits for
 * its end; one running into a window is cut at the first burst that does not
 * fit; one queued behind such a request waits with it.  Each of these
 * counts one refresh stall (a request cut by two windows counts two), and
 * refresh_stall_ps adds the time it was blocked: window end - max(arrival,
 * window start), i.e. tRFC or the part of the window still to run (the extra
 * ACT the closed rows then cost is not included).  tREFI = 0: no refresh.
 *
 * Simplifications (deliberate; each is a few percent at most for DMA traffic)
 * ---------------------------------------------------------------------------
 *  - Open-page policy: rows stay open until a conflict or a refresh closes
 *    them.  No auto-precharge, no page-close timer.
 *  - No reordering here: requests are served strictly in the order they
 *    are handed in (no FR-FCFS).  The controller's ports, queues and
 *    arbitration between masters are ddrc.c's: it decides that order and
 *    hands each granted request in with issue time max(arrival, last issue).  Bank commands may be issued ahead of the data bus (bank
 *    look-ahead: a later request's ACT can precede an earlier request's
 *    data), as real controllers' bank machines do.
 *  - No command-bus contention (one command per clock is never the limit),
 *    no rank switching, no ODT, no write preamble/postamble extra gaps, no
 *    CRC/DBI, no power-down or self-refresh, no ZQ calibration, no per-bank
 *    refresh: refresh is all-bank and exactly periodic (no postponing).
 *  - The PREA and the tRP before a REF are folded into the window; the bank
 *    timing constraints of the requests before a window (tRAS, tWR, tRTP)
 *    do not extend it.
 *  - Inside a piece, bursts go back to back at tCCD_S = burst_len/2 clocks
 *    (a controller spreads consecutive bursts over bank groups); tCCD_L is
 *    applied only between the last CAS of an earlier request (or row stripe)
 *    and the first CAS to the same bank group.  tWTR is one value (use
 *    tWTR_L to be conservative).
 *  - The controller + PHY pipeline is one fixed delay (ctrl_latency) added
 *    to the returned times; it does not occupy the DRAM.  Commands may be
 *    issued from the request's arrival time; the command clock grid is not
 *    modelled (arrival times are not rounded to clocks), but every ns timing
 *    is rounded up to whole clocks with JEDEC's 2.5 % tolerance.
 *  - Writes are timed like reads on the DRAM side (no posted-write buffer,
 *    no write batching); a write is "accepted" when its data goes to the DRAM.
 *  - efficiency_cap (if > 0) stretches every burst's bus time by 1/cap, a
 *    crude stand-in for controller losses the model does not otherwise have.
 *  - Statistics count pieces (bank accesses), so a request cut by a refresh
 *    counts the banks it touches again after the window.
 *
 * Arrival times must be nondecreasing: asserted unless NDEBUG; with NDEBUG a
 * late arrival is clamped to the previous one.  A request of length 0 costs
 * nothing (returns its arrival time), as does every request to ideal memory.
 */
#ifndef SGDMA_VBOARD_DRAM_H
#define SGDMA_VBOARD_DRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VB_DRAM_MAX_BANKS   32u   /* bank_groups * banks_per_group */
#define VB_DRAM_MAX_GROUPS  8u
#define VB_DRAM_NO_TIME     UINT64_MAX

struct vb_dram_params {
	double tck_ns;               /* memory clock period (data rate = 2 / tCK) */
	unsigned bus_bytes;          /* data bus width in bytes */
	unsigned burst_len;          /* BL (8) */
	unsigned cl, cwl;            /* clocks */
	double trcd_ns, trp_ns, tras_ns;
	double trrd_s_ns, trrd_l_ns, tfaw_ns;
	double twtr_ns;              /* end of write data -> read CAS */
	double trtw_ns;              /* read CAS -> write CAS */
	double tccd_l_ns;            /* CAS -> CAS, same bank group */
	double trtp_ns;              /* read CAS -> PRE, same bank (0 = none) */
	double twr_ns;               /* end of write data -> PRE, same bank (0 = none) */
	double trefi_ns, trfc_ns;    /* all-bank refresh; trefi_ns = 0: no refresh */
	unsigned bank_groups, banks_per_group;
	unsigned row_bytes;          /* page size across the whole bus */
	unsigned mapping;            /* 0 = row:bank:column (sequential addresses stay in one row),
	                                1 = row:column-high:bank:column-low (bank interleave every
	                                'interleave_bytes') */
	unsigned interleave_bytes;
	double ctrl_latency_ns;      /* controller + PHY pipeline, added to each request's data */
	double efficiency_cap;       /* optional: 0 = none, else (0, 1] */
	unsigned enabled;            /* 0 = ideal memory: zero latency, infinite bandwidth */
};

struct vb_dram_stats {
	uint64_t reads, writes;
	uint64_t row_hits, row_misses /* row closed */, row_conflicts;
	uint64_t refresh_stalls, refresh_stall_ps;
};

struct vb_dram_bank {
	uint64_t row;                /* open row, VB_DRAM_NO_TIME if closed */
	uint64_t t_act_ok;           /* earliest ACT while closed */
	uint64_t t_cas_ok;           /* ACT + tRCD of the open row */
	uint64_t t_pre_ok;           /* ACT + tRAS, last read CAS + tRTP, last write data end + tWR */
};

/* PRE bounds a long portion owes its banks, applied when read (dram.c): the
 * bank of chunk last_c gets at_last, a bank whose last chunk is k chunks
 * before it gets full - k * step. */
struct vb_dram_owed {
	bool on, write;
	uint64_t last_c, at_last, full, step;
};

struct vb_dram {
	struct vb_dram_params p;
	/* derived, in ps (rounded to whole clocks where JEDEC counts clocks) */
	uint64_t t_burst, t_cl, t_cwl, t_rcd, t_rp, t_ras, t_rrd_s, t_rrd_l, t_faw;
	uint64_t t_wtr, t_rtw, t_ccd_l, t_rtp, t_wr, t_refi, t_rfc, t_ctrl;
	unsigned burst_shift;        /* log2 burst bytes */
	unsigned chunk_shift;        /* log2 bursts per chunk (interleave unit) */
	unsigned stripe_shift;       /* log2 bursts per row stripe */
	unsigned bank_shift, bank_mask, group_mask, n_banks;
	/* state */
	struct vb_dram_bank bank[VB_DRAM_MAX_BANKS];
	uint64_t act_ok_any;         /* last ACT + tRRD_S */
	uint64_t act_ok_group[VB_DRAM_MAX_GROUPS];   /* last ACT in the group + tRRD_L */
	uint64_t cas_ok_group[VB_DRAM_MAX_GROUPS];   /* last CAS in the group + tCCD_L */
	uint64_t faw[4];             /* the last four ACTs + tFAW (ring) */
	uint64_t urow;               /* the row every bank has open but those in off; VB_DRAM_NO_TIME: none */
	uint32_t off;                /* banks without urow open (bit per bank) */
	uint64_t cas_ok_max;         /* no bank's t_cas_ok is later (the all-hit shortcut's test) */
	struct vb_dram_owed owed;    /* t_pre_ok still to apply to every bank */
	unsigned faw_i;              /* oldest entry */
	uint64_t bus_free;           /* data bus free from */
	bool last_write;             /* direction of the last data on the bus */
	uint64_t last_data_end;      /* ... and when it ended */
	uint64_t rd_data_ok;         /* earliest read data: last write data end + tWTR + CL */
	uint64_t wr_data_ok;         /* earliest write data: last read CAS + tRTW + CWL */
	uint64_t last_arrive;
	uint64_t refresh_phase;      /* first window start (< tREFI) */
	uint64_t ref_start, ref_end; /* the next window not yet passed */
	uint64_t last_ref_start, last_ref_end;   /* the last window that cut a request */
	struct vb_dram_stats stats;
};

/* 0, or -1 with a message naming the "dram.<field>" and its limit. */
int vb_dram_check(const struct vb_dram_params *p, char *err, size_t errlen);

/* Reset to all banks closed at time 0; refresh windows start at
 * refresh_phase_ps (taken modulo tREFI).  p must pass vb_dram_check. */
void vb_dram_init(struct vb_dram *d, const struct vb_dram_params *p, uint64_t refresh_phase_ps);

/* One request arriving at the controller at t_arrive_ps (nondecreasing).
 * Returns when its first data beat is available (read) or accepted (write);
 * *t_done_ps (may be NULL) = its last data (read) / write response.
 * Ideal memory (enabled = 0) returns t_arrive_ps for both. */
uint64_t vb_dram_access(struct vb_dram *d, uint64_t t_arrive_ps, uint64_t addr, uint32_t len, bool write,
			uint64_t *t_done_ps);

/* Start of the first refresh window starting at or after t; VB_DRAM_NO_TIME
 * if refresh is off (or the memory is ideal). */
uint64_t vb_dram_next_refresh(const struct vb_dram *d, uint64_t t);

#endif /* SGDMA_VBOARD_DRAM_H */
