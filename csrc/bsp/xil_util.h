/* xil_util.h - bounded register polls of the standalone BSP. */
#ifndef XIL_UTIL_H
#define XIL_UTIL_H

#include "xil_types.h"

/* Poll RegAddr until (value & EventMask) == Event, up to Timeout microseconds
 * (each poll waits 1 us); XST_SUCCESS or XST_FAILURE. */
u32 Xil_WaitForEvent(UINTPTR RegAddr, u32 EventMask, u32 Event, u32 Timeout);
/* As above until any bit of EventMask is set; *Events gets the bits seen. */
u32 Xil_WaitForEvents(UINTPTR EventsRegAddr, u32 EventsMask, u32 WaitEvents, u32 Timeout, u32 *Events);

#endif
