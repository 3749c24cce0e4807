/*
 * check.c - consistency of the [pcie] preset section: every rule names its key.
 */
#include <stdio.h>

#include "pcie_types.h"
#include "pcie_api.h"

static bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

int vb_pcie_check(const struct vb_pcie_params *m, char *err, size_t n)
{
#define FAIL(...) do { snprintf(err, n, __VA_ARGS__); return -1; } while (0)
	if (m->gen < 1 || m->gen > 2)
		FAIL("pcie.gen = %u: the PS-PCIe controller trains Gen1 or Gen2 (XAPP1289); use 1 or 2", m->gen);
	if (m->lanes != 1 && m->lanes != 2 && m->lanes != 4)
		FAIL("pcie.lanes = %u: the PS-PCIe controller has x1, x2 or x4 links; use 1, 2 or 4", m->lanes);
	if (!pow2(m->mps) || m->mps < 128 || m->mps > 4096)
		FAIL("pcie.mps = %u: max payload size is 128, 256, ... 4096 bytes", m->mps);
	if (!pow2(m->mrrs) || m->mrrs < 128 || m->mrrs > 4096)
		FAIL("pcie.mrrs = %u: max read request size is 128, 256, ... 4096 bytes", m->mrrs);
	if ((m->rcb_root != 64 && m->rcb_root != 128) || m->rcb_ep != 128)
		FAIL("pcie.rcb_root = %u, pcie.rcb_ep = %u: a root complex's RCB is 64 or 128 bytes, other devices' 128",
		     m->rcb_root, m->rcb_ep);
	if (m->read_tags < 1 || m->read_tags > PD_MAX_TAGS)
		FAIL("pcie.read_tags = %u: the model keeps 1..%u reads outstanding", m->read_tags, PD_MAX_TAGS);
	if (m->dma_outstanding < 1 || m->dma_outstanding > PD_MAX_TXN)
		FAIL("pcie.dma_outstanding = %u: the model keeps 1..%u transactions in flight", m->dma_outstanding,
		     PD_MAX_TXN);
	if (m->ack_every < 1 || m->fc_every < 1 || m->skp_interval < 1)
		FAIL("pcie.ack_every, pcie.fc_every and pcie.skp_interval must be >= 1");
	if (!(m->dma_clock_mhz > 0) || !(m->ep_axi_mhz > 0) || m->dma_width_bits < 8 || m->ep_axi_width_bits < 8)
		FAIL("pcie.dma_clock_mhz / ep_axi_mhz must be > 0 and the widths >= 8 bits");
	if (m->phy_ns < 0 || m->rp_bridge_ns < 0 || m->ep_bridge_ns < 0 || m->ep_axi_ns < 0)
		FAIL("pcie latencies (phy_ns, rp_bridge_ns, ep_bridge_ns, ep_axi_ns) must be >= 0");
	if (m->bar0_size < PSDMA_CHANNELS * PSDMA_CHAN_STRIDE || !pow2(m->bar0_size) || (m->bar0 & (m->bar0_size - 1)))
		FAIL("pcie.bar0 = 0x%llx size 0x%llx: a BAR is a power of two >= 0x%x, aligned to its size",
		     (unsigned long long)m->bar0, (unsigned long long)m->bar0_size, PSDMA_CHANNELS * PSDMA_CHAN_STRIDE);
	if (!pow2(m->bar2_size) || (m->bar2 & (m->bar2_size - 1)))
		FAIL("pcie.bar2 = 0x%llx size 0x%llx: a BAR is a power of two, aligned to its size",
		     (unsigned long long)m->bar2, (unsigned long long)m->bar2_size);
	if (m->bar2_axi < m->ep_ddr_axi || m->bar2_axi + m->bar2_size > m->ep_ddr_axi + m->ep_ddr_size)
		FAIL("pcie.bar2_axi = 0x%llx: BAR2 must translate into the endpoint DDR (pcie.ep_ddr_axi/ep_ddr_size)",
		     (unsigned long long)m->bar2_axi);
	if (m->bar0 < m->bar2 + m->bar2_size && m->bar2 < m->bar0 + m->bar0_size)
		FAIL("pcie.bar0 and pcie.bar2 overlap");
	if (m->ep_ddr_size == 0 || (m->ep_ddr_size & 0xFFF))
		FAIL("pcie.ep_ddr_size must be a non-zero multiple of 4 KiB");
	if (vb_dram_check(&m->ep_dram, err, n) < 0) {
		char inner[200];
		snprintf(inner, sizeof(inner), "%s", err);
		FAIL("pcie.ep_%s", inner);
	}
#undef FAIL
	return 0;
}
