/*
 * splitmix.h - splitmix64 (Steele, Lea, Flood: "Fast splittable pseudorandom
 * number generators", OOPSLA 2014): the one seed mixer of the project.  The
 * virtual board seeds xoshiro256** with it; freestanding programs draw from it.
 *
 * Freestanding: only <stdint.h>.
 */
#ifndef SGDMA_SPLITMIX_H
#define SGDMA_SPLITMIX_H

#include <stdint.h>

/* Advance *state by the golden-ratio increment and return the mixed value. */
static inline uint64_t sg_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

#endif /* SGDMA_SPLITMIX_H */
