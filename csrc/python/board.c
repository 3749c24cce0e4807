/*
 * board.c - the Board object: a virtual board owned by Python.  Every method
 * checks the board is initialised and not busy in another thread; numbers
 * from Python go through the range-checked converters (core.h); long runs
 * (advance_ps, run_until_quiet, run_until_csm_done) release the GIL.
 */
#include "core.h"
#include "pylinux.h"

#include <limits.h>
#include <string.h>

#include "api_coherency.h"
#include "mem/dram.h"

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
	if (((BoardObject *)o)->busy) {
		PyErr_SetString(PyExc_RuntimeError, "board is busy: another thread is simulating on it");
		return NULL;
	}
	return ((BoardObject *)o)->b;
}

int sgpy_board_ready(BoardObject *board)
{
	if (!board->b) {
		PyErr_SetString(PyExc_RuntimeError, "board not initialised");
		return -1;
	}
	if (board->busy) {
		PyErr_SetString(PyExc_RuntimeError, "board is busy: another thread is simulating on it");
		return -1;
	}
	return 0;
}

static int Board_init(BoardObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "preset_path", "overrides", "seed", "name", NULL };
	const char *path = NULL, *name = NULL;
	PyObject *overrides = NULL;
	uint64_t seed = 0;
	struct vb_config cfg;
	char err[512];

	if (!PyArg_ParseTupleAndKeywords(args, kw, "z|OO&z", kwlist, &path, &overrides, sgpy_u64, &seed, &name))
		return -1;
	if (self->b) {
		/* Regions, channels and numpy views point into this board: it lives once. */
		PyErr_SetString(PyExc_RuntimeError, "Board already initialised: create a new Board instead");
		return -1;
	}
	vb_config_defaults(&cfg);
	if (name)   /* the preset Python parsed: its name here, its numbers in overrides */
		snprintf(cfg.name, sizeof(cfg.name), "%s", name);
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
			const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
			double v;
			if (!k) {
				if (!PyErr_Occurred())
					PyErr_Format(PyExc_TypeError, "board option names are strings, not %R", key);
				return -1;
			}
			v = PyFloat_AsDouble(value);
			if (v == -1.0 && PyErr_Occurred())
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
	do { if (sgpy_board_ready(self) < 0) return NULL; } while (0)

static PyObject *Board_read32(BoardObject *self, PyObject *arg)
{
	uint64_t a;
	BOARD_OK(self);
	if (!sgpy_u64(arg, &a))
		return NULL;
	return PyLong_FromUnsignedLong(vb_read32(self->b, a));
}

static PyObject *Board_write32(BoardObject *self, PyObject *args)
{
	uint64_t a;
	uint32_t v;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "O&O&", sgpy_u64, &a, sgpy_u32, &v))
		return NULL;
	vb_write32(self->b, a, v);
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
	uint64_t ps;
	BOARD_OK(self);
	if (!sgpy_u64(arg, &ps))
		return NULL;
	SGPY_SIMULATE(self, vb_advance_ps(self->b, ps));
	Py_RETURN_NONE;
}

static PyObject *Board_run_until_quiet(BoardObject *self, PyObject *arg)
{
	uint64_t limit, t = 0;
	BOARD_OK(self);
	if (!sgpy_u64(arg, &limit))
		return NULL;
	SGPY_SIMULATE(self, t = vb_run_until_quiet(self->b, limit));
	return PyLong_FromUnsignedLongLong(t);
}

static PyObject *Board_regions(BoardObject *self, PyObject *unused)
{
	PyObject *list;
	(void)unused;
	BOARD_OK(self);
	list = PyList_New(0);
	for (int i = 0; list && i < vb_region_count(self->b); i++) {
		const struct vb_region *r = vb_region_at(self->b, i);
		if (sgpy_append(list, Py_BuildValue("(sKK)", r->name, (unsigned long long)r->base,
						    (unsigned long long)r->size)) < 0)
			Py_CLEAR(list);
	}
	return list;
}

