/*
 * driver.c - Chan and Ring: the driver core (csrc/driver) over the virtual
 * board, and its errors as Python exceptions carrying the register snapshot.
 * Counts and addresses are range-checked before they narrow to the driver's
 * 32-bit fields; a ring that cannot be described in them is refused.
 */
#include "core.h"
#include "pylinux.h"

#include <string.h>

/* ---- errors -------------------------------------------------------------- */

static PyObject *error_classes;   /* dict: status name -> exception class */
static PyObject *DriverError;     /* fallback base class */

PyObject *sgpy_snapshot(const struct sg_snapshot *s)
{
	char cr[256], sr[256], bd[128];
	sg_format_dmacr(s->dmacr, cr, sizeof(cr));
	sg_format_dmasr(s->dmasr, sr, sizeof(sr));
	sg_format_bd_status(s->cur_bd_status, bd, sizeof(bd));
	return Py_BuildValue("{s:k,s:k,s:K,s:K,s:O,s:k,s:s,s:s,s:s}", "dmacr", (unsigned long)s->dmacr,
			     "dmasr", (unsigned long)s->dmasr, "curdesc", (unsigned long long)s->curdesc,
			     "taildesc", (unsigned long long)s->taildesc, "cur_bd_valid",
			     s->cur_bd_valid ? Py_True : Py_False, "cur_bd_status",
			     (unsigned long)s->cur_bd_status, "dmacr_decoded", cr, "dmasr_decoded", sr,
			     "cur_bd_status_decoded", bd);
}

/* SetAttr that consumes the new reference it is given; -1 if v is NULL or the set fails. */
static int set_attr(PyObject *o, const char *name, PyObject *v)
{
	int rc = v ? PyObject_SetAttrString(o, name, v) : -1;
	Py_XDECREF(v);
	return rc;
}

PyObject *sgpy_raise(const struct sg_error *e)
{
	char msg[1024];
	PyObject *cls = NULL, *exc, *snap;

	sg_format_error(e, msg, sizeof(msg));
	if (error_classes)
		cls = PyDict_GetItemString(error_classes, sg_status_name(e->code));
	if (!cls)
		cls = DriverError;
	exc = PyObject_CallFunction(cls, "s", msg);
	if (!exc)
		return NULL;
	snap = e->has_snapshot ? sgpy_snapshot(&e->snap) : Py_NewRef(Py_None);
	if (set_attr(exc, "snapshot", snap) < 0 ||
	    set_attr(exc, "code", PyUnicode_FromString(sg_status_name(e->code))) < 0 ||
	    set_attr(exc, "rule", PyUnicode_FromString(sg_status_rule(e->code))) < 0 ||
	    set_attr(exc, "fix", PyUnicode_FromString(sg_status_fix(e->code))) < 0 ||
	    set_attr(exc, "direction", PyUnicode_FromString(e->dir == SG_MM2S ? "mm2s" : "s2mm")) < 0 ||
	    set_attr(exc, "bd_index", e->bd_index == SG_NO_INDEX ? Py_NewRef(Py_None)
							       : PyLong_FromUnsignedLong(e->bd_index)) < 0 ||
	    set_attr(exc, "value", PyLong_FromUnsignedLongLong(e->value)) < 0 ||
	    set_attr(exc, "limit", PyLong_FromUnsignedLongLong(e->limit)) < 0) {
		Py_DECREF(exc);
		return NULL;
	}
	PyErr_SetObject(cls, exc);
	Py_DECREF(exc);
	return NULL;
}

static PyObject *set_error_classes(PyObject *m, PyObject *arg)
{
	(void)m;
	if (!PyDict_Check(arg)) {
		PyErr_SetString(PyExc_TypeError, "expected a dict");
		return NULL;
	}
	Py_XDECREF(error_classes);
	Py_INCREF(arg);
	error_classes = arg;
	Py_RETURN_NONE;
}

/* ---- Chan (ChanObject is in core.h: s0_trials and bindings share it) ---- */

