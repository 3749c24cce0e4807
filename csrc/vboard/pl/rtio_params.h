/*
 * rtio_params.h - the RTIO core's parameters ("rtio.<field>"), embedded by
 * struct vb_config.
 */
#ifndef SGDMA_VBOARD_RTIO_PARAMS_H
#define SGDMA_VBOARD_RTIO_PARAMS_H

#include <stdint.h>

/* The ARTIQ-style RTIO core (csrc/vboard/pl/rtio*.c): present only when the
 * preset has an [rtio] section.  Times in ns, clocks in MHz. */
struct vb_rtio_params {
	unsigned present;
	uint64_t base;                /* CSR window on the CPU's register bus (GP0 on Zynq) */
	double clock_mhz;             /* RTIO (coarse) clock */
	unsigned fine_bits;           /* log2 fine steps per coarse cycle */
	unsigned lanes, fifo_depth;   /* SED lanes and their FIFO depth */
	unsigned underflow_margin;    /* coarse cycles ahead of the counter an event must be */
	unsigned ttl_channels, wide_channels;
	unsigned cri_write_cycles;    /* CRI write: timestamp, payload+command, status */
	unsigned bus_bytes;           /* HP/Wishbone data width at the DMA reader and slicer */
	unsigned dma_burst_bytes, dma_outstanding;
	unsigned analyzer_fifo, analyzer_outstanding;
	unsigned wfifo_depth;         /* credit write FIFO entries */
	unsigned input_fifo_depth;    /* per TTL input channel */
	unsigned input_latency_cycles;/* pin edge to readable in the input FIFO */
	unsigned cri_read_cycles;     /* CRI read: command to status when an event is waiting */
	unsigned runtime_softcore;    /* the softcore runtime (trace alignment TRACE_ALIGN_SOFTCORE, else _ZYNQ) */
	/* the kernel CPU and its paths to the gateware */
	double cpu_mhz;
	double output_cycles;         /* rtio_output call overhead (instructions) */
	double delay_cycles;          /* timeline cursor arithmetic in a CPU register */
	double csr_read_ns;           /* CPU load of a CSR, round trip */
	double csr_write_ns;          /* interval between posted CSR stores the port accepts */
	double csr_write_latency_ns;  /* posted store to the register */
	double store_cycles;          /* cached store (ACPKI transaction fill) */
	double barrier_ns;            /* DMB before sev */
	double sev_cycles;
	double evento_sync_cycles;    /* 2-FF synchroniser + edge detect, RTIO clocks */
	double acp_read_ns, acp_write_ns;  /* ACP address-to-first-data / write response */
	double poll_miss_ns;          /* CPU re-fetch of its status line after the ACP write */
	unsigned wfifo_merged;        /* the FIFO mapping lets the store buffer merge an event into one burst */
};

#endif
