/*
 * core.h - what the binding's files share.
 *
 *   board.c   the Board object (a virtual board owned by Python) and its methods
 *   region.c  Region: board memory as a zero-copy writable buffer
 *   driver.c  Chan and Ring (the driver core) and driver errors as exceptions
 *   module.c  module functions, the contract's constants, module init
 *   convert.c the range-checked converters (convert.h) and small shared helpers
 *   X.c       a subsystem's functions (Board as first argument), registered in extensions.c
 *
 * Rules every file keeps: every number from Python goes through a range-checked
 * converter (convert.h) before it narrows; every object a call creates is checked;
 * long simulations run with the GIL released and the board marked busy, so no
 * other thread can enter the same board meanwhile.
 */
#ifndef SGDMA_PYTHON_CORE_H
#define SGDMA_PYTHON_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>

#include "sgdma/driver.h"
#include "vboard.h"
#include "convert.h"

typedef struct {
	PyObject_HEAD
	vb_board *b;
	bool busy;                /* a simulation runs on it with the GIL released */
} BoardObject;

typedef struct {
	PyObject_HEAD
	PyObject *board;          /* a Board, or a LinuxPlatform (pylinux.h) */
	struct sg_chan c;
	struct sg_error err;
} ChanObject;

extern PyTypeObject BoardType, RegionType, ChanType, RingType;

/* The C board behind a Board object, or NULL with TypeError/ValueError set. */
vb_board *sgpy_board(PyObject *o);

/* 0 when the board may be used now; -1 with an exception when it is not
 * initialised or busy in another thread. */
int sgpy_board_ready(BoardObject *board);
/* The same for a channel, whichever platform it runs on. */
int sgpy_chan_ready(ChanObject *chan);

/* Run STMT (pure C, no Python API) with the GIL released; the board is busy meanwhile. */
#define SGPY_SIMULATE(board, stmt) \
	do { \
		(board)->busy = true; \
		Py_BEGIN_ALLOW_THREADS \
		stmt; \
		Py_END_ALLOW_THREADS \
		(board)->busy = false; \
	} while (0)

/* A new column of n * size bytes for the caller to fill (its data in *data): a bytearray when the caller
 * resizes it afterwards, else bytes; NULL with MemoryError when n * size overflows. */
PyObject *sgpy_column(size_t n, size_t size, void **data, bool resizable);

/* Append and drop our reference; -1 (exception set) if item is NULL or the append fails. */
int sgpy_append(PyObject *list, PyObject *item);

/* Raise the driver error as its exception class (with the register snapshot); returns NULL. */
PyObject *sgpy_raise(const struct sg_error *e);
/* Decoded DMACR/DMASR/CURDESC/TAILDESC as a dict (new reference, or NULL). */
PyObject *sgpy_snapshot(const struct sg_snapshot *s);

/* Module pieces: types and functions each file adds (0, or -1 with an exception). */
int sgpy_add_board(PyObject *m);
int sgpy_add_region(PyObject *m);
int sgpy_add_driver(PyObject *m);

/* Add every subsystem's functions and constants to the module (extensions.c). */
int sgpy_register_extensions(PyObject *m);

#endif
