/*
 * params.h - build options of the PCIe subsystem ([pcie] preset section):
 * the link, the root port and the endpoint (bridge, DDR4, its own DMA).
 * Every field is set by key "pcie.<field>" / "pcie.ep_dram.<field>".
 */
#ifndef SGDMA_VBOARD_PCIE_PARAMS_H
#define SGDMA_VBOARD_PCIE_PARAMS_H

#include "mem/dram.h"

struct vb_pcie_params {
	unsigned present;           /* the preset has a [pcie] section */
	unsigned trained;           /* link up (0 models a link that did not train) */
	unsigned gen, lanes;        /* Gen1/Gen2, x1/x2/x4 */
	unsigned mps, mrrs;         /* max payload size, max read request size (bytes) */
	unsigned rcb_root, rcb_ep;  /* read completion boundary of each completer */
	unsigned read_tags;         /* outstanding non-posted reads per requester */
	unsigned dma_outstanding;   /* DMA transactions in flight per engine */
	unsigned ack_every;         /* TLPs acknowledged per ACK DLLP */
	unsigned fc_every;          /* TLPs per UpdateFC DLLP */
	unsigned skp_interval;      /* symbol times between SKP ordered sets */
	double phy_ns;              /* one way: TX/RX PHY + data link pipeline + flight */
	double rp_bridge_ns;        /* root port: TLP <-> AXI */
	double ep_bridge_ns;        /* endpoint AXI bridge (PG194): TLP <-> AXI */
	double dma_clock_mhz;       /* DMA engine clock */
	unsigned dma_width_bits;    /* its data path */
	double ep_axi_ns;           /* endpoint AXI interconnect + MIG user interface, each way */
	unsigned ep_axi_width_bits;
	double ep_axi_mhz;
	uint64_t aperture;          /* CPU address of the PCIe aperture (identity to bus addresses) */
	uint64_t bar0, bar0_size;   /* endpoint DMA registers */
	uint64_t bar2, bar2_size, bar2_axi;   /* endpoint DDR window -> its AXI address */
	uint64_t bar4, bar4_size;   /* endpoint APM */
	uint64_t ep_ddr_axi, ep_ddr_size;     /* endpoint DDR4 on its AXI map */
	struct vb_dram_params ep_dram;
};

#endif
