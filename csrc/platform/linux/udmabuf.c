/*
 * udmabuf.c - DMA buffers from u-dma-buf, or a reserved-memory carve-out
 * through /dev/mem.
 *
 * Facts used (u-dma-buf's documentation): each buffer NAME appears as
 * /dev/NAME and /sys/class/u-dma-buf/NAME/ with phys_addr, size, sync_mode,
 * dma_coherent, and the manual-sync files sync_offset, sync_size,
 * sync_direction (0 bidirectional, 1 to device, 2 from device), sync_for_cpu,
 * sync_for_device (writing 1 runs the sync over the range set before).
 * Opening /dev/NAME with O_SYNC maps it uncached when sync_mode is 1 (the
 * default); sync_mode 0 keeps the CPU cache on whatever the flags.
 * The sync files stay open: each sync is four writes, no open().
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sgdma/platform_linux.h"
#include "sysfs.h"

#define UDMABUF_CLASS "/sys/class/u-dma-buf"

enum { SYNC_OFFSET, SYNC_SIZE, SYNC_DIRECTION, SYNC_FOR_CPU, SYNC_FOR_DEVICE, N_SYNC };
static const char *const sync_files[N_SYNC] = { "sync_offset", "sync_size", "sync_direction",
						 "sync_for_cpu", "sync_for_device" };
#define DMA_TO_DEVICE 1
#define DMA_FROM_DEVICE 2

static void buf_reset(struct sg_linux_buf *b)
{
	memset(b, 0, sizeof(*b));
	b->fd = -1;
	b->sync_mode = -1;
	for (int i = 0; i < N_SYNC; i++)
		b->sync_fd[i] = -1;
}

/* 0, -1 when there is no such buffer, -2 when its attributes are damaged (reason in err, naming the file). */
static int buf_read(const char *name, struct sg_linux_buf *b, char *err, size_t n)
{
	char path[SG_LINUX_PATH_LEN];
	uint64_t v;

	buf_reset(b);
	snprintf(b->name, sizeof(b->name), "%s", name);
	snprintf(path, sizeof(path), UDMABUF_CLASS "/%s/phys_addr", name);
	if (sg_sysfs_u64(path, &b->phys) < 0)
		return errno == ENOENT || errno == ENOTDIR ? -1 : (sg_sysfs_u64_err(path, &b->phys, err, n), -2);
	snprintf(path, sizeof(path), UDMABUF_CLASS "/%s/size", name);
	if (sg_sysfs_u64_err(path, &b->size, err, n) < 0)
		return -2;
	snprintf(path, sizeof(path), UDMABUF_CLASS "/%s/sync_mode", name);
	if (sg_sysfs_u64(path, &v) == 0)
		b->sync_mode = (int)v;
	snprintf(path, sizeof(path), UDMABUF_CLASS "/%s/dma_coherent", name);
	b->coherent = sg_sysfs_u64(path, &v) == 0 && v;
	return 0;
}

int sg_linux_list_udmabuf(void (*fn)(void *arg, const struct sg_linux_buf *b), void *arg)
{
	char path[SG_LINUX_PATH_LEN];
	struct sg_linux_buf b;
	struct dirent *e;
	DIR *d;
	int count = 0;

	sg_linux_path(path, sizeof(path), UDMABUF_CLASS);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || buf_read(e->d_name, &b, NULL, 0) < 0)
			continue;
		count++;
		if (fn)
			fn(arg, &b);
	}
	closedir(d);
	return count;
}

struct names { char *buf; size_t n; };

static void add_name(void *arg, const struct sg_linux_buf *b)
{
	struct names *s = arg;
	size_t len = strlen(s->buf);

	snprintf(s->buf + len, s->n - len, "%s%s (%" PRIu64 " bytes)", len ? ", " : "", b->name, b->size);
}

static int open_sync_files(struct sg_linux_buf *b, char *err, size_t n)
{
	char rel[SG_LINUX_PATH_LEN], path[SG_LINUX_PATH_LEN];

	for (int i = 0; i < N_SYNC; i++) {
		snprintf(rel, sizeof(rel), UDMABUF_CLASS "/%s/%s", b->name, sync_files[i]);
		sg_linux_path(path, sizeof(path), rel);
		b->sync_fd[i] = open(path, O_WRONLY | O_CLOEXEC);
		if (b->sync_fd[i] < 0)
			return sg_fail(err, n, "cannot open %s for cache maintenance: %s; %s", path, strerror(errno),
				       errno == ENOENT ? "this u-dma-buf has no manual sync: use an uncached "
				       "mapping (cache=uncached)" : sg_open_fix(errno, false));
	}
	return 0;
}

