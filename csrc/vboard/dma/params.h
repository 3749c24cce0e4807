/*
 * params.h - the AXI DMA's build and data-path parameters ("dma.<field>"),
 * embedded by struct vb_config; the DMA (dma.h) reads them.  No other header.
 */
#ifndef SGDMA_VBOARD_DMA_PARAMS_H
#define SGDMA_VBOARD_DMA_PARAMS_H

#include <stdint.h>

struct vb_dma_params {
	uint64_t base;                /* its register window */
	unsigned include_sg;
	unsigned addr_width;
	unsigned length_width;
	unsigned data_width;          /* bits, stream and memory map */
	unsigned max_burst;           /* beats */
	unsigned has_dre;
	unsigned dly_timer_resolution;/* SG clocks per IRQDelay unit (PG021 c_dlytmr_resolution) */
	unsigned reset_clocks;        /* soft reset duration after in-flight work */
	double clock_mhz;
	/* MM2S pipeline (mm2s.c) */
	unsigned sg_prefetch;         /* BDs the SG engine fetches ahead (queue depth) */
	unsigned outstanding;         /* data-mover read bursts in flight */
	unsigned fifo_bytes;          /* data-mover FIFO in front of the stream */
	/* S2MM write path (s2mm.c) */
	unsigned write_outstanding;   /* S2MM write bursts awaiting their response (B) */
	/* functional fidelity (functional.c): SG runs walk their ring at once, untimed */
	unsigned functional;
};

#endif
