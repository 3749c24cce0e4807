/*
 * report.h - the AXI DMA model's layers and what a lower layer reports to the
 * channel above it.  Each layer has its own header, including the one below.
 *
 * Calls go one way, top to bottom:
 *
 *   regs.c     register file: one read and one write dispatch, W1C, reset
 *   channel.c  channel state machine: Halted/Idle/running, errors, interrupt
 *              coalescing; applies what the layers below report
 *   sg.c       SG engine: BD fetch (MM2S queue, S2MM one ahead) and STATUS
 *              write-back, in BD order
 *   mm2s.c     MM2S data mover: read bursts, outstanding limit, FIFO, stream
 *   s2mm.c     S2MM data mover: stream beats into write bursts
 *   bd.c       BD layout and its memory accesses (leaf)
 *   ../mem/ic.c → ../mem/dram.c
 *
 * A lower layer never calls the file above it: it returns a struct vb_report
 * that the channel applies (tests/test_architecture.py checks the call graph).
 * The layers' functions are hidden in the extension: calls skip the PLT.
 */
#ifndef SGDMA_VBOARD_DMA_REPORT_H
#define SGDMA_VBOARD_DMA_REPORT_H

#include "dma/dma.h"

#pragma GCC visibility push(hidden)

/* ---- what a lower layer reports to the channel (bits of vb_report.ev) ---- */
enum {
	VB_EV_SG_ERROR      = 1u << 0,  /* SG-side error: DMASR bits in .sr */
	VB_EV_DATA_ERROR    = 1u << 1,  /* error of the BD at .bd_addr: .sr, BD STATUS bit .bd_bit, .bytes */
	VB_EV_PACKET_BEGINS = 1u << 2,  /* a packet's first data moved (stops the delay timer) */
	VB_EV_PACKET_DONE   = 1u << 3,  /* a packet completed at .t (IOC / coalescing) */
	VB_EV_IDLE          = 1u << 4,  /* the work up to the pause point is done */
	VB_EV_HALT          = 1u << 5,  /* nothing in flight after RS = 0 */
	VB_EV_PACKET_OPEN   = 1u << 6,  /* after the packets done: a packet began since the last (functional.c) */
};

struct vb_report {
	unsigned ev;
	uint32_t sr, bd_bit, bytes;
	uint64_t bd_addr, t;
	uint32_t packets;         /* with VB_EV_PACKET_DONE: packets completed (0 means 1) */
};

static inline void vb_report_sg_error(struct vb_report *r, uint32_t sr)
{
	r->ev |= VB_EV_SG_ERROR;
	r->sr = sr;
}

static inline void vb_report_data_error(struct vb_report *r, uint64_t bd_addr, uint32_t sr, uint32_t bd_bit,
					uint32_t bytes)
{
	r->ev |= VB_EV_DATA_ERROR;
	r->bd_addr = bd_addr;
	r->sr = sr;
	r->bd_bit = bd_bit;
	r->bytes = bytes;
}

static inline void vb_report_packet_done(struct vb_report *r, uint64_t t)
{
	r->ev |= VB_EV_PACKET_DONE;
	r->t = t;
}

/* ---- predicates shared by the layers ---- */
static inline bool vb_sg(const struct vb_dma *d) { return d->prm->include_sg != 0; }
static inline bool vb_addr64(const struct vb_dma *d) { return d->prm->addr_width > 32; }
static inline bool vb_chan_halted(const struct vb_chan *c) { return (c->dmasr & PG021_SR_HALTED) != 0; }
static inline bool vb_chan_busy(const struct vb_chan *c) { return c->phase >= PH_FETCH; }
static inline bool vb_is_mm2s(const struct vb_chan *c) { return c->id == VB_MM2S; }
static inline bool vb_keyhole(const struct vb_chan *c) { return (c->dmacr & PG021_CR_KEYHOLE) != 0; }

/* Stages of a BD in the MM2S queue. */
enum { Q_FETCHED, Q_STREAMED, Q_WRITEBACK };

static inline struct vb_qbd *vb_qat(struct vb_mm2s *p, unsigned i) { return &p->q[(p->head + i) % VB_QDEPTH]; }

#pragma GCC visibility pop

#endif
