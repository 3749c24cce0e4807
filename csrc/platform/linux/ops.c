/*
 * ops.c - struct sg_platform_ops over a UIO register window and a DMA
 * buffer, plus the channel locks.  Register accesses go through one
 * accessor pair (reg_read/reg_write): the mmap, or the hook when set.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sgdma/platform_linux.h"
#include "sysfs.h"

void sg_linux_init(struct sg_linux *lx)
{
	memset(lx, 0, sizeof(*lx));
	lx->regs.fd = -1;
	lx->regs.index = -1;
	lx->irq_fd[0] = lx->irq_fd[1] = -1;
	lx->irq_dev[0].fd = lx->irq_dev[1].fd = -1;
	lx->buf.fd = -1;
	for (int i = 0; i < 5; i++)
		lx->buf.sync_fd[i] = -1;
	lx->lock_fd = -1;
}

void sg_linux_close(struct sg_linux *lx)
{
	sg_linux_uio_close(&lx->regs);
	sg_linux_uio_close(&lx->irq_dev[0]);
	sg_linux_uio_close(&lx->irq_dev[1]);
	sg_linux_buf_close(&lx->buf);
	if (lx->lock_fd >= 0)
		close(lx->lock_fd);
	lx->lock_fd = -1;
	lx->irq_fd[0] = lx->irq_fd[1] = -1;
}

/* ---- the register accessor -------------------------------------------------- */

static volatile uint32_t *reg_ptr(struct sg_linux *lx, uint64_t addr)
{
	const struct sg_linux_uio *u = &lx->regs;

	if (!u->map || addr < u->addr || addr - u->addr > u->size - 4u)
		return NULL;
	return (volatile uint32_t *)(u->map + u->offset + (addr - u->addr));
}

/* Outside the window reads as all ones, like a bus that decodes nothing;
 * writes are dropped.  The driver core never goes there (base and span are
 * checked when the window opens). */
static uint32_t reg_read(void *ctx, uint64_t addr)
{
	struct sg_linux *lx = ctx;
	volatile uint32_t *p;

	if (lx->hook.read32)
		return lx->hook.read32(lx->hook.ctx, addr);
	p = reg_ptr(lx, addr);
	return p ? *p : 0xFFFFFFFFu;
}

static void reg_write(void *ctx, uint64_t addr, uint32_t value)
{
	struct sg_linux *lx = ctx;
	volatile uint32_t *p;

	if (lx->hook.write32) {
		lx->hook.write32(lx->hook.ctx, addr, value);
		return;
	}
	p = reg_ptr(lx, addr);
	if (p)
		*p = value;
}

/* ---- memory ------------------------------------------------------------------- */

static void barrier(void *ctx)
{
	(void)ctx;
#if defined(__aarch64__)
	__asm__ volatile("dsb sy" ::: "memory");
#elif defined(__arm__)
	__asm__ volatile("dsb" ::: "memory");
#else
	__sync_synchronize();
#endif
}

static bool in_buf(const struct sg_linux_buf *b, const void *cpu, size_t len)
{
	const uint8_t *p = cpu;

	return b->map && p >= b->map && (uint64_t)(p - b->map) <= b->size && len <= b->size - (uint64_t)(p - b->map);
}

static void clean(void *ctx, const void *cpu, size_t len)
{
	struct sg_linux *lx = ctx;

	if (in_buf(&lx->buf, cpu, len))
		sg_linux_sync(lx, (uint64_t)((const uint8_t *)cpu - lx->buf.map), len, true);
}

static void invalidate(void *ctx, const void *cpu, size_t len)
{
	struct sg_linux *lx = ctx;

	if (in_buf(&lx->buf, cpu, len))
		sg_linux_sync(lx, (uint64_t)((const uint8_t *)cpu - lx->buf.map), len, false);
}

static uint64_t dev_addr(void *ctx, const void *cpu)
{
	struct sg_linux *lx = ctx;

	return in_buf(&lx->buf, cpu, 1) ? lx->buf.phys + (uint64_t)((const uint8_t *)cpu - lx->buf.map)
					: SG_NO_DEV_ADDR;
}

static void *cpu_ptr(void *ctx, uint64_t dev, size_t len)
{
	struct sg_linux *lx = ctx;
	const struct sg_linux_buf *b = &lx->buf;

	if (!b->map || dev < b->phys || dev - b->phys > b->size || len > b->size - (dev - b->phys))
		return NULL;
	return b->map + (dev - b->phys);
}

/* ---- interrupts ---------------------------------------------------------------- */

/* UIO: write(1) unmasks, poll() bounds the wait, read() returns the count. */
static int wait_irq(void *ctx, unsigned dir, uint32_t timeout_us)
{
	struct sg_linux *lx = ctx;
	int fd = lx->irq_fd[dir & 1u];
	uint32_t one = 1, count;
	struct pollfd pfd;
	int r;

	if (fd < 0)
		return SG_IRQ_NONE;
	if (write(fd, &one, sizeof(one)) != (ssize_t)sizeof(one) && errno != EIO)
		return SG_IRQ_NONE;     /* EIO: the UIO driver has no irqcontrol; the line stays enabled */
	pfd.fd = fd;
	pfd.events = POLLIN;
	do
		r = poll(&pfd, 1, (int)((timeout_us + 999u) / 1000u));
	while (r < 0 && errno == EINTR);
	if (r <= 0 || read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
		return SG_IRQ_TIMEOUT;
	lx->irq_count[dir & 1u] = count;
	lx->irq_waits[dir & 1u]++;
	return SG_IRQ_FIRED;
}

/* ---- channel ownership ---------------------------------------------------------- */

/* One lock file per DMA under /run/lock; byte dir is channel dir's lock.  OFD
 * locks belong to the open file, so a second open in the same process is
 * refused as well, and the kernel drops them when the process dies. */
int sg_linux_lock_channel(struct sg_linux *lx, unsigned dir, char *err, size_t n)
{
	static const char *const dirs[] = { "/run/lock", "/var/lock", "/tmp" };
	char rel[SG_LINUX_PATH_LEN];
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = dir & 1u, .l_len = 1 };

	for (unsigned i = 0; lx->lock_fd < 0 && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(rel, sizeof(rel), "%s/sgdma-%s.lock", dirs[i], lx->regs.name);
		sg_linux_path(lx->lock_path, sizeof(lx->lock_path), rel);
		lx->lock_fd = open(lx->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	}
	if (lx->lock_fd < 0)
		return sg_fail(err, n, "cannot create a lock file for DMA \"%s\" in /run/lock, /var/lock or /tmp: %s",
			       lx->regs.name, strerror(errno));
	if (fcntl(lx->lock_fd, F_OFD_SETLK, &fl) < 0) {
		if (errno == EAGAIN || errno == EACCES)
			return sg_fail(err, n, "the %s channel of DMA \"%s\" is already open (another process, or another "
				       "board object in this one; lock %s): close it there first, two owners of one "
				       "channel corrupt each other's rings", dir ? "S2MM" : "MM2S", lx->regs.name,
				       lx->lock_path);
		return sg_fail(err, n, "cannot lock %s: %s", lx->lock_path, strerror(errno));
	}
	return 0;
}

const struct sg_platform_ops sg_linux_ops = {
	.read32 = reg_read,
	.write32 = reg_write,
	.barrier = barrier,
	.cache_clean = clean,
	.cache_invalidate = invalidate,
	.dev_addr = dev_addr,
	.cpu_ptr = cpu_ptr,
	.wait_irq = wait_irq,
};
