/*
 * gpio.h - three AXI GPIO blocks (PG144 register layout): state and bus ops.
 */
#ifndef SGDMA_VBOARD_PL_GPIO_H
#define SGDMA_VBOARD_PL_GPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bus/bus.h"
#include "pl/csm.h"
#include "pl/trace.h"

struct vb_gpio {
	unsigned index;
	struct vb_gpio *a;        /* block A: its control word selects block B's counter */
	struct vb_csm *csm;       /* behind blocks A and B */
	struct vb_trace *trace;   /* sees the CSM's inputs */
	const struct vb_sched *sched;
	uint32_t data[2], tri[2];
	uint32_t gier, ier, isr;
};

#pragma GCC visibility push(hidden)
extern const struct vb_device_ops vb_gpio_ops;   /* dev = one block */
#pragma GCC visibility pop

#endif
