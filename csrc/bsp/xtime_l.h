/* xtime_l.h - the BSP's global timer.  On the virtual board it counts virtual
 * time at COUNTS_PER_SECOND. */
#ifndef XTIME_L_H
#define XTIME_L_H

#include "xil_types.h"

typedef u64 XTime;

/* assumed: 100 MHz, the ZynqMP timestamp clock's usual setting; Zynq-7000's
 * global timer runs at half the CPU clock (override with -DCOUNTS_PER_SECOND). */
#ifndef COUNTS_PER_SECOND
#define COUNTS_PER_SECOND 100000000ULL
#endif

void XTime_GetTime(XTime *Xtime_Global);
void XTime_SetTime(XTime Xtime_Global);

#endif
