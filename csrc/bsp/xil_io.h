/* xil_io.h - register and memory access by physical address (Xilinx
 * standalone BSP API), routed to the sgdma virtual board on the host. */
#ifndef XIL_IO_H
#define XIL_IO_H

#include "xil_types.h"

u8 Xil_In8(UINTPTR addr);
u16 Xil_In16(UINTPTR addr);
u32 Xil_In32(UINTPTR addr);
u64 Xil_In64(UINTPTR addr);
void Xil_Out8(UINTPTR addr, u8 value);
void Xil_Out16(UINTPTR addr, u16 value);
void Xil_Out32(UINTPTR addr, u32 value);
void Xil_Out64(UINTPTR addr, u64 value);

#endif
