/*
 * platform_linux.h - the driver core's platform ops in Linux user space:
 * registers through a UIO device (or /dev/mem), DMA memory from a u-dma-buf
 * buffer (or a /dev/mem reserved-memory carve-out), interrupts by blocking
 * read() on the UIO device.  Part of libsgdma (csrc/platform/linux/).
 *
 * Every path is prefixed with $SGDMA_SYSROOT when it is set, so a fake system
 * root (sysfs as files, /dev/uioN as a Unix socket) can stand in for a board.
 * Every failure writes one line to err naming the file, the rule and the fix.
 */
#ifndef SGDMA_PLATFORM_LINUX_H
#define SGDMA_PLATFORM_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sgdma/pg021.h"
#include "sgdma/platform.h"

#define SG_LINUX_NAME_LEN 64
#define SG_LINUX_PATH_LEN 512

/* A register window must cover both channels' registers. */
#define SG_LINUX_DMA_SPAN PG021_REG_SPAN

/* One UIO device: its first map (the register window) and its interrupt. */
struct sg_linux_uio {
	char name[SG_LINUX_NAME_LEN];
	int index;                  /* N of /dev/uioN, -1 for /dev/mem */
	int fd;                     /* -1 when closed */
	uint64_t addr, size;        /* maps/map0/addr, size */
	uint64_t offset;            /* maps/map0/offset: registers start this far into the mapping */
	volatile uint8_t *map;      /* mmap of the page(s); registers at map + offset */
	size_t map_len;
	uint32_t irq_count;         /* last count read() returned */
};

/* A DMA buffer: u-dma-buf device or /dev/mem carve-out. */
struct sg_linux_buf {
	char name[SG_LINUX_NAME_LEN];
	int fd;
	uint64_t phys, size;
	uint8_t *map;
	bool cached;                /* mapped cacheable: syncs needed unless coherent */
	bool coherent;              /* dma_coherent = 1: the DMA snoops the CPU caches */
	int sync_mode;              /* -1 when the file is absent (/dev/mem) */
	int sync_fd[5];             /* sync_offset, sync_size, sync_direction, sync_for_cpu, sync_for_device */
	unsigned n_syncs;           /* syncs issued (for tests and counters) */
};

/* Replaces the register mmap: every register access goes through here when
 * set (a simulation serving the window, or a tracer). */
struct sg_linux_reg_hook {
	uint32_t (*read32)(void *ctx, uint64_t addr);
	void (*write32)(void *ctx, uint64_t addr, uint32_t value);
	void *ctx;
};

struct sg_linux {
	struct sg_linux_uio regs;   /* the DMA's register window */
	int irq_fd[2];              /* per channel (MM2S, S2MM): a UIO fd, or -1 (poll) */
	struct sg_linux_uio irq_dev[2];  /* UIO devices opened only for an interrupt */
	uint32_t irq_count[2];      /* the count the last interrupt read() returned */
	uint32_t irq_waits[2];      /* interrupt waits that ended in an interrupt */
	struct sg_linux_buf buf;
	struct sg_linux_reg_hook hook;
	int lock_fd;                /* channel locks (OFD byte-range locks) */
	char lock_path[SG_LINUX_PATH_LEN];
};

/* The buffers' mapping: cached + syncs; strongly ordered (u-dma-buf sync_mode 1/5,
 * a /dev/mem carve-out); coherent (dma_coherent); write-combine, Normal
 * non-cacheable (u-dma-buf sync_mode 2/3/6/7: pgprot_writecombine/dmacoherent). */
enum sg_linux_policy { SG_LINUX_CACHED = 0, SG_LINUX_UNCACHED = 1, SG_LINUX_COHERENT = 2, SG_LINUX_WRITECOMBINE = 3 };

/* SGDMA_SYSROOT + path. */
void sg_linux_path(char *out, size_t n, const char *path);

void sg_linux_init(struct sg_linux *lx);
void sg_linux_close(struct sg_linux *lx);

/* UIO device by name (/sys/class/uio/uioN/name): sysfs facts only, no open. */
int sg_linux_uio_find(const char *name, struct sg_linux_uio *u, char *err, size_t n);
/* Open /dev/uioN (read/write) and, if map, mmap map 0. */
int sg_linux_uio_open(struct sg_linux_uio *u, bool map, char *err, size_t n);
void sg_linux_uio_close(struct sg_linux_uio *u);
/* Registers at a physical address through /dev/mem (O_SYNC, uncached). */
int sg_linux_devmem_regs(uint64_t addr, uint64_t size, struct sg_linux_uio *u, char *err, size_t n);

/* The DMA's registers: a UIO name, or a physical address ("0xA0000000") for
 * /dev/mem.  Checks the window covers SG_LINUX_DMA_SPAN. */
int sg_linux_open_dma(struct sg_linux *lx, const char *spec, char *err, size_t n);
/* Interrupt of channel dir from UIO device name (may be the DMA's own). */
int sg_linux_open_irq(struct sg_linux *lx, unsigned dir, const char *name, char *err, size_t n);

/* u-dma-buf by name, or "0xADDR:SIZE" for a /dev/mem carve-out. */
int sg_linux_open_buffer(struct sg_linux *lx, const char *spec, enum sg_linux_policy policy,
			 char *err, size_t n);
/* Cache maintenance of [off, off+len) of the buffer: for_device = clean
 * before the DMA reads, else invalidate before the CPU reads DMA data. */
int sg_linux_sync(struct sg_linux *lx, uint64_t off, uint64_t len, bool for_device);
void sg_linux_buf_close(struct sg_linux_buf *b);

/* Refuse a second owner of channel dir of this DMA (any process). */
int sg_linux_lock_channel(struct sg_linux *lx, unsigned dir, char *err, size_t n);

/* Enumerations for `sgdma info`: call fn once per device; returns the count. */
int sg_linux_list_uio(void (*fn)(void *arg, const struct sg_linux_uio *u), void *arg);
int sg_linux_list_udmabuf(void (*fn)(void *arg, const struct sg_linux_buf *b), void *arg);

/* The ops; ctx = struct sg_linux *. */
extern const struct sg_platform_ops sg_linux_ops;

#endif /* SGDMA_PLATFORM_LINUX_H */
