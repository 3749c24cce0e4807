/*
 * grow.c - the board's growable arrays and its scratch buffer, in a file of
 * their own so C unit tests can link them without the board.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/grow.h"

/* Like realloc: the grown array, or NULL (p untouched, *cap unchanged) when the
 * host has no memory for it.  The caller reports what it could not keep. */
void *vb_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return p;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			return NULL;
		n *= 2;
	}
	q = realloc(p, n * elem);
	if (!q)
		return NULL;
	*cap = n;
	return q;
}

bool vb_grow_into(void *p, size_t *cap, size_t need, size_t elem)
{
	void **pp = p, *q = vb_grow(*pp, cap, need, elem);

	if (!q)
		return false;
	*pp = q;
	return true;
}

uint8_t *vb_scratch_get(struct vb_scratch *s, uint64_t len)
{
	if (len > s->cap) {
		uint8_t *n = realloc(s->p, len);
		if (!n) {
			fprintf(stderr, "sgdma virtual board: out of host memory (%llu bytes)\n",
				(unsigned long long)len);
			abort();
		}
		s->p = n;
		s->cap = len;
	}
	return s->p;
}

void vb_scratch_free(struct vb_scratch *s)
{
	free(s->p);
	*s = (struct vb_scratch){ 0 };
}
