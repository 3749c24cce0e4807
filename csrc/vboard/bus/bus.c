/*
 * bus.c - address decode and dispatch over registered device windows.
 * Invariant: windows never overlap, so an address decodes to at most one device.
 */
#include "bus/bus.h"
#include "vboard.h"

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
	if (ops->next_event && ops->step)
		bus->timed[bus->n_timed++] = bus->n;
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

uint64_t vb_bus_next_event(const struct vb_bus *bus, const struct vb_mapping **who)
{
	uint64_t best = VB_NO_TIME;

	*who = NULL;
	for (unsigned i = 0; i < bus->n_timed; i++) {
		const struct vb_mapping *m = &bus->map[bus->timed[i]];
		uint64_t t = m->ops->next_event(m->dev);

		if (t < best) {
			best = t;
			*who = m;
		}
	}
	return best;
}
