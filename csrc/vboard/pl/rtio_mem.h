/*
 * rtio_mem.h - the RTIO masters' one adapter onto the timed memory path (rtio_mem.c).
 */
#ifndef SGDMA_VBOARD_PL_RTIO_MEM_H
#define SGDMA_VBOARD_PL_RTIO_MEM_H

#include "pl/rtio_types.h"

enum rtio_port { RTIO_PORT_HP0, RTIO_PORT_HP1 };
bool rtio_mem_ok(struct vb_rtio *r, uint64_t addr, uint64_t len);
uint8_t *rtio_mem_host(struct vb_rtio *r, uint64_t addr, uint64_t len);   /* NULL unless the bus would answer OKAY */
uint64_t rtio_mem_read(struct vb_rtio *r, enum rtio_port port, uint64_t t, uint64_t addr, uint32_t len);
uint64_t rtio_mem_write(struct vb_rtio *r, enum rtio_port port, uint64_t t, uint64_t addr, uint32_t len);

#endif
