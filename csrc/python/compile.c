/*
 * compile.c - the sequence compiler's per-application passes (sgdma.sequence.compiler):
 * distinct application rows, variants -> segment uses, segment uses -> BD arrays.
 * numpy needs ~15 passes over index arrays for each (sorts, repeat, cumsum, gathers,
 * reduceat); one loop each here.  Inputs are 64-bit buffers; outputs are bytearrays
 * numpy views writable without a copy.  Every index is checked before it is used.
 */
#include "core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* A contiguous buffer of 64-bit integers; its item count in *n. */
static int get_u64s(PyObject *o, Py_buffer *v, size_t *n, const char *what)
{
	if (PyObject_GetBuffer(o, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
		return -1;
	const char *f = v->format ? v->format : "B";
	if (*f == '<' || *f == '=' || *f == '@')
		f++;
	if (v->itemsize != 8 || !*f || !strchr("qQlL", *f) || f[1]) {   /* strchr finds the NUL too */
		PyErr_Format(PyExc_TypeError, "%s: expected a contiguous array of 8-byte integers", what);
		PyBuffer_Release(v);
		return -1;
	}
	*n = (size_t)v->len / 8;
	return 0;
}

/* expand_uses(app_variant, v_len, v_flat) -> bytearray of int64: per application in
 * order, its variant's segment ids (v_flat holds every variant's ids end to end). */
static PyObject *py_expand_uses(PyObject *self, PyObject *args)
{
	PyObject *o_app, *o_len, *o_flat, *out = NULL;
	Py_buffer app, len, flat;
	size_t n_app, n_var, n_flat;
	(void)self;
	if (!PyArg_ParseTuple(args, "OOO", &o_app, &o_len, &o_flat))
		return NULL;
	if (get_u64s(o_app, &app, &n_app, "app_variant") < 0)
		return NULL;
	if (get_u64s(o_len, &len, &n_var, "v_len") < 0)
		goto rel_app;
	if (get_u64s(o_flat, &flat, &n_flat, "v_flat") < 0)
		goto rel_len;

	const int64_t *a = app.buf, *vl = len.buf, *vf = flat.buf;
	int64_t *ptr = PyMem_Malloc((n_var ? n_var : 1) * sizeof *ptr);
	if (!ptr) {
		PyErr_NoMemory();
		goto rel_flat;
	}
	uint64_t at = 0, total = 0;
	for (size_t v = 0; v < n_var; v++) {
		if (vl[v] < 0 || (uint64_t)vl[v] > n_flat - at) {
			PyErr_Format(PyExc_ValueError, "v_len[%zu] = %lld runs past v_flat (%zu ids)", v,
				     (long long)vl[v], n_flat);
			goto free_ptr;
		}
		ptr[v] = (int64_t)at;
		at += (uint64_t)vl[v];
	}
	for (size_t i = 0; i < n_app; i++) {
		if (a[i] < 0 || (uint64_t)a[i] >= n_var) {
			PyErr_Format(PyExc_IndexError, "app_variant[%zu] = %lld: no such variant (%zu)", i,
				     (long long)a[i], n_var);
			goto free_ptr;
		}
		if ((uint64_t)vl[a[i]] > (uint64_t)PY_SSIZE_T_MAX / 8 - total) {   /* would wrap: too little memory */
			PyErr_Format(PyExc_ValueError, "expand_uses: the applications up to app_variant[%zu] use more than "
				     "%zd segment ids", i, PY_SSIZE_T_MAX / 8);
			goto free_ptr;
		}
		total += (uint64_t)vl[a[i]];
	}
	int64_t *use;
	out = sgpy_column(total, 8, (void **)&use, true);
	if (out) {
		Py_BEGIN_ALLOW_THREADS
		int64_t *end = use + total;       /* inputs re-read without the GIL: stay inside the column */
		for (size_t i = 0; i < n_app; i++) {
			int64_t v = a[i];
			if (v < 0 || (uint64_t)v >= n_var)
				continue;
			const int64_t *from = vf + ptr[v];
			for (int64_t k = 0; k < vl[v] && use < end && ptr[v] + k < (int64_t)n_flat; k++)
				*use++ = from[k];          /* mostly 1 or 2 ids: no memcpy call */
		}
		Py_END_ALLOW_THREADS
	}
free_ptr:
	PyMem_Free(ptr);
rel_flat:
	PyBuffer_Release(&flat);
rel_len:
	PyBuffer_Release(&len);
rel_app:
	PyBuffer_Release(&app);
	return out;
}

/* A float64 as the bits equality goes by: -0.0 is 0.0, every NaN is one NaN ("not given").  Without
 * branches: rows mix NaN, zero and other values unpredictably. */
static uint64_t key_bits(double v)
{
	double z = v + 0.0;                     /* -0.0 + 0.0 is +0.0 (round to nearest) */
	uint64_t u;
	memcpy(&u, &z, sizeof u);
	return v != v ? 0x7ff8000000000000ull : u;
}

/* One column of the key: n rows of `width` items of one type. */
struct key_column {
	const char *data;
	size_t width;
	char type;                              /* 'd' float64, 'q' int64, 'i' int32, 'h' int16 */
};

#define MAX_KEY_WORDS 64

#define BLOCK_ROWS 256

/* Rows i0 .. i0+rows-1 of the columns as key words, k per row (integers as themselves, floats by
 * key_bits): a column at a time, one tight loop per column and type rather than a switch per value. */
static void block_words(const struct key_column *c, size_t n_cols, size_t i0, size_t rows, size_t k, uint64_t *w)
{
	size_t off = 0;

	for (size_t j = 0; j < n_cols; j++, c++) {
		for (size_t x = 0; x < c->width; x++, off++) {
			size_t at = i0 * c->width + x, step = c->width;
			uint64_t *out = w + off;
			switch (c->type) {
			case 'd': {
				const double *v = (const double *)c->data + at;
				for (size_t r = 0; r < rows; r++)
					out[r * k] = key_bits(v[r * step]);
				break;
			}
			case 'q': {
				const int64_t *v = (const int64_t *)c->data + at;
				for (size_t r = 0; r < rows; r++)
					out[r * k] = (uint64_t)v[r * step];
				break;
			}
			case 'i': {
				const int32_t *v = (const int32_t *)c->data + at;
				for (size_t r = 0; r < rows; r++)
					out[r * k] = (uint64_t)(int64_t)v[r * step];
				break;
			}
			default: {
				const int16_t *v = (const int16_t *)c->data + at;
				for (size_t r = 0; r < rows; r++)
					out[r * k] = (uint64_t)(int64_t)v[r * step];
				break;
			}
			}
		}
	}
}

/* One multiply per word, one finalizing mix per row (splitmix64's): the rows are short. */
static uint64_t words_hash(const uint64_t *w, size_t k)
{
	uint64_t h = 0;
	for (size_t j = 0; j < k; j++)
		h = (h ^ w[j]) * 0x9e3779b97f4a7c15ull;
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

struct row_set {
	int32_t *slot;                          /* distinct-row number, -1 empty; a power of two of them */
	size_t slots;
	uint64_t *rows;                         /* the distinct rows' key words, k per row */
	size_t k, n, cap;
};

static int words_equal(const uint64_t *a, const uint64_t *b, size_t k)
{
	uint64_t diff = 0;
	for (size_t j = 0; j < k; j++)          /* short rows: no call, no early exit to mispredict */
		diff |= a[j] ^ b[j];
	return !diff;
}

/* The distinct-row number of w, added when new; -1 when out of memory. */
static int64_t row_set_find(struct row_set *s, const uint64_t *w)
{
	size_t at = (size_t)words_hash(w, s->k) & (s->slots - 1);

	for (; s->slot[at] >= 0; at = (at + 1) & (s->slots - 1))
		if (words_equal(s->rows + (size_t)s->slot[at] * s->k, w, s->k))
			return s->slot[at];
	if (s->n == s->cap) {
		size_t cap = s->cap * 2;
		uint64_t *rows = realloc(s->rows, cap * s->k * sizeof *rows);
		if (!rows)
			return -1;
		s->rows = rows;
		s->cap = cap;
	}
	memcpy(s->rows + s->n * s->k, w, s->k * sizeof *w);
	s->slot[at] = (int32_t)s->n;
	return (int64_t)s->n++;
}

/* first[] and inverse[] of n rows; the number of distinct rows, or -1 when out of memory. */
static int64_t distinct(const struct key_column *c, size_t n_cols, size_t n, size_t k, int64_t *first,
			int64_t *inverse)
{
	struct row_set s = { .slots = 16, .k = k, .cap = 64 };
	uint64_t *w = malloc(BLOCK_ROWS * k * sizeof *w);
	int64_t m = -1;

	while (s.slots < 2 * n)
		s.slots <<= 1;
	s.slot = malloc(s.slots * sizeof *s.slot);
	s.rows = malloc(s.cap * k * sizeof *s.rows);
	if (!w || !s.slot || !s.rows)
		goto out;
	memset(s.slot, 0xff, s.slots * sizeof *s.slot);
	for (size_t i0 = 0; i0 < n; i0 += BLOCK_ROWS) {
		size_t rows = n - i0 < BLOCK_ROWS ? n - i0 : BLOCK_ROWS;
		block_words(c, n_cols, i0, rows, k, w);
		for (size_t r = 0; r < rows; r++) {
			int64_t d = row_set_find(&s, w + r * k);
			if (d < 0)
				goto out;
			if ((size_t)d == s.n - 1 && first[d] < 0)
				first[d] = (int64_t)(i0 + r);
			inverse[i0 + r] = d;
		}
	}
	m = (int64_t)s.n;
out:
	free(w);
	free(s.slot);
	free(s.rows);
	return m;
}

/* distinct_rows(columns) -> (first, inverse) bytearrays of int64.  columns: C-contiguous arrays of n rows,
 * (n,) or (n, w), of float64, int64, int32 or int16; row i is every column's row i side by side.  first: the
 * index of each distinct row's first appearance, in order of appearance; inverse: each row's index into
 * first.  Rows are equal when every value is (-0.0 equals 0.0; NaN equals NaN). */
static PyObject *py_distinct_rows(PyObject *self, PyObject *arg)
{
	PyObject *seq = PySequence_Fast(arg, "distinct_rows: expected a sequence of arrays"), *out = NULL;
	PyObject *c_first = NULL, *c_inv = NULL;
	Py_buffer v[MAX_KEY_WORDS];
	struct key_column col[MAX_KEY_WORDS];
	Py_ssize_t got = 0, n_cols;
	size_t n = 0, k = 0;
	int64_t *first, *inverse, m;
	(void)self;
	if (!seq)
		return NULL;
	n_cols = PySequence_Fast_GET_SIZE(seq);
	if (n_cols < 1 || n_cols > MAX_KEY_WORDS) {
		PyErr_Format(PyExc_ValueError, "distinct_rows: 1 .. %d columns, got %zd", MAX_KEY_WORDS, n_cols);
		goto release;
	}
	for (; got < n_cols; got++) {
		Py_buffer *b = &v[got];
		if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(seq, got), b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
			goto release;
		const char *f = b->format ? b->format : "B";
		if (*f == '<' || *f == '=' || *f == '@')
			f++;
		/* integers by size, not by C type: numpy's int32 is 'l' where long is 32 bits (armhf, Windows) */
		char t = !*f || !strchr("hilq", *f) || f[1] ? *f : b->itemsize == 8 ? 'q' : b->itemsize == 4 ? 'i'
			: b->itemsize == 2 ? 'h' : *f;
		int ok = *f && !f[1] && b->ndim >= 1 && b->ndim <= 2 && ((t == 'd' && b->itemsize == 8) ||
			(t == 'q' && b->itemsize == 8) || (t == 'i' && b->itemsize == 4) || (t == 'h' && b->itemsize == 2));
		size_t rows = b->ndim ? (size_t)b->shape[0] : 0, width = b->ndim == 2 ? (size_t)b->shape[1] : 1;
		if (!ok || (got && rows != n) || k + width > MAX_KEY_WORDS) {
			got++;
			PyErr_Format(PyExc_ValueError, "distinct_rows: column %zd is not a 1-D or 2-D float64/int64/int32/"
				     "int16 array of the first column's %zu rows (at most %d values per row)", got - 1, n,
				     MAX_KEY_WORDS);
			goto release;
		}
		n = rows;
		k += width;
		col[got] = (struct key_column){ b->buf, width, t };
	}
	if (n > INT32_MAX) {
		PyErr_Format(PyExc_ValueError, "distinct_rows: %zu rows, at most 2^31-1", n);
		goto release;
	}
	if (!(c_first = sgpy_column(n, 8, (void **)&first, true))
	    || !(c_inv = sgpy_column(n, 8, (void **)&inverse, true)))
		goto release;
	Py_BEGIN_ALLOW_THREADS
	memset(first, 0xff, n * sizeof *first);
	m = distinct(col, (size_t)n_cols, n, k, first, inverse);
	Py_END_ALLOW_THREADS
	if (m < 0)
		PyErr_NoMemory();
	else if (PyByteArray_Resize(c_first, (Py_ssize_t)(m * 8)) == 0)
		out = PyTuple_Pack(2, c_first, c_inv);
release:
	Py_XDECREF(c_first);
	Py_XDECREF(c_inv);
	while (got-- > 0)
		PyBuffer_Release(&v[got]);
	Py_DECREF(seq);
	return out;
}

struct piece_table {
	const uint64_t *address, *nbytes;
	const int64_t *n_pieces;
	size_t n_sids;
	uint64_t piece_bytes;
};

struct bd_columns {
	uint64_t *address, *gate_bytes;
	uint32_t *length;
	uint8_t *flags;
	int64_t *sid, *gate_end;
};

/* Every BD of every gate: pieces of each used segment, SOF on a gate's first BD, EOF on its last. */
static void lay_out_bds(const struct piece_table *t, const int64_t *use_sid, const int64_t *uses, size_t n_apps,
			size_t n_uses, size_t n_bds, struct bd_columns *c)
{
	size_t bd = 0, u = 0;

	/* The inputs were checked with the GIL held and are read again without it: the loop stays inside the
	 * columns even if another thread rewrote them meanwhile (its answer is then the racing caller's problem). */
	for (size_t g = 0; g < n_apps; g++) {
		size_t first = bd;
		uint64_t bytes = 0;
		for (int64_t k = 0; k < uses[g] && u < n_uses; k++, u++) {
			int64_t sid = use_sid[u];
			if (sid < 0 || (uint64_t)sid >= t->n_sids)
				continue;
			uint64_t base = t->address[sid], left = t->nbytes[sid];
			for (int64_t p = 0; p < t->n_pieces[sid] && bd < n_bds; p++, bd++) {
				uint64_t n = left < t->piece_bytes ? left : t->piece_bytes;
				c->address[bd] = base + (uint64_t)p * t->piece_bytes;
				c->length[bd] = (uint32_t)n;
				c->flags[bd] = 0;
				c->sid[bd] = sid;
				left -= n;
				bytes += n;
			}
		}
		if (bd == first)          /* only when the inputs changed under the loop */
			continue;
		c->flags[first] |= SG_BD_SOF;
		c->flags[bd - 1] |= SG_BD_EOF;
		c->gate_end[g] = (int64_t)bd - 1;
		c->gate_bytes[g] = bytes;
	}
}

/* lay_out_bds(use_sid, uses_per_app, address, nbytes, n_pieces, piece_bytes) -> (addresses u64, lengths u32,
 * flags u8, bd_sid i64, gate_bd_end i64, gate_bytes u64) as bytearrays, or None when a used segment has no
 * piece (it left the store).  A segment of nbytes plays as ceil(nbytes / piece_bytes) BDs (n_pieces). */
static PyObject *py_lay_out_bds(PyObject *self, PyObject *args)
{
	PyObject *o[5], *out = NULL, *col[6] = { NULL };
	Py_buffer b[5];
	size_t n[5];
	uint64_t piece_bytes;
	static const char *names[5] = { "use_sid", "uses_per_app", "address", "nbytes", "n_pieces" };
	int got = 0;
	(void)self;
	if (!PyArg_ParseTuple(args, "OOOOOO&", &o[0], &o[1], &o[2], &o[3], &o[4], sgpy_u64, &piece_bytes))
		return NULL;
	for (; got < 5; got++)
		if (get_u64s(o[got], &b[got], &n[got], names[got]) < 0)
			goto release;
	struct piece_table t = { b[2].buf, b[3].buf, b[4].buf, n[4], piece_bytes };
	const int64_t *use_sid = b[0].buf, *uses = b[1].buf;
	size_t n_uses = n[0], n_apps = n[1];
	uint64_t n_bds = 0, u = 0;

	if (n[2] != n[4] || n[3] != n[4] || !piece_bytes || piece_bytes > UINT32_MAX) {
		PyErr_SetString(PyExc_ValueError, "lay_out_bds: address, nbytes and n_pieces differ in length, "
				"or piece_bytes is not in 1 .. 2^32-1");
		goto release;
	}
	for (size_t g = 0; g < n_apps; g++) {
		if (uses[g] < 1 || (uint64_t)uses[g] > n_uses - u) {
			PyErr_Format(PyExc_ValueError, "uses_per_app[%zu] = %lld: every application plays >= 1 of the "
				     "%zu segment uses", g, (long long)uses[g], n_uses);
			goto release;
		}
		u += (uint64_t)uses[g];
	}
	if (u != n_uses) {
		PyErr_Format(PyExc_ValueError, "uses_per_app sums to %llu, use_sid holds %zu", (unsigned long long)u,
			     n_uses);
		goto release;
	}
	/* a table whose piece counts disagree with its sizes would write past the columns */
	for (size_t sid = 0; sid < t.n_sids; sid++) {
		int64_t p = t.n_pieces[sid];
		if (p && p != (int64_t)(t.nbytes[sid] / piece_bytes + (t.nbytes[sid] % piece_bytes != 0))) {
			PyErr_Format(PyExc_ValueError, "segment %zu: n_pieces %lld for %llu bytes in pieces of %llu", sid,
				     (long long)p, (unsigned long long)t.nbytes[sid], (unsigned long long)piece_bytes);
			goto release;
		}
	}
	for (size_t i = 0; i < n_uses; i++) {
		int64_t sid = use_sid[i];
		if (sid < 0 || (uint64_t)sid >= t.n_sids) {
			PyErr_Format(PyExc_IndexError, "use_sid[%zu] = %lld: no such segment id (%zu)", i,
				     (long long)sid, t.n_sids);
			goto release;
		}
		if (t.n_pieces[sid] == 0) {     /* the segment left the store */
			out = Py_None;
			Py_INCREF(out);
			goto release;
		}
		/* the sum is the columns' size: bounded here, as wrapping would allocate too little */
		if ((uint64_t)t.n_pieces[sid] > (uint64_t)PY_SSIZE_T_MAX / 8 - n_bds) {
			PyErr_Format(PyExc_ValueError, "lay_out_bds: the segment uses up to use_sid[%zu] make more than "
				     "%zd BDs; play fewer or shorter segments", i, PY_SSIZE_T_MAX / 8);
			goto release;
		}
		n_bds += (uint64_t)t.n_pieces[sid];
	}
	struct bd_columns c;
	if (!(col[0] = sgpy_column(n_bds, 8, (void **)&c.address, true))
	    || !(col[1] = sgpy_column(n_bds, 4, (void **)&c.length, true))
	    || !(col[2] = sgpy_column(n_bds, 1, (void **)&c.flags, true))
	    || !(col[3] = sgpy_column(n_bds, 8, (void **)&c.sid, true))
	    || !(col[4] = sgpy_column(n_apps, 8, (void **)&c.gate_end, true))
	    || !(col[5] = sgpy_column(n_apps, 8, (void **)&c.gate_bytes, true)))
		goto release;
	Py_BEGIN_ALLOW_THREADS
	lay_out_bds(&t, use_sid, uses, n_apps, n_uses, (size_t)n_bds, &c);
	Py_END_ALLOW_THREADS
	out = PyTuple_Pack(6, col[0], col[1], col[2], col[3], col[4], col[5]);
release:
	for (int k = 0; k < 6; k++)
		Py_XDECREF(col[k]);
	while (got-- > 0)
		PyBuffer_Release(&b[got]);
	return out;
}

static PyMethodDef compile_methods[] = {
	{ "distinct_rows", py_distinct_rows, METH_O,
	  "distinct_rows(columns) -> (first, inverse) int64 bytearrays: distinct rows of columns side by side "
	  "(float64/int64/int32/int16, (n,) or (n, w)) in order of first appearance (-0.0 == 0.0, NaN == NaN)" },
	{ "expand_uses", py_expand_uses, METH_VARARGS,
	  "expand_uses(app_variant, v_len, v_flat) -> bytearray of int64: each application's segment ids in order" },
	{ "lay_out_bds", py_lay_out_bds, METH_VARARGS,
	  "lay_out_bds(use_sid, uses_per_app, address, nbytes, n_pieces, piece_bytes) -> (addresses, lengths, "
	  "flags, bd_sid, gate_bd_end, gate_bytes) bytearrays, or None when a used segment has no piece" },
	{ NULL, NULL, 0, NULL },
};

int sgpy_register_compile(PyObject *m)
{
	if (PyModule_AddIntConstant(m, "DISTINCT_ROWS_MAX_VALUES", MAX_KEY_WORDS) < 0)   /* compiler.py folds wider rows */
		return -1;
	return PyModule_AddFunctions(m, compile_methods);
}
