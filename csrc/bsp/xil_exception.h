/* xil_exception.h - the BSP's exception table (Cortex-A9/A53/R5 style).  On
 * the virtual board only the IRQ exception is ever taken: the shim enters it
 * between BSP calls when an enabled interrupt line is asserted. */
#ifndef XIL_EXCEPTION_H
#define XIL_EXCEPTION_H

#include "xil_types.h"

#define XIL_EXCEPTION_FIQ  0x40U
#define XIL_EXCEPTION_IRQ  0x80U
#define XIL_EXCEPTION_ALL  (XIL_EXCEPTION_FIQ | XIL_EXCEPTION_IRQ)

#define XIL_EXCEPTION_ID_FIRST              0U
#if defined(__aarch64__)
#define XIL_EXCEPTION_ID_SYNC_INT           1U
#define XIL_EXCEPTION_ID_IRQ_INT            2U
#define XIL_EXCEPTION_ID_FIQ_INT            3U
#define XIL_EXCEPTION_ID_SERROR_ABORT_INT   4U
#define XIL_EXCEPTION_ID_LAST               5U
#else
#define XIL_EXCEPTION_ID_RESET              0U
#define XIL_EXCEPTION_ID_UNDEFINED_INT      1U
#define XIL_EXCEPTION_ID_SWI_INT            2U
#define XIL_EXCEPTION_ID_PREFETCH_ABORT_INT 3U
#define XIL_EXCEPTION_ID_DATA_ABORT_INT     4U
#define XIL_EXCEPTION_ID_IRQ_INT            5U
#define XIL_EXCEPTION_ID_FIQ_INT            6U
#define XIL_EXCEPTION_ID_LAST               6U
#endif
#define XIL_EXCEPTION_ID_INT                XIL_EXCEPTION_ID_IRQ_INT

typedef void (*Xil_ExceptionHandler)(void *data);
typedef void (*Xil_InterruptHandler)(void *data);

typedef struct {
	Xil_ExceptionHandler Handler;
	void *Data;
} XExc_VectorTableEntry;

void Xil_ExceptionInit(void);
void Xil_ExceptionRegisterHandler(u32 Exception_id, Xil_ExceptionHandler Handler, void *Data);
void Xil_ExceptionRemoveHandler(u32 Exception_id);
void Xil_GetExceptionRegisterHandler(u32 Exception_id, Xil_ExceptionHandler *Handler, void **Data);
void Xil_ExceptionEnableMask(u32 Mask);
void Xil_ExceptionDisableMask(u32 Mask);
#define Xil_ExceptionEnable() Xil_ExceptionEnableMask(XIL_EXCEPTION_IRQ)
#define Xil_ExceptionDisable() Xil_ExceptionDisableMask(XIL_EXCEPTION_ALL)

#endif
