/*
 * linux.c - sgdma._core.LinuxPlatform: the Linux user-space platform ops
 * (csrc/platform/linux) for the driver API.  Registered by module.c through
 * sgdma_py_linux_register(); Chan takes a LinuxPlatform where it takes a Board.
 *
 * The register hook lets a Python object (a VirtualBoard, in the fake-root
 * tests) serve the register window; interrupt waits release the GIL so a
 * device thread can run while the driver sleeps on /dev/uioN.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sgdma/platform_linux.h"
#include "vboard.h"
#include "convert.h"
#include "pylinux.h"

typedef struct {
	PyObject_HEAD
	struct sg_linux lx;
	PyObject *registers;       /* hook target or NULL */
	struct sg_platform_ops ops;
	bool open;
	Py_ssize_t exports;
} LinuxObject;

/* ---- the register hook: a Python object's read32/write32 ------------------- */

static uint32_t hook_read(void *ctx, uint64_t addr)
{
	PyGILState_STATE g = PyGILState_Ensure();
	PyObject *r = PyObject_CallMethod((PyObject *)ctx, "read32", "K", (unsigned long long)addr);
	uint32_t v = 0xFFFFFFFFu;

	if (r) {
		uint64_t w;
		if (sgpy_range(r, "read32 hook: the register value", 0, UINT32_MAX, &w))
			v = (uint32_t)w;
		Py_DECREF(r);
	}
	if (PyErr_Occurred())
		PyErr_WriteUnraisable((PyObject *)ctx);
	PyGILState_Release(g);
	return v;
}

static void hook_write(void *ctx, uint64_t addr, uint32_t value)
{
	PyGILState_STATE g = PyGILState_Ensure();
	PyObject *r = PyObject_CallMethod((PyObject *)ctx, "write32", "KI", (unsigned long long)addr, value);

	Py_XDECREF(r);
	if (PyErr_Occurred())
		PyErr_WriteUnraisable((PyObject *)ctx);
	PyGILState_Release(g);
}

/* The interrupt wait blocks in poll(): let other threads run meanwhile. */
static int wait_irq_nogil(void *ctx, unsigned dir, uint32_t timeout_us)
{
	int r;

	Py_BEGIN_ALLOW_THREADS
	r = sg_linux_ops.wait_irq(ctx, dir, timeout_us);
	Py_END_ALLOW_THREADS
	return r;
}

/* ---- LinuxPlatform --------------------------------------------------------- */

static int Linux_init(LinuxObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "dma", "buffers", "cache", "mm2s_irq", "s2mm_irq", "registers", NULL };
	const char *dma, *buffers = NULL, *cache = "sync", *irq[2] = { NULL, NULL };
	PyObject *registers = Py_None;
	enum sg_linux_policy policy;
	char err[1024];

	if (self->open) {
		PyErr_SetString(PyExc_RuntimeError, "LinuxPlatform already open");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|zszzO", kwlist, &dma, &buffers, &cache, &irq[0], &irq[1],
					 &registers))
		return -1;
	if (!strcmp(cache, "sync"))
		policy = SG_LINUX_CACHED;
	else if (!strcmp(cache, "uncached"))
		policy = SG_LINUX_UNCACHED;
	else if (!strcmp(cache, "coherent"))
		policy = SG_LINUX_COHERENT;
	else if (!strcmp(cache, "writecombine"))
		policy = SG_LINUX_WRITECOMBINE;
	else {
		PyErr_Format(PyExc_ValueError, "cache=%s: choose sync, uncached, writecombine or coherent", cache);
		return -1;
	}
	sg_linux_init(&self->lx);
	self->ops = sg_linux_ops;
	self->ops.wait_irq = wait_irq_nogil;
	if (registers != Py_None) {
		Py_INCREF(registers);
		self->registers = registers;
		self->lx.hook = (struct sg_linux_reg_hook){ hook_read, hook_write, registers };
	}
	if (sg_linux_open_dma(&self->lx, dma, err, sizeof(err)) < 0)
		goto fail;
	for (unsigned d = 0; d < 2; d++)
		if (irq[d] && sg_linux_open_irq(&self->lx, d, irq[d], err, sizeof(err)) < 0)
			goto fail;
	if (buffers && sg_linux_open_buffer(&self->lx, buffers, policy, err, sizeof(err)) < 0)
		goto fail;
	self->open = true;
	return 0;
fail:
	sg_linux_close(&self->lx);
	PyErr_SetString(PyExc_OSError, err);
	return -1;
}

