/* xstatus.h - status codes of the Xilinx standalone drivers (values as the
 * BSP documents them), for programs built against the sgdma shim.  Like the
 * BSP's, it brings the types and the assertion macros with it: drivers use
 * Xil_AssertNonvoid after including only this file. */
#ifndef XSTATUS_H
#define XSTATUS_H

#include "xil_types.h"
#include "xil_assert.h"

#define XST_SUCCESS                  0L
#define XST_FAILURE                  1L
#define XST_DEVICE_NOT_FOUND         2L
#define XST_DEVICE_BLOCK_NOT_FOUND   3L
#define XST_INVALID_VERSION          4L
#define XST_DEVICE_IS_STARTED        5L
#define XST_DEVICE_IS_STOPPED        6L
#define XST_FIFO_ERROR               7L
#define XST_RESET_ERROR              8L
#define XST_DMA_ERROR                9L
#define XST_NOT_POLLED               10L
#define XST_FIFO_NO_ROOM             11L
#define XST_BUFFER_TOO_SMALL         12L
#define XST_NO_DATA                  13L
#define XST_REGISTER_ERROR           14L
#define XST_INVALID_PARAM            15L
#define XST_NOT_SGDMA                16L
#define XST_LOOPBACK_ERROR           17L
#define XST_NO_CALLBACK              18L
#define XST_NO_FEATURE               19L
#define XST_NOT_INTERRUPT            20L
#define XST_DEVICE_BUSY              21L
#define XST_ERROR_COUNT_MAX          22L
#define XST_IS_STARTED               23L
#define XST_IS_STOPPED               24L
#define XST_DATA_LOST                26L
#define XST_RECV_ERROR               27L
#define XST_SEND_ERROR               28L
#define XST_NOT_ENABLED              29L
#define XST_NO_ACCESS                30L
#define XST_TIMEOUT                  31L
#define XST_GLITCH_ERROR             32L
#define XST_FEATURE_DEPRECATE        33L

#define XST_MEMTEST_FAILED           401L

#define XST_DMA_TRANSFER_ERROR       511L
#define XST_DMA_RESET_REGISTER_ERROR 512L
#define XST_DMA_SG_LIST_EMPTY        513L
#define XST_DMA_SG_IS_STARTED        514L
#define XST_DMA_SG_IS_STOPPED        515L
#define XST_DMA_SG_LIST_FULL         517L
#define XST_DMA_SG_BD_LOCKED         518L
#define XST_DMA_SG_NOTHING_TO_COMMIT 519L
#define XST_DMA_SG_COUNT_EXCEEDED    521L
#define XST_DMA_SG_LIST_EXISTS       522L
#define XST_DMA_SG_NO_LIST           523L
#define XST_DMA_SG_BD_NOT_COMMITTED  524L
#define XST_DMA_SG_NO_DATA           525L
#define XST_DMA_SG_LIST_ERROR        526L
#define XST_DMA_BD_ERROR             527L

#define XST_INTC_FAIL_SELFTEST       1201L
#define XST_INTC_CONNECT_ERROR       1202L

#endif
