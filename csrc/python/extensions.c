/*
 * extensions.c - the subsystems whose bindings live in their own files.  Each
 * registers its functions and constants with the module here; add one line.
 */
#include "core.h"

typedef int (*sgpy_register_fn)(PyObject *m);

int sgpy_register_rtio(PyObject *m);
int sgpy_register_trace(PyObject *m);        /* trace.c */

static const sgpy_register_fn registrations[] = {
	sgpy_register_rtio,
	sgpy_register_trace,
	NULL,
};

int sgpy_register_extensions(PyObject *m)
{
	for (const sgpy_register_fn *f = registrations; *f; f++)
		if ((*f)(m) < 0)
			return -1;
	return 0;
}
