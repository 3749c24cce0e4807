/*
 * convert.h - the binding's range-checked integer converters.  Every integer
 * that crosses from Python into C goes through one of these (never the "I",
 * "k", "K", "L" formats or PyLong_AsUnsignedLongMask, which wrap or mask):
 * a value the C field cannot hold is a ValueError naming the field, a
 * non-integer a TypeError.
 */
#ifndef SGDMA_PYTHON_CONVERT_H
#define SGDMA_PYTHON_CONVERT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

/* PyArg "O&" converters. */
int sgpy_u64(PyObject *o, void *out);     /* uint64_t: 0 .. 2^64-1 */
int sgpy_u32(PyObject *o, void *out);     /* uint32_t: 0 .. 2^32-1 */
int sgpy_i64(PyObject *o, void *out);     /* int64_t: -2^63 .. 2^63-1 */
int sgpy_int(PyObject *o, void *out);     /* int: INT_MIN .. INT_MAX */
int sgpy_channel(PyObject *o, void *out); /* enum vb_chan_id from 0 (MM2S) or 1 (S2MM) */

/* An unsigned integer in [lo, hi] into *out, or 0 with ValueError "what V: rule". */
int sgpy_range(PyObject *o, const char *what, uint64_t lo, uint64_t hi, uint64_t *out);
/* A signed integer in [lo, hi] into *out, or 0 with ValueError. */
int sgpy_srange(PyObject *o, const char *what, int64_t lo, int64_t hi, int64_t *out);

/* 1 when now + span fits the board's uint64 picosecond clock, else 0 with
 * ValueError naming what (a limit or timeout the model could not represent). */
int sgpy_ps_fits(uint64_t now, uint64_t span, const char *what);

#endif
