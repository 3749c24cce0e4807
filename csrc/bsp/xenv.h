/* xenv.h - the drivers' environment services (standalone flavour): memory
 * copy and fill, and microsecond delays through the BSP's usleep. */
#ifndef XENV_H
#define XENV_H

#include <string.h>

#include "xil_types.h"
#include "sleep.h"

#define XENV_MEM_COPY(DestPtr, SrcPtr, Bytes) memcpy((void *)(DestPtr), (const void *)(SrcPtr), (size_t)(Bytes))
#define XENV_MEM_FILL(DestPtr, Data, Bytes) memset((void *)(DestPtr), (s32)(Data), (size_t)(Bytes))

/* The standalone BSP has no time stamps for drivers. */
typedef s32 XENV_TIME_STAMP;
#define XENV_TIME_STAMP_GET(StampPtr)
#define XENV_TIME_STAMP_DELTA_US(Stamp1Ptr, Stamp2Ptr) (0)
#define XENV_TIME_STAMP_DELTA_MS(Stamp1Ptr, Stamp2Ptr) (0)
#define XENV_USLEEP(delay) usleep(delay)
#define udelay(delay) usleep(delay)

#endif
