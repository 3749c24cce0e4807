/*
 * bsp_shim.c - the Xilinx standalone BSP calls drivers use, implemented on the
 * sgdma virtual board, so a bare-metal program links and runs on the host.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgdma_bsp.h"
#include "sleep.h"
#include "xil_cache.h"
#include "xil_io.h"
#include "xtime_l.h"

#ifndef SGDMA_PRESET_DEFAULT
#define SGDMA_PRESET_DEFAULT "src/sgdma/hw/presets/zcu111.toml"
#endif

/* `sgdma bsp` generates sgdma_bsp_config.c with the board's preset; without it
 * (a weak reference left undefined: address 0) the compile-time default applies. */
extern const char *const sgdma_bsp_preset __attribute__((weak));

static vb_board *board;

static void apply_options(struct vb_config *cfg, const char *opts)
{
	char buf[512], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", opts);
	for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq || vb_config_set(cfg, (*eq = 0, kv), strtod(eq + 1, NULL)) < 0) {
			fprintf(stderr, "sgdma bsp: SGDMA_OPTIONS: bad option '%s' (want key=value)\n", kv);
			exit(2);
		}
	}
}

static void shutdown_board(void)
{
	vb_destroy(board);
	board = NULL;
}

vb_board *sgdma_bsp_board(void)
{
	struct vb_config cfg;
	char err[512];
	const char *preset = getenv("SGDMA_PRESET"), *opts = getenv("SGDMA_OPTIONS"), *seed = getenv("SGDMA_SEED");

	if (board)
		return board;
	vb_config_defaults(&cfg);
	if (vb_config_load(&cfg, preset ? preset : &sgdma_bsp_preset ? sgdma_bsp_preset : SGDMA_PRESET_DEFAULT, err, sizeof(err)) < 0) {
		fprintf(stderr, "sgdma bsp: %s (set SGDMA_PRESET to a preset file)\n", err);
		exit(2);
	}
	if (opts)
		apply_options(&cfg, opts);
	/* Bare-metal programs dereference physical addresses: place DDR there
	 * when the host allows (sgdma_bsp_ptr works either way). */
	cfg.map_at_phys = 1;
	board = vb_create(&cfg, seed ? strtoull(seed, NULL, 0) : 0, err, sizeof(err));
	if (!board) {
		fprintf(stderr, "sgdma bsp: %s\n", err);
		exit(2);
	}
	atexit(shutdown_board);
	return board;
}

/* NULL when [phys, phys+len) is not board DDR, as a platform's cpu_ptr must. */
void *sgdma_bsp_ptr(UINTPTR phys, size_t len) { return vb_mem_ptr(sgdma_bsp_board(), phys, len); }

UINTPTR sgdma_bsp_phys(const void *ptr) { return (UINTPTR)vb_mem_addr(sgdma_bsp_board(), ptr); }
double sgdma_bsp_now_ns(void) { return vb_now_ps(sgdma_bsp_board()) / 1000.0; }

/* Register windows go through MMIO (timed); DDR is plain memory reached
 * through the board's address map.  Narrow accesses to registers are widened
 * the way a 32-bit AXI4-Lite slave sees them. */
u32 Xil_In32(UINTPTR addr)
{
	u32 v = vb_read32(sgdma_bsp_board(), addr);

	sgdma_bsp_take_irqs();
	return v;
}

void Xil_Out32(UINTPTR addr, u32 value)
{
	vb_write32(sgdma_bsp_board(), addr, value);
	sgdma_bsp_take_irqs();
}

u64 Xil_In64(UINTPTR addr) { return (u64)Xil_In32(addr) | (u64)Xil_In32(addr + 4) << 32; }

void Xil_Out64(UINTPTR addr, u64 value)
{
	Xil_Out32(addr, (u32)value);
	Xil_Out32(addr + 4, (u32)(value >> 32));
}

u16 Xil_In16(UINTPTR addr) { return (u16)(Xil_In32(addr & ~(UINTPTR)3) >> (8 * (addr & 2))); }
u8 Xil_In8(UINTPTR addr) { return (u8)(Xil_In32(addr & ~(UINTPTR)3) >> (8 * (addr & 3))); }

void Xil_Out16(UINTPTR addr, u16 value)
{
	UINTPTR w = addr & ~(UINTPTR)3;
	unsigned sh = 8 * (addr & 2);
	Xil_Out32(w, (Xil_In32(w) & ~(0xFFFFu << sh)) | ((u32)value << sh));
}

void Xil_Out8(UINTPTR addr, u8 value)
{
	UINTPTR w = addr & ~(UINTPTR)3;
	unsigned sh = 8 * (addr & 3);
	Xil_Out32(w, (Xil_In32(w) & ~(0xFFu << sh)) | ((u32)value << sh));
}

void Xil_DCacheFlushRange(INTPTR addr, u32 len) { vb_cache_clean(sgdma_bsp_board(), (uint64_t)addr, len); }
void Xil_DCacheInvalidateRange(INTPTR addr, u32 len) { vb_cache_invalidate(sgdma_bsp_board(), (uint64_t)addr, len); }
void Xil_DCacheFlushLine(INTPTR addr) { Xil_DCacheFlushRange(addr, 1); }
void Xil_DCacheInvalidateLine(INTPTR addr) { Xil_DCacheInvalidateRange(addr, 1); }
void Xil_ICacheInvalidate(void) {}
void Xil_ICacheInvalidateRange(INTPTR addr, u32 len) { (void)addr; (void)len; }
void Xil_DCacheFlush(void) { (void)sgdma_bsp_board(); }
void Xil_DCacheInvalidate(void) { (void)sgdma_bsp_board(); }
void Xil_DCacheEnable(void) {}
void Xil_DCacheDisable(void) {}
void Xil_ICacheEnable(void) {}
void Xil_ICacheDisable(void) {}

int usleep(unsigned long useconds)
{
	vb_advance_ps(sgdma_bsp_board(), (uint64_t)useconds * 1000000ull);
	sgdma_bsp_take_irqs();
	return 0;
}

/* The global timer counts virtual time; a program's own time base if it
 * calls XTime_SetTime. */
static uint64_t xtime_offset_ps;

void XTime_GetTime(XTime *t)
{
	uint64_t ps = vb_now_ps(sgdma_bsp_board()) - xtime_offset_ps;

	*t = (XTime)(ps / (1000000000000ull / COUNTS_PER_SECOND));
	sgdma_bsp_take_irqs();
}

void XTime_SetTime(XTime t)
{
	xtime_offset_ps = vb_now_ps(sgdma_bsp_board()) - (uint64_t)t * (1000000000000ull / COUNTS_PER_SECOND);
}

unsigned sleep(unsigned int seconds)
{
	usleep((unsigned long)seconds * 1000000ul);
	return 0;
}

int sgdma_bsp_identity_mapped(UINTPTR phys, size_t len)
{
	return vb_mem_ptr(sgdma_bsp_board(), phys, len) == (void *)phys;
}
