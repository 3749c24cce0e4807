/*
 * playback.c - a playback's per-gate results as columns: the MM2S sink's
 * packets (one per gate) and the DAC's underflows and deadline misses, each
 * field a bytes object of native uint64 (cut flags uint8) that numpy views
 * without a copy.  Per-packet tuples cost ~1 us each; these cost a memcpy.
 */
#include "core.h"

#include <string.h>

static PyObject *py_sink_columns(PyObject *self, PyObject *board)
{
	vb_board *b = sgpy_board(board);
	uint64_t *len, *first, *last;
	uint8_t *cut;
	(void)self;
	if (!b)
		return NULL;
	size_t n = vb_sink_count(b);
	PyObject *c0 = sgpy_column(n, 8, (void **)&len, false);
	PyObject *c1 = c0 ? sgpy_column(n, 8, (void **)&first, false) : NULL;
	PyObject *c2 = c1 ? sgpy_column(n, 8, (void **)&last, false) : NULL;
	PyObject *c3 = c2 ? sgpy_column(n, 1, (void **)&cut, false) : NULL;
	if (!c3) {
		Py_XDECREF(c0);
		Py_XDECREF(c1);
		Py_XDECREF(c2);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct vb_packet *p = vb_sink_packet(b, i);
		len[i] = p->length;
		first[i] = p->t_first_ps;
		last[i] = p->t_last_ps;
		cut[i] = p->cut;
	}
	return Py_BuildValue("{s:N,s:N,s:N,s:N}", "length", c0, "first_ps", c1, "last_ps", c2, "cut", c3);
}

/* (gate, beat, t_due, t_actual) rows as n * 4 uint64. */
static PyObject *events(const struct vb_dac_event *e, size_t n)
{
	uint64_t *out;
	PyObject *c = sgpy_column(n, 4 * sizeof(uint64_t), (void **)&out, false);
	for (size_t i = 0; c && i < n; i++) {
		out[4 * i] = e[i].gate;
		out[4 * i + 1] = e[i].beat;
		out[4 * i + 2] = e[i].t_due;
		out[4 * i + 3] = e[i].t_actual;
	}
	return c;
}

static PyObject *py_dac_columns(PyObject *self, PyObject *board)
{
	vb_board *b = sgpy_board(board);
	(void)self;
	if (!b)
		return NULL;
	const struct vb_dac *d = vb_dac_state(b);
	PyObject *under = events(d->underflows, d->n_underflows);
	PyObject *miss = under ? events(d->misses, d->n_misses) : NULL;
	if (!miss) {
		Py_XDECREF(under);
		return NULL;
	}
	return Py_BuildValue("{s:N,s:N,s:K,s:K,s:K}", "underflows", under, "misses", miss, "t0_nominal_ps",
			     (unsigned long long)d->t0_nominal, "beat_ps", (unsigned long long)d->beat_ps,
			     "beats", (unsigned long long)d->beats);
}

static PyMethodDef playback_methods[] = {
	{ "sink_columns", py_sink_columns, METH_O,
	  "sink_columns(board) -> {length, first_ps, last_ps: bytes of uint64; cut: bytes of uint8}, one per packet" },
	{ "dac_columns", py_dac_columns, METH_O,
	  "dac_columns(board) -> {underflows, misses: bytes of (gate, beat, t_due_ps, t_actual_ps) uint64 rows; "
	  "t0_nominal_ps, beat_ps, beats}" },
	{ NULL, NULL, 0, NULL },
};

int sgpy_register_playback(PyObject *m)
{
	return PyModule_AddFunctions(m, playback_methods);
}
