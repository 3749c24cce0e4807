/*
 * pcie_types.h - state of the PCIe subsystem: the PS-PCIe DMA engines (the root
 * port's and the endpoint's), the timed link between them, the endpoint's
 * bridge and DDR4, and the two AXI Performance Monitors.  One struct per
 * block, handed the scheduler, the bus, the PS interconnect and memory;
 * the helpers below its top (link.c, port.c, psdma.c) declared here.  Only
 * csrc/vboard/pcie's files include this (and api_pcie.c, through pcie.h).
 */
#ifndef SGDMA_VBOARD_PCIE_TYPES_H
#define SGDMA_VBOARD_PCIE_TYPES_H

#include "sgdma/pcie_dma.h"
#include "base/rng.h"
#include "base/sched.h"
#include "bus/bus.h"
#include "mem/dram.h"
#include "mem/ic.h"
#include "mem/memory.h"
#include "pcie/pcie_api.h"

#define PD_MAX_TXN   32u       /* pcie.dma_outstanding limit */
#define PD_MAX_TAGS  64u       /* pcie.read_tags limit */
#define PD_POSTED    64u       /* host register writes in flight to the endpoint engine */
#define PD_DOWN      0         /* link directions */
#define PD_UP        1

/* Byte classes an APM's model keeps apart (the real APM only counts bytes). */
enum pd_class { PD_DATA, PD_ELEM, PD_STATUS, PD_CPU, PD_NCLASS };

struct vb_apm {                /* PG037 byte counters of one monitored port */
	uint64_t rd_bytes, wr_bytes, rd_txns, wr_txns;
	uint64_t rd_class[PD_NCLASS], wr_class[PD_NCLASS];
};

#define PD_LINK_SLOTS 128u    /* busy intervals a serializer keeps ahead of now */

/* One direction's serializer as a calendar: the intervals booked on the
 * wire (sorted, disjoint).  A TLP takes the first idle gap at or after the
 * time it is ready, so one booked for later (a completion whose data is
 * still being read) does not hold back one ready now. */
struct pd_link_dir {
	uint64_t bs[PD_LINK_SLOTS], be[PD_LINK_SLOTS];
	unsigned n;
	uint64_t horizon;          /* end of the intervals already dropped (in the past) */
	double dllp_debt;          /* reverse-direction DLLP bytes not yet sent */
	uint64_t tlps, wire_bytes, payload;
};

struct pd_link {
	double ps_per_byte;        /* after 8b/10b and SKP ordered sets */
	uint64_t one_way;          /* pcie.phy_ns */
	struct pd_link_dir d[2];
};

/* A side of the link: the DMA engine sitting there reaches "AXI" memory
 * locally and "PCIe" memory across the link. */
enum pd_side { PD_ROOT = 0, PD_EP = 1 };

struct pd_elem {
	uint64_t addr;
	uint32_t ctrl, index;
	uint16_t handle, uid;
};

struct pd_queue { uint32_t ptrlo, ptrhi, sz, lmt, nxt; };

enum pd_txn_state { TX_FREE, TX_READ, TX_WRITE, TX_DONE };

struct pd_txn {
	enum pd_txn_state st;
	uint64_t t_due;            /* end of the current state */
	uint64_t src, dst;
	uint32_t len;
	bool src_axi, dst_axi;
	bool eop;                  /* last transaction of a packet */
	struct pd_elem src_e, dst_e;   /* EOP SRC element, DST element in use */
	uint32_t pkt_bytes;
	uint64_t t_read_done;      /* the bytes are at the DMA (ps) */
	const uint8_t *src_host;   /* where the source bytes are */
};

struct pd_status {             /* the status FIFO (4 entries) */
	uint64_t t_done;           /* the engine is finished with it */
	uint64_t t_landed;         /* both elements are in memory */
	bool irq;
};

struct pd_fetch { bool busy; uint64_t t_done; uint32_t first, n; const uint8_t *host; };

struct pd_chan {
	unsigned idx;
	struct pd_queue q[PSDMA_NQUEUES];
	uint32_t pcie_icntrl, pcie_istat, axi_icntrl, axi_istat, cntrl, scratch[4];
	bool errored;
	/* element caches (rings of PSDMA_SD_CACHE) */
	struct pd_elem cache[2][PSDMA_SD_CACHE];
	unsigned ch_head[2], ch_n[2];
	struct pd_fetch fetch[2];
	uint32_t off[2];           /* bytes used of the head SRC / DST element */
	uint32_t pkt_bytes;        /* bytes of the open packet issued so far */
	/* transactions in issue order (ring) */
	struct pd_txn txn[PD_MAX_TXN];
	unsigned t_head, t_n;
	struct pd_status sta[PSDMA_STA_CACHE];
	unsigned s_head, s_n;
	uint32_t coalesce_cnt;
	uint64_t t_irq;            /* latest SGL interrupt assertion */
	uint64_t packets, bytes, fetches;
};