/* "0xADDR:SIZE" with an optional K/M/G suffix on SIZE. */
static bool parse_carveout(const char *spec, uint64_t *addr, uint64_t *size)
{
	char *end;

	if (strncmp(spec, "0x", 2) && strncmp(spec, "0X", 2))
		return false;
	unsigned shift = 0;

	errno = 0;
	*addr = strtoull(spec, &end, 16);
	if (*end != ':' || errno || end[1] == '-')
		return false;
	*size = strtoull(end + 1, &end, 0);
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	default: break;
	}
	if (errno || *size > (UINT64_MAX >> shift))     /* a size the shift would wrap */
		return false;
	*size <<= shift;
	return *end == 0 && *size > 0;
}

static int open_carveout(struct sg_linux_buf *b, uint64_t addr, uint64_t size, char *err, size_t n)
{
	char path[SG_LINUX_PATH_LEN];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	void *p;

	if (addr & (page - 1))
		return sg_fail(err, n, "buffers=0x%" PRIx64 ":...: a carve-out must start on a page boundary "
			       "(0x%" PRIx64 ")", addr, page);
	snprintf(b->name, sizeof(b->name), "0x%" PRIx64, addr);
	b->phys = addr;
	b->size = size;
	sg_linux_path(path, sizeof(path), "/dev/mem");
	b->fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (b->fd < 0)
		return sg_fail(err, n, "cannot open %s for the carve-out at 0x%" PRIx64 ": %s; %s", path, addr,
			       strerror(errno), errno == EACCES || errno == EPERM
			       ? "/dev/mem needs root; u-dma-buf (docs/boards.md) does not" : sg_open_fix(errno, false));
	if (sg_map_check(b->fd, path, addr, size, err, n) < 0)
		return -1;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, (off_t)addr);
	if (p == MAP_FAILED)
		return sg_fail(err, n, "cannot mmap %" PRIu64 " bytes of %s at 0x%" PRIx64 ": %s; reserve the range "
			       "with a no-map reserved-memory node", size, path, addr, strerror(errno));
	b->map = p;
	b->cached = false;   /* /dev/mem with O_SYNC: uncached */
	return 0;
}

