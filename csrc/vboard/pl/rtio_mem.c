/*
 * rtio_mem.c - the RTIO gateware's memory masters (event DMA on S_AXI_HP0,
 * analyzer on S_AXI_HP1 [artiq-rtio.md sec. 3.3, 4.3]) onto the board's timed
 * memory path (mem/ic.c -> mem/dram.c).  The only place the RTIO blocks touch
 * that path: when the interconnect gains per-port arbitration, re-point here.
 * Today the port tag is informational: ic.c models one HP port's read and
 * write channels, and the DRAM is shared by both.
 */
#include "pl/rtio_mem.h"

bool rtio_mem_ok(struct vb_rtio *r, uint64_t addr, uint64_t len)
{
	uint8_t *host;
	return vb_dma_access(r->memory, addr, len, &host) == VB_ACC_OK;
}

uint8_t *rtio_mem_host(struct vb_rtio *r, uint64_t addr, uint64_t len)
{
	uint8_t *host;
	return vb_dma_access(r->memory, addr, len, &host) == VB_ACC_OK ? host : NULL;
}

uint64_t rtio_mem_read(struct vb_rtio *r, enum rtio_port port, uint64_t t, uint64_t addr, uint32_t len)
{
	uint64_t done;
	(void)port;
	vb_ic_read(r->ic, t, addr, len, &done);
	return done;
}

uint64_t rtio_mem_write(struct vb_rtio *r, enum rtio_port port, uint64_t t, uint64_t addr, uint32_t len)
{
	(void)port;
	return vb_ic_write(r->ic, t, addr, len);
}
