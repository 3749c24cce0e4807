/*
 * module.c - sgdma._core: module functions (S0's benchmark program, status
 * table, register decoding), the hardware contract's constants and module
 * init.  The converters every file uses are in convert.c.
 *
 * Hand-written CPython rather than Cython: the binding is thin (objects own C
 * structs, bulk data crosses as buffers), the C core must stay freestanding
 * and buildable without a Python toolchain, and a plain C file keeps the
 * build to setuptools alone; the rules in core.h give the safety Cython's
 * typed conversions would.
 */
#include "core.h"

#include <stddef.h>
#include <string.h>

#include "sgdma/csm.h"
#include "sgdma/s0_bench.h"
#include "mem/coherency.h"

/* ---- module ---------------------------------------------------------------- */

/* S0's RPU program (csrc/apps/s0_bench.c) for every seed, each after reseeding
 * the board: returns (counts: n x 4 uint32 setup/latency/throughput/beats in PL
 * clocks, simulated: n uint64 ps). */
static PyObject *s0_trials(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "board", "dma_base", "gpio_base", "bd_dev", "bd_capacity", "buffer_base",
				  "buffer_bytes", "addr_width", "length_width", "data_bytes", "poll_limit",
				  "bytes_per_bd", "bds", "cycles", "random", "simple", "seeds", NULL };
	BoardObject *board;
	struct s0_bench bench = { 0 };
	struct s0_point pt = { 0 };
	uint64_t bd_capacity;
	uint32_t poll_limit, bytes_per_bd, bds, cycles, addr_width, length_width, data_bytes;
	int random = 0, simple = 0;
	Py_buffer seeds;
	PyObject *counts, *sim;
	struct sg_platform plat;
	struct sg_error err;
	enum sg_status st = SG_OK;
	Py_ssize_t n, done = 0;
	(void)m;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O&O&O&O&O&O&O&O&O&O&O&O&O&ppy*", kwlist, &BoardType, &board,
					 sgpy_u64, &bench.dma_base, sgpy_u64, &bench.gpio_base, sgpy_u64, &bench.bd_dev,
					 sgpy_u64, &bd_capacity, sgpy_u64, &bench.buffer_base, sgpy_u64,
					 &bench.buffer_bytes, sgpy_u32, &addr_width, sgpy_u32, &length_width, sgpy_u32,
					 &data_bytes, sgpy_u32, &poll_limit, sgpy_u32, &bytes_per_bd, sgpy_u32, &bds,
					 sgpy_u32, &cycles, &random, &simple, &seeds))
		return NULL;
	if (sgpy_board_ready(board) < 0 || bd_capacity > UINT32_MAX) {
		if (!PyErr_Occurred())
			PyErr_Format(PyExc_ValueError, "s0_trials: bd_capacity %llu exceeds the driver's 32-bit BD count",
				     (unsigned long long)bd_capacity);
		PyBuffer_Release(&seeds);
		return NULL;
	}
	bench.bd_capacity = (uint32_t)bd_capacity;
	bench.addr_width = addr_width;
	bench.length_width = length_width;
	bench.data_bytes = data_bytes;
	bench.poll_limit = poll_limit;
	pt.bytes_per_bd = bytes_per_bd;
	pt.bds = bds;
	pt.cycles = cycles;
	pt.random = random;
	pt.simple = simple;
	bench.bd_cpu = vb_mem_ptr(board->b, bench.bd_dev, bd_capacity * PG021_BD_SIZE);
	if (!bench.bd_cpu || seeds.len % 8) {
		PyBuffer_Release(&seeds);
		PyErr_SetString(PyExc_ValueError, "s0_trials: BD region not in board memory, or seeds not uint64");
		return NULL;
	}
	n = seeds.len / 8;
	counts = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(struct s0_counts));
	sim = PyBytes_FromStringAndSize(NULL, n * 8);
	if (!counts || !sim) {
		PyBuffer_Release(&seeds);
		Py_XDECREF(counts);
		Py_XDECREF(sim);
		return NULL;
	}
	plat.ops = vb_platform_ops();
	plat.ctx = board->b;
	{
		const uint64_t *seed = seeds.buf;
		struct s0_counts *out = (struct s0_counts *)PyBytes_AS_STRING(counts);
		uint64_t *elapsed = (uint64_t *)PyBytes_AS_STRING(sim);
		/* every trial is pure C over the board: no Python object is touched */
		SGPY_SIMULATE(board, {
			for (; done < n; done++) {
				uint64_t t0;
				vb_reseed(board->b, seed[done]);
				vb_sink_clear(board->b);          /* a trial's packets are not kept */
				t0 = vb_now_ps(board->b);
				st = s0_trial(plat, &bench, &pt, seed[done], &out[done], &err);
				if (st != SG_OK)
					break;
				elapsed[done] = vb_now_ps(board->b) - t0;
			}
		});
	}
	PyBuffer_Release(&seeds);
	if (st != SG_OK) {
		Py_DECREF(counts);
		Py_DECREF(sim);
		return sgpy_raise(&err);
	}
	return Py_BuildValue("(NN)", counts, sim);
}

