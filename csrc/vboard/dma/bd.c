/*
 * bd.c - the PG021 buffer descriptor as the DMA's masters see it in memory:
 * its address fields (only addr_width bits exist) and its STATUS word.  The
 * leaf of the DMA model: it calls only the memory map (memory.c).
 */
#include <string.h>

#include "dma/bd.h"

static uint64_t bd_align(uint64_t a) { return a & ~(uint64_t)(PG021_BD_ALIGN - 1); }

uint64_t vb_bd_next(const struct vb_dma *d, const struct pg021_bd *bd)
{
	return bd_align(((uint64_t)(vb_addr64(d) ? bd->nxtdesc_msb : 0) << 32 | bd->nxtdesc) & d->addr_mask);
}

uint64_t vb_bd_buffer(const struct vb_dma *d, const struct pg021_bd *bd)
{
	uint64_t a = bd->buffer;
	if (vb_addr64(d))
		a |= (uint64_t)bd->buffer_msb << 32;
	return a & d->addr_mask;
}

uint32_t vb_access_sr_bit(enum vb_access acc) { return acc == VB_ACC_DECERR ? PG021_SR_DMADECERR : PG021_SR_DMASLVERR; }
uint32_t vb_access_sg_bit(enum vb_access acc) { return acc == VB_ACC_DECERR ? PG021_SR_SGDECERR : PG021_SR_SGSLVERR; }
uint32_t vb_access_bd_bit(enum vb_access acc) { return acc == VB_ACC_DECERR ? PG021_BD_STS_DECERR : PG021_BD_STS_SLVERR; }

enum vb_access vb_bd_load(struct vb_dma *d, uint64_t addr, struct pg021_bd *bd)
{
	uint8_t *host;
	enum vb_access acc = vb_dma_access(d->memory, addr, PG021_BD_HW_BYTES, &host);
	if (acc == VB_ACC_OK)
		memcpy(bd, host, PG021_BD_HW_BYTES);
	return acc;
}

enum vb_access vb_bd_store_status(struct vb_dma *d, uint64_t bd_addr, uint32_t status)
{
	uint8_t *host;
	enum vb_access acc = vb_dma_access(d->memory, bd_addr + PG021_BD_STATUS, 4, &host);
	if (acc == VB_ACC_OK)
		memcpy(host, &status, 4);
	return acc;
}
