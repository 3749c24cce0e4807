/* xil_mmu.h - memory attributes of the standalone BSP.  The virtual board has
 * no MMU: the call records nothing, and the DMA sees memory as the cache
 * maintenance calls left it (xil_cache.h). */
#ifndef XIL_MMU_H
#define XIL_MMU_H

#include "xil_types.h"

#if defined(__aarch64__)
/* ARMv8 block attributes (upper bits: execute-never, lower: index and access). */
#define NORM_NONCACHE  0x401U
#define STRONG_ORDERED 0x409U
#define DEVICE_MEMORY  0x40DU
#define RESERVED       0x0U
#define NORM_WT_CACHE  0x711U
#define NORM_WB_CACHE  0x705U
#define INNER_SHAREABLE (0x3U << 8)
#define OUTER_SHAREABLE (0x2U << 8)
#define NON_SHAREABLE   (~(0x3U << 8))
void Xil_SetTlbAttributes(UINTPTR Addr, u64 attrib);
#else
/* ARMv7 short-descriptor section attributes. */
#define NORM_NONCACHE  0x11DE2U
#define STRONG_ORDERED 0xC02U
#define DEVICE_MEMORY  0xC06U
#define NORM_WT_CACHE  0x16DEAU
#define NORM_WB_CACHE  0x15DE6U
#define RESERVED       0x0U
#define SHAREABLE      (0x1U << 16)
#define NON_SHAREABLE  (~(0x1U << 16))
void Xil_SetTlbAttributes(INTPTR Addr, u32 attrib);
#endif
void Xil_EnableMMU(void);
void Xil_DisableMMU(void);
/* Identity: physical addresses are the program's addresses here. */
void *Xil_MemMap(UINTPTR PhysAddr, size_t size, u32 flags);

#endif
