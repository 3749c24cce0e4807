/*
 * bus.c - address decode and dispatch over registered device windows.
 * Invariant: windows never overlap, so an address decodes to at most one device.
 */
#include <stddef.h>

#include "bus/bus.h"

static bool overlaps(const struct vb_mapping *m, uint64_t base, uint64_t span)
{
	return base < m->base + m->span && m->base < base + span;
}

int vb_bus_map(struct vb_bus *bus, uint64_t base, uint64_t span, const struct vb_device_ops *ops, void *dev)
{
	if (bus->n == VB_BUS_MAX_DEVICES || span == 0 || base + span < base)
		return -1;
	for (unsigned i = 0; i < bus->n; i++)
		if (overlaps(&bus->map[i], base, span))
			return -1;
	bus->map[bus->n++] = (struct vb_mapping){ .base = base, .span = span, .ops = ops, .dev = dev };
	return 0;
}

const struct vb_mapping *vb_bus_find(const struct vb_bus *bus, uint64_t addr)
{
	for (unsigned i = 0; i < bus->n; i++)
		if (addr >= bus->map[i].base && addr - bus->map[i].base < bus->map[i].span)
			return &bus->map[i];
	return NULL;
}

void vb_bus_reset(struct vb_bus *bus)
{
	for (unsigned i = 0; i < bus->n; i++)
		if (bus->map[i].ops->reset)
			bus->map[i].ops->reset(bus->map[i].dev);
}

void vb_bus_fini(struct vb_bus *bus)
{
	for (unsigned i = bus->n; i-- > 0;)
		if (bus->map[i].ops->fini)
			bus->map[i].ops->fini(bus->map[i].dev);
}
