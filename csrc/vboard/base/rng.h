/*
 * rng.h - the board's one random generator: xoshiro256** seeded by splitmix64.
 * Everything random (refresh phase, OS jitter) draws from it, so the same seed
 * gives the same numbers.
 */
#ifndef SGDMA_VBOARD_RNG_H
#define SGDMA_VBOARD_RNG_H

#include <stdint.h>

struct vb_rng {
	uint64_t s[4];
};

#pragma GCC visibility push(hidden)
void vb_rng_seed(struct vb_rng *r, uint64_t seed);
uint64_t vb_rng_next(struct vb_rng *r);
#pragma GCC visibility pop

#endif
