/* platform_xil.h - the driver core's platform ops over the Xilinx standalone
 * BSP (csrc/platform/xil_standalone.c).  Use with struct sg_platform{ &sg_xil_ops, NULL }. */
#ifndef SGDMA_PLATFORM_XIL_H
#define SGDMA_PLATFORM_XIL_H

#include "sgdma/platform.h"

extern const struct sg_platform_ops sg_xil_ops;

#endif
