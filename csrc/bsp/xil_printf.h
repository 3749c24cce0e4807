/* xil_printf.h - the BSP's console output.  xil_printf is a function with
 * the BSP's prototype (programs declare it themselves), printing through the
 * host's stdout. */
#ifndef XIL_PRINTF_H
#define XIL_PRINTF_H

#include <stdarg.h>
#include <string.h>

#include "xil_types.h"

void xil_printf(const char8 *ctrl1, ...);
void xil_vprintf(const char8 *ctrl1, va_list argp);
void print(const char8 *ptr);
void outbyte(char8 c);
char8 inbyte(void);

#endif
