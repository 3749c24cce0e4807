/* xil_printf.h - the BSP's small printf, here the host's. */
#ifndef XIL_PRINTF_H
#define XIL_PRINTF_H

#include <stdio.h>

#include "xil_types.h"

#define xil_printf printf
#define print(s) fputs((s), stdout)
void outbyte(char8 c);
char8 inbyte(void);

#endif
