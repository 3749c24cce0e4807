/* xil_cache.h - data-cache maintenance (Xilinx standalone BSP API), charged
 * per line on the sgdma virtual board. */
#ifndef XIL_CACHE_H
#define XIL_CACHE_H

#include "xil_types.h"

void Xil_DCacheFlushRange(INTPTR addr, u32 len);
void Xil_DCacheInvalidateRange(INTPTR addr, u32 len);
void Xil_DCacheFlushLine(INTPTR addr);
void Xil_DCacheInvalidateLine(INTPTR addr);
void Xil_DCacheFlush(void);
void Xil_DCacheInvalidate(void);
void Xil_DCacheEnable(void);
void Xil_DCacheDisable(void);
void Xil_ICacheEnable(void);
void Xil_ICacheDisable(void);
void Xil_ICacheInvalidate(void);
void Xil_ICacheInvalidateRange(INTPTR addr, u32 len);

#endif
