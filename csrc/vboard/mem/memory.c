/*
 * memory.c - the DDR apertures of the address map, as lazily mapped host
 * memory: a 512 MiB region costs address space, not RSS, until it is touched.
 *
 * With cfg.map_at_phys a region is placed at its physical address
 * (MAP_FIXED_NOREPLACE: never over an existing mapping), so a bare-metal
 * program that dereferences physical addresses runs unmodified.  The host
 * refuses pages below vm.mmap_min_addr, so a region that starts there (PS DDR
 * at 0) begins at that limit instead: addresses under it decode to nothing.
 * Where the host already has something, the region is mapped anywhere and
 * reached through vb_mem_ptr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#include "internal.h"

/* The lowest address the host lets a process map (page-rounded; the
 * kernel's usual default when the sysctl cannot be read). */
static uint64_t host_min_addr(void)
{
	unsigned long long v = 65536;
	long page = sysconf(_SC_PAGESIZE);
	FILE *f = fopen("/proc/sys/vm/mmap_min_addr", "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 65536;
		fclose(f);
	}
	if (page > 0)
		v = (v + (unsigned long long)page - 1) / (unsigned long long)page * (unsigned long long)page;
	return v ? v : (uint64_t)(page > 0 ? page : 4096);
}

int vb_mem_init(vb_board *b, char *err, size_t errlen)
{
	const uint64_t min = b->cfg.map_at_phys ? host_min_addr() : 0;

	for (unsigned i = 0; i < b->cfg.n_ddr; i++) {
		struct vb_region lowered = b->cfg.ddr[i];
		const struct vb_region *r = &lowered;
		const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
		void *p = MAP_FAILED;

		if (lowered.base < min && lowered.size > min - lowered.base) {
			lowered.size -= min - lowered.base;
			lowered.base = min;
		}
		b->mem[i].at_phys = false;
		if (b->cfg.map_at_phys && r->base >= min && r->base == (uint64_t)(uintptr_t)r->base) {
			p = mmap((void *)(uintptr_t)r->base, r->size, PROT_READ | PROT_WRITE,
				 flags | MAP_FIXED_NOREPLACE, -1, 0);
			/* Kernels before 4.17 ignore the flag and may place it elsewhere. */
			if (p != MAP_FAILED && p != (void *)(uintptr_t)r->base) {
				munmap(p, r->size);
				p = MAP_FAILED;
			}
			b->mem[i].at_phys = p != MAP_FAILED;
		}
		if (p == MAP_FAILED)
			p = mmap(NULL, r->size, PROT_READ | PROT_WRITE, flags, -1, 0);
		if (p == MAP_FAILED) {
			snprintf(err, errlen, "ddr.%s: cannot reserve %llu bytes of host address space",
				 r->name, (unsigned long long)r->size);
			return -1;
		}
		b->mem[i].r = *r;
		b->mem[i].host = p;
		b->n_mem = i + 1;
	}
	return 0;
}

void vb_mem_fini(vb_board *b)
{
	for (unsigned i = 0; i < b->n_mem; i++)
		munmap(b->mem[i].host, b->mem[i].r.size);
	b->n_mem = 0;
}

static inline bool region_holds(const struct vb_mem_region *m, uint64_t addr, uint64_t len)
{
	return addr >= m->r.base && len <= m->r.size && addr - m->r.base <= m->r.size - len;
}

static struct vb_mem_region *find_slow(vb_board *b, uint64_t addr, uint64_t len)
{
	for (unsigned i = 0; i < b->n_mem; i++) {
		if (region_holds(&b->mem[i], addr, len)) {
			b->mem_hit = i;
			return &b->mem[i];
		}
	}
	return NULL;
}

/* Regions do not overlap, so the one the last lookup found is tried first
 * (a DMA walks one buffer and one ring). */
static inline struct vb_mem_region *find(vb_board *b, uint64_t addr, uint64_t len)
{
	struct vb_mem_region *m = &b->mem[b->mem_hit];

	if (b->mem_hit < b->n_mem && region_holds(m, addr, len))
		return m;
	return find_slow(b, addr, len);
}

