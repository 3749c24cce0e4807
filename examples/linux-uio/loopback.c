/*
 * loopback.c - the sgdma driver core on a Linux board, from C: registers
 * through UIO, buffers from u-dma-buf, the MM2S interrupt from UIO.
 *
 *   cc loopback.c $(pkg-config --cflags --libs sgdma) -o loopback
 *   ./loopback axi_dma_0 udmabuf0          (MM2S stream looped back to S2MM)
 *
 * Everything the board needs is in docs/boards.md.
 */
#include <stdio.h>
#include <string.h>

#include "sgdma/driver.h"
#include "sgdma/platform_linux.h"

#define N_PKTS 8u
#define PKT    4096u

int main(int argc, char **argv)
{
	const char *dma = argc > 1 ? argv[1] : "axi_dma_0", *buf = argc > 2 ? argv[2] : "udmabuf0";
	struct sg_linux lx;
	struct sg_platform plat = { &sg_linux_ops, &lx };
	struct sg_chan_config cfg = { .addr_width = 32, .length_width = 23, .data_bytes = 8 };
	struct sg_chan tx, rx;
	struct sg_ring txr, rxr;
	struct sg_error e;
	struct sg_completion done[N_PKTS];
	uint64_t addr[N_PKTS];
	uint32_t len[N_PKTS], got = 0, bad = 0;
	uint8_t flags[N_PKTS], *mem;
	char err[1024], msg[1024];

	sg_linux_init(&lx);
	if (sg_linux_open_dma(&lx, dma, err, sizeof(err)) < 0 || sg_linux_open_irq(&lx, 0, dma, err, sizeof(err)) < 0 ||
	    sg_linux_open_buffer(&lx, buf, SG_LINUX_CACHED, err, sizeof(err)) < 0 ||
	    sg_linux_lock_channel(&lx, 0, err, sizeof(err)) < 0 || sg_linux_lock_channel(&lx, 1, err, sizeof(err)) < 0) {
		fprintf(stderr, "loopback: %s\n", err);
		return 3;
	}
	if (lx.buf.size < 2u * 4096u + 2u * N_PKTS * PKT) {
		fprintf(stderr, "loopback: u-dma-buf %s is %llu bytes; it needs %u\n", buf,
			(unsigned long long)lx.buf.size, 2u * 4096u + 2u * N_PKTS * PKT);
		return 3;
	}
	mem = lx.buf.map;   /* layout: TX BDs, RX BDs, TX data, RX data */
	cfg.base = lx.regs.addr;
	cfg.dir = SG_MM2S;
	if (sg_chan_init(&tx, plat, &cfg, &e) || sg_chan_reset(&tx, &e) ||
	    sg_chan_set_irq(&tx, PG021_CR_IOC_IRQEN | PG021_CR_ERR_IRQEN, 1, 0, &e))
		goto fail;
	cfg.dir = SG_S2MM;
	if (sg_chan_init(&rx, plat, &cfg, &e))
		goto fail;
	for (uint32_t i = 0; i < N_PKTS * PKT; i++)
		mem[8192 + i] = (uint8_t)(i * 13);
	sg_linux_sync(&lx, 8192, N_PKTS * PKT, true);
	if (sg_ring_create(&rxr, &rx, mem + 4096, lx.buf.phys + 4096, N_PKTS, &e) ||
	    sg_ring_create(&txr, &tx, mem, lx.buf.phys, N_PKTS, &e))
		goto fail;
	sg_ring_link(&rxr, true);
	sg_ring_link(&txr, true);
	for (uint32_t p = 0; p < N_PKTS; p++) {
		addr[p] = lx.buf.phys + 8192 + N_PKTS * PKT + p * PKT;
		len[p] = PKT;
		flags[p] = SG_BD_SOF | SG_BD_EOF;
	}
	if (sg_ring_fill(&rxr, N_PKTS, addr, len, flags, NULL, &e) || sg_ring_submit(&rxr, &e))
		goto fail;
	for (uint32_t p = 0; p < N_PKTS; p++)
		addr[p] = lx.buf.phys + 8192 + p * PKT;
	if (sg_ring_fill(&txr, N_PKTS, addr, len, flags, NULL, &e) || sg_ring_submit(&txr, &e))
		goto fail;
	if (sg_chan_wait_idle(&tx, &e) || sg_chan_wait_idle(&rx, &e) || sg_ring_reclaim(&rxr, done, N_PKTS, &got, &e))
		goto fail;
	sg_linux_sync(&lx, 8192 + N_PKTS * PKT, N_PKTS * PKT, false);
	bad = memcmp(mem + 8192, mem + 8192 + N_PKTS * PKT, N_PKTS * PKT) != 0;
	printf("%s: %u packets of %u bytes, %u MM2S interrupts\n", bad || got != N_PKTS ? "FAIL" : "PASS", got, PKT,
	       lx.irq_count[0]);
	sg_linux_close(&lx);
	return bad || got != N_PKTS;
fail:
	sg_format_error(&e, msg, sizeof(msg));
	fprintf(stderr, "loopback: %s\n", msg);
	sg_linux_close(&lx);
	return 3;
}
