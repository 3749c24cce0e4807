/* xil_assert.h - the standalone BSP's assertions.  A failed assertion prints
 * file:line, records XIL_ASSERT_OCCURRED, calls the user callback, and
 * returns from the function (as the BSP does with Xil_AssertWait false). */
#ifndef XIL_ASSERT_H
#define XIL_ASSERT_H

#include "xil_types.h"

#define XIL_ASSERT_NONE     0U
#define XIL_ASSERT_OCCURRED 1U

typedef void (*Xil_AssertCallback)(const char8 *File, s32 Line);

extern u32 Xil_AssertStatus;
extern s32 Xil_AssertWait;
void Xil_Assert(const char8 *File, s32 Line);
void Xil_AssertSetCallback(Xil_AssertCallback Routine);

#define Xil_AssertVoid(Expression) do { \
	if (Expression) { Xil_AssertStatus = XIL_ASSERT_NONE; } \
	else { Xil_Assert(__FILE__, __LINE__); Xil_AssertStatus = XIL_ASSERT_OCCURRED; return; } \
} while (0)
#define Xil_AssertNonvoid(Expression) do { \
	if (Expression) { Xil_AssertStatus = XIL_ASSERT_NONE; } \
	else { Xil_Assert(__FILE__, __LINE__); Xil_AssertStatus = XIL_ASSERT_OCCURRED; return 0; } \
} while (0)
#define Xil_AssertVoidAlways() do { \
	Xil_Assert(__FILE__, __LINE__); Xil_AssertStatus = XIL_ASSERT_OCCURRED; return; } while (0)
#define Xil_AssertNonvoidAlways() do { \
	Xil_Assert(__FILE__, __LINE__); Xil_AssertStatus = XIL_ASSERT_OCCURRED; return 0; } while (0)

#endif
