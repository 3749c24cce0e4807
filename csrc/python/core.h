/*
 * core.h - what the binding's files share: the Board object (a virtual board
 * owned by Python) and the hook by which a subsystem adds its functions to
 * sgdma._core.  A subsystem's binding lives in its own file (csrc/python/X.c),
 * takes the Board as its first argument and registers in extensions.c.
 */
#ifndef SGDMA_PYTHON_CORE_H
#define SGDMA_PYTHON_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "vboard.h"

typedef struct {
	PyObject_HEAD
	vb_board *b;
} BoardObject;

extern PyTypeObject BoardType;

/* The C board behind a Board object, or NULL with TypeError/ValueError set. */
vb_board *sgpy_board(PyObject *o);

/* Add every subsystem's functions and constants to the module (extensions.c). */
int sgpy_register_extensions(PyObject *m);

#endif
