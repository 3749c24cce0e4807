/*
 * module.c - sgdma._core: the Python binding of the virtual board and the
 * driver core.  Thin on purpose: objects own C structs, bulk data crosses as
 * buffers (numpy arrays on the Python side), constants come from pg021.h.
 */
#include "core.h"

#include <stddef.h>
#include <string.h>

#include "sgdma/driver.h"
#include "sgdma/pg021.h"
#include "sgdma/s0_bench.h"
#include "sgdma/csm.h"
#include "mem/coherency.h"
#include "mem/dram.h"
#include "vboard.h"
#include "pylinux.h"

static PyObject *error_classes;   /* dict: status name -> exception class */
static PyObject *DriverError;     /* fallback base class */

/* ---- errors -------------------------------------------------------------- */

static PyObject *snapshot_dict(const struct sg_snapshot *s)
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

/* SetAttr that consumes the new reference it is given. */
static void set_attr(PyObject *o, const char *name, PyObject *v)
{
	if (v) {
		PyObject_SetAttrString(o, name, v);
		Py_DECREF(v);
	}
}

static PyObject *raise_sg(const struct sg_error *e)
{
	char msg[1024];
	PyObject *cls = NULL, *exc, *snap = Py_None;

	sg_format_error(e, msg, sizeof(msg));
	if (error_classes)
		cls = PyDict_GetItemString(error_classes, sg_status_name(e->code));
	if (!cls)
		cls = DriverError;
	exc = PyObject_CallFunction(cls, "s", msg);
	if (!exc)
		return NULL;
	if (e->has_snapshot)
		snap = snapshot_dict(&e->snap);
	else
		Py_INCREF(snap);
	if (!snap) {
		Py_DECREF(exc);
		return NULL;
	}
	set_attr(exc, "code", PyUnicode_FromString(sg_status_name(e->code)));
	set_attr(exc, "rule", PyUnicode_FromString(sg_status_rule(e->code)));
	set_attr(exc, "fix", PyUnicode_FromString(sg_status_fix(e->code)));
	set_attr(exc, "direction", PyUnicode_FromString(e->dir == SG_MM2S ? "mm2s" : "s2mm"));
	if (e->bd_index == SG_NO_INDEX)
		PyObject_SetAttrString(exc, "bd_index", Py_None);
	else
		set_attr(exc, "bd_index", PyLong_FromUnsignedLong(e->bd_index));
	set_attr(exc, "value", PyLong_FromUnsignedLongLong(e->value));
	set_attr(exc, "limit", PyLong_FromUnsignedLongLong(e->limit));
	PyObject_SetAttrString(exc, "snapshot", snap);
	Py_DECREF(snap);
	PyErr_SetObject(cls, exc);
	Py_DECREF(exc);
	return NULL;
}

/* ---- Board ---------------------------------------------------------------- */

vb_board *sgpy_board(PyObject *o)
{
	if (!PyObject_TypeCheck(o, &BoardType)) {
		PyErr_SetString(PyExc_TypeError, "expected a sgdma._core.Board");
		return NULL;
	}
	if (!((BoardObject *)o)->b) {
		PyErr_SetString(PyExc_ValueError, "board not initialised");
		return NULL;
	}
	return ((BoardObject *)o)->b;
}

vb_board *sgdma_py_vboard(PyObject *o)
{
	if (!PyObject_TypeCheck(o, &BoardType)) {
		PyErr_Format(PyExc_TypeError, "expected a sgdma._core.Board or LinuxPlatform, not %.100s",
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (!((BoardObject *)o)->b) {
		PyErr_SetString(PyExc_RuntimeError, "board not initialised");
		return NULL;
	}
	return ((BoardObject *)o)->b;
}

static int Board_init(BoardObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "preset_path", "overrides", "seed", NULL };
	const char *path = NULL;
	PyObject *overrides = NULL;
	unsigned long long seed = 0;
	struct vb_config cfg;
	char err[512];

	if (!PyArg_ParseTupleAndKeywords(args, kw, "z|OK", kwlist, &path, &overrides, &seed))
		return -1;
	if (self->b) {
		/* Regions, channels and numpy views point into this board: it lives once. */
		PyErr_SetString(PyExc_RuntimeError, "Board already initialised: create a new Board instead");
		return -1;
	}
	vb_config_defaults(&cfg);
	if (path && vb_config_load(&cfg, path, err, sizeof(err)) < 0) {
		PyErr_SetString(PyExc_ValueError, err);
		return -1;
	}
	if (overrides && overrides != Py_None) {
		PyObject *key, *value;
		Py_ssize_t pos = 0;
		if (!PyDict_Check(overrides)) {
			PyErr_SetString(PyExc_TypeError, "overrides must be a dict of preset keys");
			return -1;
		}
		while (PyDict_Next(overrides, &pos, &key, &value)) {
			const char *k = PyUnicode_AsUTF8(key);
			double v = PyFloat_AsDouble(value);
			if (!k || (v == -1.0 && PyErr_Occurred()))
				return -1;
			if (vb_config_set(&cfg, k, v) < 0) {
				PyErr_Format(PyExc_ValueError, "unknown or invalid board option %s = %R", k, value);
				return -1;
			}
		}
	}
	self->b = vb_create(&cfg, seed, err, sizeof(err));
	if (!self->b) {
		PyErr_SetString(PyExc_ValueError, err);
		return -1;
	}
	return 0;
}

static void Board_dealloc(BoardObject *self)
{
	vb_destroy(self->b);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

#define BOARD_OK(self) \
	do { if (!(self)->b) { PyErr_SetString(PyExc_RuntimeError, "board not initialised"); return NULL; } } while (0)

static PyObject *Board_read32(BoardObject *self, PyObject *arg)
{
	unsigned long long a = PyLong_AsUnsignedLongLong(arg);
	BOARD_OK(self);
	if (PyErr_Occurred())
		return NULL;
	return PyLong_FromUnsignedLong(vb_read32(self->b, a));
}

static PyObject *Board_write32(BoardObject *self, PyObject *args)
{
	unsigned long long a;
	unsigned long v;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "Kk", &a, &v))
		return NULL;
	if (v > 0xFFFFFFFFul) {
		PyErr_SetString(PyExc_ValueError, "write32: the value does not fit a 32-bit register (max 0xFFFFFFFF)");
		return NULL;
	}
	vb_write32(self->b, a, (uint32_t)v);
	Py_RETURN_NONE;
}