static int Chan_init(ChanObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "board", "direction", "base", "addr_width", "length_width", "data_bytes",
				  "has_dre", "poll_limit", NULL };
	PyObject *board;
	enum vb_chan_id dir;
	int linux;
	int has_dre = 0;
	uint64_t base;
	uint32_t addr_width, length_width, data_bytes, poll_limit = 0;
	struct sg_chan_config cfg;
	struct sg_platform plat;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O&O&O&O&|pO&", kwlist, &board, sgpy_channel, &dir,
					 sgpy_u64, &base, sgpy_u32, &addr_width, sgpy_u32, &length_width, sgpy_u32,
					 &data_bytes, &has_dre, sgpy_u32, &poll_limit))
		return -1;
	linux = sgdma_py_linux_platform(board, &plat);
	if (linux < 0)
		return -1;
	if (!linux) {
		if (!PyObject_TypeCheck(board, &BoardType)) {
			PyErr_Format(PyExc_TypeError, "expected a sgdma._core.Board or LinuxPlatform, not %.100s",
				     Py_TYPE(board)->tp_name);
			return -1;
		}
		if (sgpy_board_ready((BoardObject *)board) < 0)
			return -1;
		plat.ops = vb_platform_ops();
		plat.ctx = ((BoardObject *)board)->b;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.base = base;
	cfg.dir = dir == VB_S2MM ? SG_S2MM : SG_MM2S;
	cfg.addr_width = addr_width;
	cfg.length_width = length_width;
	cfg.data_bytes = data_bytes;
	cfg.has_dre = has_dre;
	cfg.poll_limit = poll_limit;
	Py_XDECREF(self->board);
	Py_INCREF(board);
	self->board = board;
	if (sg_chan_init(&self->c, plat, &cfg, &self->err) != SG_OK) {
		sgpy_raise(&self->err);
		return -1;
	}
	return 0;
}

static void Chan_dealloc(ChanObject *self)
{
	Py_XDECREF(self->board);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Every Chan method first checks its board is usable (initialised, not busy in another thread). */
int sgpy_chan_ready(ChanObject *chan)
{
	if (!chan->board) {
		PyErr_SetString(PyExc_RuntimeError, "channel not initialised");
		return -1;
	}
	return PyObject_TypeCheck(chan->board, &BoardType) ? sgpy_board_ready((BoardObject *)chan->board) : 0;
}

#define CHAN_READY(self) \
	do { if (sgpy_chan_ready(self) < 0) { \
		if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "channel not initialised"); \
		return NULL; } } while (0)
#define CHAN_CALL(expr) \
	do { if ((expr) != SG_OK) return sgpy_raise(&self->err); } while (0)

static PyObject *Chan_reset(ChanObject *self, PyObject *u) { (void)u; CHAN_READY(self); CHAN_CALL(sg_chan_reset(&self->c, &self->err)); Py_RETURN_NONE; }
static PyObject *Chan_halt(ChanObject *self, PyObject *u) { (void)u; CHAN_READY(self); CHAN_CALL(sg_chan_halt(&self->c, &self->err)); Py_RETURN_NONE; }
static PyObject *Chan_check(ChanObject *self, PyObject *u) { (void)u; CHAN_READY(self); CHAN_CALL(sg_chan_check(&self->c, &self->err)); Py_RETURN_NONE; }
static PyObject *Chan_wait_idle(ChanObject *self, PyObject *u) { (void)u; CHAN_READY(self); CHAN_CALL(sg_chan_wait_idle(&self->c, &self->err)); Py_RETURN_NONE; }

static PyObject *Chan_recover(ChanObject *self, PyObject *u)
{
	(void)u;
	CHAN_READY(self);
	CHAN_CALL(sg_chan_recover(&self->c, &self->err));
	/* The pre-reset snapshot stays available to the caller. */
	if (self->err.has_snapshot)
		return sgpy_snapshot(&self->err.snap);
	Py_RETURN_NONE;
}

static PyObject *Chan_set_irq(ChanObject *self, PyObject *args)
{
	uint32_t enables, threshold, delay;
	CHAN_READY(self);
	if (!PyArg_ParseTuple(args, "O&O&O&", sgpy_u32, &enables, sgpy_u32, &threshold, sgpy_u32, &delay))
		return NULL;
	CHAN_CALL(sg_chan_set_irq(&self->c, enables, threshold, delay, &self->err));
	Py_RETURN_NONE;
}