static void Linux_dealloc(LinuxObject *self)
{
	if (self->open)
		sg_linux_close(&self->lx);
	Py_XDECREF(self->registers);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

#define LINUX_OPEN(self) \
	do { if (!(self)->open) { PyErr_SetString(PyExc_RuntimeError, "LinuxPlatform is closed"); return NULL; } } while (0)

static PyObject *Linux_close(LinuxObject *self, PyObject *u)
{
	(void)u;
	if (self->exports) {
		PyErr_SetString(PyExc_BufferError, "arrays still view the DMA buffer: delete them before close()");
		return NULL;
	}
	if (self->open)
		sg_linux_close(&self->lx);
	self->open = false;
	Py_RETURN_NONE;
}

static PyObject *Linux_read32(LinuxObject *self, PyObject *arg)
{
	uint64_t addr;

	LINUX_OPEN(self);
	if (!sgpy_u64(arg, &addr))
		return NULL;
	return PyLong_FromUnsignedLong(self->ops.read32(&self->lx, addr));
}

static PyObject *Linux_write32(LinuxObject *self, PyObject *args)
{
	uint64_t addr;
	uint32_t value;

	LINUX_OPEN(self);
	if (!PyArg_ParseTuple(args, "O&O&", sgpy_u64, &addr, sgpy_u32, &value))
		return NULL;
	self->ops.write32(&self->lx, addr, value);
	Py_RETURN_NONE;
}

/* cache(addr, nbytes, invalidate): the same call the virtual Board has. */
static PyObject *Linux_cache(LinuxObject *self, PyObject *args)
{
	uint64_t addr, len;
	int inval;
	const struct sg_linux_buf *b = &self->lx.buf;

	LINUX_OPEN(self);
	if (!PyArg_ParseTuple(args, "O&O&p", sgpy_u64, &addr, sgpy_u64, &len, &inval))
		return NULL;
	if (!b->map || addr < b->phys || addr - b->phys > b->size || len > b->size - (addr - b->phys)) {
		PyErr_Format(PyExc_ValueError, "0x%llx+%llu is not inside the DMA buffer", (unsigned long long)addr,
			     (unsigned long long)len);
		return NULL;
	}
	if (sg_linux_sync(&self->lx, addr - b->phys, len, !inval) < 0)
		return PyErr_SetFromErrnoWithFilename(PyExc_OSError, "u-dma-buf sync files");
	Py_RETURN_NONE;
}

static PyObject *Linux_lock(LinuxObject *self, PyObject *arg)
{
	char err[1024];
	uint64_t dir;

	LINUX_OPEN(self);
	if (!sgpy_range(arg, "lock: channel (0 MM2S, 1 S2MM)", 0, 1, &dir))
		return NULL;
	if (sg_linux_lock_channel(&self->lx, (unsigned)dir, err, sizeof(err)) < 0) {
		PyErr_SetString(PyExc_OSError, err);
		return NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *uio_dict(const struct sg_linux_uio *u)
{
	return Py_BuildValue("{s:s,s:i,s:K,s:K,s:K}", "name", u->name, "index", u->index, "addr",
			     (unsigned long long)u->addr, "size", (unsigned long long)u->size, "offset",
			     (unsigned long long)u->offset);
}

static PyObject *buf_dict(const struct sg_linux_buf *b)
{
	return Py_BuildValue("{s:s,s:K,s:K,s:O,s:O,s:i,s:I}", "name", b->name, "phys", (unsigned long long)b->phys,
			     "size", (unsigned long long)b->size, "cached", b->cached ? Py_True : Py_False,
			     "coherent", b->coherent ? Py_True : Py_False, "sync_mode", b->sync_mode, "syncs",
			     b->n_syncs);
}

static PyObject *Linux_info(LinuxObject *self, PyObject *u)
{
	(void)u;
	LINUX_OPEN(self);
	return Py_BuildValue("{s:N,s:N,s:(OO),s:(II),s:(II)}", "registers", uio_dict(&self->lx.regs), "buffer",
			     buf_dict(&self->lx.buf), "irq", self->lx.irq_fd[0] >= 0 ? Py_True : Py_False,
			     self->lx.irq_fd[1] >= 0 ? Py_True : Py_False, "irq_count", self->lx.irq_count[0],
			     self->lx.irq_count[1], "irq_waits", self->lx.irq_waits[0], self->lx.irq_waits[1]);
}

static int Linux_getbuffer(LinuxObject *self, Py_buffer *view, int flags)
{
	if (!self->open || !self->lx.buf.map) {
		PyErr_SetString(PyExc_BufferError, "no DMA buffer open (give buffers=...)");
		return -1;
	}
	if (PyBuffer_FillInfo(view, (PyObject *)self, self->lx.buf.map, (Py_ssize_t)self->lx.buf.size, 0, flags) < 0)
		return -1;
	self->exports++;
	return 0;
}

static void Linux_releasebuffer(LinuxObject *self, Py_buffer *view)
{
	(void)view;
	self->exports--;
}

static PyBufferProcs Linux_as_buffer = {
	.bf_getbuffer = (getbufferproc)Linux_getbuffer,
	.bf_releasebuffer = (releasebufferproc)Linux_releasebuffer,
};

static PyMethodDef Linux_methods[] = {
	{ "close", (PyCFunction)Linux_close, METH_NOARGS, "unmap and close everything" },
	{ "read32", (PyCFunction)Linux_read32, METH_O, "register read by physical address" },
	{ "write32", (PyCFunction)Linux_write32, METH_VARARGS, "register write by physical address" },
	{ "cache", (PyCFunction)Linux_cache, METH_VARARGS, "cache(addr, nbytes, invalidate): u-dma-buf sync" },
	{ "lock", (PyCFunction)Linux_lock, METH_O, "lock(dir): refuse other owners of the channel" },
	{ "info", (PyCFunction)Linux_info, METH_NOARGS, "what was opened, sync and interrupt counters" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject LinuxType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "sgdma._core.LinuxPlatform",
	.tp_basicsize = sizeof(LinuxObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "LinuxPlatform(dma, buffers=None, cache='sync', mm2s_irq=None, s2mm_irq=None, registers=None)",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)Linux_init,
	.tp_dealloc = (destructor)Linux_dealloc,
	.tp_methods = Linux_methods,
	.tp_as_buffer = &Linux_as_buffer,
};

int sgdma_py_linux_platform(PyObject *o, struct sg_platform *plat)
{
	LinuxObject *self = (LinuxObject *)o;

	if (!PyObject_TypeCheck(o, &LinuxType))
		return 0;
	if (!self->open) {
		PyErr_SetString(PyExc_RuntimeError, "LinuxPlatform is closed");
		return -1;
	}
	plat->ops = &self->ops;
	plat->ctx = &self->lx;
	return 1;
}

/* ---- enumeration and the fake root's shared DDR -------------------------------- */

static void list_uio_cb(void *arg, const struct sg_linux_uio *u)
{
	PyObject *d = uio_dict(u);

	if (d) {
		PyList_Append((PyObject *)arg, d);
		Py_DECREF(d);
	}
}

static void list_buf_cb(void *arg, const struct sg_linux_buf *b)
{
	PyObject *d = buf_dict(b);

	if (d) {
		PyList_Append((PyObject *)arg, d);
		Py_DECREF(d);
	}
}

static PyObject *py_list_uio(PyObject *m, PyObject *u)
{
	PyObject *l = PyList_New(0);

	(void)m;
	(void)u;
	if (l)
		sg_linux_list_uio(list_uio_cb, l);
	return l;
}

static PyObject *py_list_udmabuf(PyObject *m, PyObject *u)
{
	PyObject *l = PyList_New(0);

	(void)m;
	(void)u;
	if (l)
		sg_linux_list_udmabuf(list_buf_cb, l);
	return l;
}

/* vb_map_file(board, addr, size, path): back [addr, addr+size) of the virtual
 * board's DDR with a file, shared, so another mapping of the same file (a
 * fake /dev/udmabuf0) is the memory the virtual DMA reads and writes. */
static PyObject *py_vb_map_file(PyObject *m, PyObject *args)
{
	PyObject *board;
	uint64_t addr, size;
	const char *path;
	char err[512];
	vb_board *b;
	int fd, r;

	(void)m;
	if (!PyArg_ParseTuple(args, "OO&O&s", &board, sgpy_u64, &addr, sgpy_u64, &size, &path))
		return NULL;
	b = sgdma_py_vboard(board);
	if (!b)
		return NULL;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
	r = vb_mem_map_file(b, addr, size, fd, err, sizeof(err));
	close(fd);
	if (r < 0) {
		PyErr_SetString(PyExc_ValueError, err);
		return NULL;
	}
	Py_RETURN_NONE;
}

/* vb_zero(board, addr, len): allocate() hands out zeroed memory, as the
 * kernel's CMA allocations behind pynq.allocate are. */
static PyObject *py_vb_zero(PyObject *m, PyObject *args)
{
	PyObject *board;
	uint64_t addr, len;
	vb_board *b;

	(void)m;
	if (!PyArg_ParseTuple(args, "OO&O&", &board, sgpy_u64, &addr, sgpy_u64, &len))
		return NULL;
	b = sgdma_py_vboard(board);
	if (!b)
		return NULL;
	if (vb_mem_zero(b, addr, len) < 0) {
		PyErr_Format(PyExc_ValueError, "0x%llx+%llu is not board DDR", (unsigned long long)addr,
			     (unsigned long long)len);
		return NULL;
	}
	Py_RETURN_NONE;
}

static PyMethodDef linux_functions[] = {
	{ "vb_zero", py_vb_zero, METH_VARARGS, "vb_zero(board, addr, len): zero DDR" },
	{ "linux_list_uio", py_list_uio, METH_NOARGS, "UIO devices under $SGDMA_SYSROOT/sys/class/uio" },
	{ "linux_list_udmabuf", py_list_udmabuf, METH_NOARGS, "u-dma-buf buffers under /sys/class/u-dma-buf" },
	{ "vb_map_file", py_vb_map_file, METH_VARARGS, "vb_map_file(board, addr, size, path)" },
	{ NULL, NULL, 0, NULL },
};

int sgdma_py_linux_register(PyObject *m)
{
	if (PyType_Ready(&LinuxType) < 0)
		return -1;
	Py_INCREF(&LinuxType);
	if (PyModule_AddObject(m, "LinuxPlatform", (PyObject *)&LinuxType) < 0)
		return -1;
	return PyModule_AddFunctions(m, linux_functions);
}
