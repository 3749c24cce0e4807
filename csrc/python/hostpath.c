/*
 * hostpath.c - binding of the host path's board calls: the CPU's memory
 * operations (csrc/vboard/cpu/cpuops.c), one call per operation, and the
 * CPU's sleep until a DMA interrupt; both simulate with the GIL released.
 */
#include <string.h>

#include "core.h"
#include "cpu/cpuops.h"

static int kind_of(const char *name, enum vb_cpuop_kind *k)
{
	for (int i = 0; i < VB_CPUOP_KINDS; i++) {
		if (!strcmp(name, vb_cpuop_name((enum vb_cpuop_kind)i))) {
			*k = (enum vb_cpuop_kind)i;
			return 0;
		}
	}
	PyErr_Format(PyExc_ValueError, "cpu op '%s': choose read, copy, memset, clean, invalidate, flush, "
		     "uncached_read or uncached_write", name);
	return -1;
}

/* cpu_op(board, kind, addr, len, dst, ns_per_line, ns_per_word, word_bytes, fixed_ns[, outstanding]) -> dict */
static PyObject *py_cpu_op(PyObject *mod, PyObject *args)
{
	PyObject *o;
	const char *kind;
	struct vb_cpuop op = { 0 };
	struct vb_cpuop_result r;
	char err[256];
	int rc;
	vb_board *b;
	(void)mod;
	if (!PyArg_ParseTuple(args, "OsO&O&O&ddO&d|O&", &o, &kind, sgpy_u64, &op.addr, sgpy_u64, &op.len, sgpy_u64,
			      &op.dst, &op.ns_per_line, &op.ns_per_word, sgpy_u32, &op.word_bytes, &op.fixed_ns,
			      sgpy_u32, &op.outstanding))
		return NULL;
	if (!(b = sgpy_board(o)) || kind_of(kind, &op.kind) < 0)
		return NULL;
	SGPY_SIMULATE((BoardObject *)o, rc = vb_cpuop_run(b, &op, &r, err, sizeof err));
	if (rc < 0) {
		PyErr_SetString(PyExc_ValueError, err);
		return NULL;
	}
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K}", "t_start_ps", (unsigned long long)r.t_start, "t_end_ps",
			     (unsigned long long)r.t_end, "lines", (unsigned long long)r.lines, "requests",
			     (unsigned long long)r.requests, "read_bytes", (unsigned long long)r.read_bytes,
			     "write_bytes", (unsigned long long)r.write_bytes);
}

static PyObject *py_cpu_op_stats(PyObject *mod, PyObject *arg)
{
	const struct vb_cpuop_stats *s;
	vb_board *b = sgpy_board(arg);
	(void)mod;
	if (!b)
		return NULL;
	s = vb_cpuop_stats(b);
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K}", "ops", (unsigned long long)s->ops, "requests",
			     (unsigned long long)s->requests, "read_bytes", (unsigned long long)s->read_bytes,
			     "write_bytes", (unsigned long long)s->write_bytes, "busy_ps",
			     (unsigned long long)s->busy_ps);
}

/* run_until_irq(board, channel, limit_ps) -> bool: step until the line is up or the limit */
static PyObject *py_run_until_irq(PyObject *mod, PyObject *args)
{
	PyObject *o;
	enum vb_chan_id ch;
	uint64_t limit;
	bool up;
	vb_board *b;
	(void)mod;
	if (!PyArg_ParseTuple(args, "OO&O&", &o, sgpy_channel, &ch, sgpy_u64, &limit) || !(b = sgpy_board(o)))
		return NULL;
	SGPY_SIMULATE((BoardObject *)o, up = vb_run_until_irq(b, ch, limit));
	return PyBool_FromLong(up);
}

static PyMethodDef cpuops_methods[] = {
	{ "run_until_irq", py_run_until_irq, METH_VARARGS,
	  "run_until_irq(board, channel, limit_ps) -> bool: step the board until the channel's IRQ line is up" },
	{ "cpu_op", py_cpu_op, METH_VARARGS,
	  "cpu_op(board, kind, addr, len, dst, ns_per_line, ns_per_word, word_bytes, fixed_ns[, outstanding]) -> dict: one CPU "
	  "memory operation as DRAM traffic on the CPU port" },
	{ "cpu_op_stats", py_cpu_op_stats, METH_O, "cpu_op_stats(board) -> totals of the CPU's memory operations" },
	{ NULL, NULL, 0, NULL },
};

int sgpy_register_cpuops(PyObject *m)
{
	return PyModule_AddFunctions(m, cpuops_methods);
}
