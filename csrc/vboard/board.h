/*
 * board.h - the board's composition: each block on its own struct, as in a
 * QEMU machine, gathered in struct vb_board with the scheduler (base/), the
 * PL clock, the generator and the bus.  Only the composers and initiators
 * include it: machine.c (which wires the blocks to what they are given),
 * api*.c (vboard.h's functions: sync, then ask) and cpu/; the blocks see
 * only their own struct and the services handed to them
 * (tests/test_architecture.py checks it).
 */
#ifndef SGDMA_VBOARD_BOARD_H
#define SGDMA_VBOARD_BOARD_H

#include "sgdma/pg021.h"
#include "vboard.h"
#include "base/grow.h"
#include "base/rng.h"
#include "base/sched.h"
#include "base/sink_log.h"
#include "base/stream.h"
#include "bus/bus.h"
#include "cpu/cpuop_types.h"
#include "mem/cpuload.h"
#include "mem/ic.h"
#include "mem/memory.h"
#include "dma/dma.h"
#include "dma/stream.h"
#include "pl/adc.h"
#include "pl/csm.h"
#include "pl/dac.h"
#include "pl/gpio.h"
#include "pl/trace.h"

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
	bool stream_live;         /* MM2S's consumer is live (vb_mm2s_live): it takes the beats */
	struct vb_ic ic;          /* the PL port's interconnect, in front of the ddrc (mem/ic.h) */
	struct {                  /* IRQ_F2P inputs a co-simulated RTL drives (api_plport.c) */
		uint8_t level;
		uint64_t rose[VB_F2P_LINES], rises[VB_F2P_LINES];
	} pl_irq;
	struct vb_cpuload load;   /* the background CPU load, a lazy DRAM master (mem/cpuload.h) */
	struct vb_cpuop_stats cpuops;   /* cpu/cpuops.c: totals of the CPU's memory operations */
	struct vb_coherency *coh;  /* coherency.c: the CPU cache's view of DMA buffers */
	struct vb_pcie *pcie;      /* pcie/: PS-PCIe DMA, link, endpoint (NULL without [pcie]) */
	struct vb_rtio *rtio;      /* pl/rtio.c: the RTIO core, when the preset has [rtio] */
};

#endif
