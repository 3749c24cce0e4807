/*
 * rtio.c - binding of the RTIO subsystem (csrc/vboard/pl/rtio*.c): module
 * functions whose first argument is the Board, and sgdma._core.rtio_layout,
 * the contract tables of sgdma/rtio_layout.h for the Python mirrors.
 */
#include "core.h"

#include <string.h>

#include "cpu/rtio_kernel.h"
#include "pl/rtio.h"
#include "pl/rtio_input.h"
#include "pl/rtio_trace.h"

static struct vb_rtio *rtio_of(PyObject *board)
{
	vb_board *b = sgpy_board(board);
	struct vb_rtio *r;
	if (!b)
		return NULL;
	r = vb_rtio_of(b);
	if (!r)
		PyErr_SetString(PyExc_ValueError, "this board has no RTIO core: use a preset with an [rtio] section "
				"(e.g. zc706)");
	return r;
}

#define GET_R(o) struct vb_rtio *r = rtio_of(o); if (!r) return NULL

/* The widest timestamp (mu) whose output time in ps the model's uint64 clock
 * holds with a sign bit of headroom (sgdma.hw.units keeps the same headroom). */
static int64_t ts_limit(const struct vb_rtio *r)
{
	double m = 9223372036854775807.0 / (r->mu_ps > 1.0 ? r->mu_ps : 1.0);
	return m >= 9223372036854775807.0 ? INT64_MAX : (int64_t)m;
}

/* 0 when t (mu) is a timestamp the model can time; -1 with ValueError naming what. */
static int ts_check(const struct vb_rtio *r, int64_t t, const char *what)
{
	int64_t lim = ts_limit(r);
	if (t > lim || t < -lim) {
		PyErr_Format(PyExc_ValueError, "%s %lld mu is outside +-%lld mu: at this core's mu its output time "
			     "passes the board's 64-bit picosecond clock", what, (long long)t, (long long)lim);
		return -1;
	}
	return 0;
}

/* The timeline cursor (mu) as the kernel sees it, read without a timed access. */
static int64_t cursor(const struct vb_rtio *r)
{
	return r->k.init == RTIO_INIT_CSR ? (int64_t)r->ki_now : r->k.now;
}

/* 0 when cursor + dt is still a representable timestamp; -1 with ValueError. */
static int cursor_after(const struct vb_rtio *r, int64_t dt, const char *what)
{
	int64_t end;
	if (__builtin_add_overflow(cursor(r), dt, &end)) {
		PyErr_Format(PyExc_ValueError, "%s %lld mu from the cursor %lld overflows the 64-bit timestamp", what,
			     (long long)dt, (long long)cursor(r));
		return -1;
	}
	return ts_check(r, end, what);
}

/* The board (busy-checked) and now + limit_ps representable: 0, or -1 with an exception. */
static int limit_ok(PyObject *o, uint64_t limit_ps, const char *what)
{
	if (sgpy_board_ready((BoardObject *)o) < 0)
		return -1;
	return sgpy_ps_fits(vb_now_ps(((BoardObject *)o)->b), limit_ps, what) ? 0 : -1;
}

