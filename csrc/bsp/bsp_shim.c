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
#include "xil_mmu.h"
#include "xtime_l.h"

/* The preset: `sgdma bsp` writes it into bspconfig.h beside xparameters.h;
 * a program built without them takes the compile-time default. */
#if defined(__has_include)
#if __has_include("bspconfig.h")
#include "bspconfig.h"
#endif
#endif
#ifndef SGDMA_PRESET_DEFAULT
#ifdef SGDMA_BSP_PRESET
#define SGDMA_PRESET_DEFAULT SGDMA_BSP_PRESET
#else
#define SGDMA_PRESET_DEFAULT "src/sgdma/hw/presets/zcu111.toml"
#endif
#endif

static vb_board *board;
static void (*irq_poll)(void);

/* The interrupt controller (bsp_intc.c) registers its poll when a program
 * first touches it; the shim calls it wherever time passes, so it knows
 * nothing of the GIC and a program without interrupts links without it. */
void sgdma_bsp_set_irq_poll(void (*poll)(void)) { irq_poll = poll; }

void sgdma_bsp_take_irqs(void)
{
	if (irq_poll)
		irq_poll();
}

static void apply_options(struct vb_config *cfg, const char *opts, const char *from)
{
	char buf[512], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", opts);
	for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq || vb_config_set(cfg, (*eq = 0, kv), strtod(eq + 1, NULL)) < 0) {
			fprintf(stderr, "sgdma bsp: %s: bad option '%s' (want key=value with a board option key)\n", from, kv);
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
	if (vb_config_load(&cfg, preset ? preset : SGDMA_PRESET_DEFAULT, err, sizeof(err)) < 0) {
		fprintf(stderr, "sgdma bsp: %s (set SGDMA_PRESET to a preset file)\n", err);
		exit(2);
	}
#ifdef SGDMA_BSP_OPTIONS
	apply_options(&cfg, SGDMA_BSP_OPTIONS, "bspconfig.h SGDMA_BSP_OPTIONS");
#endif
	if (opts)
		apply_options(&cfg, opts, "SGDMA_OPTIONS");
	/* Bare-metal programs dereference physical addresses: place DDR there
	 * when the host allows (sgdma_bsp_ptr works either way). */
	cfg.map_at_phys = 1;
	board = vb_create(&cfg, seed ? strtoull(seed, NULL, 0) : 0, err, sizeof(err));
	if (!board) {
		fprintf(stderr, "sgdma bsp: %s\n", err);
		exit(2);
	}
	atexit(shutdown_board);
	for (int i = 0; i < vb_region_count(board); i++)
		if (!vb_region_at_phys(board, i))
			fprintf(stderr, "sgdma bsp: warning: ddr.%s is not at its physical address (the host has "
				"something there; build the program as PIE): dereferencing its addresses will fault, "
				"SGDMA_PHYS_TO_PTR() still works\n", vb_region_at(board, i)->name);
	return board;
}

/* NULL when [phys, phys+len) is not board DDR, as a platform's cpu_ptr must. */
void *sgdma_bsp_ptr(UINTPTR phys, size_t len) { return vb_mem_ptr(sgdma_bsp_board(), phys, len); }

UINTPTR sgdma_bsp_phys(const void *ptr) { return (UINTPTR)vb_mem_addr(sgdma_bsp_board(), ptr); }
double sgdma_bsp_now_ns(void) { return vb_now_ps(sgdma_bsp_board()) / 1000.0; }

/* Device windows and board DDR go to the board (timed, and DDR through the
 * address map, so a poll on a BD's status word lets the DMA run); any other
 * address is the program's own memory, a plain access as on hardware.  DDR
 * the host could not map (below vm.mmap_min_addr) is refused by name. */
