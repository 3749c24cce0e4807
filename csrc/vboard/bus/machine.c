/*
 * machine.c - what is on the board and where: the one file that names the
 * devices, as a QEMU machine definition does.  Each device is mapped on the
 * bus with its ops table; from then on the board reaches it only through them.
 */
#include <stdio.h>

#include "sgdma/csm.h"
#include "internal.h"
#include "pl/rtio.h"

static int map(vb_board *b, uint64_t base, uint64_t span, const struct vb_device_ops *ops, void *dev,
	       char *err, size_t errlen)
{
	if (vb_bus_map(&b->bus, base, span, ops, dev) == 0)
		return 0;
	snprintf(err, errlen, "%s at 0x%llx (0x%llx bytes) overlaps another device window; move it in the preset",
		 ops->name, (unsigned long long)base, (unsigned long long)span);
	return -1;
}

int vb_machine_attach(vb_board *b, char *err, size_t errlen)
{
	if (map(b, b->cfg.dma_base, VB_DMA_SPAN, &vb_axidma_ops, b, err, errlen) < 0)
		return -1;
	for (unsigned i = 0; i < VB_GPIO_BLOCKS; i++) {
		b->gpio[i].board = b;
		b->gpio[i].index = i;
		if (map(b, b->cfg.gpio_base + (uint64_t)i * CSM_GPIO_SPAN, CSM_GPIO_SPAN, &vb_gpio_ops, &b->gpio[i],
			err, errlen) < 0)
			return -1;
	}
	if (b->cfg.rtio.present) {
		b->rtio = vb_rtio_new(b, &b->cfg.rtio);
		if (!b->rtio) {
			snprintf(err, errlen, "out of host memory for the RTIO core");
			return -1;
		}
		if (map(b, b->cfg.rtio.base, RTIO_WINDOW_SPAN, &vb_rtio_ops, b->rtio, err, errlen) < 0)
			return -1;
	}
	return 0;
}