static PyObject *Chan_irq_ack(ChanObject *self, PyObject *u)
{
	(void)u;
	CHAN_READY(self);
	return PyLong_FromUnsignedLong(sg_chan_irq_ack(&self->c));
}

static PyObject *Chan_set_curdesc(ChanObject *self, PyObject *arg)
{
	uint64_t a;
	CHAN_READY(self);
	if (!sgpy_u64(arg, &a))
		return NULL;
	CHAN_CALL(sg_chan_set_curdesc(&self->c, a, &self->err));
	Py_RETURN_NONE;
}

static PyObject *Chan_set_cyclic(ChanObject *self, PyObject *arg)
{
	int on = PyObject_IsTrue(arg);
	CHAN_READY(self);
	if (on < 0)
		return NULL;
	CHAN_CALL(sg_chan_set_cyclic(&self->c, on, &self->err));
	Py_RETURN_NONE;
}

static PyObject *Chan_write_tail(ChanObject *self, PyObject *arg)
{
	uint64_t a;
	CHAN_READY(self);
	if (!sgpy_u64(arg, &a))
		return NULL;
	sg_chan_write_tail(&self->c, a);
	Py_RETURN_NONE;
}

static PyObject *Chan_simple_start(ChanObject *self, PyObject *args)
{
	uint64_t a, n;
	CHAN_READY(self);
	if (!PyArg_ParseTuple(args, "O&O&", sgpy_u64, &a, sgpy_u64, &n))
		return NULL;
	if (n > UINT32_MAX) {
		self->err = (struct sg_error){ .code = SG_E_LENGTH_WIDTH, .dir = self->c.cfg.dir,
					       .bd_index = SG_NO_INDEX, .value = n,
					       .limit = sg_chan_max_length(&self->c) };
		return sgpy_raise(&self->err);
	}
	CHAN_CALL(sg_simple_start(&self->c, a, (uint32_t)n, &self->err));
	Py_RETURN_NONE;
}

static PyObject *Chan_simple_wait(ChanObject *self, PyObject *u)
{
	uint32_t actual = 0;
	(void)u;
	CHAN_READY(self);
	CHAN_CALL(sg_simple_wait(&self->c, &actual, &self->err));
	return PyLong_FromUnsignedLong(actual);
}

static PyObject *Chan_snapshot(ChanObject *self, PyObject *u)
{
	struct sg_snapshot s;
	(void)u;
	CHAN_READY(self);
	sg_chan_snapshot(&self->c, &s);
	return sgpy_snapshot(&s);
}

/* A 32-bit register of this channel's block: offset below PG021_CHAN_SPAN, 4-byte aligned. */
static int reg_offset(PyObject *o, void *out)
{
	uint32_t off;
	if (!sgpy_u32(o, &off))
		return 0;
	if (off >= PG021_CHAN_SPAN || (off & 3)) {
		PyErr_Format(PyExc_ValueError, "register offset 0x%x: a channel's 32-bit registers are at 4-byte "
			     "aligned offsets below 0x%x", (unsigned)off, PG021_CHAN_SPAN);
		return 0;
	}
	*(uint32_t *)out = off;
	return 1;
}

static PyObject *Chan_read(ChanObject *self, PyObject *arg)
{
	uint32_t off;
	CHAN_READY(self);
	if (!reg_offset(arg, &off))
		return NULL;
	return PyLong_FromUnsignedLong(sg_chan_read(&self->c, off));
}

static PyObject *Chan_write(ChanObject *self, PyObject *args)
{
	uint32_t off, v;
	CHAN_READY(self);
	if (!PyArg_ParseTuple(args, "O&O&", reg_offset, &off, sgpy_u32, &v))
		return NULL;
	sg_chan_write(&self->c, off, v);
	Py_RETURN_NONE;
}

static PyObject *Chan_set_poll_limit(ChanObject *self, PyObject *arg)
{
	uint32_t n;
	CHAN_READY(self);
	if (!sgpy_u32(arg, &n))          /* the bound is a 32-bit count of register reads */
		return NULL;
	self->c.cfg.poll_limit = n == 0 ? SG_DEFAULT_POLL_LIMIT : n;
	Py_RETURN_NONE;
}

