/* internal.h - helpers shared by the driver core's files (not installed). */
#ifndef SGDMA_DRIVER_INTERNAL_H
#define SGDMA_DRIVER_INTERNAL_H

#include "sgdma/driver.h"

/* Highest address the channel's address width can form. */
static inline uint64_t sg_addr_max(const struct sg_chan *c)
{
	unsigned w = c->cfg.addr_width;

	return w >= 64 ? UINT64_MAX : ((uint64_t)1 << w) - 1u;
}

/* [addr, addr + len) lies below 2^addr_width (len >= 1). */
static inline bool sg_range_fits(const struct sg_chan *c, uint64_t addr, uint64_t len)
{
	uint64_t top = sg_addr_max(c);

	return len && addr <= top && len - 1u <= top - addr;
}

/* Ring index of the BD at device address dev, SG_NO_INDEX when it is no BD of the
 * ring (the channel's error snapshot and the ring's tail check both ask). */
static inline uint32_t sg_ring_bd_index(const struct sg_ring *r, uint64_t dev)
{
	uint64_t off;

	if (dev < r->dev)
		return SG_NO_INDEX;
	off = dev - r->dev;
	if (off & (PG021_BD_ALIGN - 1u))
		return SG_NO_INDEX;
	off /= PG021_BD_SIZE;   /* constant power of two: a shift */
	return off < r->count ? (uint32_t)off : SG_NO_INDEX;
}

/* Name the argument or condition behind a vague status (SG_E_ARG mostly). */
static inline enum sg_status sg_what(struct sg_error *err, enum sg_status st, const char *what)
{
	if (err)
		err->what = what;
	return st;
}

#endif
