/*
 * trace.c - binding of the board's PL trace (csrc/vboard/pl/trace.c): the MM2S
 * beats and the timing engine's GPIO writes as byte buffers that sgdma.board.beats
 * turns into numpy arrays.
 */
#include "core.h"

static PyObject *trace_enable(PyObject *mod, PyObject *args)
{
	PyObject *board;
	int on;
	vb_board *b;
	(void)mod;
	if (!PyArg_ParseTuple(args, "Op", &board, &on) || !(b = sgpy_board(board)))
		return NULL;
	vb_trace_enable(b, on);
	Py_RETURN_NONE;
}

static PyObject *trace_take(PyObject *mod, PyObject *arg)
{
	const struct vb_trace *r;
	vb_board *b = sgpy_board(arg);
	(void)mod;
	if (!b)
		return NULL;
	r = vb_trace_state(b);
#define BYTES(p, n) PyBytes_FromStringAndSize((const char *)(p), (Py_ssize_t)((n) * sizeof(*(p))))
	return Py_BuildValue("{s:O,s:K,s:N,s:N,s:N,s:N,s:N}", "on", r->on ? Py_True : Py_False,
			     "clk_origin_ps", (unsigned long long)r->clk_origin,
			     "beat_ps", BYTES(r->beat_t, r->n_beats), "beat_last", BYTES(r->beat_last, r->n_beats),
			     "ctl_ps", BYTES(r->ctl_t, r->n_ctl), "ctl_value", BYTES(r->ctl_v, r->n_ctl),
			     "ctl_reg", BYTES(r->ctl_reg, r->n_ctl));
#undef BYTES
}

static PyMethodDef trace_methods[] = {
	{ "trace_enable", trace_enable, METH_VARARGS,
	  "trace_enable(board, on): record the MM2S beats and timing-engine GPIO writes (clears)" },
	{ "trace_take", trace_take, METH_O, "trace_take(board) -> dict of raw arrays (uint64/uint8/uint32 bytes)" },
	{ NULL, NULL, 0, NULL },
};

int sgpy_register_trace(PyObject *m)
{
	return PyModule_AddFunctions(m, trace_methods);
}
