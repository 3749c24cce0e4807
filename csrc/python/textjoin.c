/*
 * textjoin.c - text rows from columns: the last step of the timeline writers
 * (sgdma.output.textcols).  numpy decides what every row holds (which piece of
 * text, which number); this writes the rows out, a memcpy per piece and a
 * digit loop per number, where numpy would need ~10 passes over index arrays
 * of 8 bytes per byte of text.
 */
#include "core.h"

#include <stdint.h>
#include <string.h>

#define MAX_COLS 64
#define NUM_MAX 24              /* '-', 20 digits, '.', margin */

/* v / 10^places as the shortest fixed-point text ("12.5", "3.0"; "7" when places is 0). */
static size_t put_number(char *dst, int64_t v, int places)
{
	char tmp[NUM_MAX];
	size_t n = 0, out = 0;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	int digits = 0;
	/* digits, least significant first, at least places + 1 of them */
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
		digits++;
	} while (u || digits <= places);
	if (v < 0)
		dst[out++] = '-';
	while (n > (size_t)places)
		dst[out++] = tmp[--n];
	if (places) {
		size_t keep = 0;                /* decimals up to the last non-zero one, at least one */
		for (size_t k = 0; k < n; k++)
			if (tmp[k] != '0') {
				keep = n - k;
				break;
			}
		if (!keep)
			keep = 1;
		dst[out++] = '.';
		for (size_t k = 0; k < keep; k++)
			dst[out++] = tmp[n - 1 - k];
	}
	return out;
}

/* Length of put_number's text, without writing it. */
static size_t number_length(int64_t v, int places)
{
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	size_t digits = 0, zeros = 0;
	int k = 0;

	do {                                    /* trailing zeros among the decimals, then every digit */
		if (k < places && zeros == (size_t)k && u % 10 == 0)
			zeros++;
		u /= 10;
		digits++;
		k++;
	} while (u || k <= places);
	if (!places)
		return digits + (v < 0);
	if (zeros == (size_t)places)
		zeros = (size_t)places - 1;     /* one decimal stays: "x.0" */
	return digits + 1 + (v < 0) - zeros;
}

/* format_rows(blob, offsets, lengths, kinds, columns): kinds[j] is -1 when column j holds piece ids (into
 * offsets/lengths over blob; -1 = nothing), else the decimal places of the numbers it holds (INT64_MIN =
 * nothing).  Each column is
 * an int64 buffer of n values or of one (the same for every row). */
