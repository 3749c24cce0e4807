/*
 * bus.h - the virtual board's address decoder.  Devices register a register
 * window with an ops table (as QEMU's MemoryRegionOps); the bus dispatches CPU
 * accesses by address and never names a device.  The bus knows no time: devices
 * that act on their own register timed ops with the scheduler (base/sched.h).
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
	/* Optional: free what the device holds (the board's destroy walks the map). */
	void (*fini)(void *dev);
};

struct vb_mapping {
	uint64_t base, span;
	const struct vb_device_ops *ops;
	void *dev;
};

struct vb_bus {
	struct vb_mapping map[VB_BUS_MAX_DEVICES];
	unsigned n;
	/* A device whose reads cross a link (a non-posted read) sets when its answer
	 * arrives; the CPU that issued the read waits for it (cpu/cpu.c).  Devices
	 * never move time themselves. */
	uint64_t answer_at;
	/* guest errors: CPU accesses that decode to nothing (the interconnect's DECERR) */
	uint64_t decerr_count, last_decerr_addr;
	bool last_decerr_write;
};

/* Map a device window; -1 when it overlaps another or the table is full. */
int vb_bus_map(struct vb_bus *bus, uint64_t base, uint64_t span, const struct vb_device_ops *ops, void *dev);
const struct vb_mapping *vb_bus_find(const struct vb_bus *bus, uint64_t addr);
void vb_bus_reset(struct vb_bus *bus);
/* Free what every mapped device holds (in reverse map order). */
void vb_bus_fini(struct vb_bus *bus);

#endif
