/*
 * dma.h - the AXI DMA's own state (struct vb_dma): its two channels, the
 * MM2S pipeline, its streams and what machine.c hands it - the scheduler (to
 * read now), the PL clock, its build parameters, the interconnect it issues
 * to and the memory it reads and writes.  The bottom of the DMA's headers.
 */
#ifndef SGDMA_VBOARD_DMA_DMA_H
#define SGDMA_VBOARD_DMA_DMA_H

#include <stdbool.h>
#include <stdint.h>

#include "sgdma/pg021.h"
#include "vboard.h"          /* vb_stats, vb_probe, vb_dma_guest_errors */
#include "dma/params.h"
#include "base/grow.h"
#include "base/sched.h"
#include "base/stream.h"
#include "base/time.h"
#include "bus/bus.h"
#include "mem/ic.h"
#include "mem/memory.h"

struct vb_coherency;

#pragma GCC visibility push(hidden)

/* ---- AXI DMA channel ------------------------------------------------------ */

/* Where a channel's engine is.  Each busy phase ends at chan.t_next, when its
 * transaction (BD fetch, data bursts, status write-back) has completed. */
enum vb_phase {
	PH_HALTED,      /* RS = 0 or stopped by an error */
	PH_IDLE,        /* running, waiting for a tail write (SG) or LENGTH (simple) */
	PH_FETCH,       /* SG: reading the BD at next_bd */
	PH_DATA,        /* moving the buffer */
	PH_STREAM_WAIT, /* S2MM: BD armed, no stream data yet */
	PH_WRITEBACK,   /* SG: writing STATUS back */
};

/* ---- MM2S pipeline (mm2s.c) ------------------------------------------------- */

#define VB_QDEPTH VB_QDEPTH_MAX
#define VB_BURSTS VB_OUTSTANDING_MAX  /* issued bursts remembered for the outstanding/FIFO rules */

struct vb_qbd {                 /* a fetched BD on its way through the pipeline */
	struct pg021_bd bd;
	uint64_t addr, buf;
	const uint8_t *host;      /* buf in host memory, found when the fetch checked it */
	uint32_t host_len;        /* the bytes that check covered (one beat with the keyhole bit) */
	uint32_t len, issued;
	bool eof;
	uint8_t stage;
	uint32_t err_sr, err_bd;  /* error found at fetch, raised when this BD is the oldest */
	uint64_t t_cmd;           /* data mover may start it */
	uint64_t t_first, t_last; /* its first / last stream beat */
	uint64_t t_wb;            /* STATUS write-back done */
};

struct vb_burst {
	uint64_t end_bytes;       /* data mover byte count after this burst */
	uint64_t t_arrived;       /* last data back from memory */
	uint64_t t_streamed;      /* last beat out of the stream */
};

/* A burst queued for a consumer-paced stream (stream.h defer_on), oldest first. */
#define VB_PEND 64
struct vb_pend {
	uint64_t ready, last_ready; /* its data is in the FIFO: all beats but the last / the last */
	uint64_t end_bytes;         /* its burst-memory key (vb_burst.end_bytes) */
	uint32_t off, len;          /* its bytes within its BD (a beat's data: vb_mm2s_next_beat) */
	uint32_t n, taken;
	uint16_t slot;              /* its BD in q[] (slots do not move while the BD is queued) */
	bool bd_first, bd_last;
};

struct vb_mm2s {
	struct vb_qbd q[VB_QDEPTH];
	unsigned head, count, dm; /* queue of fetched BDs; dm = the data mover's BD (from head) */
	bool fetching, fetch_stop;
	uint64_t fetch_addr, t_fetch_first, t_fetch_done;
	uint64_t ar_free, stream_free, cons_free, issued;
	uint64_t stream_free_k;   /* the clock edge stream_free is on (vb_edge_time of it), valid while */
	bool stream_free_on_edge; /* set by the stream with the clk_origin of stream_free_origin */
	uint64_t stream_free_origin;
	struct vb_burst bursts[VB_BURSTS];
	unsigned bh, nb;
	unsigned drain_hint;       /* where the last FIFO-drain search ended (from bh) */
	bool pkt_open;
	uint64_t pkt_first;
	bool dm_in_packet;        /* the data mover is inside a packet (gate) */
	uint64_t t_floor;         /* no event before the last one handled */
	uint64_t t_next;          /* cached next event, valid while next_valid */
	bool next_valid;          /* cleared by every change of the pipeline */
	uint8_t next_unit;        /* which unit owns t_next (enum in sg.c), valid with it */
	bool dm_valid;            /* t_dm is current: cleared when the data mover's BD or bursts change */
	uint64_t t_dm;            /* vb_mm2s_dm_time() as last computed (before the floor) */
	struct vb_pend pend[VB_PEND];
	unsigned ph, np;          /* deferred bursts: head, count */
};

/* A channel's functional run (functional.c): its ring is walked in batches; a
 * batch's data, STATUS and sink effects happen when it is walked, its interrupts
 * and its end (Idle, error) when its constant-rate beats are over. */
struct vb_fun {
	bool on;                  /* this run is walked functionally (set at the kick) */
	bool pkt_open;            /* MM2S: a packet has begun, its EOF BD not yet walked */
	bool have_bd;             /* S2MM: c->bd is armed (partly filled) */
	bool began;               /* a packet began since the batch's last completed one (stops the delay timer) */
	bool batch;               /* a batch was walked; its end is the next event */
	bool done;                /* the batch ended at the tail it saw */
	uint32_t packets;         /* EOF BDs the batch completed */
	uint64_t pkt_first;       /* MM2S: first beat of the open packet */
	struct vb_report_err {    /* the error the batch ended on, raised at its end */
		unsigned ev;          /* 0, VB_EV_SG_ERROR or VB_EV_DATA_ERROR */
		uint32_t sr, bd_bit, bytes;
		uint64_t bd_addr;
	} err;
};