static PyObject *status_table(PyObject *m, PyObject *u)
{
	PyObject *list = PyList_New(0);
	(void)m;
	(void)u;
	for (int i = 0; list && i < SG_STATUS_COUNT; i++)
		if (sgpy_append(list, Py_BuildValue("(isss)", i, sg_status_name(i), sg_status_rule(i),
						    sg_status_fix(i))) < 0)
			Py_CLEAR(list);
	return list;
}

static PyObject *format_reg(PyObject *m, PyObject *args)
{
	const char *which;
	uint32_t v;
	char buf[512];
	(void)m;
	if (!PyArg_ParseTuple(args, "sO&", &which, sgpy_u32, &v))
		return NULL;
	if (!strcmp(which, "dmacr"))
		sg_format_dmacr((uint32_t)v, buf, sizeof(buf));
	else if (!strcmp(which, "dmasr"))
		sg_format_dmasr((uint32_t)v, buf, sizeof(buf));
	else if (!strcmp(which, "bd_status"))
		sg_format_bd_status((uint32_t)v, buf, sizeof(buf));
	else {
		PyErr_Format(PyExc_ValueError, "format_reg: unknown register %s (dmacr, dmasr, bd_status)", which);
		return NULL;
	}
	return PyUnicode_FromString(buf);
}

static PyMethodDef module_methods[] = {
	{ "s0_trials", (PyCFunction)(void (*)(void))s0_trials, METH_VARARGS | METH_KEYWORDS,
	  "run S0's RPU benchmark program once per seed" },
	{ "status_table", status_table, METH_NOARGS, "(code, name, rule, fix) of every driver status" },
	{ "format_reg", format_reg, METH_VARARGS, "decode a DMACR/DMASR/BD STATUS value" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "sgdma._core", "sgdma C core: driver, virtual board", -1, module_methods,
	NULL, NULL, NULL, NULL,
};

static int add_int(PyObject *d, const char *name, unsigned long long v)
{
	PyObject *o = PyLong_FromUnsignedLongLong(v);
	int rc = o ? PyDict_SetItemString(d, name, o) : -1;
	Py_XDECREF(o);
	return rc;
}

static int add_constants(PyObject *m)
{
	PyObject *d = PyDict_New();
	if (!d)
		return -1;
#define EXPORT(name) \
	if (add_int(d, #name, (unsigned long long)(name)) < 0) \
		goto fail;
	PG021_EXPORTS(EXPORT)
	CSM_EXPORTS(EXPORT)
	EXPORT(VB_DMA_SPAN)
	EXPORT(VB_GPIO_BLOCKS)
	EXPORT(VB_GPIO_WINDOW)
	EXPORT(VB_COH_SYNC)
	EXPORT(VB_COH_UNCACHED)
	EXPORT(VB_COH_COHERENT)
	SG_CONTRACT_EXPORTS(EXPORT)
#undef EXPORT
	/* struct sg_completion as numpy must see it: size and each field's offset */
	if (add_int(d, "SG_COMPLETION_SIZE", sizeof(struct sg_completion)) < 0 ||
	    add_int(d, "SG_COMPLETION_OFF_index", offsetof(struct sg_completion, index)) < 0 ||
	    add_int(d, "SG_COMPLETION_OFF_bytes", offsetof(struct sg_completion, bytes)) < 0 ||
	    add_int(d, "SG_COMPLETION_OFF_status", offsetof(struct sg_completion, status)) < 0 ||
	    add_int(d, "SG_COMPLETION_OFF_flags", offsetof(struct sg_completion, flags)) < 0)
		goto fail;
	if (PyModule_AddObject(m, "constants", d) < 0)
		goto fail;
	return 0;
fail:
	Py_DECREF(d);
	return -1;
}

PyMODINIT_FUNC PyInit__core(void)
{
	PyObject *m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	if (sgpy_add_board(m) < 0 || sgpy_add_region(m) < 0 || sgpy_add_driver(m) < 0 ||
	    sgpy_register_extensions(m) < 0 || add_constants(m) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