/* Bound of one interrupt wait (platforms with wait_irq); 0 restores the default. */
static PyObject *Chan_set_irq_timeout(ChanObject *self, PyObject *arg)
{
	uint32_t us;

	CHAN_READY(self);
	if (!sgpy_u32(arg, &us))
		return NULL;
	self->c.cfg.irq_timeout_us = us ? us : SG_DEFAULT_IRQ_TIMEOUT_US;
	Py_RETURN_NONE;
}

static PyObject *Chan_info(ChanObject *self, PyObject *u)
{
	(void)u;
	CHAN_READY(self);
	return Py_BuildValue("{s:O,s:K,s:K,s:I,s:I,s:I,s:k}", "has_sg", self->c.has_sg ? Py_True : Py_False,
			     "regs", (unsigned long long)self->c.regs, "max_length",
			     (unsigned long long)sg_chan_max_length(&self->c), "addr_width", self->c.cfg.addr_width,
			     "length_width", self->c.cfg.length_width, "data_bytes", self->c.cfg.data_bytes,
			     "poll_limit", (unsigned long)self->c.cfg.poll_limit);
}

static PyObject *Chan_halted(ChanObject *self, PyObject *u) { (void)u; CHAN_READY(self); return PyBool_FromLong(sg_chan_halted(&self->c)); }
static PyObject *Chan_idle(ChanObject *self, PyObject *u) { (void)u; CHAN_READY(self); return PyBool_FromLong(sg_chan_idle(&self->c)); }

static PyMethodDef Chan_methods[] = {
	{ "reset", (PyCFunction)Chan_reset, METH_NOARGS, "soft reset (both channels)" },
	{ "halt", (PyCFunction)Chan_halt, METH_NOARGS, "clear RS and wait for Halted" },
	{ "check", (PyCFunction)Chan_check, METH_NOARGS, "raise if DMASR has error bits" },
	{ "wait_idle", (PyCFunction)Chan_wait_idle, METH_NOARGS, "bounded poll for Idle" },
	{ "recover", (PyCFunction)Chan_recover, METH_NOARGS, "snapshot, reset, re-init; returns the snapshot" },
	{ "set_irq", (PyCFunction)Chan_set_irq, METH_VARARGS, "set_irq(enables, threshold, delay)" },
	{ "irq_ack", (PyCFunction)Chan_irq_ack, METH_NOARGS, "W1C pending IRQ bits; returns them" },
	{ "set_curdesc", (PyCFunction)Chan_set_curdesc, METH_O, "CURDESC (halted only)" },
	{ "set_cyclic", (PyCFunction)Chan_set_cyclic, METH_O, "Cyclic BD enable (halted only)" },
	{ "write_tail", (PyCFunction)Chan_write_tail, METH_O, "TAILDESC, LSB then MSB" },
	{ "simple_start", (PyCFunction)Chan_simple_start, METH_VARARGS, "simple_start(addr, length)" },
	{ "simple_wait", (PyCFunction)Chan_simple_wait, METH_NOARGS, "wait; returns bytes moved" },
	{ "snapshot", (PyCFunction)Chan_snapshot, METH_NOARGS, "decoded DMACR/DMASR/CURDESC/TAILDESC" },
	{ "read", (PyCFunction)Chan_read, METH_O, "read a channel register" },
	{ "write", (PyCFunction)Chan_write, METH_VARARGS, "write a channel register" },
	{ "set_poll_limit", (PyCFunction)Chan_set_poll_limit, METH_O, "bound of every wait, in register reads" },
	{ "set_irq_timeout", (PyCFunction)Chan_set_irq_timeout, METH_O, "bound of one interrupt wait, us" },
	{ "info", (PyCFunction)Chan_info, METH_NOARGS, "channel configuration" },
	{ "halted", (PyCFunction)Chan_halted, METH_NOARGS, "DMASR.Halted" },
	{ "idle", (PyCFunction)Chan_idle, METH_NOARGS, "DMASR.Idle" },
	{ NULL, NULL, 0, NULL },
};

PyTypeObject ChanType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "sgdma._core.Chan",
	.tp_basicsize = sizeof(ChanObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Chan(board, direction, base, addr_width, length_width, data_bytes, has_dre=False, poll_limit=0)",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)Chan_init,
	.tp_dealloc = (destructor)Chan_dealloc,
	.tp_methods = Chan_methods,
};