static PyObject *py_format_rows(PyObject *self, PyObject *args)
{
	Py_buffer blob, off, len, col[MAX_COLS];
	PyObject *kinds_obj, *cols_obj, *out = NULL;
	int kind[MAX_COLS];
	Py_ssize_t n_cols = 0, got = 0, n = 1;
	(void)self;
	if (!PyArg_ParseTuple(args, "y*y*y*O!O!", &blob, &off, &len, &PyTuple_Type, &kinds_obj, &PyTuple_Type,
			      &cols_obj))
		return NULL;
	n_cols = PyTuple_GET_SIZE(cols_obj);
	const int64_t *o = off.buf, *l = len.buf;
	Py_ssize_t n_pieces = off.len / (Py_ssize_t)sizeof(int64_t);
	if (off.len != len.len || off.len % (Py_ssize_t)sizeof(int64_t)) {
		PyErr_SetString(PyExc_ValueError, "format_rows: offsets and lengths must be int64 buffers of one length");
		goto done;
	}
	if (n_cols > MAX_COLS || PyTuple_GET_SIZE(kinds_obj) != n_cols) {
		PyErr_Format(PyExc_ValueError, "format_rows: %zd columns, %zd kinds (at most %d columns)", n_cols,
			     PyTuple_GET_SIZE(kinds_obj), MAX_COLS);
		goto done;
	}
	for (Py_ssize_t p = 0; p < n_pieces; p++)
		if (o[p] < 0 || l[p] < 0 || o[p] > blob.len || l[p] > blob.len - o[p]) {
			PyErr_Format(PyExc_ValueError, "format_rows: piece %zd lies outside the %zd-byte blob", p,
				     blob.len);
			goto done;
		}
	for (; got < n_cols; got++) {
		int64_t k;
		if (!sgpy_srange(PyTuple_GET_ITEM(kinds_obj, got), "format_rows: column kind (piece: -1, places: 0..18)",
				 -1, 18, &k))
			goto done;
		kind[got] = (int)k;
		if (PyObject_GetBuffer(PyTuple_GET_ITEM(cols_obj, got), &col[got], PyBUF_SIMPLE) < 0)
			goto done;
		Py_ssize_t rows = col[got].len / (Py_ssize_t)sizeof(int64_t);
		if (col[got].len % (Py_ssize_t)sizeof(int64_t) || rows < 1 || (rows != 1 && n != 1 && rows != n)) {
			PyErr_Format(PyExc_ValueError, "format_rows: column %zd has %zd values; columns need n or 1 "
				     "int64 values", got, rows);
			got++;
			goto done;
		}
		if (rows != 1)
			n = rows;
	}
	/* the exact size, so the text is written once into its final object */
	uint64_t size = 0;
	for (Py_ssize_t j = 0; j < n_cols; j++) {
		const int64_t *v = col[j].buf;
		Py_ssize_t rows = col[j].len / (Py_ssize_t)sizeof(int64_t);
		if (kind[j] >= 0) {
			for (Py_ssize_t i = 0; i < rows; i++)
				if (v[i] != INT64_MIN)
					size += number_length(v[i], kind[j]) * (rows == 1 ? (uint64_t)n : 1);
			continue;
		}
		for (Py_ssize_t i = 0; i < rows; i++) {
			if (v[i] >= n_pieces) {
				PyErr_Format(PyExc_ValueError, "format_rows: column %zd row %zd: piece %lld of %zd", j, i,
					     (long long)v[i], n_pieces);
				goto done;
			}
			if (v[i] >= 0)
				size += (uint64_t)l[v[i]] * (rows == 1 ? (uint64_t)n : 1);
		}
	}
	if (size > (uint64_t)PY_SSIZE_T_MAX) {
		PyErr_NoMemory();
		goto done;
	}
	out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
	if (!out)
		goto done;
	char *dst = PyBytes_AS_STRING(out), *start = dst;
	const char *src = blob.buf;
	const int64_t *base[MAX_COLS];
	Py_ssize_t step[MAX_COLS];
	for (Py_ssize_t j = 0; j < n_cols; j++) {
		base[j] = col[j].buf;
		step[j] = col[j].len == (Py_ssize_t)sizeof(int64_t) ? 0 : 1;   /* one value for every row */
	}
	Py_BEGIN_ALLOW_THREADS
	for (Py_ssize_t i = 0; i < n; i++)
		for (Py_ssize_t j = 0; j < n_cols; j++) {
			int64_t x = base[j][i * step[j]];
			if (kind[j] >= 0) {
				if (x != INT64_MIN)
					dst += put_number(dst, x, kind[j]);
			} else if (x >= 0) {
				const char *p = src + o[x];
				int64_t k = l[x];
				if (k <= 16)                       /* short pieces: no call */
					while (k--)
						*dst++ = *p++;
				else {
					memcpy(dst, p, (size_t)k);
					dst += k;
				}
			}
		}
	Py_END_ALLOW_THREADS
	if ((uint64_t)(dst - start) != size) {          /* the sizing pass and the writer disagree: a bug */
		PyErr_Format(PyExc_SystemError, "format_rows: wrote %zd bytes into %llu", (Py_ssize_t)(dst - start),
			     (unsigned long long)size);
		Py_CLEAR(out);
	}
done:
	for (Py_ssize_t j = 0; j < got; j++)
		PyBuffer_Release(&col[j]);
	PyBuffer_Release(&blob);
	PyBuffer_Release(&off);
	PyBuffer_Release(&len);
	return out;
}

static PyMethodDef textjoin_methods[] = {
	{ "format_rows", py_format_rows, METH_VARARGS,
	  "format_rows(blob, offsets, lengths, kinds, columns) -> bytes: row by row, each column's piece "
	  "(kind -1: an id into offsets/lengths over blob, -1 = none) or number (kind k >= 0: value / 10^k, shortest "
	  "fixed point; INT64_MIN = none); columns are int64 buffers of n values or one" },
	{ NULL, NULL, 0, NULL },
};

int sgpy_register_textjoin(PyObject *m)
{
	return PyModule_AddFunctions(m, textjoin_methods);
}