static PyObject *Board_now_ps(BoardObject *self, PyObject *unused)
{
	(void)unused;
	BOARD_OK(self);
	return PyLong_FromUnsignedLongLong(vb_now_ps(self->b));
}

static PyObject *Board_advance_ps(BoardObject *self, PyObject *arg)
{
	unsigned long long ps = PyLong_AsUnsignedLongLong(arg);
	BOARD_OK(self);
	if (PyErr_Occurred())
		return NULL;
	vb_advance_ps(self->b, ps);
	Py_RETURN_NONE;
}

static PyObject *Board_run_until_quiet(BoardObject *self, PyObject *arg)
{
	unsigned long long limit = PyLong_AsUnsignedLongLong(arg);
	BOARD_OK(self);
	if (PyErr_Occurred())
		return NULL;
	return PyLong_FromUnsignedLongLong(vb_run_until_quiet(self->b, limit));
}

static PyObject *Board_regions(BoardObject *self, PyObject *unused)
{
	PyObject *list;
	(void)unused;
	BOARD_OK(self);
	list = PyList_New(0);
	for (int i = 0; i < vb_region_count(self->b); i++) {
		const struct vb_region *r = vb_region_at(self->b, i);
		PyObject *t = Py_BuildValue("(sKK)", r->name, (unsigned long long)r->base,
					    (unsigned long long)r->size);
		PyList_Append(list, t);
		Py_DECREF(t);
	}
	return list;
}

static PyObject *Board_config_get(BoardObject *self, PyObject *arg)
{
	const char *k = PyUnicode_AsUTF8(arg);
	double v;
	BOARD_OK(self);
	if (!k)
		return NULL;
	if (vb_config_get(vb_get_config(self->b), k, &v) < 0) {
		PyErr_Format(PyExc_KeyError, "unknown board option %s", k);
		return NULL;
	}
	return PyFloat_FromDouble(v);
}

static PyObject *Board_name(BoardObject *self, PyObject *unused)
{
	(void)unused;
	BOARD_OK(self);
	return PyUnicode_FromString(vb_get_config(self->b)->name);
}

static PyObject *Board_inject_slverr(BoardObject *self, PyObject *args)
{
	unsigned long long base, size;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "KK", &base, &size))
		return NULL;
	if (vb_inject_slverr(self->b, base, size) < 0) {
		PyErr_Format(PyExc_ValueError, "cannot add a fault region (at most %d, size > 0)", VB_MAX_FAULTS);
		return NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *Board_clear_faults(BoardObject *self, PyObject *unused)
{
	(void)unused;
	BOARD_OK(self);
	vb_clear_faults(self->b);
	Py_RETURN_NONE;
}

static PyObject *Board_cache(BoardObject *self, PyObject *args)
{
	unsigned long long a, n;
	int invalidate;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "KKp", &a, &n, &invalidate))
		return NULL;
	if (invalidate)
		vb_cache_invalidate(self->b, a, n);
	else
		vb_cache_clean(self->b, a, n);
	Py_RETURN_NONE;
}

static PyObject *Board_irq_pending(BoardObject *self, PyObject *arg)
{
	long ch = PyLong_AsLong(arg);
	BOARD_OK(self);
	if (PyErr_Occurred())
		return NULL;
	return PyBool_FromLong(vb_irq_pending(self->b, ch ? VB_S2MM : VB_MM2S));
}

static PyObject *Board_bus_decerrs(BoardObject *self, PyObject *unused)
{
	uint64_t last = 0, n;
	(void)unused;
	BOARD_OK(self);
	n = vb_bus_decerrs(self->b, &last);
	return Py_BuildValue("(KK)", (unsigned long long)n, (unsigned long long)last);
}

static PyObject *Board_sink_packets(BoardObject *self, PyObject *unused)
{
	size_t n;
	const uint8_t *data;
	PyObject *list;
	(void)unused;
	BOARD_OK(self);
	n = vb_sink_count(self->b);
	data = vb_sink_data(self->b);
	list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; i < n; i++) {
		const struct vb_packet *p = vb_sink_packet(self->b, i);
		PyObject *bytes = data ? PyBytes_FromStringAndSize((const char *)data + p->offset, (Py_ssize_t)p->length)
				       : PyBytes_FromStringAndSize(NULL, 0);
		PyList_SET_ITEM(list, (Py_ssize_t)i, bytes);
	}
	return list;
}

static PyObject *Board_sink_info(BoardObject *self, PyObject *unused)
{
	size_t n;
	PyObject *list;
	(void)unused;
	BOARD_OK(self);
	n = vb_sink_count(self->b);
	list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; i < n; i++) {
		const struct vb_packet *p = vb_sink_packet(self->b, i);
		PyList_SET_ITEM(list, (Py_ssize_t)i,
				Py_BuildValue("(KKK)", (unsigned long long)p->length, (unsigned long long)p->t_first_ps,
					      (unsigned long long)p->t_last_ps));
	}
	return list;
}

static PyObject *Board_sink_clear(BoardObject *self, PyObject *unused)
{
	(void)unused;
	BOARD_OK(self);
	vb_sink_clear(self->b);
	Py_RETURN_NONE;
}

static PyObject *Board_sink_open_bytes(BoardObject *self, PyObject *unused)
{
	(void)unused;
	BOARD_OK(self);
	return PyLong_FromUnsignedLongLong(vb_sink_open_bytes(self->b));
}