static PyObject *Board_config_get(BoardObject *self, PyObject *arg)
{
	const char *k;
	double v;
	BOARD_OK(self);
	if (!PyUnicode_Check(arg)) {
		PyErr_Format(PyExc_TypeError, "config_get: a board option name is a string, not %R", arg);
		return NULL;
	}
	if (!(k = PyUnicode_AsUTF8(arg)))
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
	uint64_t base, size;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "O&O&", sgpy_u64, &base, sgpy_u64, &size))
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
	uint64_t a, n;
	int invalidate;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "O&O&p", sgpy_u64, &a, sgpy_u64, &n, &invalidate))
		return NULL;
	if (invalidate)
		vb_cache_invalidate(self->b, a, n);
	else
		vb_cache_clean(self->b, a, n);
	Py_RETURN_NONE;
}

static PyObject *Board_irq_pending(BoardObject *self, PyObject *arg)
{
	enum vb_chan_id ch;
	BOARD_OK(self);
	if (!sgpy_channel(arg, &ch))
		return NULL;
	return PyBool_FromLong(vb_irq_pending(self->b, ch));
}

static PyObject *Board_bus_decerrs(BoardObject *self, PyObject *unused)
{
	uint64_t last = 0, n;
	(void)unused;
	BOARD_OK(self);
	n = vb_bus_decerrs(self->b, &last);
	return Py_BuildValue("(KK)", (unsigned long long)n, (unsigned long long)last);
}

