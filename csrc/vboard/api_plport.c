/*
 * api_plport.c - a PL AXI master on the board's PS port (S_AXI_HP/HPC/ACP), as
 * a co-simulated RTL block drives it: the HDL simulator's time is the master.
 * Each call first brings the board up to the master's time (the PL master is
 * an initiator, like the CPU, so it may move `now`, never back), then sends
 * the burst through the same interconnect, DDR controller and DRAM as the
 * board's own PL masters (DMA, RTIO, PCIe: mem/ic.c), and moves its bytes in
 * the memory the CPU sees.  The port's own rules (widths, outstanding limits,
 * AXI3/AXI4 burst lengths) are the bridge's business (sgdma.cocotb).
 */
#include <string.h>

#include "board.h"
#include "dma/mm2s.h"

static void catch_up(vb_board *b, uint64_t t)
{
	if (t > b->sched.now)
		vb_sched_advance(&b->sched, t - b->sched.now);
	else
		vb_sched_sync(&b->sched);
}

int vb_pl_read(vb_board *b, uint64_t t_ps, uint64_t addr, uint32_t len, void *dst, struct vb_pl_xfer *out)
{
	uint8_t *host = NULL;
	enum vb_access acc = vb_dma_access(&b->memory, addr, len, &host);

	catch_up(b, t_ps);
	out->t_issue = b->sched.now;
	if (acc != VB_ACC_OK) {
		/* an error response costs the round trip through the port, no DRAM access */
		out->t_first = out->t_done = out->t_issue + b->ic.request_ps + b->ic.response_ps;
		if (dst)
			memset(dst, 0, len);
		return (int)acc;
	}
	out->t_first = vb_ic_read(&b->ic, out->t_issue, addr, len, &out->t_done);
	if (dst)
		memcpy(dst, host, len);
	return VB_ACC_OK;
}

int vb_pl_write(vb_board *b, uint64_t t_aw_ps, uint64_t t_wlast_ps, uint64_t addr, uint32_t len, const void *src,
		struct vb_pl_xfer *out)
{
	uint8_t *host = NULL;
	enum vb_access acc = vb_dma_access(&b->memory, addr, len, &host);

	catch_up(b, t_wlast_ps > t_aw_ps ? t_wlast_ps : t_aw_ps);
	out->t_issue = t_aw_ps < b->sched.now ? t_aw_ps : b->sched.now;
	if (acc != VB_ACC_OK) {
		out->t_first = out->t_done = b->sched.now + b->ic.request_ps + b->ic.response_ps;
		return (int)acc;
	}
	if (src)
		memcpy(host, src, len);
	out->t_done = vb_ic_write_burst(&b->ic, out->t_issue, b->sched.now, addr, len);
	out->t_first = out->t_done;
	return VB_ACC_OK;
}

/* ---- the MM2S stream's next beat, for a live consumer (sgdma.cocotb.DmaStreamSource) ---- */

int vb_mm2s_peek(vb_board *b, uint8_t *dst, struct vb_mm2s_beat *out)
{
	struct vb_mm2s_beat_src s;
	uint32_t w = b->dma.data_bytes;
	uint8_t *host = NULL;

	vb_sync(b);
	if (w > VB_MM2S_BEAT_MAX)
		return -3;
	if (vb_mm2s_next_beat(&b->dma, &b->dma.ch[VB_MM2S], &s) < 0)
		return -1;
	/* keyhole: the data mover re-reads the buffer's first beat (FIXED bursts) */
	if (vb_dma_access(&b->memory, s.keyhole ? s.buf : s.buf + s.off, s.keyhole ? w : s.nbytes, &host) !=
	    VB_ACC_OK)
		return -2;
	memset(dst, 0, w);
	for (uint32_t i = 0; i < s.nbytes; i++)
		dst[i] = s.keyhole ? host[(s.off + i) % w] : host[i];
	out->width = w;
	out->nbytes = s.nbytes;
	out->last = s.last;
	return 0;
}

void vb_dma_clock(vb_board *b, uint64_t *origin_ps, double *period_ps)
{
	*origin_ps = b->clk.origin;
	*period_ps = b->clk.ps;
}

/* ---- IRQ_F2P inputs driven by the RTL (sgdma.cocotb.PlInterrupt) ------------------- */

static bool dma_line(vb_board *b, unsigned line)
{
	return (b->dma.ch[line].dmasr & b->dma.ch[line].dmacr & PG021_SR_IRQ_ALL) != 0;
}

int vb_pl_irq_set(vb_board *b, unsigned line, bool level, uint64_t t_ps)
{
	uint8_t bit = (uint8_t)(1u << line);
	if (line < 2 || line >= VB_F2P_LINES)
		return -1;
	catch_up(b, t_ps);
	if (level && !(b->pl_irq.level & bit)) {
		b->pl_irq.rose[line] = b->sched.now;
		b->pl_irq.rises[line]++;
	}
	b->pl_irq.level = level ? b->pl_irq.level | bit : b->pl_irq.level & (uint8_t)~bit;
	return 0;
}

int vb_pl_irq_get(vb_board *b, unsigned line, bool *level, uint64_t *rose_ps, uint64_t *rises)
{
	if (line >= VB_F2P_LINES)
		return -1;
	vb_sync(b);
	if (line < 2) {            /* the DMA's: level only (its channel keeps the rest) */
		*level = dma_line(b, line);
		*rose_ps = VB_NO_TIME;
		*rises = 0;
		return 0;
	}
	*level = (b->pl_irq.level >> line) & 1;
	*rose_ps = b->pl_irq.rises[line] ? b->pl_irq.rose[line] : VB_NO_TIME;
	*rises = b->pl_irq.rises[line];
	return 0;
}