static PyObject *py_init(PyObject *self, PyObject *args)
{
	PyObject *o;
	int init;
	uint64_t out = 0, out_bytes = 0, in = 0;
	char err[256];
	(void)self;
	if (!PyArg_ParseTuple(args, "OO&|O&O&O&", &o, sgpy_int, &init, sgpy_u64, &out, sgpy_u64, &out_bytes, sgpy_u64,
			      &in))
		return NULL;
	GET_R(o);
	if (init < RTIO_INIT_CSR || init > RTIO_INIT_FIFO)
		return PyErr_Format(PyExc_ValueError, "initiator %d: 0 csr, 1 acp, 2 acp-batch, 3 fifo", init);
	if (vb_rtio_k_init(r, (enum rtio_initiator)init, out, out_bytes, in, err, sizeof(err)) < 0) {
		PyErr_SetString(PyExc_ValueError, err);
		return NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *py_reset(PyObject *self, PyObject *o)
{
	(void)self;
	GET_R(o);
	vb_rtio_reset(r);
	Py_RETURN_NONE;
}

static PyObject *py_now(PyObject *self, PyObject *o)
{
	(void)self;
	GET_R(o);
	return PyLong_FromLongLong(vb_rtio_k_now(r));
}

static PyObject *py_wall(PyObject *self, PyObject *o)
{
	(void)self;
	GET_R(o);
	return PyLong_FromLongLong(vb_rtio_k_wall(r));
}

static PyObject *py_at(PyObject *self, PyObject *args)
{
	PyObject *o;
	int64_t t;
	(void)self;
	if (!PyArg_ParseTuple(args, "OO&", &o, sgpy_i64, &t))
		return NULL;
	GET_R(o);
	if (ts_check(r, t, "at: timestamp") < 0)
		return NULL;
	vb_rtio_k_at(r, t);
	Py_RETURN_NONE;
}

static PyObject *py_delay(PyObject *self, PyObject *args)
{
	PyObject *o;
	int64_t t;
	(void)self;
	if (!PyArg_ParseTuple(args, "OO&", &o, sgpy_i64, &t))
		return NULL;
	GET_R(o);
	if (cursor_after(r, t, "delay") < 0)
		return NULL;
	vb_rtio_k_delay(r, t);
	Py_RETURN_NONE;
}

/* output(board, target, words) -> (status, channel, timestamp) */
static PyObject *py_output(PyObject *self, PyObject *args)
{
	PyObject *o, *seq;
	uint32_t target;
	uint32_t data[RTIO_RECORD_MAX_WORDS];
	Py_ssize_t n;
	uint32_t st;
	(void)self;
	if (!PyArg_ParseTuple(args, "OO&O", &o, sgpy_u32, &target, &seq))
		return NULL;
	GET_R(o);
	if (cursor_after(r, 0, "output at the cursor") < 0)
		return NULL;
	seq = PySequence_Fast(seq, "data must be a sequence of 32-bit words");
	if (!seq)
		return NULL;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n < 1 || n > RTIO_RECORD_MAX_WORDS) {
		Py_DECREF(seq);
		return PyErr_Format(PyExc_ValueError, "%zd data words: an RTIO event carries 1..%d", n,
				    RTIO_RECORD_MAX_WORDS);
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		uint64_t w;
		if (!sgpy_range(PySequence_Fast_GET_ITEM(seq, i), "RTIO data word", 0, UINT32_MAX, &w)) {
			Py_DECREF(seq);
			return NULL;
		}
		data[i] = (uint32_t)w;
	}
	Py_DECREF(seq);
	st = vb_rtio_k_output(r, target, data, (unsigned)n);
	return Py_BuildValue("kkL", (unsigned long)st, (unsigned long)r->k.err_chan, (long long)r->k.err_ts);
}

static PyObject *py_batch_start(PyObject *self, PyObject *o)
{
	(void)self;
	GET_R(o);
	vb_rtio_k_batch_start(r);
	Py_RETURN_NONE;
}

static PyObject *status_tuple(struct vb_rtio *r, uint32_t st)
{
	return Py_BuildValue("kkL", (unsigned long)st, (unsigned long)r->k.err_chan, (long long)r->k.err_ts);
}

static PyObject *py_batch_end(PyObject *self, PyObject *o)
{
	(void)self;
	GET_R(o);
	return status_tuple(r, vb_rtio_k_batch_end(r));
}

static PyObject *py_flush(PyObject *self, PyObject *o)
{
	(void)self;
	GET_R(o);
	return status_tuple(r, vb_rtio_k_flush(r));
}

static PyObject *py_playback(PyObject *self, PyObject *args)
{
	PyObject *o;
	uint64_t ptr, limit;
	struct vb_rtio_playback pb;
	(void)self;
	if (!PyArg_ParseTuple(args, "OO&O&", &o, sgpy_u64, &ptr, sgpy_u64, &limit))
		return NULL;
	GET_R(o);
	if (limit_ok(o, limit, "playback: limit") < 0)
		return NULL;
	SGPY_SIMULATE((BoardObject *)o, vb_rtio_k_playback(r, ptr, limit, &pb));
	return Py_BuildValue("{s:k,s:k,s:k,s:L,s:K,s:K,s:K,s:K,s:O,s:O}", "error", (unsigned long)pb.error, "channel",
			     (unsigned long)pb.channel, "address", (unsigned long)pb.address, "timestamp",
			     (long long)pb.timestamp, "records", (unsigned long long)pb.records, "dropped",
			     (unsigned long long)pb.dropped, "t_start_ps", (unsigned long long)pb.t_start_ps,
			     "t_end_ps", (unsigned long long)pb.t_end_ps, "bus_error", pb.bus_error ? Py_True : Py_False,
			     "timeout", pb.timeout ? Py_True : Py_False);
}

static PyObject *py_pulses(PyObject *self, PyObject *args)
{
	PyObject *o;
	uint32_t target, batch = 0;
	uint64_t n;
	int64_t half, span;
	struct vb_rtio_pulses p;
	(void)self;
	if (!PyArg_ParseTuple(args, "OO&O&O&|O&", &o, sgpy_u32, &target, sgpy_u64, &n, sgpy_i64, &half, sgpy_u32,
			      &batch))
		return NULL;
	GET_R(o);
	if (sgpy_board_ready((BoardObject *)o) < 0)
		return NULL;
	if (half < 1) {
		PyErr_Format(PyExc_ValueError, "pulses: half period %lld mu: a pulse needs at least 1 mu high and low",
			     (long long)half);
		return NULL;
	}
	/* the train moves the cursor by 2 * half per pulse: its end must be a representable timestamp */
	if (n > (uint64_t)INT64_MAX || __builtin_mul_overflow((int64_t)n, half, &span) ||
	    __builtin_mul_overflow(span, (int64_t)2, &span)) {
		PyErr_Format(PyExc_ValueError, "pulses: %llu pulses of 2 x %lld mu overflow the 64-bit timestamp",
			     (unsigned long long)n, (long long)half);
		return NULL;
	}
	if (cursor_after(r, span, "pulses: the train's end") < 0)
		return NULL;
	SGPY_SIMULATE((BoardObject *)o, vb_rtio_k_pulses(r, target, n, half, batch, &p));
	return Py_BuildValue("{s:K,s:k,s:k,s:L,s:K,s:K}", "events", (unsigned long long)p.events, "status",
			     (unsigned long)p.status, "channel", (unsigned long)p.err_chan, "timestamp",
			     (long long)p.err_ts, "t0_ps", (unsigned long long)p.t0_ps, "t1_ps",
			     (unsigned long long)p.t1_ps);
}

/* (board, limit_ps) -> whether fn finished within the bound; the board simulates with the GIL released. */
static PyObject *bounded(PyObject *args, bool (*fn)(struct vb_rtio *r, uint64_t limit))
{
	PyObject *o;
	uint64_t limit;
	bool ok;
	if (!PyArg_ParseTuple(args, "OO&", &o, sgpy_u64, &limit))
		return NULL;
	GET_R(o);
	if (limit_ok(o, limit, "limit") < 0)
		return NULL;
	SGPY_SIMULATE((BoardObject *)o, ok = fn(r, limit));
	return PyBool_FromLong(ok);
}

static PyObject *py_drain(PyObject *self, PyObject *args)
{
	(void)self;
	return bounded(args, vb_rtio_drain);
}

/* edges(board) -> (t int64 bytes, channel u32 bytes, address u32 bytes, data u32 bytes) */
static PyObject *py_edges(PyObject *self, PyObject *o)
{
	(void)self;
	GET_R(o);
	return Py_BuildValue("y#y#y#y#", (const char *)r->log_t, (Py_ssize_t)(r->n_log * 8), (const char *)r->log_ch,
			     (Py_ssize_t)(r->n_log * 4), (const char *)r->log_addr, (Py_ssize_t)(r->n_log * 4),
			     (const char *)r->log_data, (Py_ssize_t)(r->n_log * 4));
}

static PyObject *py_set_logging(PyObject *self, PyObject *args)
{
	PyObject *o;
	int on;
	(void)self;
	if (!PyArg_ParseTuple(args, "Op", &o, &on))
		return NULL;
	GET_R(o);
	r->log_on = on;
	r->n_log = 0;
	Py_RETURN_NONE;
}

/* The reference path: every cache of the core's event scheduling off (results must not change). */
static PyObject *py_set_fast(PyObject *self, PyObject *args)
{
	PyObject *o;
	int on;
	(void)self;
	if (!PyArg_ParseTuple(args, "Op", &o, &on))
		return NULL;
	GET_R(o);
	r->fast = on;
	r->early_ok = r->nx_ok = false;
	Py_RETURN_NONE;
}

static PyObject *py_input(PyObject *self, PyObject *args)
{
	PyObject *o;
	uint32_t chan;
	int64_t timeout;
	int want_data;
	uint64_t limit;
	int64_t value;
	uint32_t st;
	(void)self;
	if (!PyArg_ParseTuple(args, "OO&O&pO&", &o, sgpy_u32, &chan, sgpy_i64, &timeout, &want_data, sgpy_u64,
			      &limit))
		return NULL;
	GET_R(o);
	/* timeout may be any int64 (the core saturates it: 2^63-1 waits for ever, within limit) */
	if (limit_ok(o, limit, "input: limit") < 0)
		return NULL;
	SGPY_SIMULATE((BoardObject *)o, st = vb_rtio_k_input(r, chan, timeout, want_data, limit, &value));
	return Py_BuildValue("(kL)", (unsigned long)st, (long long)value);
}

static PyObject *py_stimulus(PyObject *self, PyObject *args)
{
	PyObject *o;
	uint32_t chan;
	Py_buffer t, v;
	char err[256];
	int rc;
	(void)self;
	if (!PyArg_ParseTuple(args, "OO&y*y*", &o, sgpy_u32, &chan, &t, &v))
		return NULL;
	struct vb_rtio *r = rtio_of(o);
	if (!r || t.len % 8 || v.len != t.len / 8) {
		if (r)
			PyErr_SetString(PyExc_ValueError, "stimulus: int64 times and one uint8 level per time");
		PyBuffer_Release(&t);
		PyBuffer_Release(&v);
		return NULL;
	}
	for (Py_ssize_t i = 0; i < t.len / 8; i++) {
		int64_t ti;
		memcpy(&ti, (const char *)t.buf + 8 * i, 8);
		if (ts_check(r, ti, "stimulus: time") < 0) {
			PyBuffer_Release(&t);
			PyBuffer_Release(&v);
			return NULL;
		}
	}
	rc = vb_rtio_in_stimulus(r, chan, t.buf, v.buf, (size_t)v.len, err, sizeof(err));
	PyBuffer_Release(&t);
	PyBuffer_Release(&v);
	if (rc < 0) {
		PyErr_SetString(PyExc_ValueError, err);
		return NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *py_loopback(PyObject *self, PyObject *args)
{
	PyObject *o;
	uint32_t out;
	int in;
	char err[256];
	(void)self;
	if (!PyArg_ParseTuple(args, "OO&O&", &o, sgpy_u32, &out, sgpy_int, &in))
		return NULL;
	GET_R(o);
	if (vb_rtio_in_loopback(r, out, in, err, sizeof(err)) < 0) {
		PyErr_SetString(PyExc_ValueError, err);
		return NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *py_input_counters(PyObject *self, PyObject *o)
{
	(void)self;
	GET_R(o);
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:I}", "events", (unsigned long long)r->in.events, "lost",
			     (unsigned long long)r->in.lost, "reads", (unsigned long long)r->in.reads, "timeouts",
			     (unsigned long long)r->in.timeouts, "overflows", (unsigned long long)r->in.overflows,
			     "fifo_depth", r->p.input_fifo_depth);
}

static PyObject *py_counters(PyObject *self, PyObject *o)
{
	(void)self;
	GET_R(o);
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:d,s:K,s:I}",
			     "written", (unsigned long long)r->written, "emitted", (unsigned long long)r->emitted,
			     "underflows", (unsigned long long)r->underflows, "sequence_errors",
			     (unsigned long long)r->sequence_errors, "collisions", (unsigned long long)r->collisions,
			     "busy_waits", (unsigned long long)r->busy_waits, "gp_reads",
			     (unsigned long long)r->k.gp_reads, "gp_writes", (unsigned long long)r->k.gp_writes, "sevs",
			     (unsigned long long)r->k.sevs, "credit_refreshes", (unsigned long long)r->k.credit_refreshes,
			     "wfifo_overruns", (unsigned long long)r->wf.overruns, "coarse_ps",
			     (unsigned long long)r->coarse_ps, "fine_bits", (unsigned long long)r->p.fine_bits, "mu_ps",
			     r->mu_ps, "batch_capacity", (unsigned long long)r->k.batch_cap, "trace_align", r->trace_align);
}

static PyObject *py_an_arm(PyObject *self, PyObject *args)
{
	PyObject *o;
	uint64_t base, size;
	(void)self;
	if (!PyArg_ParseTuple(args, "OO&O&", &o, sgpy_u64, &base, sgpy_u64, &size))
		return NULL;
	GET_R(o);
	if (size < RTIO_MESSAGE_BYTES || size % RTIO_MESSAGE_BYTES || base % RTIO_MESSAGE_BYTES ||
	    size > 0x100000000ull || base > 0x100000000ull - size)
		return PyErr_Format(PyExc_ValueError, "analyzer ring 0x%llx + %llu bytes: base and size must be "
				    "multiples of %d bytes, below 4 GiB", (unsigned long long)base,
				    (unsigned long long)size, RTIO_MESSAGE_BYTES);
	vb_rtio_an_arm(r, base, size);
	Py_RETURN_NONE;
}

static PyObject *py_an_disarm(PyObject *self, PyObject *args)
{
	(void)self;
	return bounded(args, vb_rtio_an_disarm);
}

static PyObject *py_an_state(PyObject *self, PyObject *o)
{
	(void)self;
	GET_R(o);
	return Py_BuildValue("{s:O,s:k,s:k,s:K,s:K,s:k,s:O,s:O,s:K,s:K}", "enabled", r->an.enabled ? Py_True : Py_False,
			     "base", (unsigned long)r->an.base, "last", (unsigned long)r->an.last, "write_address",
			     (unsigned long long)r->an.wr_addr, "total_bytes", (unsigned long long)r->an.byte_count,
			     "byte_count_csr", (unsigned long)(uint32_t)r->an.byte_count, "overflow",
			     r->an.overflow ? Py_True : Py_False, "bus_error", r->an.bus_error ? Py_True : Py_False,
			     "messages", (unsigned long long)r->an.messages, "lost", (unsigned long long)r->an.lost);
}

/* encode(ts int64 buf, target u32 buf, nwords u8 buf, data u32 buf) -> bytes */
static PyObject *py_encode(PyObject *self, PyObject *args)
{
	Py_buffer ts, tg, nw, da;
	PyObject *res = NULL;
	size_t n, cap, words = 0;
	int64_t got;
	(void)self;
	if (!PyArg_ParseTuple(args, "y*y*y*y*", &ts, &tg, &nw, &da))
		return NULL;
	n = (size_t)ts.len / 8;
	if ((size_t)tg.len != 4 * n || (size_t)nw.len != n) {
		PyErr_SetString(PyExc_ValueError, "timestamp, target and nwords columns must have one entry per event");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		words += ((const uint8_t *)nw.buf)[i];
	if ((size_t)da.len != 4 * words) {
		PyErr_Format(PyExc_ValueError, "data column has %zd words, the nwords column sums to %zu",
			     da.len / 4, words);
		goto out;
	}
	cap = n * RTIO_RECORD_HEADER_BYTES + 4 * words + 1;
	res = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap);
	if (!res)
		goto out;
	Py_BEGIN_ALLOW_THREADS
	got = vb_rtio_encode(ts.buf, tg.buf, nw.buf, da.buf, n, (uint8_t *)PyBytes_AS_STRING(res), cap);
	Py_END_ALLOW_THREADS
	if (got < 0) {
		Py_CLEAR(res);
		PyErr_Format(PyExc_ValueError, "event %lld: %u data words; an RTIO event carries 1..%d",
			     (long long)(-got - 1), ((const uint8_t *)nw.buf)[-got - 1], RTIO_RECORD_MAX_WORDS);
	}
out:
	PyBuffer_Release(&ts);
	PyBuffer_Release(&tg);
	PyBuffer_Release(&nw);
	PyBuffer_Release(&da);
	return res;
}

/* decode(bytes) -> (ts bytes, target bytes, nwords bytes, data bytes) */
static PyObject *py_decode(PyObject *self, PyObject *arg)
{
	Py_buffer b;
	PyObject *res = NULL, *ts = NULL, *tg = NULL, *nw = NULL, *da = NULL;
	size_t maxe, maxw, words = 0;
	int64_t n;
	(void)self;
	if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0)
		return NULL;
	maxe = (size_t)b.len / (RTIO_RECORD_HEADER_BYTES + 4) + 1;
	maxw = (size_t)b.len / 4 + 1;
	ts = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(8 * maxe));
	tg = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(4 * maxe));
	nw = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)maxe);
	da = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(4 * maxw));
	if (!ts || !tg || !nw || !da)
		goto out;
	n = vb_rtio_decode(b.buf, (size_t)b.len, (int64_t *)PyBytes_AS_STRING(ts), (uint32_t *)PyBytes_AS_STRING(tg),
			   (uint8_t *)PyBytes_AS_STRING(nw), (uint32_t *)PyBytes_AS_STRING(da), maxe, maxw, &words);
	if (n < 0) {
		if (-n - 1 >= b.len)
			PyErr_SetString(PyExc_ValueError, "trace has no end marker (a record of length 0)");
		else
			PyErr_Format(PyExc_ValueError, "trace byte %lld: record length %u is not 13 + 4n (n = 1..16)",
				     (long long)(-n - 1), ((const uint8_t *)b.buf)[-n - 1]);
		goto out;
	}
	res = Py_BuildValue("y#y#y#y#", PyBytes_AS_STRING(ts), (Py_ssize_t)(8 * n), PyBytes_AS_STRING(tg),
			    (Py_ssize_t)(4 * n), PyBytes_AS_STRING(nw), (Py_ssize_t)n, PyBytes_AS_STRING(da),
			    (Py_ssize_t)(4 * words));
