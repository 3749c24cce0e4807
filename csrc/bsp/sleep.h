/* sleep.h - busy waits of the Xilinx standalone BSP (its prototypes); on the
 * virtual board they advance virtual time and take pending interrupts. */
#ifndef SLEEP_H
#define SLEEP_H

#include "xil_types.h"
#include "xil_io.h"

void usleep(ULONG useconds);
void sleep(u32 seconds);

/* Read ADDR with IO_func into VALUE until COND holds, 100 us apart, for at
 * most TIMEOUT_US rounded up to a multiple of 100 us (at least one wait):
 * 0 when COND held, -1 on timeout.  The BSP documents it as a statement
 * expression (GNU C). */
#define Xil_poll_timeout(IO_func, ADDR, VALUE, COND, TIMEOUT_US) __extension__ ({ \
	u64 sgdma_polls_ = ((u64)(TIMEOUT_US) + 99U) / 100U; \
	if (sgdma_polls_ == 0U) \
		sgdma_polls_ = 1U; \
	for (;;) { \
		(VALUE) = IO_func(ADDR); \
		if (COND) \
			break; \
		usleep(100U); \
		if (--sgdma_polls_ == 0U) \
			break; \
	} \
	sgdma_polls_ > 0U ? 0 : -1; \
})

#endif