struct vb_chan {
	enum vb_chan_id id;
	/* registers as software sees them */
	uint32_t dmacr, dmasr;
	uint64_t curdesc, taildesc, addr;
	uint32_t length;
	/* engine */
	enum vb_phase phase;
	uint64_t t_next;          /* end of the current phase, VB_NO_TIME if none */
	uint64_t next_bd;         /* BD the next fetch reads */
	bool cyclic;              /* latched when the channel starts running */
	bool stopping;            /* RS cleared while busy: halt after this BD */
	bool first_after_kick;    /* next fetch pays the tail-write latency */
	struct pg021_bd bd;       /* copy of the BD being worked on */
	uint64_t bd_addr;
	uint32_t bd_len;          /* usable length bits of CONTROL */
	uint32_t filled;          /* S2MM bytes written into the current buffer */
	bool in_packet;           /* S2MM: the current packet spans BDs */
	bool packet_sof;          /* S2MM: current BD starts a packet */
	bool bd_eof;              /* S2MM: TLAST landed in this BD */
	uint64_t t_first_beat;    /* MM2S: first beat of the open packet */
	/* S2MM: the next BD is read while this one's data moves (one BD ahead) */
	uint64_t pf_addr, pf_done;
	bool pf_valid, pf_used;
	/* S2MM data mover: the chunk of stream data being written as AXI bursts */
	struct vb_s2mm_w {
		uint64_t base, off, left; /* buffer address of the chunk, bytes issued, bytes still to issue */
		uint64_t t0, beats, total_beats; /* first stream beat of the chunk; beats issued; its beats */
		uint64_t aw_free;         /* the next AW no earlier than this */
		uint64_t w_free;          /* the next burst's first W beat no earlier than this */
		uint64_t w_last;          /* the last WLAST so far */
		uint64_t done;            /* latest write response (B) so far */
		uint64_t bresp[VB_OUTSTANDING_MAX];
		unsigned bh, nb;          /* write responses of the bursts in flight (ring, oldest at bh) */
	} w;
	/* interrupt coalescing */
	uint32_t thr_count;
	uint32_t pending_pkts;    /* completed packets since the last IRQ */
	uint64_t dly_deadline;
	struct vb_stats stats;
	struct vb_probe probe;
	struct vb_mm2s mm2s;
	struct vb_fun fun;
	/* MM2S BD fetches for reports: (issue, data back) ps pairs, bounded */
	uint64_t *fetch_log;
	size_t n_fetch_log, cap_fetch_log, fetch_log_dropped;
};

#define VB_FETCH_LOG_MAX (1u << 20)
void vb_fetch_log_add(struct vb_chan *c, uint64_t t_issue, uint64_t t_done);

struct vb_dma {
	const struct vb_dma_params *prm;  /* its build (dma/params.h; fixed after vb_create) */
	struct vb_sched *sched;   /* read now; never moved here */
	const struct vb_clock *clk;   /* the PL clock (base/time.h) */
	struct vb_ic *ic;         /* its AXI masters' port into the memory path */
	struct vb_memory *memory; /* what an address holds (DECERR, SLVERR, host bytes) */
	struct vb_coherency *coh; /* the cache-coherency checker its transfers report to (mem/coherency.h) */
	struct vb_dma_lat {       /* vb_dma_clocks() of PG021's latencies, computed once (vb_create) */
		uint64_t clock;       /* one DMA clock */
		uint64_t tail_to_sg_ar, sg_ar_to_data_ar, ar_to_tvalid, s2mm_tvalid_to_aw;
		uint64_t s2mm_burst_gap; /* W channel idle between two S2MM bursts */
		uint64_t bd_beats;    /* a BD's 13 beats on the 32-bit SG port, less the first */
	} lat;
	uint32_t len_mask;        /* (1 << length_width) - 1 */
	uint32_t data_bytes;
	uint64_t addr_mask;       /* addresses the DMA can form */
	uint64_t reset_until;     /* soft reset in progress until then */
	uint64_t consumer_ps;     /* one beat of the stream's consumer (ps) */
	unsigned consumer_fifo_beats;   /* the consumer's FIFO (stream.consumer_fifo_beats) */
	struct vb_chan ch[2];
	uint64_t next;            /* the next event (vb_dma_next_event), valid while next_valid: */
	bool next_valid;          /* cleared by every step, register write, reset and stream arrival */
	bool next_alone;          /* with next_valid: only MM2S's queue had events (channel.c mm2s_alone) */
	struct vb_stream_tx tx;   /* the MM2S stream and what is wired to it (machine.c) */
	struct vb_stream_rx rx;   /* the S2MM stream's producer (machine.c) */
	struct vb_dma_guest_errors guest;   /* illegal guest accesses to the DMA registers */
	struct vb_scratch scratch;  /* the data movers' temporary copies */
};

/* The DMA's ops tables (dev = its struct vb_dma), mapped by machine.c */
extern const struct vb_device_ops vb_axidma_ops;
extern const struct vb_timed_ops vb_axidma_timed;

static inline uint64_t vb_dma_clocks(const struct vb_dma *d, double clocks)
{
	return vb_clock_ticks(d->clk, clocks);
}

#pragma GCC visibility pop

#endif
