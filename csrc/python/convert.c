/*
 * convert.c - the range-checked converters every file of the binding uses
 * (convert.h): exact integers only (no float, no silent truncation), each
 * range the C field's own.
 */
#include "convert.h"

#include <stdbool.h>

#include "vboard.h"

#include <limits.h>

static int exact_int(PyObject *o, const char *what)
{
	if (PyIndex_Check(o))
		return 1;                                  /* int, bool, numpy integers; not float */
	PyErr_Format(PyExc_TypeError, "%s must be an integer, not %.100s", what, Py_TYPE(o)->tp_name);
	return 0;
}

/* o as a long long / unsigned long long: 1, or 0 with OverflowError (cleared into *over) or another error. */
/* -1, 0 or 1 as i (an int) is below, at or above zero; the comparison cannot fail for an int. */
static int sign_of(PyObject *i)
{
	PyObject *zero = PyLong_FromLong(0);
	int neg = zero ? PyObject_RichCompareBool(i, zero, Py_LT) : 0;
	Py_XDECREF(zero);
	return neg > 0 ? -1 : 1;
}

static int as_wide(PyObject *o, const char *what, int is_signed, long long *s, unsigned long long *u, int *over)
{
	PyObject *i;
	*over = 0;
	if (!exact_int(o, what) || !(i = PyNumber_Index(o)))
		return 0;
	if (is_signed)
		*s = PyLong_AsLongLong(i);
	else
		*u = PyLong_AsUnsignedLongLong(i);
	if (!is_signed && *u == (unsigned long long)-1 && PyErr_Occurred() &&
	    PyErr_ExceptionMatches(PyExc_OverflowError)) {
		/* negative, or above 2^64-1 */
		PyErr_Clear();
		*over = sign_of(i);
	} else if (is_signed && *s == -1 && PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_OverflowError)) {
		PyErr_Clear();
		*over = sign_of(i);
	}
	Py_DECREF(i);
	return !PyErr_Occurred();
}

int sgpy_range(PyObject *o, const char *what, uint64_t lo, uint64_t hi, uint64_t *out)
{
	unsigned long long v = 0;
	long long s;
	int over;
	if (!as_wide(o, what, 0, &s, &v, &over))
		return 0;
	if (over || v < lo || v > hi) {
		PyErr_Format(PyExc_ValueError, "%s %R is outside %llu..%llu", what, o, (unsigned long long)lo,
			     (unsigned long long)hi);
		return 0;
	}
	*out = v;
	return 1;
}

int sgpy_srange(PyObject *o, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
	unsigned long long u;
	long long v = 0;
	int over;
	if (!as_wide(o, what, 1, &v, &u, &over))
		return 0;
	if (over || v < lo || v > hi) {
		PyErr_Format(PyExc_ValueError, "%s %R is outside %lld..%lld", what, o, (long long)lo, (long long)hi);
		return 0;
	}
	*out = v;
	return 1;
}

int sgpy_u64(PyObject *o, void *out)
{
	uint64_t v;
	if (!sgpy_range(o, "an address, size or count", 0, UINT64_MAX, &v))
		return 0;
	*(uint64_t *)out = v;
	return 1;
}

int sgpy_u32(PyObject *o, void *out)
{
	uint64_t v = 0;
	if (!sgpy_u64(o, &v) && !PyErr_ExceptionMatches(PyExc_ValueError))
		return 0;
	if (PyErr_Occurred() || v > UINT32_MAX) {
		PyErr_Clear();
		PyErr_Format(PyExc_ValueError, "%R does not fit 32 bits (0..4294967295)", o);
		return 0;
	}
	*(uint32_t *)out = (uint32_t)v;
	return 1;
}

int sgpy_i64(PyObject *o, void *out)
{
	int64_t v;
	if (!sgpy_srange(o, "a 64-bit signed value", INT64_MIN, INT64_MAX, &v))
		return 0;
	*(int64_t *)out = v;
	return 1;
}

int sgpy_int(PyObject *o, void *out)
{
	int64_t v;
	if (!sgpy_srange(o, "an int", INT_MIN, INT_MAX, &v))
		return 0;
	*(int *)out = (int)v;
	return 1;
}

int sgpy_channel(PyObject *o, void *out)
{
	uint64_t v;
	if (!sgpy_range(o, "channel (0 MM2S, 1 S2MM)", VB_MM2S, VB_S2MM, &v))
		return 0;
	*(enum vb_chan_id *)out = (enum vb_chan_id)v;
	return 1;
}

int sgpy_ps_fits(uint64_t now, uint64_t span, const char *what)
{
	uint64_t end;
	if (__builtin_add_overflow(now, span, &end) || end == VB_NO_TIME) {
		PyErr_Format(PyExc_ValueError, "%s %llu ps: from now (%llu ps) it passes the board's 64-bit picosecond "
			     "clock; give a shorter bound", what, (unsigned long long)span, (unsigned long long)now);
		return 0;
	}
	return 1;
}

int sgpy_append(PyObject *list, PyObject *item)
{
	int rc;
	if (!item)
		return -1;
	rc = PyList_Append(list, item);
	Py_DECREF(item);
	return rc;
}

PyObject *sgpy_column(size_t n, size_t size, void **data, bool resizable)
{
	PyObject *b;
	if (n > (size_t)PY_SSIZE_T_MAX / (size ? size : 1)) {
		PyErr_NoMemory();
		return NULL;
	}
	b = resizable ? PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(n * size))
		      : PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * size));
	if (b)
		*data = resizable ? PyByteArray_AS_STRING(b) : PyBytes_AS_STRING(b);
	return b;
}
