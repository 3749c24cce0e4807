/*
 * platform.h - everything the driver core needs from the outside world, in one
 * small table (think of SQLite's VFS).  The virtual board, Linux UIO and the
 * Xilinx standalone BSP each provide one.
 *
 * Addresses passed to read32/write32 are device (physical) addresses of
 * registers.  Buffer and BD memory is reached through CPU pointers; dev_addr
 * and cpu_ptr translate between the two views of the same memory.
 */
#ifndef SGDMA_PLATFORM_H
#define SGDMA_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#define SG_NO_DEV_ADDR UINT64_MAX

struct sg_platform_ops {
	uint32_t (*read32)(void *ctx, uint64_t reg);
	void (*write32)(void *ctx, uint64_t reg, uint32_t value);
	/* Orders earlier memory writes before later register writes. */
	void (*barrier)(void *ctx);
	/* Write dirty CPU cache lines of [cpu, cpu+len) back to memory. */
	void (*cache_clean)(void *ctx, const void *cpu, size_t len);
	/* Drop CPU cache lines of [cpu, cpu+len) so the next read sees memory. */
	void (*cache_invalidate)(void *ctx, const void *cpu, size_t len);
	/* Device address of a CPU pointer, or SG_NO_DEV_ADDR if the DMA cannot see it. */
	uint64_t (*dev_addr)(void *ctx, const void *cpu);
	/* CPU pointer to len bytes at a device address, or NULL if not mapped. */
	void *(*cpu_ptr)(void *ctx, uint64_t dev, size_t len);
	/* Optional (NULL: the driver core polls).  Block until the interrupt line
	 * of channel dir (0 MM2S, 1 S2MM) fires or timeout_us passes; the line is
	 * re-enabled first.  Returns SG_IRQ_FIRED, SG_IRQ_TIMEOUT, or SG_IRQ_NONE
	 * when this channel has no interrupt here (the core then polls). */
	int (*wait_irq)(void *ctx, unsigned dir, uint32_t timeout_us);
};

#define SG_IRQ_FIRED   0
#define SG_IRQ_TIMEOUT 1
#define SG_IRQ_NONE    2

struct sg_platform {
	const struct sg_platform_ops *ops;
	void *ctx;
};

#endif /* SGDMA_PLATFORM_H */