static PyObject *Board_source_send(BoardObject *self, PyObject *args)
{
	Py_buffer buf;
	int last = 1, rc;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "y*|p", &buf, &last))
		return NULL;
	rc = vb_source_send(self->b, buf.buf, (size_t)buf.len, last);
	PyBuffer_Release(&buf);
	if (rc < 0) {
		PyErr_SetString(PyExc_ValueError,
				"s2mm_source.send: an empty send can only mark TLAST on bytes already queued");
		return NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *Board_source_pending(BoardObject *self, PyObject *unused)
{
	(void)unused;
	BOARD_OK(self);
	return PyLong_FromUnsignedLongLong(vb_source_pending(self->b));
}

static PyObject *Board_stats(BoardObject *self, PyObject *arg)
{
	long ch = PyLong_AsLong(arg);
	struct vb_stats s;
	BOARD_OK(self);
	if (PyErr_Occurred())
		return NULL;
	vb_get_stats(self->b, ch ? VB_S2MM : VB_MM2S, &s);
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "bd_fetches", s.bd_fetches, "bd_writebacks",
			     s.bd_writebacks, "data_bursts", s.data_bursts, "bytes_moved", s.bytes_moved, "packets",
			     s.packets, "mmio_reads", s.mmio_reads, "mmio_writes", s.mmio_writes);
}

static PyObject *Board_probe(BoardObject *self, PyObject *arg)
{
	long ch = PyLong_AsLong(arg);
	struct vb_probe p;
	BOARD_OK(self);
	if (PyErr_Occurred())
		return NULL;
	vb_get_probe(self->b, ch ? VB_S2MM : VB_MM2S, &p);
#define T(x) ((x) == VB_NO_TIME ? Py_BuildValue("") : PyLong_FromUnsignedLongLong(x))
	return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:K}", "t_kick", T(p.t_kick), "t_sg_ar", T(p.t_sg_ar),
			     "t_data_ar", T(p.t_data_ar), "t_first_beat", T(p.t_first_beat), "t_last_beat",
			     T(p.t_last_beat), "bytes", (unsigned long long)p.bytes);
#undef T
}

static PyObject *Board_run_until_csm_done(BoardObject *self, PyObject *arg)
{
	unsigned long long limit = PyLong_AsUnsignedLongLong(arg);
	BOARD_OK(self);
	if (PyErr_Occurred())
		return NULL;
	return PyBool_FromLong(vb_run_until_csm_done(self->b, limit));
}

static PyObject *Board_dac_configure(BoardObject *self, PyObject *args)
{
	unsigned long long beat_ps, lead_ps;
	unsigned long fifo;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "KKk", &beat_ps, &lead_ps, &fifo))
		return NULL;
	if (fifo < 1 || fifo > 0xFFFFFFFFul) {
		PyErr_SetString(PyExc_ValueError, "dac_configure: the FIFO holds 1..2^32-1 words");
		return NULL;
	}
	vb_dac_configure(self->b, beat_ps, lead_ps, (uint32_t)fifo);
	Py_RETURN_NONE;
}

static PyObject *dac_events(const struct vb_dac_event *e, size_t n)
{
	PyObject *list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; i < n; i++)
		PyList_SET_ITEM(list, (Py_ssize_t)i,
				Py_BuildValue("(KKKK)", (unsigned long long)e[i].gate, (unsigned long long)e[i].beat,
					      (unsigned long long)e[i].t_due, (unsigned long long)e[i].t_actual));
	return list;
}

static PyObject *Board_dac_report(BoardObject *self, PyObject *u)
{
	const struct vb_dac *d;
	(void)u;
	BOARD_OK(self);
	d = vb_dac_state(self->b);
	return Py_BuildValue("{s:O,s:O,s:K,s:K,s:K,s:K,s:K,s:K,s:N,s:N}", "enabled", d->enabled ? Py_True : Py_False,
			     "started", d->started ? Py_True : Py_False, "beat_ps", (unsigned long long)d->beat_ps,
			     "fifo_beats", (unsigned long long)d->fifo_beats, "beats", (unsigned long long)d->beats,
			     "gates", (unsigned long long)d->gates, "t0_nominal_ps", (unsigned long long)d->t0_nominal,
			     "t_last_play_ps", (unsigned long long)d->t_last_play, "underflows",
			     dac_events(d->underflows, d->n_underflows), "deadline_misses",
			     dac_events(d->misses, d->n_misses));
}

static PyObject *Board_cpu_read32(BoardObject *self, PyObject *args)
{
	unsigned long long a, cost;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "KK", &a, &cost))
		return NULL;
	return PyLong_FromUnsignedLong(vb_cpu_read32(self->b, a, cost));
}

static PyObject *Board_cpu_write32(BoardObject *self, PyObject *args)
{
	unsigned long long a, cost;
	unsigned long v;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "KkK", &a, &v, &cost))
		return NULL;
	if (v > 0xFFFFFFFFul) {
		PyErr_SetString(PyExc_ValueError, "cpu_write32: the value does not fit 32 bits (max 0xFFFFFFFF)");
		return NULL;
	}
	vb_cpu_write32(self->b, a, (uint32_t)v, cost);
	Py_RETURN_NONE;
}

static PyObject *Board_reseed(BoardObject *self, PyObject *arg)
{
	unsigned long long seed = PyLong_AsUnsignedLongLong(arg);
	BOARD_OK(self);
	if (PyErr_Occurred())
		return NULL;
	vb_reseed(self->b, seed);
	Py_RETURN_NONE;
}

static PyObject *Board_dram_stats(BoardObject *self, PyObject *u)
{
	const struct vb_dram_stats *s;
	(void)u;
	BOARD_OK(self);
	vb_sync(self->b);
	s = vb_dram_stats(self->b);
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "reads", s->reads, "writes", s->writes, "row_hits",
			     s->row_hits, "row_misses", s->row_misses, "row_conflicts", s->row_conflicts,
			     "refresh_stalls", s->refresh_stalls, "refresh_stall_ps", s->refresh_stall_ps);
}