static PyObject *Board_dma_guest_errors(BoardObject *self, PyObject *unused)
{
	const struct vb_dma_guest_errors *g;
	PyObject *d;
	(void)unused;
	BOARD_OK(self);
	g = vb_dma_guest_errors(self->b);
	d = PyDict_New();
	for (int k = 0; d && k < VB_GE_COUNT; k++) {
		PyObject *v = Py_BuildValue("(KI)", (unsigned long long)g->count[k], (unsigned)g->last_offset[k]);
		if (!v || PyDict_SetItemString(d, vb_guest_error_name((enum vb_guest_error)k), v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
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
	if (n > (size_t)PY_SSIZE_T_MAX)
		return PyErr_NoMemory();
	list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++) {
		const struct vb_packet *p = vb_sink_packet(self->b, i);
		PyObject *bytes = data ? PyBytes_FromStringAndSize((const char *)data + p->offset, (Py_ssize_t)p->length)
				       : PyBytes_FromStringAndSize(NULL, 0);
		if (!bytes)
			Py_CLEAR(list);
		else
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
	if (n > (size_t)PY_SSIZE_T_MAX)
		return PyErr_NoMemory();
	list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++) {
		const struct vb_packet *p = vb_sink_packet(self->b, i);
		PyObject *t = Py_BuildValue("(KKKN)", (unsigned long long)p->length, (unsigned long long)p->t_first_ps,
					    (unsigned long long)p->t_last_ps, PyBool_FromLong(p->cut));
		if (!t)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)i, t);
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

static PyObject *Board_sink_overflow(BoardObject *self, PyObject *unused)
{
	uint64_t packets, bytes;
	(void)unused;
	BOARD_OK(self);
	vb_sink_overflow(self->b, &packets, &bytes);
	return Py_BuildValue("(KK)", (unsigned long long)packets, (unsigned long long)bytes);
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
	if (rc < 0 && buf.len > 0)
		return PyErr_NoMemory();
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

static PyObject *Board_mm2s_live(BoardObject *self, PyObject *arg)
{
	int on = PyObject_IsTrue(arg);
	BOARD_OK(self);
	if (on < 0)
		return NULL;
	if (vb_mm2s_live(self->b, on) < 0) {
		PyErr_SetString(PyExc_RuntimeError, "MM2S has BDs queued: switch its live consumer before the "
				"channel's first tail write (or after it drained)");
		return NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *Board_mm2s_offer(BoardObject *self, PyObject *unused)
{
	uint64_t t;
	(void)unused;
	BOARD_OK(self);
	t = vb_mm2s_offer(self->b);
	if (t == VB_NO_TIME)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLongLong(t);
}

static PyObject *Board_mm2s_accept(BoardObject *self, PyObject *arg)
{
	unsigned long long t = PyLong_AsUnsignedLongLong(arg);
	bool last = false;
	BOARD_OK(self);
	if (PyErr_Occurred())
		return NULL;
	if (vb_mm2s_accept(self->b, t, &last) < 0) {
		PyErr_Format(PyExc_ValueError, "MM2S beat taken at %llu ps: no beat is offered by then "
			     "(take a beat at or after mm2s_offer())", t);
		return NULL;
	}
	return PyBool_FromLong(last);
}

static PyObject *Board_stats(BoardObject *self, PyObject *arg)
{
	enum vb_chan_id ch;
	struct vb_stats s;
	BOARD_OK(self);
	if (!sgpy_channel(arg, &ch))
		return NULL;
	vb_get_stats(self->b, ch, &s);
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "bd_fetches", s.bd_fetches, "bd_writebacks",
			     s.bd_writebacks, "data_bursts", s.data_bursts, "bytes_moved", s.bytes_moved, "packets",
			     s.packets, "mmio_reads", s.mmio_reads, "mmio_writes", s.mmio_writes, "irq_ioc", s.irq_ioc,
			     "irq_dly", s.irq_dly, "irq_err", s.irq_err);
}

static PyObject *Board_probe(BoardObject *self, PyObject *arg)
{
	enum vb_chan_id ch;
	struct vb_probe p;
	BOARD_OK(self);
	if (!sgpy_channel(arg, &ch))
		return NULL;
	vb_get_probe(self->b, ch, &p);
	/* an event that has not happened is None */
	const struct { const char *name; uint64_t t; } ev[] = {
		{ "t_kick", p.t_kick }, { "t_sg_ar", p.t_sg_ar }, { "t_data_ar", p.t_data_ar },
		{ "t_first_beat", p.t_first_beat }, { "t_last_beat", p.t_last_beat },
	};
	PyObject *d = Py_BuildValue("{s:K}", "bytes", (unsigned long long)p.bytes);
	for (size_t i = 0; d && i < sizeof(ev) / sizeof(ev[0]); i++) {
		PyObject *v = ev[i].t == VB_NO_TIME ? Py_NewRef(Py_None) : PyLong_FromUnsignedLongLong(ev[i].t);
		if (!v || PyDict_SetItemString(d, ev[i].name, v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
}

static PyObject *Board_run_until_csm_done(BoardObject *self, PyObject *arg)
{
	uint64_t limit;
	bool done = false;
	BOARD_OK(self);
	if (!sgpy_u64(arg, &limit))
		return NULL;
	SGPY_SIMULATE(self, done = vb_run_until_csm_done(self->b, limit));
	return PyBool_FromLong(done);
}

static PyObject *Board_dac_configure(BoardObject *self, PyObject *args)
{
	uint64_t beat_ps, lead_ps;
	uint32_t fifo;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "O&O&O&", sgpy_u64, &beat_ps, sgpy_u64, &lead_ps, sgpy_u32, &fifo))
		return NULL;
	if (fifo < 1) {
		PyErr_SetString(PyExc_ValueError, "dac_configure: the FIFO holds 1..2^32-1 words");
		return NULL;
	}
	vb_dac_configure(self->b, beat_ps, lead_ps, fifo);
	Py_RETURN_NONE;
}

static PyObject *dac_events(const struct vb_dac_event *e, size_t n)
{
	PyObject *list = n > (size_t)PY_SSIZE_T_MAX ? PyErr_NoMemory() : PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++) {
		PyObject *t = Py_BuildValue("(KKKK)", (unsigned long long)e[i].gate, (unsigned long long)e[i].beat,
					    (unsigned long long)e[i].t_due, (unsigned long long)e[i].t_actual);
		if (!t)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)i, t);
	}
	return list;
}

static PyObject *Board_dac_report(BoardObject *self, PyObject *u)
{
	const struct vb_dac *d;
	(void)u;
	BOARD_OK(self);
	d = vb_dac_state(self->b);
	PyObject *under = dac_events(d->underflows, d->n_underflows), *miss = NULL;
	if (!under || !(miss = dac_events(d->misses, d->n_misses))) {
		Py_XDECREF(under);
		return NULL;
	}
	return Py_BuildValue("{s:O,s:O,s:K,s:K,s:K,s:K,s:K,s:K,s:N,s:N}", "enabled", d->enabled ? Py_True : Py_False,
			     "started", d->started ? Py_True : Py_False, "beat_ps", (unsigned long long)d->beat_ps,
			     "fifo_beats", (unsigned long long)d->fifo_beats, "beats", (unsigned long long)d->beats,
			     "gates", (unsigned long long)d->gates, "t0_nominal_ps", (unsigned long long)d->t0_nominal,
			     "t_last_play_ps", (unsigned long long)d->t_last_play, "underflows", under,
			     "deadline_misses", miss);
}

static PyObject *Board_cpu_read32(BoardObject *self, PyObject *args)
{
	uint64_t a, cost;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "O&O&", sgpy_u64, &a, sgpy_u64, &cost))
		return NULL;
	return PyLong_FromUnsignedLong(vb_cpu_read32(self->b, a, cost));
}

