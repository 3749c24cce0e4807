/*
 * grow.c - the board's growable arrays (fetch log, sink packets, traces, RTIO,
 * ADC and DAC records): one doubling policy, in a file of its own so C unit
 * tests can link it without the board.
 */
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

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
