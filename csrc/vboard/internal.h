/*
 * internal.h - the board's composition: one struct per block, as in a QEMU
 * device model, gathered in struct vb_board with the scheduler (base/), the
 * bus and the stream links; and the PL clock-edge helpers.  Only the files of
 * csrc/vboard include this.  The blocks still reach their state through the
 * whole board (a struct vb_board *), so every block includes it.
 */
#ifndef SGDMA_VBOARD_INTERNAL_H
#define SGDMA_VBOARD_INTERNAL_H

#include "sgdma/pg021.h"
#include "vboard.h"
#include "base/grow.h"
#include "base/rng.h"
#include "base/sched.h"
#include "base/sink_log.h"
#include "base/stream.h"
#include "bus/bus.h"
#include "cpu/cpuops.h"
#include "mem/cpuload.h"
#include "mem/ic.h"
#include "mem/memory.h"
#include "dma/dma.h"
#include "dma/stream.h"
#include "pl/csm.h"
#include "pl/gpio.h"

/* The blocks' functions are internal to the extension (vboard.h is its API):
 * hidden, so calls between them skip the PLT and a file's own can inline. */
#pragma GCC visibility push(hidden)

struct vb_board {
	struct vb_config cfg;
	struct vb_sched sched;    /* virtual time and the timed devices (base/sched.c) */
	struct vb_rng rng;
	struct vb_clock clk;      /* the DMA's (PL) clock: period, edge 0, exact span (base/time.h) */
	struct vb_bus bus;        /* register windows of every device (bus.c) */
	struct vb_memory memory;  /* DDR regions, injected faults (mem/memory.h) */
	struct vb_dma dma;        /* the AXI DMA (dma/dma.h) */
	struct vb_dram dram;      /* DRAM timing (dram.h): reached only through the controller (ddrc) */
	struct vb_ddrc ddrc;      /* DDR controller ports, queues, arbitration (mem/ddrc.h) */
	struct vb_gpio gpio[VB_GPIO_BLOCKS];
	struct vb_csm csm;
	struct vb_dac dac;
	struct vb_adc adc;
	struct vb_source src;
	struct vb_sink sink;
	struct vb_trace trace;
	uint64_t mmio_reads, mmio_writes;
	struct vb_ic ic;          /* the PL port's interconnect, in front of the ddrc (mem/ic.h) */
	struct vb_cpuload load;   /* the background CPU load, a lazy DRAM master (mem/cpuload.h) */
	struct vb_cpuop_stats cpuops;   /* cpu/cpuops.c: totals of the CPU's memory operations */
	struct vb_coherency *coh;  /* coherency.c: the CPU cache's view of DMA buffers */
	struct vb_pcie *pcie;      /* pcie/: PS-PCIe DMA, link, endpoint (NULL without [pcie]) */
	struct vb_rtio *rtio;      /* pl/rtio.c: the RTIO core, when the preset has [rtio] */
};

#pragma GCC visibility pop

#endif