static PyObject *Board_cpu_write32(BoardObject *self, PyObject *args)
{
	uint64_t a, cost;
	uint32_t v;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "O&O&O&", sgpy_u64, &a, sgpy_u32, &v, sgpy_u64, &cost))
		return NULL;
	vb_cpu_write32(self->b, a, v, cost);
	Py_RETURN_NONE;
}

static PyObject *Board_reseed(BoardObject *self, PyObject *arg)
{
	uint64_t seed;
	BOARD_OK(self);
	if (!sgpy_u64(arg, &seed))
		return NULL;
	vb_reseed(self->b, seed);
	Py_RETURN_NONE;
}

/* The controller's per-port counters: {"cpu": {...}, "pl": {...}}. */
static PyObject *ddrc_ports(vb_board *b)
{
	static const char *const names[VB_PORT_COUNT] = { "cpu", "pl" };
	PyObject *d = PyDict_New();
	for (unsigned i = 0; d && i < VB_PORT_COUNT; i++) {
		const struct vb_ddrc_port_stats *p = vb_ddrc_stats(b, i);
		PyObject *v = Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "reads", p->reads, "writes",
					    p->writes, "bytes", p->bytes, "wait_ps", p->wait_ps, "max_wait_ps",
					    p->max_wait_ps, "read_latency_ps", p->read_latency_ps,
					    "max_read_latency_ps", p->max_read_latency_ps, "write_latency_ps",
					    p->write_latency_ps, "overtaken", p->overtaken);
		if (!v || PyDict_SetItemString(d, names[i], v) < 0) {
			Py_XDECREF(v);
			Py_DECREF(d);
			return NULL;
		}
		Py_DECREF(v);
	}
	return d;
}

static PyObject *Board_dram_stats(BoardObject *self, PyObject *u)
{
	const struct vb_dram_stats *s;
	(void)u;
	BOARD_OK(self);
	vb_sync(self->b);
	s = vb_dram_stats(self->b);
	PyObject *ports = ddrc_ports(self->b);
	if (!ports)
		return NULL;
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:N}", "reads", s->reads, "writes", s->writes, "row_hits",
			     s->row_hits, "row_misses", s->row_misses, "row_conflicts", s->row_conflicts,
			     "refresh_stalls", s->refresh_stalls, "refresh_stall_ps", s->refresh_stall_ps, "ports", ports);
}

