/*
 * fetchlog.c - event logs the reports draw over time: the MM2S channel's BD
 * fetches (issue time, data back), in ps.
 */
#include "core.h"

/* (board, channel) of both functions; NULL with an exception when either is wrong. */
static vb_board *board_and_channel(PyObject *args, enum vb_chan_id *ch)
{
	PyObject *board;
	if (!PyArg_ParseTuple(args, "OO&", &board, sgpy_channel, ch))
		return NULL;
	return sgpy_board(board);
}

static PyObject *py_fetch_log(PyObject *self, PyObject *args)
{
	enum vb_chan_id ch;
	vb_board *b = board_and_channel(args, &ch);
	size_t n;
	uint64_t dropped;
	const uint64_t *log;
	(void)self;
	if (!b)
		return NULL;
	log = vb_fetch_log(b, ch, &n, &dropped);
	PyObject *bytes = PyBytes_FromStringAndSize((const char *)log, (Py_ssize_t)(n * 2 * sizeof(uint64_t)));
	if (!bytes)
		return NULL;
	return Py_BuildValue("(NK)", bytes, (unsigned long long)dropped);
}

static PyObject *py_fetch_log_clear(PyObject *self, PyObject *args)
{
	enum vb_chan_id ch;
	vb_board *b = board_and_channel(args, &ch);
	(void)self;
	if (!b)
		return NULL;
	vb_fetch_log_clear(b, ch);
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
