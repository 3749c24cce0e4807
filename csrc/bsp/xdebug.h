/* xdebug.h - the drivers' debug prints.  Silent unless the program is built
 * with -DDEBUG (and without NDEBUG); then messages of the types in
 * xdbg_current_types go to the console. */
#ifndef XDEBUG
#define XDEBUG

#include <stdio.h>

#include "xil_printf.h"

#define XDBG_DEBUG_ERROR    0x00000001U
#define XDBG_DEBUG_GENERAL  0x00000002U
#define XDBG_DEBUG_ALL      0xFFFFFFFFU
#define XDBG_DEBUG_FIFO_REG 0x00000100U
#define XDBG_DEBUG_FIFO_RX  0x00000101U
#define XDBG_DEBUG_FIFO_TX  0x00000102U
#define XDBG_DEBUG_FIFO_ALL 0x0000010FU

#if defined(DEBUG) && !defined(NDEBUG)
#ifndef xdbg_current_types
#define xdbg_current_types (XDBG_DEBUG_GENERAL | XDBG_DEBUG_ERROR | XDBG_DEBUG_FIFO_REG)
#endif
#define xdbg_stmnt(x) x
#define xdbg_printf(type, ...) (((type) & xdbg_current_types) ? printf(__VA_ARGS__) : 0)
#define xdbg_exception_printf(type, ...) (((type) & xdbg_current_types) ? (xil_printf(__VA_ARGS__), 0) : 0)
#else
#define xdbg_stmnt(x)
#define xdbg_printf(...)
#define xdbg_exception_printf(...)
#endif

#endif
