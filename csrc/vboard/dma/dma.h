/*
 * dma.h - the AXI DMA model's layers and the contracts between them.
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
 */
#ifndef SGDMA_VBOARD_DMA_H
#define SGDMA_VBOARD_DMA_H

#include "internal.h"

/* The layers call each other directly: nothing here is exported from the
 * extension, so calls skip the PLT and a file's own functions can inline. */
#pragma GCC visibility push(hidden)

/* ---- what a lower layer reports to the channel (bits of vb_report.ev) ---- */
enum {
	VB_EV_SG_ERROR      = 1u << 0,  /* SG-side error: DMASR bits in .sr */
	VB_EV_DATA_ERROR    = 1u << 1,  /* error of the BD at .bd_addr: .sr, BD STATUS bit .bd_bit, .bytes */
	VB_EV_PACKET_BEGINS = 1u << 2,  /* a packet's first data moved (stops the delay timer) */
	VB_EV_PACKET_DONE   = 1u << 3,  /* a packet completed at .t (IOC / coalescing) */
	VB_EV_IDLE          = 1u << 4,  /* the work up to the pause point is done */
	VB_EV_HALT          = 1u << 5,  /* nothing in flight after RS = 0 */
};

struct vb_report {
	unsigned ev;
	uint32_t sr, bd_bit, bytes;
	uint64_t bd_addr, t;
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
static inline bool vb_sg(const vb_board *b) { return b->cfg.include_sg != 0; }
static inline bool vb_addr64(const vb_board *b) { return b->cfg.addr_width > 32; }
static inline bool vb_chan_halted(const struct vb_chan *c) { return (c->dmasr & PG021_SR_HALTED) != 0; }
static inline bool vb_chan_busy(const struct vb_chan *c) { return c->phase >= PH_FETCH; }
static inline bool vb_is_mm2s(const struct vb_chan *c) { return c->id == VB_MM2S; }
static inline bool vb_keyhole(const struct vb_chan *c) { return (c->dmacr & PG021_CR_KEYHOLE) != 0; }

/* Stages of a BD in the MM2S queue. */
enum { Q_FETCHED, Q_STREAMED, Q_WRITEBACK };

static inline struct vb_qbd *vb_qat(struct vb_mm2s *p, unsigned i) { return &p->q[(p->head + i) % VB_QDEPTH]; }

/* ---- regs.c (the bus calls it through vb_axidma_ops) ---- */
uint32_t vb_dma_read(vb_board *b, uint32_t off);
void vb_dma_write(vb_board *b, uint32_t off, uint32_t value);

/* ---- channel.c (called by regs.c) ---- */
void vb_dma_reset(vb_board *b);
static inline bool vb_dma_resetting(const vb_board *b) { return b->reset_until != VB_NO_TIME; }
void vb_dma_soft_reset(vb_board *b);
uint32_t vb_chan_dmasr(const vb_board *b, const struct vb_chan *c);
void vb_chan_control(vb_board *b, struct vb_chan *c, uint32_t old, uint32_t now);
void vb_chan_tail_written(vb_board *b, struct vb_chan *c);
void vb_chan_length_written(vb_board *b, struct vb_chan *c, uint32_t v);
uint64_t vb_dma_next_event(vb_board *b);
void vb_dma_step(vb_board *b, uint64_t t);

/* ---- sg.c (called by channel.c) ---- */
/* S2MM: fetch the BD at next_bd (or take the one read ahead). */
void vb_sg_s2mm_fetch(vb_board *b, struct vb_chan *c, uint64_t t);
/* S2MM: the phase ending at t (fetch, data, stream wait, write-back). */
void vb_sg_s2mm_step(vb_board *b, struct vb_chan *c, uint64_t t, struct vb_report *r);
/* MM2S queue (SG fetches into it; simple mode puts one command in it). */
uint64_t vb_sg_mm2s_find_next(const vb_board *b, struct vb_chan *c);
/* The queue's next action time, kept until a step or a register write clears it. */
static inline uint64_t vb_sg_mm2s_next_event(const vb_board *b, struct vb_chan *c)
{
	return c->mm2s.next_valid ? c->mm2s.t_next : vb_sg_mm2s_find_next(b, c);
}
void vb_sg_mm2s_step(vb_board *b, struct vb_chan *c, uint64_t t, struct vb_report *r);
void vb_sg_mm2s_kick(vb_board *b, struct vb_chan *c);
void vb_sg_mm2s_tail_moved(vb_board *b, struct vb_chan *c);
void vb_sg_mm2s_stop(vb_board *b, struct vb_chan *c, struct vb_report *r);
void vb_sg_mm2s_simple(vb_board *b, struct vb_chan *c);
bool vb_sg_mm2s_packet_active(const struct vb_chan *c, uint64_t t);
/* Soft reset: when the queue's in-flight transactions end; the queue is emptied. */
uint64_t vb_sg_mm2s_abort(struct vb_chan *c);

/* ---- mm2s.c (called by sg.c) ---- */
/* When the data mover may issue its next burst (VB_NO_TIME: nothing to do). */
uint64_t vb_mm2s_dm_time(const vb_board *b, struct vb_chan *c);
/* Issue one read burst of the BD at queue index p->dm. */
void vb_mm2s_issue_burst(vb_board *b, struct vb_chan *c, uint64_t t);
/* A streamed BD's data leaves on the stream (its packet began at t_first). */
void vb_mm2s_emit(vb_board *b, struct vb_chan *c, const struct vb_qbd *e, uint64_t t_first);

/* ---- s2mm.c (called by sg.c and channel.c) ---- */
enum vb_s2mm_result {
	VB_S2MM_BUSY,     /* moving data or waiting for the stream: c->phase, c->t_next set */
	VB_S2MM_FULL,     /* the buffer is complete (full or TLAST) */
	VB_S2MM_STOPPED,  /* an error or a halt is in the report */
};
enum vb_s2mm_result vb_s2mm_step(vb_board *b, struct vb_chan *c, uint64_t t, struct vb_report *r);

/* ---- bd.c (leaf: BD layout and its memory) ---- */
uint64_t vb_bd_buffer(const vb_board *b, const struct pg021_bd *bd);
uint64_t vb_bd_next(const vb_board *b, const struct pg021_bd *bd);
uint32_t vb_access_sr_bit(enum vb_access acc);     /* data side: DMADecErr / DMASlvErr */
uint32_t vb_access_sg_bit(enum vb_access acc);     /* SG side: SGDecErr / SGSlvErr */
uint32_t vb_access_bd_bit(enum vb_access acc);     /* BD STATUS DecErr / SlvErr */
/* Read a BD (PG021_BD_HW_BYTES) at addr. */
enum vb_access vb_bd_load(vb_board *b, uint64_t addr, struct pg021_bd *bd);
/* Write a BD's STATUS word. */
enum vb_access vb_bd_store_status(vb_board *b, uint64_t bd_addr, uint32_t status);

#pragma GCC visibility pop

#endif