static PyObject *Board_next_refresh(BoardObject *self, PyObject *arg)
{
	uint64_t t;
	BOARD_OK(self);
	if (!sgpy_u64(arg, &t))
		return NULL;
	return PyLong_FromUnsignedLongLong(vb_next_refresh(self->b, t));
}

static PyObject *Board_adc_start(BoardObject *self, PyObject *args)
{
	double rate;
	uint32_t sample_bytes;
	uint64_t fifo, packet;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "dO&O&O&", &rate, sgpy_u32, &sample_bytes, sgpy_u64, &fifo, sgpy_u64, &packet))
		return NULL;
	if (!(rate > 0) || !(rate <= 1e12) || sample_bytes < 1 || sample_bytes > 8) {
		PyObject *r = PyFloat_FromDouble(rate);
		PyErr_Format(PyExc_ValueError, "ADC: rate %R samples/s must be in (0, 1e12] (one sample per ps at "
			     "most) and sample bytes %u in 1..8", r, (unsigned)sample_bytes);
		Py_XDECREF(r);
		return NULL;
	}
	{
		/* the DMA takes the FIFO in chunks of half its samples: one chunk's time must fit the ps clock */
		uint64_t fifo_samples = fifo / sample_bytes ? fifo / sample_bytes : 1;
		double chunk_ps = (double)(fifo_samples / 2 ? fifo_samples / 2 : 1) * (1e12 / rate);
		if (!(chunk_ps + (double)vb_now_ps(self->b) < 9.2e18)) {
			PyObject *r = PyFloat_FromDouble(rate);
			PyErr_Format(PyExc_ValueError, "ADC: at %R samples/s one FIFO chunk (%llu samples) takes %g ps, "
				     "past the board's 64-bit picosecond clock: use a higher rate or a smaller FIFO", r,
				     (unsigned long long)(fifo_samples / 2 ? fifo_samples / 2 : 1), chunk_ps);
			Py_XDECREF(r);
			return NULL;
		}
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
	drops = a->n_drops > (size_t)PY_SSIZE_T_MAX ? PyErr_NoMemory() : PyList_New((Py_ssize_t)a->n_drops);
	for (size_t i = 0; drops && i < a->n_drops; i++) {
		PyObject *t = Py_BuildValue("(KKKK)", (unsigned long long)a->drops[i].t_first,
					    (unsigned long long)a->drops[i].t_last,
					    (unsigned long long)a->drops[i].first_sample,
					    (unsigned long long)a->drops[i].samples);
		if (!t)
			Py_CLEAR(drops);
		else
			PyList_SET_ITEM(drops, (Py_ssize_t)i, t);
	}
	if (!drops)
		return NULL;
	return Py_BuildValue("{s:O,s:K,s:K,s:K,s:K,s:K,s:N}", "active", a->active ? Py_True : Py_False, "produced",
			     (unsigned long long)a->produced, "delivered", (unsigned long long)a->delivered, "dropped",
			     (unsigned long long)a->dropped, "level", (unsigned long long)a->level, "fifo_samples",
			     (unsigned long long)a->fifo_samples, "drops", drops);
}

/* ---- coherency checker (csrc/vboard/mem/coherency.h) ---------------------------- */

static PyObject *Board_coh_register(BoardObject *self, PyObject *args)
{
	uint64_t a, n;
	int policy, id;
	const char *name = NULL;
	char err[256];
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "O&O&O&|z", sgpy_u64, &a, sgpy_u64, &n, sgpy_int, &policy, &name))
		return NULL;
	if (policy != VB_COH_SYNC && policy != VB_COH_UNCACHED && policy != VB_COH_COHERENT) {
		PyErr_Format(PyExc_ValueError, "coh_register: policy %d is not %d (sync), %d (uncached) or %d (coherent)",
			     policy, VB_COH_SYNC, VB_COH_UNCACHED, VB_COH_COHERENT);
		return NULL;
	}
	id = vb_coherency_register(self->b, a, n, (enum vb_coh_policy)policy, name, err, sizeof(err));
	if (id < 0) {
		PyErr_SetString(PyExc_ValueError, err);
		return NULL;
	}
	return PyLong_FromLong(id);
}