static PyObject *Board_next_refresh(BoardObject *self, PyObject *arg)
{
	unsigned long long t = PyLong_AsUnsignedLongLong(arg);
	BOARD_OK(self);
	if (PyErr_Occurred())
		return NULL;
	return PyLong_FromUnsignedLongLong(vb_next_refresh(self->b, t));
}

static PyObject *Board_adc_start(BoardObject *self, PyObject *args)
{
	double rate;
	unsigned sample_bytes;
	unsigned long long fifo, packet;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "dIKK", &rate, &sample_bytes, &fifo, &packet))
		return NULL;
	if (!(rate > 0) || sample_bytes < 1 || sample_bytes > 8) {
		PyObject *r = PyFloat_FromDouble(rate);
		PyErr_Format(PyExc_ValueError, "ADC: rate %R samples/s must be > 0 and sample bytes %u in 1..8", r,
			     sample_bytes);
		Py_XDECREF(r);
		return NULL;
	}
	vb_adc_start(self->b, rate, sample_bytes, fifo, packet);
	Py_RETURN_NONE;
}

static PyObject *Board_adc_stop(BoardObject *self, PyObject *u)
{
	(void)u;
	BOARD_OK(self);
	vb_adc_stop(self->b);
	Py_RETURN_NONE;
}

static PyObject *Board_adc_report(BoardObject *self, PyObject *u)
{
	const struct vb_adc *a;
	PyObject *drops;
	(void)u;
	BOARD_OK(self);
	a = vb_adc_state(self->b);
	drops = PyList_New((Py_ssize_t)a->n_drops);
	for (size_t i = 0; i < a->n_drops; i++)
		PyList_SET_ITEM(drops, (Py_ssize_t)i,
				Py_BuildValue("(KKKK)", (unsigned long long)a->drops[i].t_first,
					      (unsigned long long)a->drops[i].t_last,
					      (unsigned long long)a->drops[i].first_sample,
					      (unsigned long long)a->drops[i].samples));
	return Py_BuildValue("{s:O,s:K,s:K,s:K,s:K,s:K,s:N}", "active", a->active ? Py_True : Py_False, "produced",
			     (unsigned long long)a->produced, "delivered", (unsigned long long)a->delivered, "dropped",
			     (unsigned long long)a->dropped, "level", (unsigned long long)a->level, "fifo_samples",
			     (unsigned long long)a->fifo_samples, "drops", drops);
}

/* ---- coherency checker (csrc/vboard/mem/coherency.h) ---------------------------- */
#include "mem/coherency.h"

static PyObject *Board_coh_register(BoardObject *self, PyObject *args)
{
	unsigned long long a, n;
	int policy, id;
	const char *name = NULL;
	char err[256];
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "KKi|z", &a, &n, &policy, &name))
		return NULL;
	id = vb_coherency_register(self->b, a, n, (enum vb_coh_policy)policy, name, err, sizeof(err));
	if (id < 0) {
		PyErr_SetString(PyExc_ValueError, err);
		return NULL;
	}
	return PyLong_FromLong(id);
}

static PyObject *Board_coh_unregister(BoardObject *self, PyObject *arg)
{
	long id = PyLong_AsLong(arg);
	BOARD_OK(self);
	if (PyErr_Occurred())
		return NULL;
	if (vb_coherency_unregister(self->b, (int)id) < 0) {
		PyErr_Format(PyExc_KeyError, "no coherency buffer with id %ld", id);
		return NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *Board_coh_enable(BoardObject *self, PyObject *arg)
{
	int on = PyObject_IsTrue(arg);
	BOARD_OK(self);
	if (on < 0)
		return NULL;
	vb_coherency_enable(self->b, on);
	Py_RETURN_NONE;
}

static PyObject *Board_coh_speculative(BoardObject *self, PyObject *arg)
{
	int on = PyObject_IsTrue(arg);
	BOARD_OK(self);
	if (on < 0)
		return NULL;
	vb_coherency_set_speculative(self->b, on);
	Py_RETURN_NONE;
}

static PyObject *Board_coh_state(BoardObject *self, PyObject *u)
{
	(void)u;
	BOARD_OK(self);
	return Py_BuildValue("{s:O,s:O,s:n,s:K,s:n,s:K}", "enabled", vb_coherency_enabled(self->b) ? Py_True : Py_False,
			     "speculative", vb_coherency_speculative(self->b) ? Py_True : Py_False, "buffers",
			     (Py_ssize_t)vb_coherency_buffer_count(self->b), "count",
			     (unsigned long long)vb_coherency_count(self->b), "stored",
			     (Py_ssize_t)vb_coherency_stored(self->b), "dma_checks",
			     (unsigned long long)vb_coherency_dma_checks(self->b));
}

static PyObject *Board_coh_cpu_access(BoardObject *self, PyObject *args)
{
	unsigned long long a, n;
	int write;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "KKp", &a, &n, &write))
		return NULL;
	vb_coherency_cpu_access(self->b, a, n, write);
	Py_RETURN_NONE;
}

static PyObject *Board_coh_violations(BoardObject *self, PyObject *u)
{
	size_t n;
	PyObject *list;
	(void)u;
	BOARD_OK(self);
	n = vb_coherency_stored(self->b);
	list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++) {
		const struct vb_coh_violation *v = vb_coherency_violation(self->b, i);
		PyList_SET_ITEM(list, (Py_ssize_t)i,
				Py_BuildValue("(sisKKKKss)", vb_coherency_kind_name(v->kind), v->buffer_id, v->name,
					      (unsigned long long)v->buffer_addr, (unsigned long long)v->offset,
					      (unsigned long long)v->nbytes, (unsigned long long)v->t_ps,
					      vb_coherency_missing_call(v->kind), vb_coherency_what(v->kind)));
	}
	return list;
}

