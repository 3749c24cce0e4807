/*
 * bus.h - the virtual board's address decoder.  Devices register a register
 * window with an ops table (as QEMU's MemoryRegionOps); the bus dispatches CPU
 * accesses by address and never names a device.  Devices that act on their own
 * (a DMA engine, an event core) also give next_event/step, and the board's
 * clock advances the earliest one.
 */
#ifndef SGDMA_VBOARD_BUS_H
#define SGDMA_VBOARD_BUS_H

#include <stdbool.h>
#include <stdint.h>

#define VB_BUS_MAX_DEVICES 16

typedef struct vb_board vb_board;

struct vb_device_ops {
	const char *name;
	/* Register access at `off` from the window base (4-byte, aligned). */
	uint32_t (*read)(void *dev, uint64_t off);
	void (*write)(void *dev, uint64_t off, uint32_t value);
	/* Optional: power-on state. */
	void (*reset)(void *dev);
	/* Optional: time (ps) of the device's next self-timed event, VB_NO_TIME if none. */
	uint64_t (*next_event)(void *dev);
	/* Optional: handle every event of the device due at t. */
	void (*step)(void *dev, uint64_t t);
};

struct vb_mapping {
	uint64_t base, span;
	const struct vb_device_ops *ops;
	void *dev;
};

struct vb_bus {
	struct vb_mapping map[VB_BUS_MAX_DEVICES];
	unsigned n;
	unsigned timed[VB_BUS_MAX_DEVICES];   /* the mappings whose device has next_event/step */
	unsigned n_timed;
	/* guest errors: CPU accesses that decode to nothing (the interconnect's DECERR) */
	uint64_t decerr_count, last_decerr_addr;
	bool last_decerr_write;
};

/* Map a device window; -1 when it overlaps another or the table is full. */
int vb_bus_map(struct vb_bus *bus, uint64_t base, uint64_t span, const struct vb_device_ops *ops, void *dev);
const struct vb_mapping *vb_bus_find(const struct vb_bus *bus, uint64_t addr);
void vb_bus_reset(struct vb_bus *bus);
/* Earliest pending self-timed event over all devices, and the device it belongs to. */
uint64_t vb_bus_next_event(const struct vb_bus *bus, const struct vb_mapping **who);

#endif
