/*
 * compile.c - the sequence compiler's two per-BD passes (sgdma.sequence.compiler):
 * variants -> segment uses, and segment uses -> BD arrays.  numpy needs ~15 passes
 * over index arrays for these (repeat, cumsum, gathers, reduceat); one loop each
 * here.  Inputs are int64/uint64 buffers; outputs are bytearrays numpy views
 * writable without a copy.  Every index is checked before it is used.
 */
#include "core.h"

#include <stdint.h>
#include <string.h>


/* A new bytearray of n * size bytes (filled by the caller), or NULL. */
static PyObject *out_column(size_t n, size_t size, void **data)
{
	if (n > (size_t)PY_SSIZE_T_MAX / (size ? size : 1)) {
		PyErr_NoMemory();
		return NULL;
	}
	PyObject *b = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(n * size));
	if (b)
		*data = PyByteArray_AS_STRING(b);
	return b;
}

/* A contiguous buffer of 64-bit integers; its item count in *n. */
static int get_u64s(PyObject *o, Py_buffer *v, size_t *n, const char *what)
{
	if (PyObject_GetBuffer(o, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
		return -1;
	const char *f = v->format ? v->format : "B";
	if (*f == '<' || *f == '=' || *f == '@')
		f++;
	if (v->itemsize != 8 || !strchr("qQlL", *f) || f[1]) {
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
		total += (uint64_t)vl[a[i]];
	}
	int64_t *use;
	out = out_column(total, 8, (void **)&use);
	if (out) {
		Py_BEGIN_ALLOW_THREADS
		for (size_t i = 0; i < n_app; i++) {
			int64_t v = a[i];
			memcpy(use, vf + ptr[v], (size_t)vl[v] * sizeof *use);
			use += vl[v];
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
			struct bd_columns *c)
{
	size_t bd = 0, u = 0;

	for (size_t g = 0; g < n_apps; g++) {
		size_t first = bd;
		uint64_t bytes = 0;
		for (int64_t k = 0; k < uses[g]; k++, u++) {
			int64_t sid = use_sid[u];
			uint64_t base = t->address[sid], left = t->nbytes[sid];
			for (int64_t p = 0; p < t->n_pieces[sid]; p++, bd++) {
				uint64_t n = left < t->piece_bytes ? left : t->piece_bytes;
				c->address[bd] = base + (uint64_t)p * t->piece_bytes;
				c->length[bd] = (uint32_t)n;
				c->flags[bd] = 0;
				c->sid[bd] = sid;
				left -= n;
				bytes += n;
			}
		}
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
	for (size_t i = 0; i < n_uses; i++) {
		int64_t sid = use_sid[i];
		if (sid < 0 || (uint64_t)sid >= t.n_sids) {
			PyErr_Format(PyExc_IndexError, "use_sid[%zu] = %lld: no such segment id (%zu)", i,
				     (long long)sid, t.n_sids);
			goto release;
		}
		int64_t p = t.n_pieces[sid];
		if (p == 0) {                   /* the segment left the store */
			out = Py_None;
			Py_INCREF(out);
			goto release;
		}
		/* a table whose piece counts disagree with its sizes would write past the columns */
		if (p != (int64_t)(t.nbytes[sid] / piece_bytes + (t.nbytes[sid] % piece_bytes != 0))) {
			PyErr_Format(PyExc_ValueError, "segment %lld: n_pieces %lld for %llu bytes in pieces of %llu",
				     (long long)sid, (long long)p, (unsigned long long)t.nbytes[sid],
				     (unsigned long long)piece_bytes);
			goto release;
		}
		n_bds += (uint64_t)p;
	}
	struct bd_columns c;
	if (!(col[0] = out_column(n_bds, 8, (void **)&c.address)) || !(col[1] = out_column(n_bds, 4, (void **)&c.length))
	    || !(col[2] = out_column(n_bds, 1, (void **)&c.flags)) || !(col[3] = out_column(n_bds, 8, (void **)&c.sid))
	    || !(col[4] = out_column(n_apps, 8, (void **)&c.gate_end))
	    || !(col[5] = out_column(n_apps, 8, (void **)&c.gate_bytes)))
		goto release;
	Py_BEGIN_ALLOW_THREADS
	lay_out_bds(&t, use_sid, uses, n_apps, &c);
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
	{ "expand_uses", py_expand_uses, METH_VARARGS,
	  "expand_uses(app_variant, v_len, v_flat) -> bytearray of int64: each application's segment ids in order" },
	{ "lay_out_bds", py_lay_out_bds, METH_VARARGS,
	  "lay_out_bds(use_sid, uses_per_app, address, nbytes, n_pieces, piece_bytes) -> (addresses, lengths, "
	  "flags, bd_sid, gate_bd_end, gate_bytes) bytearrays, or None when a used segment has no piece" },
	{ NULL, NULL, 0, NULL },
};

int sgpy_register_compile(PyObject *m)
{
	return PyModule_AddFunctions(m, compile_methods);
}