static PyObject *Board_coh_clear(BoardObject *self, PyObject *u)
{
	(void)u;
	BOARD_OK(self);
	vb_coherency_clear(self->b);
	Py_RETURN_NONE;
}

static PyMethodDef Board_methods[] = {
	{ "probe", (PyCFunction)Board_probe, METH_O, "event times (ps) of channel 0/1's latest run" },
	{ "adc_start", (PyCFunction)Board_adc_start, METH_VARARGS,
	  "adc_start(rate_sps, sample_bytes, fifo_bytes, packet_bytes): ADC on the S2MM stream input" },
	{ "adc_stop", (PyCFunction)Board_adc_stop, METH_NOARGS, "the ADC stops producing" },
	{ "adc_report", (PyCFunction)Board_adc_report, METH_NOARGS, "ADC counters and drop episodes" },
	{ "reseed", (PyCFunction)Board_reseed, METH_O, "new seed: generator and DRAM refresh phase" },
	{ "dac_configure", (PyCFunction)Board_dac_configure, METH_VARARGS,
	  "dac_configure(beat_ps, lead_ps, fifo_beats): PL DAC consumer; beat_ps 0 switches it off" },
	{ "dac_report", (PyCFunction)Board_dac_report, METH_NOARGS, "DAC state, underflows and deadline misses" },
	{ "cpu_read32", (PyCFunction)Board_cpu_read32, METH_VARARGS, "cpu_read32(addr, cost_ps): DDR via the DRAM model" },
	{ "cpu_write32", (PyCFunction)Board_cpu_write32, METH_VARARGS, "cpu_write32(addr, value, cost_ps)" },
	{ "run_until_csm_done", (PyCFunction)Board_run_until_csm_done, METH_O,
	  "let time pass (the CPU in standby) until the timing engine is done or the limit (ps); True if done" },
	{ "dram_stats", (PyCFunction)Board_dram_stats, METH_NOARGS, "DRAM counters" },
	{ "next_refresh", (PyCFunction)Board_next_refresh, METH_O, "start (ps) of the first refresh window >= t" },
	{ "read32", (PyCFunction)Board_read32, METH_O, "CPU MMIO read (charges the access cost)" },
	{ "write32", (PyCFunction)Board_write32, METH_VARARGS, "CPU MMIO write (charges the access cost)" },
	{ "now_ps", (PyCFunction)Board_now_ps, METH_NOARGS, "virtual time in ps" },
	{ "advance_ps", (PyCFunction)Board_advance_ps, METH_O, "advance virtual time" },
	{ "run_until_quiet", (PyCFunction)Board_run_until_quiet, METH_O, "run the model until idle or the limit" },
	{ "regions", (PyCFunction)Board_regions, METH_NOARGS, "DDR regions as (name, base, size)" },
	{ "config_get", (PyCFunction)Board_config_get, METH_O, "value of a board option" },
	{ "name", (PyCFunction)Board_name, METH_NOARGS, "preset name" },
	{ "inject_slverr", (PyCFunction)Board_inject_slverr, METH_VARARGS, "make DMA accesses answer SLVERR" },
	{ "clear_faults", (PyCFunction)Board_clear_faults, METH_NOARGS, "remove injected faults" },
	{ "cache", (PyCFunction)Board_cache, METH_VARARGS, "cache(addr, len, invalidate)" },
	{ "irq_pending", (PyCFunction)Board_irq_pending, METH_O, "interrupt line of channel 0/1" },
	{ "bus_decerrs", (PyCFunction)Board_bus_decerrs, METH_NOARGS, "(count, last address) of CPU DECERRs" },
	{ "sink_packets", (PyCFunction)Board_sink_packets, METH_NOARGS, "MM2S packets as bytes" },
	{ "sink_info", (PyCFunction)Board_sink_info, METH_NOARGS, "MM2S packets as (length, t_first_ps, t_last_ps)" },
	{ "sink_clear", (PyCFunction)Board_sink_clear, METH_NOARGS, "forget recorded packets" },
	{ "sink_open_bytes", (PyCFunction)Board_sink_open_bytes, METH_NOARGS, "bytes of a packet without TLAST" },
	{ "source_send", (PyCFunction)Board_source_send, METH_VARARGS, "queue stream data for S2MM" },
	{ "source_pending", (PyCFunction)Board_source_pending, METH_NOARGS, "bytes queued for S2MM" },
	{ "stats", (PyCFunction)Board_stats, METH_O, "transaction counters of channel 0/1" },
	{ "coh_register", (PyCFunction)Board_coh_register, METH_VARARGS,
	  "coh_register(addr, nbytes, policy 0 sync/1 uncached/2 coherent, name=None) -> id" },
	{ "coh_unregister", (PyCFunction)Board_coh_unregister, METH_O, "forget a coherency buffer by id" },
	{ "coh_enable", (PyCFunction)Board_coh_enable, METH_O, "switch the coherency checker on/off" },
	{ "coh_speculative", (PyCFunction)Board_coh_speculative, METH_O,
	  "coherency: the CPU may prefetch any cacheable line (DMA-written lines always stale)" },
	{ "coh_state", (PyCFunction)Board_coh_state, METH_NOARGS, "coherency checker settings and counters" },
	{ "coh_cpu_access", (PyCFunction)Board_coh_cpu_access, METH_VARARGS,
	  "coh_cpu_access(addr, nbytes, write): the CPU loads/stores a range" },
	{ "coh_violations", (PyCFunction)Board_coh_violations, METH_NOARGS,
	  "stored violations as (kind, id, name, buffer_addr, offset, nbytes, t_ps, missing_call, what)" },
	{ "coh_clear", (PyCFunction)Board_coh_clear, METH_NOARGS, "forget coherency violations" },
	{ NULL, NULL, 0, NULL },
};

