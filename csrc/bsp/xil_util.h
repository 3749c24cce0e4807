/* xil_util.h - utility calls of the standalone BSP; the bounded polls come
 * with it from xil_sutil.h, as in the BSP. */
#ifndef XIL_UTIL_H
#define XIL_UTIL_H

#include "xil_types.h"
#include "xil_io.h"
#include "xstatus.h"
#include "xil_sutil.h"

#endif
