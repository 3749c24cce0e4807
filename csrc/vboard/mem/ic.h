/*
 * ic.h - the interconnect between the PL masters (DMA, RTIO, PCIe) and the
 * DDR controller: the memory path's request interface.  Its own state; the
 * controller it feeds is given (machine.c).
 */
#ifndef SGDMA_VBOARD_MEM_IC_H
#define SGDMA_VBOARD_MEM_IC_H

#include <stdbool.h>
#include <stdint.h>

struct vb_ddrc;

/* Its build ("ic.<field>"), in struct vb_config */
struct vb_ic_params {
	double request_ns;            /* request path: crossbar/SmartConnect, clock crossing */
	double response_ns;           /* response path */
	unsigned width_bits;          /* port width at the memory side */
	double clock_mhz;             /* port clock */
	unsigned early_bresp;         /* 1: the port answers B when it accepts a write's data (posted),
	                                 0: B comes back from the memory controller after the write */
};

#pragma GCC visibility push(hidden)

struct vb_ic {
	uint64_t request_ps, response_ps;  /* derived timing (ps) */
	uint64_t last_arrive;              /* requests reach the DRAM in order */
	uint64_t read_free, write_free;    /* the port's data channels */
	double ps_per_byte;
	bool early_bresp;                  /* ic.early_bresp */
	struct vb_ddrc *ddrc;              /* the controller, entered on its pl port */
};

/* Memory transactions through the interconnect to the DRAM: first data, *done the last. */
uint64_t vb_ic_read(struct vb_ic *ic, uint64_t t, uint64_t addr, uint32_t len, uint64_t *done);
uint64_t vb_ic_write(struct vb_ic *ic, uint64_t t, uint64_t addr, uint32_t len);
/* A data-mover write burst: its write response (B), early if the port answers on acceptance (ic.early_bresp). */
uint64_t vb_ic_write_burst(struct vb_ic *ic, uint64_t t, uint64_t t_wlast, uint64_t addr, uint32_t len);

#pragma GCC visibility pop

#endif