PyTypeObject BoardType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "sgdma._core.Board",
	.tp_basicsize = sizeof(BoardObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Board(preset_path, overrides=None, seed=0): the C virtual board",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)Board_init,
	.tp_dealloc = (destructor)Board_dealloc,
	.tp_methods = Board_methods,
};

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
	unsigned long long base, size;
	RegionObject *self;
	(void)kw;
	if (!PyArg_ParseTuple(args, "O!KK", &BoardType, &board, &base, &size))
		return NULL;
	BOARD_OK(board);
	void *host = vb_mem_ptr(board->b, base, size);
	if (!host) {
		char msg[128];
		snprintf(msg, sizeof(msg), "0x%llx + 0x%llx is not inside one DDR region of the board", base, size);
		PyErr_SetString(PyExc_ValueError, msg);
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

static PyTypeObject RegionType = {
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

/* ---- Chan ------------------------------------------------------------------ */

typedef struct {
	PyObject_HEAD
	PyObject *board;          /* a Board, or a LinuxPlatform (pylinux.h) */
	struct sg_chan c;
	struct sg_error err;
} ChanObject;

static PyTypeObject ChanType;

static int Chan_init(ChanObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "board", "direction", "base", "addr_width", "length_width", "data_bytes",
				  "has_dre", "poll_limit", NULL };
	PyObject *board;
	int dir, has_dre = 0;
	unsigned long long base;
	unsigned addr_width, length_width, data_bytes;
	unsigned long poll_limit = 0;
	struct sg_chan_config cfg;
	struct sg_platform plat;

	int linux;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OiKIII|pk", kwlist, &board, &dir, &base,
					 &addr_width, &length_width, &data_bytes, &has_dre, &poll_limit))
		return -1;
	linux = sgdma_py_linux_platform(board, &plat);
	if (linux < 0)
		return -1;
	if (!linux) {
		plat.ops = vb_platform_ops();
		plat.ctx = sgdma_py_vboard(board);
		if (!plat.ctx)
			return -1;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.base = base;
	cfg.dir = dir ? SG_S2MM : SG_MM2S;
	cfg.addr_width = addr_width;
	cfg.length_width = length_width;
	cfg.data_bytes = data_bytes;
	cfg.has_dre = has_dre;
	cfg.poll_limit = (uint32_t)poll_limit;
	Py_XDECREF(self->board);
	Py_INCREF(board);
	self->board = board;
	if (sg_chan_init(&self->c, plat, &cfg, &self->err) != SG_OK) {
		raise_sg(&self->err);
		return -1;
	}
	return 0;
}