void *vb_mem_ptr(vb_board *b, uint64_t addr, uint64_t len)
{
	struct vb_mem_region *m = find(b, addr, len ? len : 1);
	return m ? m->host + (addr - m->r.base) : NULL;
}

uint64_t vb_mem_addr(const vb_board *b, const void *host)
{
	const uint8_t *p = host;
	for (unsigned i = 0; i < b->n_mem; i++) {
		const struct vb_mem_region *m = &b->mem[i];
		if (p >= m->host && p < m->host + m->r.size)
			return m->r.base + (uint64_t)(p - m->host);
	}
	return SG_NO_DEV_ADDR;
}

int vb_region_count(const vb_board *b) { return (int)b->n_mem; }

const struct vb_region *vb_region_at(const vb_board *b, int i)
{
	return i >= 0 && (unsigned)i < b->n_mem ? &b->mem[i].r : NULL;
}

bool vb_region_at_phys(const vb_board *b, int i)
{
	return i >= 0 && (unsigned)i < b->n_mem && b->mem[i].at_phys;
}

/* Whole pages are handed back (MADV_DONTNEED: anonymous private pages read
 * as zero afterwards, without touching them); partial pages are cleared. */
int vb_mem_zero(vb_board *b, uint64_t addr, uint64_t len)
{
	uint8_t *p = vb_mem_ptr(b, addr, len), *lo, *hi;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	if (!p)
		return -1;
	lo = (uint8_t *)(((uintptr_t)p + page - 1) & ~(page - 1));
	hi = (uint8_t *)(((uintptr_t)p + len) & ~(page - 1));
	if (lo >= hi || madvise(lo, (size_t)(hi - lo), MADV_DONTNEED) < 0) {
		memset(p, 0, len);
		return 0;
	}
	/* Pages of a shared file mapping keep their contents under DONTNEED. */
	if (b->has_file_map)
		memset(lo, 0, (size_t)(hi - lo));
	memset(p, 0, (size_t)(lo - p));
	memset(hi, 0, (size_t)(p + len - hi));
	return 0;
}

int vb_mem_map_file(vb_board *b, uint64_t addr, uint64_t size, int fd, char *err, size_t errlen)
{
	uint8_t *host = vb_mem_ptr(b, addr, size);
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	if (!host || ((uintptr_t)host | size) & (page - 1)) {
		snprintf(err, errlen, "0x%llx+%llu is not a page-aligned range inside one DDR region",
			 (unsigned long long)addr, (unsigned long long)size);
		return -1;
	}
	if (mmap(host, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		snprintf(err, errlen, "cannot map the file over DDR 0x%llx+%llu: %s", (unsigned long long)addr,
			 (unsigned long long)size, strerror(errno));
		return -1;
	}
	b->has_file_map = true;
	return 0;
}

int vb_inject_slverr(vb_board *b, uint64_t base, uint64_t size)
{
	if (b->n_faults >= VB_MAX_FAULTS || size == 0)
		return -1;
	b->faults[b->n_faults].base = base;
	b->faults[b->n_faults].size = size;
	b->n_faults++;
	return 0;
}

void vb_clear_faults(vb_board *b) { b->n_faults = 0; }

/* A DMA master's view: DECERR where nothing is mapped (the interconnect
 * decodes no slave), SLVERR where a fault was injected. */
enum vb_access vb_dma_access(vb_board *b, uint64_t addr, uint64_t len, uint8_t **host)
{
	struct vb_mem_region *m;

	if (len == 0)
		len = 1;
	if (addr > b->addr_mask || len - 1 > b->addr_mask - addr)
		return VB_ACC_DECERR;
	m = find(b, addr, len);
	if (!m)
		return VB_ACC_DECERR;
	for (unsigned i = 0; i < b->n_faults; i++) {
		const struct vb_fault *f = &b->faults[i];
		if (addr < f->base + f->size && f->base < addr + len)
			return VB_ACC_SLVERR;
	}
	*host = m->host + (addr - m->r.base);
	return VB_ACC_OK;
}
