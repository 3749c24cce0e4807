/*
 * loopback.c - a bare-metal program in the style of a Vitis standalone app:
 * physical addresses, Xil_In32/Xil_Out32, Xil_DCacheFlushRange, and the sgdma
 * driver core over the standalone-BSP platform ops.
 *
 * On a ZCU111 with an AXI DMA whose MM2S stream is looped back to S2MM it runs
 * as is.  On the host it links against the virtual board (csrc/bsp shim):
 *     make -C examples/baremetal run
 */
#include <stdio.h>

#include "sgdma/driver.h"
#include "sgdma/platform_xil.h"
#include "sgdma_bsp.h"
#include "xil_cache.h"
#include "xil_io.h"

/* S0's memory map in the PL DDR aperture (see `sgdma info --board zcu111`). */
#define DMA_BASE     0xA0000000u    /* XPAR_AXI_DMA_0_BASEADDR */
#define RPMSG_BYTES  2048u
#define TX_BD_SPACE  (0x80000000u + RPMSG_BYTES)
#define RX_BD_SPACE  (TX_BD_SPACE + 0x10000u)
#define TX_BUFFER    0x80400800u
#define RX_BUFFER    0x80600000u

#define N_PKTS       8u
#define PKT_BYTES    1000u          /* not a multiple of 32: a partial last beat */
#define BD_BYTES     256u           /* MM2S split: 3 x 256 + 232 per packet */
#define RX_BD_BYTES  1024u

static int fail(const char *what, const struct sg_error *e)
{
	char msg[1024];
	sg_format_error(e, msg, sizeof(msg));
	printf("FAIL %s: %s\n", what, msg);
	return 1;
}

int main(void)
{
	struct sg_platform plat = { &sg_xil_ops, NULL };
	struct sg_chan_config cfg = { .base = DMA_BASE, .addr_width = 32, .length_width = 26, .data_bytes = 32 };
	struct sg_chan tx, rx;
	struct sg_ring txr, rxr;
	struct sg_error err;
	struct sg_completion done[64];
	uint64_t addr[64];
	uint32_t len[64];
	uint8_t flags[64];
	uint32_t n = 0, got = 0, bad = 0;

	cfg.dir = SG_MM2S;
	if (sg_chan_init(&tx, plat, &cfg, &err) || sg_chan_reset(&tx, &err))
		return fail("mm2s init", &err);
	cfg.dir = SG_S2MM;
	if (sg_chan_init(&rx, plat, &cfg, &err))
		return fail("s2mm init", &err);

	/* Payload written by physical address, then flushed for the DMA. */
	for (uint32_t i = 0; i < N_PKTS * 1024u / 4u; i++)
		Xil_Out32(TX_BUFFER + 4u * i, 0xC0DE0000u + i);
	Xil_DCacheFlushRange(TX_BUFFER, N_PKTS * 1024u);

	/* S2MM: one 1 KiB buffer per packet. */
	if (sg_ring_create(&rxr, &rx, SGDMA_PHYS_TO_PTR(RX_BD_SPACE, 64u * N_PKTS), RX_BD_SPACE, N_PKTS, &err))
		return fail("rx ring", &err);
	for (uint32_t p = 0; p < N_PKTS; p++) {
		addr[p] = RX_BUFFER + p * RX_BD_BYTES;
		len[p] = RX_BD_BYTES;
		flags[p] = 0;
	}
	if (sg_ring_fill(&rxr, N_PKTS, addr, len, flags, NULL, &err) || sg_ring_submit(&rxr, &err))
		return fail("rx submit", &err);

	/* MM2S: each packet split into 256-byte BDs, the last one partial. */
	for (uint32_t p = 0; p < N_PKTS; p++)
		for (uint32_t off = 0; off < PKT_BYTES; off += BD_BYTES, n++) {
			addr[n] = TX_BUFFER + p * 1024u + off;
			len[n] = PKT_BYTES - off < BD_BYTES ? PKT_BYTES - off : BD_BYTES;
			flags[n] = (off == 0 ? SG_BD_SOF : 0) | (off + BD_BYTES >= PKT_BYTES ? SG_BD_EOF : 0);
		}
	if (sg_ring_create(&txr, &tx, SGDMA_PHYS_TO_PTR(TX_BD_SPACE, 64u * n), TX_BD_SPACE, n, &err))
		return fail("tx ring", &err);
	if (sg_ring_fill(&txr, n, addr, len, flags, NULL, &err) || sg_ring_submit(&txr, &err))
		return fail("tx submit", &err);

	if (sg_chan_wait_idle(&tx, &err) || sg_chan_wait_idle(&rx, &err))
		return fail("wait", &err);
	if (sg_ring_reclaim(&rxr, done, 64, &got, &err))
		return fail("reclaim", &err);

	Xil_DCacheInvalidateRange(RX_BUFFER, N_PKTS * RX_BD_BYTES);
	for (uint32_t p = 0; p < got; p++) {
		if (done[p].bytes != PKT_BYTES || !(done[p].flags & SG_BD_EOF))
			bad++;
		for (uint32_t w = 0; w < PKT_BYTES / 4u; w++)
			if (Xil_In32(RX_BUFFER + p * RX_BD_BYTES + 4u * w) != 0xC0DE0000u + p * 256u + w)
				bad++;
	}
	printf("%s: %u packets of %u bytes, %u MM2S BDs, %u mismatches\n", bad || got != N_PKTS ? "FAIL" : "PASS",
	       got, PKT_BYTES, n, bad);
#ifdef SGDMA_VIRTUAL
	printf("virtual time %.0f ns\n", sgdma_bsp_now_ns());
#endif
	return bad || got != N_PKTS;
}