static void Chan_dealloc(ChanObject *self)
{
	Py_XDECREF(self->board);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

#define CHAN_CALL(expr) \
	do { if ((expr) != SG_OK) return raise_sg(&self->err); } while (0)

static PyObject *Chan_reset(ChanObject *self, PyObject *u) { (void)u; CHAN_CALL(sg_chan_reset(&self->c, &self->err)); Py_RETURN_NONE; }
static PyObject *Chan_halt(ChanObject *self, PyObject *u) { (void)u; CHAN_CALL(sg_chan_halt(&self->c, &self->err)); Py_RETURN_NONE; }
static PyObject *Chan_check(ChanObject *self, PyObject *u) { (void)u; CHAN_CALL(sg_chan_check(&self->c, &self->err)); Py_RETURN_NONE; }
static PyObject *Chan_wait_idle(ChanObject *self, PyObject *u) { (void)u; CHAN_CALL(sg_chan_wait_idle(&self->c, &self->err)); Py_RETURN_NONE; }

static PyObject *Chan_recover(ChanObject *self, PyObject *u)
{
	(void)u;
	CHAN_CALL(sg_chan_recover(&self->c, &self->err));
	/* The pre-reset snapshot stays available to the caller. */
	if (self->err.has_snapshot)
		return snapshot_dict(&self->err.snap);
	Py_RETURN_NONE;
}

static PyObject *Chan_set_irq(ChanObject *self, PyObject *args)
{
	unsigned long enables;
	unsigned threshold, delay;
	if (!PyArg_ParseTuple(args, "kII", &enables, &threshold, &delay))
		return NULL;
	if (enables > 0xFFFFFFFFul) {
		PyErr_SetString(PyExc_ValueError, "set_irq: enables are DMACR bits (PG021_CR_*_IRQEN)");
		return NULL;
	}
	CHAN_CALL(sg_chan_set_irq(&self->c, (uint32_t)enables, threshold, delay, &self->err));
	Py_RETURN_NONE;
}

static PyObject *Chan_irq_ack(ChanObject *self, PyObject *u)
{
	(void)u;
	return PyLong_FromUnsignedLong(sg_chan_irq_ack(&self->c));
}

static PyObject *Chan_set_curdesc(ChanObject *self, PyObject *arg)
{
	unsigned long long a = PyLong_AsUnsignedLongLong(arg);
	if (PyErr_Occurred())
		return NULL;
	CHAN_CALL(sg_chan_set_curdesc(&self->c, a, &self->err));
	Py_RETURN_NONE;
}

static PyObject *Chan_set_cyclic(ChanObject *self, PyObject *arg)
{
	int on = PyObject_IsTrue(arg);
	if (on < 0)
		return NULL;
	CHAN_CALL(sg_chan_set_cyclic(&self->c, on, &self->err));
	Py_RETURN_NONE;
}

static PyObject *Chan_write_tail(ChanObject *self, PyObject *arg)
{
	unsigned long long a = PyLong_AsUnsignedLongLong(arg);
	if (PyErr_Occurred())
		return NULL;
	sg_chan_write_tail(&self->c, a);
	Py_RETURN_NONE;
}

static PyObject *Chan_simple_start(ChanObject *self, PyObject *args)
{
	unsigned long long a, n;
	if (!PyArg_ParseTuple(args, "KK", &a, &n))
		return NULL;
	if (n > 0xFFFFFFFFull) {
		self->err = (struct sg_error){ .code = SG_E_LENGTH_WIDTH, .dir = self->c.cfg.dir,
					       .bd_index = SG_NO_INDEX, .value = n,
					       .limit = sg_chan_max_length(&self->c) };
		return raise_sg(&self->err);
	}
	CHAN_CALL(sg_simple_start(&self->c, a, (uint32_t)n, &self->err));
	Py_RETURN_NONE;
}

static PyObject *Chan_simple_wait(ChanObject *self, PyObject *u)
{
	uint32_t actual = 0;
	(void)u;
	CHAN_CALL(sg_simple_wait(&self->c, &actual, &self->err));
	return PyLong_FromUnsignedLong(actual);
}

static PyObject *Chan_snapshot(ChanObject *self, PyObject *u)
{
	struct sg_snapshot s;
	(void)u;
	sg_chan_snapshot(&self->c, &s);
	return snapshot_dict(&s);
}

static PyObject *Chan_read(ChanObject *self, PyObject *arg)
{
	unsigned long off = PyLong_AsUnsignedLong(arg);
	if (PyErr_Occurred())
		return NULL;
	return PyLong_FromUnsignedLong(sg_chan_read(&self->c, (uint32_t)off));
}

static PyObject *Chan_write(ChanObject *self, PyObject *args)
{
	unsigned long off, v;
	if (!PyArg_ParseTuple(args, "kk", &off, &v))
		return NULL;
	if (off >= PG021_CHAN_SPAN || (off & 3) || v > 0xFFFFFFFFul) {
		PyErr_Format(PyExc_ValueError, "write: offset must be a 32-bit register below 0x%x and the value fit 32 bits",
			     PG021_CHAN_SPAN);
		return NULL;
	}
	sg_chan_write(&self->c, (uint32_t)off, (uint32_t)v);
	Py_RETURN_NONE;
}

static PyObject *Chan_set_poll_limit(ChanObject *self, PyObject *arg)
{
	unsigned long n = PyLong_AsUnsignedLong(arg);
	if (PyErr_Occurred())
		return NULL;
	/* the bound is a 32-bit count of register reads */
	self->c.cfg.poll_limit = n == 0 ? SG_DEFAULT_POLL_LIMIT : n > 0xFFFFFFFFul ? 0xFFFFFFFFu : (uint32_t)n;
	Py_RETURN_NONE;
}

/* Bound of one interrupt wait (platforms with wait_irq); 0 restores the default. */
static PyObject *Chan_set_irq_timeout(ChanObject *self, PyObject *arg)
{
	unsigned long us = PyLong_AsUnsignedLong(arg);

	if (PyErr_Occurred())
		return NULL;
	self->c.cfg.irq_timeout_us = us ? (uint32_t)(us > UINT32_MAX ? UINT32_MAX : us) : SG_DEFAULT_IRQ_TIMEOUT_US;
	Py_RETURN_NONE;
}

static PyObject *Chan_info(ChanObject *self, PyObject *u)
{
	(void)u;
	return Py_BuildValue("{s:O,s:K,s:K,s:I,s:I,s:I,s:k}", "has_sg", self->c.has_sg ? Py_True : Py_False,
			     "regs", (unsigned long long)self->c.regs, "max_length",
			     (unsigned long long)sg_chan_max_length(&self->c), "addr_width", self->c.cfg.addr_width,
			     "length_width", self->c.cfg.length_width, "data_bytes", self->c.cfg.data_bytes,
			     "poll_limit", (unsigned long)self->c.cfg.poll_limit);
}

static PyObject *Chan_halted(ChanObject *self, PyObject *u) { (void)u; return PyBool_FromLong(sg_chan_halted(&self->c)); }
static PyObject *Chan_idle(ChanObject *self, PyObject *u) { (void)u; return PyBool_FromLong(sg_chan_idle(&self->c)); }

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

static PyTypeObject ChanType = {
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
	unsigned long long dev;
	unsigned long count;
	int closed = 1;
	void *cpu;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!Kk|p", kwlist, &ChanType, &chan, &dev, &count, &closed))
		return -1;
	cpu = chan->c.plat.ops->cpu_ptr(chan->c.plat.ctx, dev, (uint64_t)count * PG021_BD_SIZE);
	if (!cpu) {
		chan->err = (struct sg_error){ .code = SG_E_ADDR_RANGE, .dir = chan->c.cfg.dir,
					       .bd_index = SG_NO_INDEX, .value = dev,
					       .limit = (uint64_t)count * PG021_BD_SIZE };
		raise_sg(&chan->err);
		return -1;
	}
	if (sg_ring_create(&self->r, &chan->c, cpu, dev, (uint32_t)count, &chan->err) != SG_OK) {
		raise_sg(&chan->err);
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
	do { if (!(self)->live) { PyErr_SetString(PyExc_RuntimeError, "ring not initialised"); return NULL; } } while (0)
#define RING_CALL(expr) \
	do { if ((expr) != SG_OK) return raise_sg(&self->chan->err); } while (0)

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
	unsigned long n;
	PyObject *oa, *ol, *of, *oapp = Py_None;
	Py_buffer ba, bl, bf, bapp = { 0 };
	enum sg_status st;
	RING_OK(self);
	if (!PyArg_ParseTuple(args, "kOOO|O", &n, &oa, &ol, &of, &oapp))
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
	st = sg_ring_fill(&self->r, (uint32_t)n, ba.buf, bl.buf, bf.buf, bapp.buf, &self->chan->err);
	PyBuffer_Release(&ba);
	PyBuffer_Release(&bl);
	PyBuffer_Release(&bf);
	if (bapp.obj)
		PyBuffer_Release(&bapp);
	if (st != SG_OK)
		return raise_sg(&self->chan->err);
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
	unsigned long long t = PyLong_AsUnsignedLongLong(arg);
	RING_OK(self);
	if (PyErr_Occurred())
		return NULL;
	RING_CALL(sg_ring_kick(&self->r, t, &self->chan->err));
	Py_RETURN_NONE;
}

static PyObject *Ring_rearm(RingObject *self, PyObject *arg)
{
	unsigned long n = PyLong_AsUnsignedLong(arg);
	RING_OK(self);
	if (PyErr_Occurred())
		return NULL;
	if (n > self->r.count) {
		PyErr_Format(PyExc_ValueError, "rearm: %lu BDs requested, the ring has %lu", n, (unsigned long)self->r.count);
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
	unsigned long max = PyLong_AsUnsignedLong(arg);
	uint32_t n = 0;
	PyObject *out;
	enum sg_status st;
	RING_OK(self);
	if (PyErr_Occurred())
		return NULL;
	if (max > self->r.count)
		max = self->r.count;
	out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(max * sizeof(struct sg_completion)));
	if (!out)
		return NULL;
	st = sg_ring_reclaim(&self->r, (struct sg_completion *)PyBytes_AS_STRING(out), (uint32_t)max, &n,
			     &self->chan->err);
	if (st != SG_OK && n == 0) {
		Py_DECREF(out);
		return raise_sg(&self->chan->err);
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

static PyTypeObject RingType = {
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
	unsigned long poll_limit;
	int random = 0, simple = 0;
	Py_buffer seeds;
	PyObject *counts, *sim;
	struct sg_platform plat;
	struct sg_error err;
	(void)m;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!KKKIKKIIIkIIIppy*", kwlist, &BoardType, &board,
					 &bench.dma_base, &bench.gpio_base, &bench.bd_dev, &bench.bd_capacity,
					 &bench.buffer_base, &bench.buffer_bytes, &bench.addr_width,
					 &bench.length_width, &bench.data_bytes, &poll_limit, &pt.bytes_per_bd, &pt.bds,
					 &pt.cycles, &random, &simple, &seeds))
		return NULL;
	BOARD_OK(board);
	pt.random = random;
	pt.simple = simple;
	bench.poll_limit = (uint32_t)poll_limit;
	bench.bd_cpu = vb_mem_ptr(board->b, bench.bd_dev, (uint64_t)bench.bd_capacity * PG021_BD_SIZE);
	if (!bench.bd_cpu || seeds.len % 8) {
		PyBuffer_Release(&seeds);
		PyErr_SetString(PyExc_ValueError, "s0_trials: BD region not in board memory, or seeds not uint64");
		return NULL;
	}
	Py_ssize_t n = seeds.len / 8;
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
	for (Py_ssize_t i = 0; i < n; i++) {
		uint64_t seed = ((const uint64_t *)seeds.buf)[i], t0;
		vb_reseed(board->b, seed);
		vb_sink_clear(board->b);          /* a trial's packets are not kept */
		t0 = vb_now_ps(board->b);
		if (s0_trial(plat, &bench, &pt, seed, (struct s0_counts *)PyBytes_AS_STRING(counts) + i, &err) != SG_OK) {
			PyBuffer_Release(&seeds);
			Py_DECREF(counts);
			Py_DECREF(sim);
			return raise_sg(&err);
		}
		((uint64_t *)PyBytes_AS_STRING(sim))[i] = vb_now_ps(board->b) - t0;
	}
	PyBuffer_Release(&seeds);
	return Py_BuildValue("(NN)", counts, sim);
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

static PyObject *status_table(PyObject *m, PyObject *u)
{
	PyObject *list = PyList_New(0);
	(void)m;
	(void)u;
	for (int i = 0; i < SG_STATUS_COUNT; i++) {
		PyObject *t = Py_BuildValue("(iss s)", i, sg_status_name(i), sg_status_rule(i), sg_status_fix(i));
		PyList_Append(list, t);
		Py_DECREF(t);
	}
	return list;
}

static PyObject *format_reg(PyObject *m, PyObject *args)
{
	const char *which;
	unsigned long v;
	char buf[512];
	(void)m;
	if (!PyArg_ParseTuple(args, "sk", &which, &v))
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
	{ "set_error_classes", set_error_classes, METH_O, "map status names to exception classes" },
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
		return -1;
	PG021_EXPORTS(EXPORT)
	CSM_EXPORTS(EXPORT)
	EXPORT(VB_DMA_SPAN)
	EXPORT(VB_GPIO_BLOCKS)
	EXPORT(VB_GPIO_WINDOW)
	EXPORT(VB_COH_SYNC)
	EXPORT(VB_COH_UNCACHED)
	EXPORT(VB_COH_COHERENT)
	EXPORT(SG_BD_SOF)
	EXPORT(SG_BD_EOF)
	EXPORT(SG_DEFAULT_POLL_LIMIT)
#undef EXPORT
	if (add_int(d, "SG_COMPLETION_SIZE", sizeof(struct sg_completion)) < 0)
		return -1;
	return PyModule_AddObject(m, "constants", d);
}

PyMODINIT_FUNC PyInit__core(void)
{
	PyObject *m;
	if (PyType_Ready(&BoardType) < 0 || PyType_Ready(&RegionType) < 0 || PyType_Ready(&ChanType) < 0 ||
	    PyType_Ready(&RingType) < 0)
		return NULL;
	m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	if (sgpy_register_extensions(m) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	DriverError = PyErr_NewException("sgdma._core.DriverError", PyExc_RuntimeError, NULL);
	Py_INCREF(DriverError);
	PyModule_AddObject(m, "DriverError", DriverError);
	Py_INCREF(&BoardType);
	PyModule_AddObject(m, "Board", (PyObject *)&BoardType);
	Py_INCREF(&RegionType);
	PyModule_AddObject(m, "Region", (PyObject *)&RegionType);
	Py_INCREF(&ChanType);
	PyModule_AddObject(m, "Chan", (PyObject *)&ChanType);
	Py_INCREF(&RingType);
	PyModule_AddObject(m, "Ring", (PyObject *)&RingType);
	if (add_constants(m) < 0 || sgdma_py_linux_register(m) < 0)
		return NULL;
	return m;
}