out:
	Py_XDECREF(ts);
	Py_XDECREF(tg);
	Py_XDECREF(nw);
	Py_XDECREF(da);
	PyBuffer_Release(&b);
	return res;
}

static PyMethodDef methods[] = {
	{ "rtio_init", py_init, METH_VARARGS, "rtio_init(board, initiator, acp_out=0, acp_out_bytes=0, acp_in=0)" },
	{ "rtio_reset", py_reset, METH_O, "rtio_reset(board): power-on state of the RTIO core (time stays)" },
	{ "rtio_now", py_now, METH_O, "rtio_now(board) -> the cursor, mu (CSR: read over the register port)" },
	{ "rtio_wall", py_wall, METH_O, "rtio_wall(board) -> the RTIO counter, mu" },
	{ "rtio_at", py_at, METH_VARARGS, "rtio_at(board, t_mu)" },
	{ "rtio_delay", py_delay, METH_VARARGS, "rtio_delay(board, dt_mu)" },
	{ "rtio_output", py_output, METH_VARARGS, "rtio_output(board, target, words) -> (status, channel, ts)" },
	{ "rtio_batch_start", py_batch_start, METH_O, "ACPKI batch start" },
	{ "rtio_batch_end", py_batch_end, METH_O, "ACPKI batch end -> (status, channel, ts)" },
	{ "rtio_flush", py_flush, METH_O, "credit FIFO: drain, then (status, channel, ts)" },
	{ "rtio_playback", py_playback, METH_VARARGS, "rtio_playback(board, ptr, limit_ps) -> dict" },
	{ "rtio_pulses", py_pulses, METH_VARARGS, "rtio_pulses(board, target, n, half_mu, batch=0) -> dict" },
	{ "rtio_drain", py_drain, METH_VARARGS, "rtio_drain(board, limit_ps) -> idle" },
	{ "rtio_edges", py_edges, METH_O, "rtio_edges(board) -> column bytes (t, channel, address, data)" },
	{ "rtio_set_logging", py_set_logging, METH_VARARGS, "rtio_set_logging(board, on): also clears the log" },
	{ "rtio_set_fast", py_set_fast, METH_VARARGS, "rtio_set_fast(board, on): scheduling caches on/off" },
	{ "rtio_input", py_input, METH_VARARGS, "rtio_input(board, chan, timeout_mu, want_data, limit_ps) -> (i_status, value)" },
	{ "rtio_stimulus", py_stimulus, METH_VARARGS, "rtio_stimulus(board, chan, t_mu int64 bytes, level uint8 bytes)" },
	{ "rtio_loopback", py_loopback, METH_VARARGS, "rtio_loopback(board, out_chan, in_chan or -1)" },
	{ "rtio_input_counters", py_input_counters, METH_O, "rtio_input_counters(board) -> dict" },
	{ "rtio_counters", py_counters, METH_O, "rtio_counters(board) -> dict" },
	{ "rtio_analyzer_arm", py_an_arm, METH_VARARGS, "rtio_analyzer_arm(board, base, size)" },
	{ "rtio_analyzer_disarm", py_an_disarm, METH_VARARGS, "rtio_analyzer_disarm(board, limit_ps) -> idle" },
	{ "rtio_analyzer_state", py_an_state, METH_O, "rtio_analyzer_state(board) -> dict" },
	{ "rtio_encode", py_encode, METH_VARARGS, "rtio_encode(ts, target, nwords, data) -> trace bytes" },
	{ "rtio_decode", py_decode, METH_O, "rtio_decode(trace) -> column bytes (ts, target, nwords, data)" },
	{ NULL, NULL, 0, NULL },
};

