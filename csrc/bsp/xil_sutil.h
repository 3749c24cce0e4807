/* xil_sutil.h - the standalone BSP's bounded polls and register helpers.
 * Every wait polls at most Timeout times, 1 us of (virtual) time apart, so a
 * poll on the program's own variable (`&TxDone`) lets the board run and its
 * interrupts be taken between polls. */
#ifndef XIL_SUTIL_H
#define XIL_SUTIL_H

#include "xil_types.h"

/* Until (Xil_In32(RegAddr) & EventMask) == Event: XST_SUCCESS, or
 * XST_FAILURE after Timeout polls (none when Timeout is 0). */
u32 Xil_WaitForEvent(UINTPTR RegAddr, u32 EventMask, u32 Event, u32 Timeout);
/* Until any bit of WaitEvents is set within EventsMask (polled at least once):
 * XST_SUCCESS with *Events the masked value, or XST_TIMEOUT with *Events 0. */
u32 Xil_WaitForEvents(UINTPTR EventsRegAddr, u32 EventsMask, u32 WaitEvents, u32 Timeout, u32 *Events);
/* Wait for each of NumOfEvents words (EventAddr, then the variadic
 * `volatile u32 *`s) to become non-zero, up to Timeout polls each:
 * XST_SUCCESS when all did, else XST_FAILURE. */
u32 Xil_WaitForEventSet(u32 Timeout, u32 NumOfEvents, volatile u32 *EventAddr, ...);
/* Read-modify-write: the bits of Mask take Value's. */
void Xil_UtilRMW32(UINTPTR Addr, u32 Mask, u32 Value);
/* As Xil_UtilRMW32, then read back: XST_SUCCESS if the masked bits hold. */
s32 Xil_SecureRMW32(UINTPTR Addr, u32 Mask, u32 Value);

#endif
