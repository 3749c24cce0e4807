/*
 * sgdma_bsp.h - what a bare-metal program needs beyond the Xilinx BSP API to
 * run on the host against the virtual board.
 *
 * On hardware, physical address == CPU pointer.  On the host it is not, so
 * code that touches buffers through pointers uses SGDMA_PHYS_TO_PTR /
 * SGDMA_PTR_TO_PHYS, which are plain casts when SGDMA_VIRTUAL is not defined.
 *
 * The board is created on first use from the environment:
 *   SGDMA_PRESET   preset file (default: the zcu111 preset of the source tree)
 *   SGDMA_OPTIONS  "key=value,key=value" overrides, e.g. "stream.loopback=1"
 *   SGDMA_SEED     seed (default 0)
 */
#ifndef SGDMA_BSP_H
#define SGDMA_BSP_H

#include "xil_types.h"

#ifdef SGDMA_VIRTUAL
#include "vboard.h"
vb_board *sgdma_bsp_board(void);
void *sgdma_bsp_ptr(UINTPTR phys, size_t len);
UINTPTR sgdma_bsp_phys(const void *ptr);
double sgdma_bsp_now_ns(void);
/* Enter the IRQ exception if an enabled line is asserted: every BSP call
 * that lets time pass calls it, the way a CPU takes an interrupt between
 * instructions.  A loop that spins on a variable without a BSP call never
 * lets virtual time pass: put usleep(1) in it, or use Xil_WaitForEvent. */
void sgdma_bsp_take_irqs(void);
/* The interrupt controller's poll, which sgdma_bsp_take_irqs calls
 * (bsp_intc.c registers it on first use; NULL removes it). */
void sgdma_bsp_set_irq_poll(void (*poll)(void));
/* Is DDR at its physical address in this process (pointers = addresses)? */
int sgdma_bsp_identity_mapped(UINTPTR phys, size_t len);
#define SGDMA_PHYS_TO_PTR(phys, len) sgdma_bsp_ptr((UINTPTR)(phys), (len))
#define SGDMA_PTR_TO_PHYS(ptr) sgdma_bsp_phys(ptr)
#else
#define SGDMA_PHYS_TO_PTR(phys, len) ((void *)(UINTPTR)(phys))
#define SGDMA_PTR_TO_PHYS(ptr) ((UINTPTR)(ptr))
#endif

#endif
