/*
 * xil_standalone.c - platform ops over the Xilinx standalone BSP (bare metal
 * on Cortex-R5 / A53 / A9).  Physical address == CPU pointer there; on the
 * host, built with -DSGDMA_VIRTUAL against csrc/bsp, the same file runs on the
 * virtual board.  Freestanding: BSP calls only.
 */
#include "sgdma/platform_xil.h"

#include "sgdma_bsp.h"
#include "xil_cache.h"
#include "xil_io.h"

static uint32_t xil_read32(void *ctx, uint64_t reg)
{
	(void)ctx;
	return Xil_In32((UINTPTR)reg);
}

static void xil_write32(void *ctx, uint64_t reg, uint32_t value)
{
	(void)ctx;
	Xil_Out32((UINTPTR)reg, value);
}

static void xil_barrier(void *ctx)
{
	(void)ctx;
#if defined(__arm__) || defined(__aarch64__)
	__asm__ volatile("dsb sy" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

static void xil_clean(void *ctx, const void *cpu, size_t len)
{
	(void)ctx;
	Xil_DCacheFlushRange((INTPTR)SGDMA_PTR_TO_PHYS(cpu), (u32)len);
}

static void xil_invalidate(void *ctx, const void *cpu, size_t len)
{
	(void)ctx;
	Xil_DCacheInvalidateRange((INTPTR)SGDMA_PTR_TO_PHYS(cpu), (u32)len);
}

static uint64_t xil_dev_addr(void *ctx, const void *cpu)
{
	(void)ctx;
	return (uint64_t)SGDMA_PTR_TO_PHYS(cpu);
}

static void *xil_cpu_ptr(void *ctx, uint64_t dev, size_t len)
{
	(void)ctx;
	return SGDMA_PHYS_TO_PTR((UINTPTR)dev, len);
}

const struct sg_platform_ops sg_xil_ops = {
	.read32 = xil_read32,
	.write32 = xil_write32,
	.barrier = xil_barrier,
	.cache_clean = xil_clean,
	.cache_invalidate = xil_invalidate,
	.dev_addr = xil_dev_addr,
	.cpu_ptr = xil_cpu_ptr,
};
