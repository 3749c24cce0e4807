/*
 * fetchlog.c - event logs the reports draw over time: the MM2S channel's BD
 * fetches (issue time, data back), in ps.
 */
#include "core.h"

static PyObject *py_fetch_log(PyObject *self, PyObject *args)
{
	PyObject *board;
	int ch;
	(void)self;
	if (!PyArg_ParseTuple(args, "Oi", &board, &ch))
		return NULL;
	vb_board *b = sgpy_board(board);
	if (!b)
		return NULL;
	if (ch != 0 && ch != 1) {
		PyErr_SetString(PyExc_ValueError, "fetch_log: channel is 0 (MM2S) or 1 (S2MM)");
		return NULL;
	}
	size_t n;
	uint64_t dropped;
	const uint64_t *log = vb_fetch_log(b, ch ? VB_S2MM : VB_MM2S, &n, &dropped);
	PyObject *bytes = PyBytes_FromStringAndSize((const char *)log, (Py_ssize_t)(n * 2 * sizeof(uint64_t)));
	if (!bytes)
		return NULL;
	return Py_BuildValue("(NK)", bytes, (unsigned long long)dropped);
}

static PyObject *py_fetch_log_clear(PyObject *self, PyObject *args)
{
	PyObject *board;
	int ch;
	(void)self;
	if (!PyArg_ParseTuple(args, "Oi", &board, &ch))
		return NULL;
	vb_board *b = sgpy_board(board);
	if (!b)
		return NULL;
	if (ch != 0 && ch != 1) {
		PyErr_SetString(PyExc_ValueError, "fetch_log_clear: channel is 0 (MM2S) or 1 (S2MM)");
		return NULL;
	}
	vb_fetch_log_clear(b, ch ? VB_S2MM : VB_MM2S);
	Py_RETURN_NONE;
}

static PyMethodDef fetchlog_methods[] = {
	{ "fetch_log", py_fetch_log, METH_VARARGS, "fetch_log(board, ch) -> (bytes of (issue, done) ps pairs, dropped)" },
	{ "fetch_log_clear", py_fetch_log_clear, METH_VARARGS, "fetch_log_clear(board, ch): forget logged fetches" },
	{ NULL, NULL, 0, NULL },
};

int sgpy_register_fetchlog(PyObject *m)
{
	return PyModule_AddFunctions(m, fetchlog_methods);
}
