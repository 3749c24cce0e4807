/* bsp_misc.c - assertions, console and bounded polls of the standalone BSP. */
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

void outbyte(char8 c) { putchar(c); }

char8 inbyte(void)
{
	int c = getchar();
	return (char8)(c == EOF ? 0 : c);
}

u32 Xil_WaitForEvent(UINTPTR addr, u32 mask, u32 event, u32 timeout)
{
	for (u32 t = 0; t <= timeout; t++) {
		if ((Xil_In32(addr) & mask) == event)
			return XST_SUCCESS;
		usleep(1);
	}
	return XST_FAILURE;
}

u32 Xil_WaitForEvents(UINTPTR addr, u32 mask, u32 wait, u32 timeout, u32 *events)
{
	for (u32 t = 0; t <= timeout; t++) {
		*events = Xil_In32(addr) & mask;
		if (*events & wait)
			return XST_SUCCESS;
		usleep(1);
	}
	return XST_FAILURE;
}
