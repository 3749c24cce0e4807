/* xil_io.h - register and memory access by physical address (Xilinx
 * standalone BSP API) on the sgdma virtual board.
 *
 * An address inside a device window or board DDR goes to the board (timed
 * MMIO; DDR through the address map); any other address is the program's own
 * memory (.data, .bss, stack, heap) and is a plain load or store, as on
 * hardware where Xil_In32 is a volatile dereference. */
#ifndef XIL_IO_H
#define XIL_IO_H

#include "xil_types.h"
#include "xil_printf.h"
#include "xstatus.h"

#ifndef INLINE
#define INLINE inline
#endif

/* Barriers.  The host needs no instruction barrier; a full fence keeps the
 * compiler and the CPU from moving memory accesses across the point the
 * program marked, which is what the ARM instructions guarantee. */
#define dsb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define dmb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define isb() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#define SYNCHRONIZE_IO dmb()
#define INST_SYNC      isb()
#define DATA_SYNC      dsb()

u8 Xil_In8(UINTPTR Addr);
u16 Xil_In16(UINTPTR Addr);
u32 Xil_In32(UINTPTR Addr);
u64 Xil_In64(UINTPTR Addr);
void Xil_Out8(UINTPTR Addr, u8 Value);
void Xil_Out16(UINTPTR Addr, u16 Value);
void Xil_Out32(UINTPTR Addr, u32 Value);
void Xil_Out64(UINTPTR Addr, u64 Value);
/* Write Value and read it back; XST_SUCCESS if the register kept it. */
u32 Xil_SecureOut32(UINTPTR Addr, u32 Value);

static INLINE u16 Xil_EndianSwap16(u16 Data) { return (u16)((Data << 8) | (Data >> 8)); }
static INLINE u32 Xil_EndianSwap32(u32 Data) { return __builtin_bswap32(Data); }

/* The host and every ARM core the BSP runs on are little endian. */
#define Xil_In16LE  Xil_In16
#define Xil_In32LE  Xil_In32
#define Xil_Out16LE Xil_Out16
#define Xil_Out32LE Xil_Out32
#define Xil_Htons   Xil_EndianSwap16
#define Xil_Htonl   Xil_EndianSwap32
#define Xil_Ntohs   Xil_EndianSwap16
#define Xil_Ntohl   Xil_EndianSwap32
static INLINE u16 Xil_In16BE(UINTPTR Addr) { return Xil_EndianSwap16(Xil_In16(Addr)); }
static INLINE u32 Xil_In32BE(UINTPTR Addr) { return Xil_EndianSwap32(Xil_In32(Addr)); }
static INLINE void Xil_Out16BE(UINTPTR Addr, u16 Value) { Xil_Out16(Addr, Xil_EndianSwap16(Value)); }
static INLINE void Xil_Out32BE(UINTPTR Addr, u32 Value) { Xil_Out32(Addr, Xil_EndianSwap32(Value)); }

#endif
