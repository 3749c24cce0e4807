/* xil_types.h - the Xilinx standalone BSP's integer types and helper macros,
 * for host builds against the sgdma virtual board.  Names and widths follow
 * the BSP's documented API; written for sgdma. */
#ifndef XIL_TYPES_H
#define XIL_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* As the BSP's, this header brings the generated board files (`sgdma bsp`
 * writes them); a program built without them (examples/baremetal) still
 * compiles. */
#if defined(__has_include)
#if __has_include("bspconfig.h")
#include "bspconfig.h"
#endif
#if __has_include("xparameters.h")
#include "xparameters.h"
#endif
#endif

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef char char8;
typedef int8_t sint8;
typedef int16_t sint16;
typedef int32_t sint32;
typedef int64_t sint64;
typedef float float32;
typedef double float64;
typedef long LONG;
typedef unsigned long ULONG;
typedef uintptr_t UINTPTR;
typedef intptr_t INTPTR;
typedef int boolean;

/* Pre-2015 names still found in older programs. */
typedef uint8_t Xuint8;
typedef int8_t Xint8;
typedef uint16_t Xuint16;
typedef int16_t Xint16;
typedef uint32_t Xuint32;
typedef int32_t Xint32;
typedef float Xfloat32;
typedef double Xfloat64;
typedef uint32_t Xboolean;

typedef void (*XInterruptHandler)(void *InstancePtr);
typedef void (*XExceptionHandler)(void *InstancePtr);

#ifndef TRUE
#define TRUE 1U
#endif
#ifndef FALSE
#define FALSE 0U
#endif
#ifndef NULL
#define NULL ((void *)0)
#endif

/* Drivers set IsReady to this after a successful CfgInitialize. */
#define XIL_COMPONENT_IS_READY   0x11111111U
#define XIL_COMPONENT_IS_STARTED 0x22222222U

#define UPPER_32_BITS(n) ((u32)(((u64)(n)) >> 32))
#define LOWER_32_BITS(n) ((u32)(n))
/* Shift by 32 written so a 32-bit UINTPTR does not make it undefined. */
#if UINTPTR_MAX > 0xFFFFFFFFu
#define LEFT_SHIFT_BY_32_BITS(n) ((u64)(n) << 32)
#else
#define LEFT_SHIFT_BY_32_BITS(n) 0U
#endif

#endif
