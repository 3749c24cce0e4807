/* xil_types.h - the Xilinx standalone BSP's integer types, for host builds
 * against the sgdma virtual board.  Same names and widths as the BSP. */
#ifndef XIL_TYPES_H
#define XIL_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uintptr_t UINTPTR;
typedef intptr_t INTPTR;

#ifndef TRUE
#define TRUE 1U
#define FALSE 0U
#endif
#define XST_SUCCESS 0L
#define XST_FAILURE 1L

#endif