/* ---- Ring ------------------------------------------------------------------ */

typedef struct {
	PyObject_HEAD
	ChanObject *chan;
	struct sg_ring r;
	bool live;
} RingObject;

static int Ring_init(RingObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "chan", "dev", "count", "closed", NULL };
	ChanObject *chan;
	uint64_t dev, count;
	int closed = 1;
	void *cpu;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O&O&|p", kwlist, &ChanType, &chan, sgpy_u64, &dev, sgpy_u64,
					 &count, &closed))
		return -1;
	if (sgpy_chan_ready(chan) < 0) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_RuntimeError, "channel not initialised");
		return -1;
	}
	if (self->live) {
		PyErr_SetString(PyExc_RuntimeError, "Ring already initialised: create a new Ring instead");
		return -1;
	}
	/* the driver counts BDs in 32 bits: refuse, never wrap, a count it cannot hold */
	if (count == 0 || count > UINT32_MAX) {
		chan->err = (struct sg_error){ .code = SG_E_ARG, .dir = chan->c.cfg.dir, .bd_index = SG_NO_INDEX,
					       .value = count, .limit = UINT32_MAX, .what = "ring BD count" };
		sgpy_raise(&chan->err);
		return -1;
	}
	cpu = chan->c.plat.ops->cpu_ptr(chan->c.plat.ctx, dev, count * PG021_BD_SIZE);
	if (!cpu) {
		chan->err = (struct sg_error){ .code = SG_E_ADDR_RANGE, .dir = chan->c.cfg.dir,
					       .bd_index = SG_NO_INDEX, .value = dev,
					       .limit = count * PG021_BD_SIZE, .what = "BD ring memory" };
		sgpy_raise(&chan->err);
		return -1;
	}
	if (sg_ring_create(&self->r, &chan->c, cpu, dev, (uint32_t)count, &chan->err) != SG_OK) {
		sgpy_raise(&chan->err);
		return -1;
	}
	sg_ring_link(&self->r, closed);
	Py_XDECREF(self->chan);
	Py_INCREF(chan);
	self->chan = chan;
	self->live = true;
	return 0;
}

static void Ring_dealloc(RingObject *self)
{
	if (self->chan && self->chan->c.ring == &self->r)
		self->chan->c.ring = NULL;
	Py_XDECREF(self->chan);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

#define RING_OK(self) \
	do { if (!(self)->live) { PyErr_SetString(PyExc_RuntimeError, "ring not initialised"); return NULL; } \
	     if (sgpy_chan_ready((self)->chan) < 0) return NULL; } while (0)
#define RING_CALL(expr) \
	do { if ((expr) != SG_OK) return sgpy_raise(&self->chan->err); } while (0)

static int get_buf(PyObject *o, Py_buffer *b, Py_ssize_t itemsize, Py_ssize_t n, const char *what)
{
	if (o == Py_None) {
		b->obj = NULL;
		b->buf = NULL;
		return 0;
	}
	if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS) < 0)
		return -1;
	if (b->len != itemsize * n) {
		PyErr_Format(PyExc_ValueError, "%s: expected %zd bytes (%zd items), got %zd", what, itemsize * n, n,
			     b->len);
		PyBuffer_Release(b);
		return -1;
	}
	return 0;
}