int sg_linux_open_buffer(struct sg_linux *lx, const char *spec, enum sg_linux_policy policy,
			 char *err, size_t n)
{
	struct sg_linux_buf *b = &lx->buf;
	char list[1024] = "", dev[SG_LINUX_NAME_LEN + 8], path[SG_LINUX_PATH_LEN], cls[SG_LINUX_PATH_LEN];
	struct names s = { list, sizeof(list) };
	uint64_t addr, size;
	int flags = O_RDWR | O_CLOEXEC;
	void *p;

	buf_reset(b);
	if (parse_carveout(spec, &addr, &size)) {
		if (policy == SG_LINUX_COHERENT)
			return sg_fail(err, n, "buffers=%s: a /dev/mem carve-out is mapped uncached, not coherent; "
				       "use cache=uncached", spec);
		/* a no-map carve-out is not Linux RAM: /dev/mem maps it strongly ordered (ARM32) or
		 * Device-nGnRnE (ARM64) whatever O_SYNC says (arm-host-path.md sec. 2.4) */
		if (policy == SG_LINUX_WRITECOMBINE)
			return sg_fail(err, n, "buffers=%s: a /dev/mem carve-out outside Linux's RAM is mapped strongly "
				       "ordered, not write-combine; use cache=uncached, or a u-dma-buf with sync_mode 2 "
				       "for cache=writecombine", spec);
		return open_carveout(b, addr, size, err, n);
	}
	if (!strncmp(spec, "0x", 2) || !strncmp(spec, "0X", 2))
		return sg_fail(err, n, "buffers=%s: a /dev/mem carve-out is 0xADDR:SIZE with SIZE > 0 in bytes or with a "
			       "K/M/G suffix (e.g. 0x70000000:16M), fitting 64 bits", spec);
	switch (buf_read(spec, b, err, n)) {
	case -2:
		return -1;
	case -1: {
		sg_linux_path(cls, sizeof(cls), UDMABUF_CLASS);
		if (sg_linux_list_udmabuf(add_name, &s) == 0)
			return sg_fail(err, n, "no u-dma-buf buffers (%s does not exist or is empty): load the driver, "
				       "e.g. `modprobe u-dma-buf udmabuf0=4194304`, or add a device-tree node "
				       "compatible = \"ikwzm,u-dma-buf\" (docs/boards.md)", cls);
		return sg_fail(err, n, "no u-dma-buf named \"%s\" (found: %s)", spec, list);
	}
	default:
		break;
	}
	if (policy == SG_LINUX_COHERENT && !b->coherent)
		return sg_fail(err, n, "u-dma-buf \"%s\" is not DMA-coherent (dma_coherent = 0) but cache=coherent was "
			       "asked: use cache=sync (or uncached), or give the buffer's node dma-coherent on a "
			       "port that snoops (HPC/ACP)", spec);
	if (policy == SG_LINUX_UNCACHED && b->sync_mode == 0)
		return sg_fail(err, n, "u-dma-buf \"%s\" has sync_mode 0, which keeps the CPU cache on despite O_SYNC: "
			       "echo 1 > " UDMABUF_CLASS "/%s/sync_mode, or use cache=sync", spec, spec);
	/* u-dma-buf's O_SYNC mapping: sync_mode 1/5 strongly ordered, 2/3/6/7 Normal non-cacheable */
	if (policy == SG_LINUX_WRITECOMBINE && b->sync_mode >= 0 && b->sync_mode % 4 < 2)
		return sg_fail(err, n, "u-dma-buf \"%s\" has sync_mode %d, which maps it %s, not write-combine: "
			       "echo 2 > " UDMABUF_CLASS "/%s/sync_mode (3 for dma-coherent's), or use cache=%s", spec,
			       b->sync_mode, b->sync_mode % 4 ? "strongly ordered with O_SYNC" : "cached", spec,
			       b->sync_mode % 4 ? "uncached" : "sync");
	if (policy == SG_LINUX_UNCACHED && b->sync_mode >= 0 && b->sync_mode % 4 >= 2)
		return sg_fail(err, n, "u-dma-buf \"%s\" has sync_mode %d, which maps it write-combine (Normal "
			       "non-cacheable), not strongly ordered: use cache=writecombine, or echo 1 > "
			       UDMABUF_CLASS "/%s/sync_mode", spec, b->sync_mode, spec);
	b->cached = policy == SG_LINUX_CACHED || policy == SG_LINUX_COHERENT;
	if (!b->cached)
		flags |= O_SYNC;
	snprintf(dev, sizeof(dev), "/dev/%s", spec);
	sg_linux_path(path, sizeof(path), dev);
	b->fd = open(path, flags);
	if (b->fd < 0)
		return sg_fail(err, n, "cannot open %s (u-dma-buf \"%s\"): %s; %s", path, spec, strerror(errno),
			       sg_open_fix(errno, false));
	if (sg_map_check(b->fd, path, 0, b->size, err, n) < 0)
		return -1;
	p = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
	if (p == MAP_FAILED)
		return sg_fail(err, n, "cannot mmap %" PRIu64 " bytes of %s: %s", b->size, path, strerror(errno));
	b->map = p;
	if (b->cached && !b->coherent)
		return open_sync_files(b, err, n);
	return 0;
}

/* One attribute write at offset 0, newline-terminated like echo's (the
 * kernel's kstrto* parsers accept it).  lseek + write rather than pwrite so a
 * fake root may make the file a FIFO (lseek fails there, harmlessly). */
static int put(int fd, uint64_t v)
{
	char s[32];
	int len = snprintf(s, sizeof(s), "%" PRIu64 "\n", v);

	(void)lseek(fd, 0, SEEK_SET);
	return write(fd, s, (size_t)len) == len ? 0 : -1;
}

/* The order u-dma-buf needs: range and direction first, then the trigger. */
int sg_linux_sync(struct sg_linux *lx, uint64_t off, uint64_t len, bool for_device)
{
	struct sg_linux_buf *b = &lx->buf;

	if (!b->cached || b->coherent || !len)
		return 0;
	if (b->sync_fd[0] < 0 || off > b->size || len > b->size - off)
		return -1;
	b->n_syncs++;
	if (put(b->sync_fd[SYNC_OFFSET], off) || put(b->sync_fd[SYNC_SIZE], len) ||
	    put(b->sync_fd[SYNC_DIRECTION], for_device ? DMA_TO_DEVICE : DMA_FROM_DEVICE))
		return -1;
	return put(b->sync_fd[for_device ? SYNC_FOR_DEVICE : SYNC_FOR_CPU], 1);
}

void sg_linux_buf_close(struct sg_linux_buf *b)
{
	if (b->map)
		munmap(b->map, b->size);
	if (b->fd >= 0)
		close(b->fd);
	for (int i = 0; i < N_SYNC; i++)
		if (b->sync_fd[i] >= 0)
			close(b->sync_fd[i]);
	buf_reset(b);
}
