/*
 * request.h - a DRAM request as it waits at a controller port: the lazy CPU
 * load (cpuload.c) makes them, the DDR controller (ddrc.c) queues and grants
 * them.
 */
#ifndef SGDMA_VBOARD_MEM_REQUEST_H
#define SGDMA_VBOARD_MEM_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

struct vb_ddrc_req {
	uint64_t t, addr;
	uint32_t len;
	bool write;
};

#endif