static PyObject *Ring_fill(RingObject *self, PyObject *args)
{
	uint32_t n;
	PyObject *oa, *ol, *of, *oapp = Py_None;
	Py_buffer ba, bl, bf, bapp = { 0 };
	enum sg_status st;
	RING_OK(self);
	if (!PyArg_ParseTuple(args, "O&OOO|O", sgpy_u32, &n, &oa, &ol, &of, &oapp))
		return NULL;
	if (get_buf(oa, &ba, 8, (Py_ssize_t)n, "addresses") < 0)
		return NULL;
	if (get_buf(ol, &bl, 4, (Py_ssize_t)n, "lengths") < 0) {
		PyBuffer_Release(&ba);
		return NULL;
	}
	if (get_buf(of, &bf, 1, (Py_ssize_t)n, "flags") < 0) {
		PyBuffer_Release(&ba);
		PyBuffer_Release(&bl);
		return NULL;
	}
	if (get_buf(oapp, &bapp, 4 * PG021_BD_APP_COUNT, (Py_ssize_t)n, "app words") < 0) {
		PyBuffer_Release(&ba);
		PyBuffer_Release(&bl);
		PyBuffer_Release(&bf);
		return NULL;
	}
	st = sg_ring_fill(&self->r, n, ba.buf, bl.buf, bf.buf, bapp.buf, &self->chan->err);
	PyBuffer_Release(&ba);
	PyBuffer_Release(&bl);
	PyBuffer_Release(&bf);
	if (bapp.obj)
		PyBuffer_Release(&bapp);
	if (st != SG_OK)
		return sgpy_raise(&self->chan->err);
	Py_RETURN_NONE;
}

static PyObject *Ring_validate(RingObject *self, PyObject *u) { (void)u; RING_OK(self); RING_CALL(sg_ring_validate(&self->r, &self->chan->err)); Py_RETURN_NONE; }
static PyObject *Ring_submit(RingObject *self, PyObject *u) { (void)u; RING_OK(self); RING_CALL(sg_ring_submit(&self->r, &self->chan->err)); Py_RETURN_NONE; }
static PyObject *Ring_prepare(RingObject *self, PyObject *u)
{
	uint64_t tail = 0;
	(void)u;
	RING_OK(self);
	RING_CALL(sg_ring_prepare(&self->r, &tail, &self->chan->err));
	return PyLong_FromUnsignedLongLong(tail);
}

static PyObject *Ring_prepare_cyclic(RingObject *self, PyObject *u)
{
	uint64_t tail = 0;
	(void)u;
	RING_OK(self);
	RING_CALL(sg_ring_prepare_cyclic(&self->r, &tail, &self->chan->err));
	return PyLong_FromUnsignedLongLong(tail);
}

static PyObject *Ring_start_cyclic(RingObject *self, PyObject *u) { (void)u; RING_OK(self); RING_CALL(sg_ring_start_cyclic(&self->r, &self->chan->err)); Py_RETURN_NONE; }

static PyObject *Ring_kick(RingObject *self, PyObject *arg)
{
	uint64_t t;
	RING_OK(self);
	if (!sgpy_u64(arg, &t))
		return NULL;
	RING_CALL(sg_ring_kick(&self->r, t, &self->chan->err));
	Py_RETURN_NONE;
}

static PyObject *Ring_rearm(RingObject *self, PyObject *arg)
{
	uint64_t n;
	RING_OK(self);
	if (!sgpy_u64(arg, &n))
		return NULL;
	if (n > self->r.count) {
		PyErr_Format(PyExc_ValueError, "rearm: %llu BDs requested, the ring has %lu", (unsigned long long)n,
			     (unsigned long)self->r.count);
		return NULL;
	}
	RING_CALL(sg_ring_rearm(&self->r, (uint32_t)n, &self->chan->err));
	Py_RETURN_NONE;
}

/* Returns (bytes of n sg_completion records, n).  Whole packets completed
 * before an errored BD are returned; the error is raised when nothing precedes
 * it (that is, on the next call). */
static PyObject *Ring_reclaim(RingObject *self, PyObject *arg)
{
	uint64_t max;
	uint32_t n = 0;
	PyObject *out;
	enum sg_status st;
	RING_OK(self);
	if (!sgpy_u64(arg, &max))
		return NULL;
	if (max > self->r.n_hw)      /* no more can complete: O(hardware-owned), not O(ring) */
		max = self->r.n_hw;
	out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(max * sizeof(struct sg_completion)));
	if (!out)
		return NULL;
	st = sg_ring_reclaim(&self->r, (struct sg_completion *)PyBytes_AS_STRING(out), (uint32_t)max, &n,
			     &self->chan->err);
	if (st != SG_OK && n == 0) {
		Py_DECREF(out);
		return sgpy_raise(&self->chan->err);
	}
	if (_PyBytes_Resize(&out, (Py_ssize_t)(n * sizeof(struct sg_completion))) < 0)
		return NULL;
	return Py_BuildValue("(Nk)", out, (unsigned long)n);
}

