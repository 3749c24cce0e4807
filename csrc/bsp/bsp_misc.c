/* bsp_misc.c - assertions, console and bounded polls of the standalone BSP. */
#include <stdarg.h>
#include <stdio.h>

#include "sleep.h"
#include "xil_assert.h"
#include "xil_io.h"
#include "xil_printf.h"
#include "xil_util.h"

u32 Xil_AssertStatus;
s32 Xil_AssertWait;    /* the host never spins on a failed assertion */
static Xil_AssertCallback assert_callback;

void Xil_Assert(const char8 *file, s32 line)
{
	fprintf(stderr, "Xil_Assert: %s:%d\n", file, (int)line);
	if (assert_callback)
		assert_callback(file, line);
}

void Xil_AssertSetCallback(Xil_AssertCallback routine) { assert_callback = routine; }

/* The host's printf understands every conversion the BSP's small printf
 * does; stdout is flushed per call, as a UART shows each line at once. */
void xil_vprintf(const char8 *ctrl1, va_list argp)
{
	vprintf(ctrl1, argp);
	fflush(stdout);
}

void xil_printf(const char8 *ctrl1, ...)
{
	va_list ap;

	va_start(ap, ctrl1);
	xil_vprintf(ctrl1, ap);
	va_end(ap);
}

void print(const char8 *ptr)
{
	fputs(ptr, stdout);
	fflush(stdout);
}

void outbyte(char8 c) { putchar(c); }

char8 inbyte(void)
{
	int c = getchar();
	return (char8)(c == EOF ? 0 : c);
}

u32 Xil_WaitForEvent(UINTPTR addr, u32 mask, u32 event, u32 timeout)
{
	for (u32 polls = timeout; polls > 0U; polls--) {
		if ((Xil_In32(addr) & mask) == event)
			return XST_SUCCESS;
		usleep(1U);
	}
	return XST_FAILURE;
}

u32 Xil_WaitForEvents(UINTPTR addr, u32 mask, u32 wait, u32 timeout, u32 *events)
{
	u32 polls = timeout;

	*events = 0;
	do {
		u32 seen = Xil_In32(addr) & mask;
		if (seen & wait) {
			*events = seen;
			return XST_SUCCESS;
		}
		usleep(1U);
	} while (polls > 0U && --polls > 0U);
	return XST_TIMEOUT;
}

u32 Xil_WaitForEventSet(u32 timeout, u32 n, volatile u32 *event, ...)
{
	va_list ap;
	u32 status = XST_SUCCESS;

	va_start(ap, event);
	for (u32 i = 0; i < n; i++) {
		u32 polls = timeout;
		while (polls > 0U && !Xil_In32((UINTPTR)event)) {
			polls--;
			usleep(1U);
		}
		if (polls == 0U) {
			status = XST_FAILURE;
			break;
		}
		if (i + 1 < n)
			event = va_arg(ap, volatile u32 *);
	}
	va_end(ap);
	return status;
}

void Xil_UtilRMW32(UINTPTR addr, u32 mask, u32 value)
{
	Xil_Out32(addr, (Xil_In32(addr) & ~mask) | (mask & value));
}

s32 Xil_SecureRMW32(UINTPTR addr, u32 mask, u32 value)
{
	Xil_UtilRMW32(addr, mask, value);
	return (Xil_In32(addr) & mask) == (mask & value) ? XST_SUCCESS : XST_FAILURE;
}