static int add_table(PyObject *d, const char *name, PyObject *t)
{
	int rc = t ? PyDict_SetItemString(d, name, t) : -1;
	Py_XDECREF(t);
	return rc;
}

static PyObject *layout(void)
{
	PyObject *d = PyDict_New(), *t;
	if (!d)
		return NULL;
#define FIELD(n, o, s) if (t && add_table(t, #n, Py_BuildValue("(ii)", o, s)) < 0) goto fail;
#define CONST(n, v) if (t && add_table(t, #n, PyLong_FromLong(v)) < 0) goto fail;
#define REG(n, o) if (t && add_table(t, #n, PyLong_FromLong(o)) < 0) goto fail;
	t = PyDict_New();
	RTIO_RECORD_FIELDS(FIELD)
	if (add_table(d, "record", t) < 0) goto fail_d;
	t = PyDict_New();
	RTIO_MESSAGE_FIELDS(FIELD)
	if (add_table(d, "message", t) < 0) goto fail_d;
	t = PyDict_New();
	RTIO_CONSTANTS(CONST)
	if (add_table(d, "constants", t) < 0) goto fail_d;
	t = PyDict_New();
	RTIO_REGS(REG)
	if (add_table(d, "regs", t) < 0) goto fail_d;
#undef FIELD
#undef CONST
#undef REG
	return d;
fail:
	Py_XDECREF(t);
fail_d:
	Py_DECREF(d);
	return NULL;
}

int sgpy_register_rtio(PyObject *m)
{
	PyObject *l;
	if (PyModule_AddFunctions(m, methods) < 0)
		return -1;
	l = layout();
	if (!l || PyModule_AddObject(m, "rtio_layout", l) < 0) {
		Py_XDECREF(l);
		return -1;
	}
	return 0;
}