static bool board_owns(UINTPTR addr)
{
	vb_board *b = sgdma_bsp_board();
	const struct vb_config *cfg;

	if (vb_bus_claims(b, addr) || vb_mem_ptr(b, addr, 4))
		return true;
	cfg = vb_get_config(b);
	for (unsigned i = 0; i < cfg->n_ddr; i++) {
		if (addr >= cfg->ddr[i].base && addr - cfg->ddr[i].base < cfg->ddr[i].size) {
			fprintf(stderr, "sgdma bsp: access to 0x%llx: ddr.%s starts at 0x%llx but the host maps nothing "
				"below vm.mmap_min_addr; put buffers and BDs higher in that region\n",
				(unsigned long long)addr, cfg->ddr[i].name, (unsigned long long)cfg->ddr[i].base);
			exit(3);
		}
	}
	return false;
}

u32 Xil_In32(UINTPTR addr)
{
	u32 v = board_owns(addr) ? vb_read32(sgdma_bsp_board(), addr) : *(volatile u32 *)addr;

	sgdma_bsp_take_irqs();
	return v;
}

void Xil_Out32(UINTPTR addr, u32 value)
{
	if (board_owns(addr))
		vb_write32(sgdma_bsp_board(), addr, value);
	else
		*(volatile u32 *)addr = value;
	sgdma_bsp_take_irqs();
}

u32 Xil_SecureOut32(UINTPTR addr, u32 value)
{
	Xil_Out32(addr, value);
	return Xil_In32(addr) == value ? XST_SUCCESS : XST_FAILURE;
}

u64 Xil_In64(UINTPTR addr) { return (u64)Xil_In32(addr) | (u64)Xil_In32(addr + 4) << 32; }

void Xil_Out64(UINTPTR addr, u64 value)
{
	Xil_Out32(addr, (u32)value);
	Xil_Out32(addr + 4, (u32)(value >> 32));
}

/* Narrow accesses to a register are widened the way a 32-bit AXI4-Lite
 * slave sees them; to memory they are what they say. */
u16 Xil_In16(UINTPTR addr)
{
	if (!board_owns(addr))
		return *(volatile u16 *)addr;
	return (u16)(Xil_In32(addr & ~(UINTPTR)3) >> (8 * (addr & 2)));
}

u8 Xil_In8(UINTPTR addr)
{
	if (!board_owns(addr))
		return *(volatile u8 *)addr;
	return (u8)(Xil_In32(addr & ~(UINTPTR)3) >> (8 * (addr & 3)));
}

void Xil_Out16(UINTPTR addr, u16 value)
{
	UINTPTR w = addr & ~(UINTPTR)3;
	unsigned sh = 8 * (addr & 2);

	if (!board_owns(addr))
		*(volatile u16 *)addr = value;
	else
		Xil_Out32(w, (Xil_In32(w) & ~(0xFFFFu << sh)) | ((u32)value << sh));
}

void Xil_Out8(UINTPTR addr, u8 value)
{
	UINTPTR w = addr & ~(UINTPTR)3;
	unsigned sh = 8 * (addr & 3);

	if (!board_owns(addr))
		*(volatile u8 *)addr = value;
	else
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

void usleep(ULONG useconds)
{
	vb_advance_ps(sgdma_bsp_board(), (uint64_t)useconds * 1000000ull);
	sgdma_bsp_take_irqs();
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

void sleep(u32 seconds) { usleep((ULONG)seconds * 1000000ul); }

int sgdma_bsp_identity_mapped(UINTPTR phys, size_t len)
{
	return vb_mem_ptr(sgdma_bsp_board(), phys, len) == (void *)phys;
}

/* No MMU on the virtual board: attributes change nothing the DMA sees. */
#if defined(__aarch64__)
void Xil_SetTlbAttributes(UINTPTR addr, u64 attrib) { (void)addr; (void)attrib; }
#else
void Xil_SetTlbAttributes(INTPTR addr, u32 attrib) { (void)addr; (void)attrib; }
#endif
void Xil_EnableMMU(void) {}
void Xil_DisableMMU(void) {}
void *Xil_MemMap(UINTPTR phys, size_t size, u32 flags) { (void)size; (void)flags; return (void *)phys; }
