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
 * reached through vb_memory_ptr.
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

#include "mem/memory.h"

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

int vb_memory_init(struct vb_memory *mem, const struct vb_region *ddr, unsigned n_ddr, bool map_at_phys,
		   char *err, size_t errlen)
{
	const uint64_t min = map_at_phys ? host_min_addr() : 0;

	for (unsigned i = 0; i < n_ddr; i++) {
		struct vb_region lowered = ddr[i];
		const struct vb_region *r = &lowered;
		const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
		void *p = MAP_FAILED;

		if (lowered.base < min && lowered.size > min - lowered.base) {
			lowered.size -= min - lowered.base;
			lowered.base = min;
		}
		mem->mem[i].at_phys = false;
		if (map_at_phys && r->base >= min && r->base == (uint64_t)(uintptr_t)r->base) {
			p = mmap((void *)(uintptr_t)r->base, r->size, PROT_READ | PROT_WRITE,
				 flags | MAP_FIXED_NOREPLACE, -1, 0);
			/* Kernels before 4.17 ignore the flag and may place it elsewhere. */
			if (p != MAP_FAILED && p != (void *)(uintptr_t)r->base) {
				munmap(p, r->size);
				p = MAP_FAILED;
			}
			mem->mem[i].at_phys = p != MAP_FAILED;
		}
		if (p == MAP_FAILED)
			p = mmap(NULL, r->size, PROT_READ | PROT_WRITE, flags, -1, 0);
		if (p == MAP_FAILED) {
			snprintf(err, errlen, "ddr.%s: cannot reserve %llu bytes of host address space",
				 r->name, (unsigned long long)r->size);
			return -1;
		}
		mem->mem[i].r = *r;
		mem->mem[i].host = p;
		mem->n_mem = i + 1;
	}
	return 0;
}

void vb_memory_fini(struct vb_memory *mem)
{
	for (unsigned i = 0; i < mem->n_mem; i++)
		munmap(mem->mem[i].host, mem->mem[i].r.size);
	mem->n_mem = 0;
}

struct vb_mem_region *vb_memory_find_slow(struct vb_memory *mem, uint64_t addr, uint64_t len)
{
	for (unsigned i = 0; i < mem->n_mem; i++) {
		if (vb_region_holds(&mem->mem[i], addr, len)) {
			mem->mem_hit = i;
			return &mem->mem[i];
		}
	}
	return NULL;
}

void *vb_memory_ptr(struct vb_memory *mem, uint64_t addr, uint64_t len)
{
	struct vb_mem_region *m = vb_memory_find(mem, addr, len ? len : 1);
	return m ? m->host + (addr - m->r.base) : NULL;
}

uint64_t vb_memory_addr(const struct vb_memory *mem, const void *host)
{
	const uint8_t *p = host;
	for (unsigned i = 0; i < mem->n_mem; i++) {
		const struct vb_mem_region *m = &mem->mem[i];
		if (p >= m->host && p < m->host + m->r.size)
			return m->r.base + (uint64_t)(p - m->host);
	}
	return SG_NO_DEV_ADDR;
}

/* Whole pages are handed back (MADV_DONTNEED: anonymous private pages read
 * as zero afterwards, without touching them); partial pages are cleared. */
int vb_memory_zero(struct vb_memory *mem, uint64_t addr, uint64_t len)
{
	uint8_t *p = vb_memory_ptr(mem, addr, len), *lo, *hi;
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
	if (mem->has_file_map)
		memset(lo, 0, (size_t)(hi - lo));
	memset(p, 0, (size_t)(lo - p));
	memset(hi, 0, (size_t)(p + len - hi));
	return 0;
}

int vb_memory_map_file(struct vb_memory *mem, uint64_t addr, uint64_t size, int fd, char *err, size_t errlen)
{
	uint8_t *host = vb_memory_ptr(mem, addr, size);
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
	mem->has_file_map = true;
	return 0;
}

int vb_memory_inject_slverr(struct vb_memory *mem, uint64_t base, uint64_t size)
{
	if (mem->n_faults >= VB_MAX_FAULTS || size == 0)
		return -1;
	mem->faults[mem->n_faults].base = base;
	mem->faults[mem->n_faults].size = size;
	mem->n_faults++;
	return 0;
}
