/*
 * rng.c - xoshiro256** (Blackman and Vigna), its state filled by splitmix64.
 */
#include "base/rng.h"
#include "sgdma/splitmix.h"

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void vb_rng_seed(struct vb_rng *r, uint64_t seed)
{
	uint64_t s = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = sg_splitmix64(&s);
}

uint64_t vb_rng_next(struct vb_rng *r)
{
	uint64_t *s = r->s, v = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return v;
}