static PyObject *Ring_state(RingObject *self, PyObject *u)
{
	(void)u;
	RING_OK(self);
	return Py_BuildValue("{s:K,s:k,s:k,s:k,s:k,s:k,s:k,s:k,s:O,s:O}", "dev", (unsigned long long)self->r.dev,
			     "count", (unsigned long)self->r.count, "fill", (unsigned long)self->r.fill, "submit",
			     (unsigned long)self->r.submit, "reclaim", (unsigned long)self->r.reclaim, "n_free",
			     (unsigned long)self->r.n_free, "n_filled", (unsigned long)self->r.n_filled, "n_hw",
			     (unsigned long)self->r.n_hw, "closed", self->r.closed ? Py_True : Py_False, "cyclic",
			     self->r.cyclic ? Py_True : Py_False);
}

static PyObject *Ring_check(RingObject *self, PyObject *u)
{
	(void)u;
	RING_OK(self);
	return PyBool_FromLong(sg_ring_check(&self->r) == SG_OK);
}

static PyObject *Ring_link(RingObject *self, PyObject *arg)
{
	int closed = PyObject_IsTrue(arg);
	RING_OK(self);
	if (closed < 0)
		return NULL;
	sg_ring_link(&self->r, closed);
	Py_RETURN_NONE;
}

static PyMethodDef Ring_methods[] = {
	{ "fill", (PyCFunction)Ring_fill, METH_VARARGS, "fill(n, addr_u64, len_u32, flags_u8, app_u32=None)" },
	{ "validate", (PyCFunction)Ring_validate, METH_NOARGS, "packet rules over filled BDs" },
	{ "submit", (PyCFunction)Ring_submit, METH_NOARGS, "give filled BDs to hardware" },
	{ "kick", (PyCFunction)Ring_kick, METH_O, "write TAILDESC (must be a BD of this ring)" },
	{ "prepare", (PyCFunction)Ring_prepare, METH_NOARGS, "submit without the tail write; returns the tail" },
	{ "prepare_cyclic", (PyCFunction)Ring_prepare_cyclic, METH_NOARGS, "cyclic start without the trigger" },
	{ "reclaim", (PyCFunction)Ring_reclaim, METH_O, "completed whole packets: (records, n)" },
	{ "rearm", (PyCFunction)Ring_rearm, METH_O, "re-arm n free BDs with their buffers" },
	{ "start_cyclic", (PyCFunction)Ring_start_cyclic, METH_NOARGS, "cyclic start" },
	{ "state", (PyCFunction)Ring_state, METH_NOARGS, "bookkeeping" },
	{ "check", (PyCFunction)Ring_check, METH_NOARGS, "invariants hold" },
	{ "link", (PyCFunction)Ring_link, METH_O, "relink open/closed" },
	{ NULL, NULL, 0, NULL },
};

PyTypeObject RingType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "sgdma._core.Ring",
	.tp_basicsize = sizeof(RingObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Ring(chan, dev, count, closed=True): a BD ring in board memory",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)Ring_init,
	.tp_dealloc = (destructor)Ring_dealloc,
	.tp_methods = Ring_methods,
};


static PyMethodDef driver_functions[] = {
	{ "set_error_classes", set_error_classes, METH_O, "map status names to exception classes" },
	{ NULL, NULL, 0, NULL },
};

int sgpy_add_driver(PyObject *m)
{
	if (PyType_Ready(&ChanType) < 0 || PyType_Ready(&RingType) < 0)
		return -1;
	DriverError = PyErr_NewException("sgdma._core.DriverError", PyExc_RuntimeError, NULL);
	if (!DriverError || PyModule_AddObject(m, "DriverError", Py_NewRef(DriverError)) < 0)
		return -1;
	Py_INCREF(&ChanType);
	if (PyModule_AddObject(m, "Chan", (PyObject *)&ChanType) < 0) {
		Py_DECREF(&ChanType);
		return -1;
	}
	Py_INCREF(&RingType);
	if (PyModule_AddObject(m, "Ring", (PyObject *)&RingType) < 0) {
		Py_DECREF(&RingType);
		return -1;
	}
	return PyModule_AddFunctions(m, driver_functions);
}
