/*
 * region.c - Region: a window of board memory as a writable Python buffer
 * (zero copy; numpy arrays view it).  A Region keeps its board alive, so a
 * view can never outlive the memory behind it.
 */
#include "core.h"

/* ---- Region: a DDR aperture as a writable buffer (zero copy) --------------- */

typedef struct {
	PyObject_HEAD
	BoardObject *board;
	void *host;
	Py_ssize_t size;
	PyObject *weakreflist;
} RegionObject;

static PyObject *Region_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	BoardObject *board;
	uint64_t base, size;
	RegionObject *self;
	void *host;
	if (kw && PyDict_GET_SIZE(kw)) {
		PyErr_SetString(PyExc_TypeError, "Region(board, base, size) takes no keyword arguments");
		return NULL;
	}
	if (!PyArg_ParseTuple(args, "O!O&O&", &BoardType, &board, sgpy_u64, &base, sgpy_u64, &size))
		return NULL;
	if (sgpy_board_ready(board) < 0)
		return NULL;
	if (size > (uint64_t)PY_SSIZE_T_MAX) {
		PyErr_Format(PyExc_ValueError, "Region: size 0x%llx exceeds a buffer's length", (unsigned long long)size);
		return NULL;
	}
	host = vb_mem_ptr(board->b, base, size);
	if (!host) {
		PyErr_Format(PyExc_ValueError, "0x%llx + 0x%llx is not inside one DDR region of the board",
			     (unsigned long long)base, (unsigned long long)size);
		return NULL;
	}
	self = (RegionObject *)type->tp_alloc(type, 0);
	if (!self)
		return NULL;
	Py_INCREF(board);
	self->board = board;
	self->host = host;
	self->size = (Py_ssize_t)size;
	return (PyObject *)self;
}

static void Region_dealloc(RegionObject *self)
{
	if (self->weakreflist)
		PyObject_ClearWeakRefs((PyObject *)self);
	Py_XDECREF(self->board);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Region_getbuffer(RegionObject *self, Py_buffer *view, int flags)
{
	return PyBuffer_FillInfo(view, (PyObject *)self, self->host, self->size, 0, flags);
}

static PyBufferProcs Region_as_buffer = {
	.bf_getbuffer = (getbufferproc)Region_getbuffer,
};

PyTypeObject RegionType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "sgdma._core.Region",
	.tp_basicsize = sizeof(RegionObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Region(board, base, size): board memory as a writable buffer; keeps the board alive",
	.tp_new = Region_new,
	.tp_weaklistoffset = offsetof(RegionObject, weakreflist),
	.tp_dealloc = (destructor)Region_dealloc,
	.tp_as_buffer = &Region_as_buffer,
};


int sgpy_add_region(PyObject *m)
{
	if (PyType_Ready(&RegionType) < 0)
		return -1;
	Py_INCREF(&RegionType);
	if (PyModule_AddObject(m, "Region", (PyObject *)&RegionType) < 0) {
		Py_DECREF(&RegionType);
		return -1;
	}
	return 0;
}
