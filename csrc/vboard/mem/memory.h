/*
 * memory.h - the DDR regions as lazily mapped host memory, and what a DMA
 * master finds at an address (OK, DECERR, or an injected SLVERR).  Its own
 * state (struct vb_memory); vboard.h's memory functions are api.c's, over it.
 */
#ifndef SGDMA_VBOARD_MEM_MEMORY_H
#define SGDMA_VBOARD_MEM_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vboard.h"   /* struct vb_region, VB_MAX_REGIONS, VB_MAX_FAULTS */

#pragma GCC visibility push(hidden)

/* Outcome of a DMA master's access: OK, or PG021's DecErr / SlvErr. */
enum vb_access { VB_ACC_OK = 0, VB_ACC_DECERR, VB_ACC_SLVERR };

struct vb_fault {
	uint64_t base, size;
};

struct vb_mem_region {
	struct vb_region r;
	uint8_t *host;
	bool at_phys;             /* host == (uint8_t *)r.base: physical addresses work as pointers */
};

struct vb_memory {
	struct vb_mem_region mem[VB_MAX_REGIONS];
	unsigned n_mem;
	unsigned mem_hit;         /* the region the last lookup found (a DMA walks one buffer) */
	bool has_file_map;        /* some DDR is backed by a shared file (vb_memory_map_file) */
	struct vb_fault faults[VB_MAX_FAULTS];
	unsigned n_faults;
	uint64_t addr_mask;       /* addresses the DMA masters can form */
};

int vb_memory_init(struct vb_memory *mem, const struct vb_region *ddr, unsigned n_ddr, bool map_at_phys,
		   char *err, size_t errlen);
void vb_memory_fini(struct vb_memory *mem);
void *vb_memory_ptr(struct vb_memory *mem, uint64_t addr, uint64_t len);
uint64_t vb_memory_addr(const struct vb_memory *mem, const void *host);
int vb_memory_zero(struct vb_memory *mem, uint64_t addr, uint64_t len);
int vb_memory_map_file(struct vb_memory *mem, uint64_t addr, uint64_t size, int fd, char *err, size_t errlen);
int vb_memory_inject_slverr(struct vb_memory *mem, uint64_t base, uint64_t size);
struct vb_mem_region *vb_memory_find_slow(struct vb_memory *mem, uint64_t addr, uint64_t len);

static inline bool vb_region_holds(const struct vb_mem_region *m, uint64_t addr, uint64_t len)
{
	return addr >= m->r.base && len <= m->r.size && addr - m->r.base <= m->r.size - len;
}

/* The region holding [addr, addr + len), or NULL.  Regions do not overlap, so
 * the one the last lookup found is tried first (a DMA walks one buffer and one
 * ring); inline, as the DMA looks up every BD and buffer. */
static inline struct vb_mem_region *vb_memory_find(struct vb_memory *mem, uint64_t addr, uint64_t len)
{
	struct vb_mem_region *m = &mem->mem[mem->mem_hit];

	if (mem->mem_hit < mem->n_mem && vb_region_holds(m, addr, len))
		return m;
	return vb_memory_find_slow(mem, addr, len);
}

/* A DMA master's view: DECERR where nothing is mapped (the interconnect
 * decodes no slave), SLVERR where a fault was injected. */
static inline enum vb_access vb_dma_access(struct vb_memory *mem, uint64_t addr, uint64_t len, uint8_t **host)
{
	struct vb_mem_region *m;

	if (len == 0)
		len = 1;
	if (addr > mem->addr_mask || len - 1 > mem->addr_mask - addr)
		return VB_ACC_DECERR;
	m = vb_memory_find(mem, addr, len);
	if (!m)
		return VB_ACC_DECERR;
	for (unsigned i = 0; i < mem->n_faults; i++) {
		const struct vb_fault *f = &mem->faults[i];
		if (addr < f->base + f->size && f->base < addr + len)
			return VB_ACC_SLVERR;
	}
	*host = m->host + (addr - m->r.base);
	return VB_ACC_OK;
}

#pragma GCC visibility pop

#endif