struct vb_psdma {               /* one PS-PCIe DMA engine (four channels) */
	struct vb_pcie *p;
	enum pd_side side;
	struct pd_chan ch[PSDMA_CHANNELS];
	unsigned rr;               /* round-robin pointer */
	uint64_t issue_free;       /* the engine's data path */
	uint64_t tag_free[PD_MAX_TAGS];  /* outstanding reads: when each tag returns */
	/* EP engine: host register writes still crossing the link, in order
	 * (posted: each acts when its TLP arrives; the engine does not wait for them) */
	struct { uint64_t t; uint32_t off, v; } posted[PD_POSTED];
	unsigned w_head, w_n;
	uint64_t t_floor;
	bool quiet;                /* nothing to do until software acts (link.c reads it) */
};

struct pd_error {               /* the last channel error, for messages */
	bool valid;
	enum pd_side side;
	unsigned chan, queue, index;
	uint64_t addr;
	char why[160];
};

struct vb_pcie {
	struct vb_sched *sched;    /* read now */
	struct vb_bus *bus;        /* the answer time of a non-posted endpoint read */
	struct vb_ic *ic;          /* the root port's way into the PS memory path */
	struct vb_memory *memory;  /* what a PS address holds */
	struct vb_pcie_params prm;
	struct pd_link link;
	struct vb_psdma dma[2];    /* [PD_ROOT] root port's, [PD_EP] endpoint's */
	struct vb_dram ep_dram;
	uint64_t ep_last_arrive, ep_port_free;
	double ep_ps_per_byte;
	uint8_t *ep_mem;           /* endpoint DDR contents (lazily mapped) */
	struct vb_apm apm_ps, apm_ep;
	uint64_t guest_errors;
	struct pd_error err;
	uint64_t dma_clk_ps, rp_ps, ep_ps, ep_axi_ps;
};

/* link.c */
void pd_link_init(struct vb_pcie *p);
double pd_link_rate_mbps(const struct vb_pcie_params *prm);
/* A TLP of `payload` bytes entering direction d at t; returns its arrival at the far end. */
uint64_t pd_tlp(struct vb_pcie *p, int d, uint64_t t, uint32_t payload, uint64_t addr);
/* Posted write of len bytes (split at MPS); returns the last TLP's arrival; *first the first's. */
uint64_t pd_link_write(struct vb_pcie *p, int d, uint64_t t, uint64_t addr, uint32_t len, uint64_t *first);

/* port.c: memory behind each side, timed, counted by the APMs */
enum vb_access pd_axi_read(struct vb_pcie *p, enum pd_side s, uint64_t t, uint64_t addr, uint32_t len,
			   enum pd_class cls, uint8_t **host, uint64_t *first, uint64_t *done);
enum vb_access pd_axi_write(struct vb_pcie *p, enum pd_side s, uint64_t t, uint64_t addr, uint32_t len,
			    enum pd_class cls, uint8_t **host, uint64_t *done);
/* Across the link from side s: read (split request, completions at the completer's RCB) / posted write.
 * VB_ACC_DECERR stands for an Unsupported Request (no BAR / window claims the address). */
enum vb_access pd_pcie_read(struct vb_pcie *p, enum pd_side s, uint64_t t, uint64_t addr, uint32_t len,
			    enum pd_class cls, uint8_t **host, uint64_t *done);
enum vb_access pd_pcie_write(struct vb_pcie *p, enum pd_side s, uint64_t t, uint64_t addr, uint32_t len,
			     enum pd_class cls, uint8_t **host, uint64_t *sent, uint64_t *done);
bool pd_bar_lookup(const struct vb_pcie *p, uint64_t bus, uint64_t len, uint64_t *axi, unsigned *bar);

/* psdma.c */
void pd_dma_reset(struct vb_psdma *d);
uint32_t pd_dma_read(struct vb_psdma *d, uint64_t off);
void pd_dma_write(struct vb_psdma *d, uint64_t off, uint32_t v, uint64_t t);
/* A host write that reaches the engine at t_arrive; now = the CPU's time. */
void pd_dma_post(struct vb_psdma *d, uint64_t t_arrive, uint64_t off, uint32_t v, uint64_t now);
/* Apply every write still in flight (a read may not pass them). */
void pd_dma_flush_posted(struct vb_psdma *d, uint64_t now);
uint64_t pd_dma_next_event(struct vb_psdma *d);
void pd_dma_step(struct vb_psdma *d, uint64_t t);
void pd_guest_error(struct vb_pcie *p, const char *fmt, ...);

#endif
