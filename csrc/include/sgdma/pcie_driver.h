/*
 * pcie_driver.h - the freestanding driver core for the PS-PCIe DMA queues
 * (csrc/driver/pcie_dma.c): one channel in 4-queue mode with 64-bit status
 * elements, SRC/DST elements paired one to one (one packet = one element
 * each), status reaped in order, coalesced interrupts, reset on error.
 * No allocation: the caller hands it the queue memory (CPU pointer + device
 * address) and the platform ops.  Every wait is bounded.
 */
#ifndef SGDMA_PCIE_DRIVER_H
#define SGDMA_PCIE_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "sgdma/pcie_dma.h"
#include "sgdma/platform.h"

enum psdma_dir { PSDMA_S2C = 0, PSDMA_C2S = 1 };

enum psdma_err {
	PSDMA_OK = 0,
	PSDMA_E_ARG = -1,       /* bad argument (channel number, queue size, alignment) */
	PSDMA_E_ABSENT = -2,    /* STATUS.channel_present is 0 */
	PSDMA_E_LENGTH = -3,    /* byte count 0 or over the 24-bit field */
	PSDMA_E_FULL = -4,      /* no free SRC/DST element */
	PSDMA_E_HALTED = -5,    /* the channel stopped on an error: reset it */
	PSDMA_E_DMA = -6,       /* a status element reported an error (see psdma_chan.err) */
	PSDMA_E_TIMEOUT = -7,   /* a bounded wait ran out */
	PSDMA_E_BUSY = -8,      /* dma_running did not drop */
};

#define PSDMA_MAX_ELEMS      65536u   /* handles are 16 bits */
#define PSDMA_QUEUE_ALIGN    64u
#define PSDMA_DEFAULT_POLLS  100000u

struct psdma_error {
	int code;
	unsigned queue;          /* PSDMA_Q_SRC / PSDMA_Q_DST / ... */
	unsigned index;          /* element index in that queue */
	uint32_t status;         /* the status element's flag word */
};

struct psdma_done {
	uint32_t index;          /* SRC/DST element index of the packet */
	uint32_t bytes;          /* completed byte count from the status element */
};

struct psdma_chan {
	struct sg_platform plat;
	uint64_t regs;           /* this channel's register window */
	unsigned index;
	enum psdma_dir dir;
	bool root;               /* root DMA: queues and host buffers on the AXI side */
	uint32_t nelem, coalesce;
	uint8_t *q[PSDMA_NQUEUES];
	uint64_t qdev[PSDMA_NQUEUES];
	uint32_t head;           /* next SRC/DST element to fill */
	uint32_t tail;           /* oldest packet not yet reaped */
	uint32_t pending;        /* packets posted and not reaped */
	uint32_t sta_probe[2];   /* next STAS / STAD element to look at */
	bool halted;
	struct psdma_error err;
};

/* Bytes of queue memory for nelem elements (four queues, each 64-byte aligned). */
uint64_t psdma_queue_bytes(uint32_t nelem);

/* Program the four queues and enable the channel. */
int psdma_init(struct psdma_chan *c, const struct sg_platform *plat, uint64_t engine_base, unsigned index,
	       enum psdma_dir dir, bool root, void *qmem, uint32_t nelem, unsigned coalesce);
/* Post one packet: one SRC and one DST element, EOP (+ interrupt).  Returns
 * the element index (>= 0) or a psdma_err. */
int psdma_post(struct psdma_chan *c, uint64_t src, uint64_t dst, uint32_t len, bool irq);
/* As psdma_post with the address-location flags given (bit 24 of each element). */
int psdma_post_raw(struct psdma_chan *c, uint64_t src, bool src_axi, uint64_t dst, bool dst_axi, uint32_t len,
		   bool irq);
/* Reap up to max completed packets in order; returns the number or a psdma_err. */
int psdma_reap(struct psdma_chan *c, struct psdma_done *out, unsigned max);
/* Read and clear the channel's interrupt status (AXI side for root DMA). */
uint32_t psdma_irq_ack(struct psdma_chan *c);
/* Stop, pulse reset, reprogram and re-enable; pending packets are dropped. */
int psdma_reset(struct psdma_chan *c, uint32_t max_polls);
uint32_t psdma_free(const struct psdma_chan *c);
const char *psdma_strerror(int code);

#endif