static PyObject *Board_coh_unregister(BoardObject *self, PyObject *arg)
{
	int64_t id;
	BOARD_OK(self);
	if (!sgpy_i64(arg, &id))
		return NULL;
	if (id < 0 || id > INT_MAX || vb_coherency_unregister(self->b, (int)id) < 0) {
		PyErr_Format(PyExc_KeyError, "no coherency buffer with id %lld", (long long)id);
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
	uint64_t a, n;
	int write;
	BOARD_OK(self);
	if (!PyArg_ParseTuple(args, "O&O&p", sgpy_u64, &a, sgpy_u64, &n, &write))
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
	list = n > (size_t)PY_SSIZE_T_MAX ? PyErr_NoMemory() : PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++) {
		const struct vb_coh_violation *v = vb_coherency_violation(self->b, i);
		PyObject *t = Py_BuildValue("(sisKKKKss)", vb_coherency_kind_name(v->kind), v->buffer_id, v->name,
					    (unsigned long long)v->buffer_addr, (unsigned long long)v->offset,
					    (unsigned long long)v->nbytes, (unsigned long long)v->t_ps,
					    vb_coherency_missing_call(v->kind), vb_coherency_what(v->kind));
		if (!t)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)i, t);
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
	{ "dma_guest_errors", (PyCFunction)Board_dma_guest_errors, METH_NOARGS,
	  "illegal DMA register accesses: {kind: (count, last offset)}" },
	{ "sink_packets", (PyCFunction)Board_sink_packets, METH_NOARGS, "MM2S packets as bytes" },
	{ "sink_info", (PyCFunction)Board_sink_info, METH_NOARGS, "MM2S packets as (length, t_first_ps, t_last_ps, cut by a reset)" },
	{ "sink_clear", (PyCFunction)Board_sink_clear, METH_NOARGS, "forget recorded packets" },
	{ "sink_overflow", (PyCFunction)Board_sink_overflow, METH_NOARGS,
	  "(packets, bytes) the MM2S sink counted but did not keep (its cap or host memory)" },
	{ "sink_open_bytes", (PyCFunction)Board_sink_open_bytes, METH_NOARGS, "bytes of a packet without TLAST" },
	{ "source_send", (PyCFunction)Board_source_send, METH_VARARGS, "queue stream data for S2MM" },
	{ "source_pending", (PyCFunction)Board_source_pending, METH_NOARGS, "bytes queued for S2MM" },
	{ "mm2s_live", (PyCFunction)Board_mm2s_live, METH_O, "a live consumer takes MM2S's beats (co-simulation)" },
	{ "mm2s_offer", (PyCFunction)Board_mm2s_offer, METH_NOARGS, "ps the next MM2S beat can be taken, or None" },
	{ "mm2s_accept", (PyCFunction)Board_mm2s_accept, METH_O, "take the next MM2S beat at t ps -> TLAST" },
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


int sgpy_add_board(PyObject *m)
{
	if (PyType_Ready(&BoardType) < 0)
		return -1;
	Py_INCREF(&BoardType);
	if (PyModule_AddObject(m, "Board", (PyObject *)&BoardType) < 0) {
		Py_DECREF(&BoardType);
		return -1;
	}
	return 0;
}

vb_board *sgdma_py_vboard(PyObject *o)
{
	if (!PyObject_TypeCheck(o, &BoardType)) {
		PyErr_Format(PyExc_TypeError, "expected a sgdma._core.Board or LinuxPlatform, not %.100s",
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (sgpy_board_ready((BoardObject *)o) < 0)
		return NULL;
	return ((BoardObject *)o)->b;
}
