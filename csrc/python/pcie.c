/*
 * pcie.c - binding of the PS-PCIe DMA: runs of the C driver core on the
 * virtual board (GIL released), the endpoint's memory, the APMs, the link's
 * counters and the contract's constants (from pcie_dma.h, never retyped).
 */
#include "core.h"
#include "pcie/pcie_api.h"
#include "sgdma/pcie_driver.h"

/* ---- platform ops that also feed the PS-DDR APM with the CPU's traffic ------ */

struct counted { vb_board *b; const struct sg_platform_ops *base; };

static uint32_t c_read32(void *ctx, uint64_t reg) { struct counted *c = ctx; return c->base->read32(c->b, reg); }
static void c_write32(void *ctx, uint64_t reg, uint32_t v) { struct counted *c = ctx; c->base->write32(c->b, reg, v); }
static void c_barrier(void *ctx) { struct counted *c = ctx; c->base->barrier(c->b); }
static uint64_t c_dev(void *ctx, const void *p) { struct counted *c = ctx; return c->base->dev_addr(c->b, p); }
static void *c_cpu(void *ctx, uint64_t d, size_t n) { struct counted *c = ctx; return c->base->cpu_ptr(c->b, d, n); }

/* The CPU's queue traffic as the PS-DDR APM sees it: the bytes the driver
 * wrote (cleaned) and reads back (invalidated), as with the coherent, uncached
 * queue memory the Linux driver allocates -- not whole cache lines. */
static void c_clean(void *ctx, const void *p, size_t len)
{
	struct counted *c = ctx;
	vb_pcie_apm_count_cpu(c->b, true, len);
	c->base->cache_clean(c->b, p, len);
}

static void c_invalidate(void *ctx, const void *p, size_t len)
{
	struct counted *c = ctx;
	vb_pcie_apm_count_cpu(c->b, false, len);
	c->base->cache_invalidate(c->b, p, len);
}

static const struct sg_platform_ops counted_ops = {
	.read32 = c_read32, .write32 = c_write32, .barrier = c_barrier, .cache_clean = c_clean,
	.cache_invalidate = c_invalidate, .dev_addr = c_dev, .cpu_ptr = c_cpu,
};

/* ---- a run ------------------------------------------------------------------ */

struct run {
	/* in */
	int side;                 /* 0 root DMA, 1 endpoint DMA */
	unsigned chan, dir, nelem, coalesce, irq_every;
	uint64_t queue, host, host_bytes, card, card_bytes, packet, count;
	uint64_t poll_ps, limit_ps;
	int force_src_axi, force_dst_axi;   /* -1: by direction */
	int no_reap;              /* post every packet before reaping any (shows a full queue) */
	/* out */
	int rc, init_rc;
	uint32_t post_index;      /* element the failing post would have used */
	uint64_t t_start, t_end, t_first_irq, done, bytes, irqs, polls;
	struct psdma_error err;
	struct vb_pcie_apm ps0, ps1, ep0, ep1;
	struct vb_pcie_link_stats l0, l1;
};

/* The CPU waits for the channel's interrupt or the poll timer, whichever is first. */
static bool wait_irq(vb_board *b, const struct run *r, uint64_t deadline)
{
	uint64_t t_irq;
	for (;;) {
		if (vb_pcie_irq(b, r->side, r->chan, &t_irq))
			return true;
		if (t_irq > vb_now_ps(b) && t_irq <= deadline) {   /* an MSI still crossing the link */
			uint64_t now = vb_now_ps(b);
			if (!vb_step_next(b, t_irq))
				vb_advance_ps(b, t_irq - now);
			continue;
		}
		if (!vb_step_next(b, deadline)) {
			if (vb_now_ps(b) < deadline)
				vb_advance_ps(b, deadline - vb_now_ps(b));
			return vb_pcie_irq(b, r->side, r->chan, NULL);
		}
	}
}

static int post_one(struct psdma_chan *c, struct run *r, uint64_t k)
{
	uint64_t nh = r->host_bytes / r->packet, nc = r->card_bytes / r->packet;
	uint64_t h = r->host + (k % nh) * r->packet, cd = r->card + (k % nc) * r->packet;
	uint64_t src = r->dir == PSDMA_S2C ? h : cd, dst = r->dir == PSDMA_S2C ? cd : h;
	bool irq = r->irq_every <= 1 || (k + 1) % r->irq_every == 0 || k + 1 == r->count;

	if (r->force_src_axi >= 0 || r->force_dst_axi >= 0) {
		bool host_axi = r->side == 0;
		bool sa = r->force_src_axi >= 0 ? r->force_src_axi : (r->dir == PSDMA_S2C ? host_axi : !host_axi);
		bool da = r->force_dst_axi >= 0 ? r->force_dst_axi : (r->dir == PSDMA_S2C ? !host_axi : host_axi);
		return psdma_post_raw(c, src, sa, dst, da, (uint32_t)r->packet, irq);
	}
	return psdma_post(c, src, dst, (uint32_t)r->packet, irq);
}

static void do_run(vb_board *b, struct run *r)
{
	struct counted ctx = { b, vb_platform_ops() };
	struct sg_platform plat = { &counted_ops, &ctx };
	const struct vb_pcie_params *m = vb_pcie_params_of(b);
	uint64_t base = r->side ? m->bar0 : PSDMA_AXI_BASE, posted = 0;
	struct psdma_chan c;
	struct psdma_done done[64];
	void *q = vb_mem_ptr(b, r->queue, psdma_queue_bytes(r->nelem));
	uint64_t deadline_all;

	r->rc = PSDMA_OK;
	r->t_first_irq = VB_NO_TIME;
	if (!q) {
		r->rc = r->init_rc = PSDMA_E_ARG;
		return;
	}
	r->init_rc = psdma_init(&c, &plat, base, r->chan, (enum psdma_dir)r->dir, r->side == 0, q, r->nelem,
				r->coalesce);
	if (r->init_rc != PSDMA_OK) {
		r->rc = r->init_rc;
		return;
	}
	vb_pcie_apm(b, 0, &r->ps0);
	vb_pcie_apm(b, 1, &r->ep0);
	vb_pcie_link_stats(b, &r->l0);
	r->t_start = vb_now_ps(b);
	deadline_all = r->t_start + r->limit_ps;
	while (r->done < r->count) {
		int n;
		while (posted < r->count && (psdma_free(&c) || r->no_reap)) {
			int rc = post_one(&c, r, posted);
			if (rc < 0) {
				r->rc = rc;
				r->post_index = c.head;
				goto out;
			}
			posted++;
		}
		if (vb_now_ps(b) >= deadline_all) {
			r->rc = PSDMA_E_TIMEOUT;
			goto out;
		}
		uint64_t tick = vb_now_ps(b) + r->poll_ps;
		if (wait_irq(b, r, tick < deadline_all ? tick : deadline_all)) {
			uint64_t t_irq;
			vb_pcie_irq(b, r->side, r->chan, &t_irq);
			if (r->t_first_irq == VB_NO_TIME)
				r->t_first_irq = t_irq;
			r->irqs++;
			psdma_irq_ack(&c);
		} else {
			r->polls++;
		}
		do {
			n = psdma_reap(&c, done, 64);
			if (n < 0) {
				r->rc = n;
				goto out;
			}
			for (int i = 0; i < n; i++)
				r->bytes += done[i].bytes;
			r->done += (uint64_t)n;
		} while (n == 64);
		if (c.halted && r->rc == PSDMA_OK) {
			r->rc = PSDMA_E_HALTED;
			goto out;
		}
	}
out:
	r->t_end = vb_now_ps(b);
	r->err = c.err;
	if (c.halted)
		psdma_reset(&c, PSDMA_DEFAULT_POLLS);   /* the channel recovers for the next run */
	vb_pcie_apm(b, 0, &r->ps1);
	vb_pcie_apm(b, 1, &r->ep1);
	vb_pcie_link_stats(b, &r->l1);
}

static vb_board *pcie_board(PyObject *o)
{
	vb_board *b = sgpy_board(o);
	if (b && !vb_pcie_present(b)) {
		PyErr_SetString(PyExc_ValueError, "this board preset has no [pcie] section (try preset 'zcu102')");
		return NULL;
	}
	return b;
}

static int set_u64(PyObject *d, const char *k, uint64_t v)
{
	PyObject *o = PyLong_FromUnsignedLongLong(v);
	int rc = o ? PyDict_SetItemString(d, k, o) : -1;
	Py_XDECREF(o);
	return rc;
}

static PyObject *apm_dict(const struct vb_pcie_apm *a0, const struct vb_pcie_apm *a1)
{
	static const char *cls[VB_PCIE_NCLASS] = { "data", "elements", "status", "cpu" };
	PyObject *rd = PyDict_New(), *wr = PyDict_New();
	for (int i = 0; i < VB_PCIE_NCLASS; i++) {
		set_u64(rd, cls[i], a1->rd_class[i] - a0->rd_class[i]);
		set_u64(wr, cls[i], a1->wr_class[i] - a0->wr_class[i]);
	}
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:N,s:N}", "rd_bytes", a1->rd_bytes - a0->rd_bytes, "wr_bytes",
			     a1->wr_bytes - a0->wr_bytes, "rd_txns", a1->rd_txns - a0->rd_txns, "wr_txns",
			     a1->wr_txns - a0->wr_txns, "rd_class", rd, "wr_class", wr);
}

static PyObject *link_dict(const struct vb_pcie_link_stats *a, const struct vb_pcie_link_stats *b)
{
	return Py_BuildValue("{s:(KK),s:(KK),s:(KK),s:d}", "tlps", b->tlps[0] - a->tlps[0], b->tlps[1] - a->tlps[1],
			     "wire_bytes", b->wire_bytes[0] - a->wire_bytes[0], b->wire_bytes[1] - a->wire_bytes[1],
			     "payload", b->payload[0] - a->payload[0], b->payload[1] - a->payload[1], "rate_mbps",
			     b->rate_mbps);
}

static PyObject *py_pcie_run(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "board", "side", "chan", "dir", "packet", "count", "queue", "nelem", "host",
				  "host_bytes", "card", "card_bytes", "coalesce", "irq_every", "poll_ps", "limit_ps",
				  "src_axi", "dst_axi", "no_reap", NULL };
	PyObject *bo, *o_side, *o_chan, *o_dir, *o_packet, *o_nelem, *o_src = NULL, *o_dst = NULL;
	struct run r = { .force_src_axi = -1, .force_dst_axi = -1, .irq_every = 1 };
	struct vb_pcie_error e;
	bool have_err;
	vb_board *b;
	uint64_t v[6];
	int64_t axi[2] = { -1, -1 };
	(void)self;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOO&O&OO&O&O&O&|O&O&O&O&OOp", kwlist, &bo, &o_side, &o_chan,
					 &o_dir, &o_packet, sgpy_u64, &r.count, sgpy_u64, &r.queue, &o_nelem, sgpy_u64,
					 &r.host, sgpy_u64, &r.host_bytes, sgpy_u64, &r.card, sgpy_u64, &r.card_bytes,
					 sgpy_u32, &r.coalesce, sgpy_u32, &r.irq_every, sgpy_u64, &r.poll_ps, sgpy_u64,
					 &r.limit_ps, &o_src, &o_dst, &r.no_reap))
		return NULL;
	/* each field at its width; a packet is the driver's 32-bit byte count (the driver judges the element's
	 * 24-bit field and reports it; 0 would divide the buffers into nothing) */
	if (!sgpy_range(o_side, "pcie_run: side (0 root DMA, 1 endpoint DMA)", 0, 1, &v[0]) ||
	    !sgpy_range(o_chan, "pcie_run: channel", 0, PSDMA_CHANNELS - 1, &v[1]) ||
	    !sgpy_range(o_dir, "pcie_run: direction (0 S2C, 1 C2S)", PSDMA_S2C, PSDMA_C2S, &v[2]) ||
	    !sgpy_range(o_packet, "pcie_run: packet bytes", 1, UINT32_MAX, &v[3]) ||
	    !sgpy_range(o_nelem, "pcie_run: queue elements", 2, PSDMA_MAX_ELEMS, &v[4]) ||
	    (o_src && o_src != Py_None && !sgpy_srange(o_src, "pcie_run: src_axi", -1, 1, &axi[0])) ||
	    (o_dst && o_dst != Py_None && !sgpy_srange(o_dst, "pcie_run: dst_axi", -1, 1, &axi[1])))
		return NULL;
	r.side = (int)v[0];
	r.chan = (unsigned)v[1];
	r.dir = (unsigned)v[2];
	r.packet = v[3];
	r.nelem = (unsigned)v[4];
	r.force_src_axi = (int)axi[0];
	r.force_dst_axi = (int)axi[1];
	if (!(b = pcie_board(bo)))
		return NULL;
	if (r.poll_ps == 0 || r.limit_ps == 0) {
		PyErr_SetString(PyExc_ValueError, "pcie_run: poll_ps and limit_ps must be > 0");
		return NULL;
	}
	if (!sgpy_ps_fits(vb_now_ps(b), r.limit_ps, "pcie_run: limit_ps") ||
	    !sgpy_ps_fits(vb_now_ps(b), r.poll_ps, "pcie_run: poll_ps"))
		return NULL;
	/* buffers are reused cyclically; a packet larger than a buffer is still posted
	 * (the driver judges its byte count) but moves only what the buffer holds */
	if (r.host_bytes < r.packet)
		r.host_bytes = r.packet;
	if (r.card_bytes < r.packet)
		r.card_bytes = r.packet;
	vb_pcie_clear_error(b);
	SGPY_SIMULATE((BoardObject *)bo, do_run(b, &r));
	have_err = vb_pcie_last_error(b, &e);
	return Py_BuildValue("{s:i,s:i,s:I,s:s,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:N,s:N,s:N,s:N,s:N}", "rc", r.rc, "init_rc",
			     r.init_rc, "post_index", r.post_index, "message", psdma_strerror(r.rc), "t_start", r.t_start, "t_end", r.t_end,
			     "t_first_irq", r.t_first_irq, "done", r.done, "bytes", r.bytes, "irqs", r.irqs, "polls",
			     r.polls, "apm_ps", apm_dict(&r.ps0, &r.ps1), "apm_ep", apm_dict(&r.ep0, &r.ep1), "link",
			     link_dict(&r.l0, &r.l1),
			     "driver_error", r.err.code ? Py_BuildValue("{s:I,s:I,s:I}", "queue", r.err.queue, "index",
									r.err.index, "status", r.err.status)
							: Py_NewRef(Py_None),
			     "device_error", have_err ? Py_BuildValue("{s:s,s:I,s:I,s:I,s:K,s:s}", "side",
								      e.side ? "endpoint" : "root", "chan", e.chan,
								      "queue", e.queue, "index", e.index, "addr",
								      e.addr, "why", e.why)
						      : Py_NewRef(Py_None));
}

static PyObject *py_pcie_ep_read(PyObject *self, PyObject *args)
{
	PyObject *bo;
	uint64_t a, n;
	vb_board *b;
	uint8_t *p;
	(void)self;
	if (!PyArg_ParseTuple(args, "OO&O&", &bo, sgpy_u64, &a, sgpy_u64, &n) || !(b = pcie_board(bo)))
		return NULL;
	if (n > PY_SSIZE_T_MAX || !(p = vb_pcie_ep_ptr(b, a, n)))
		return PyErr_Format(PyExc_ValueError, "endpoint DDR: 0x%llx + %llu is outside pcie.ep_ddr_axi/size",
				    (unsigned long long)a, (unsigned long long)n);
	return PyBytes_FromStringAndSize((const char *)p, (Py_ssize_t)n);
}

static PyObject *py_pcie_ep_write(PyObject *self, PyObject *args)
{
	PyObject *bo;
	uint64_t a;
	Py_buffer v;
	vb_board *b;
	uint8_t *p;
	(void)self;
	if (!PyArg_ParseTuple(args, "OO&y*", &bo, sgpy_u64, &a, &v))
		return NULL;
	if (!(b = pcie_board(bo)) || !(p = vb_pcie_ep_ptr(b, a, (uint64_t)v.len))) {
		if (b)
			PyErr_Format(PyExc_ValueError, "endpoint DDR: 0x%llx + %zd is outside pcie.ep_ddr_axi/size",
				     (unsigned long long)a, v.len);
		PyBuffer_Release(&v);
		return NULL;
	}
	memcpy(p, v.buf, (size_t)v.len);
	PyBuffer_Release(&v);
	Py_RETURN_NONE;
}

static PyObject *py_pcie_set_trained(PyObject *self, PyObject *args)
{
	PyObject *bo;
	int up;
	vb_board *b;
	(void)self;
	if (!PyArg_ParseTuple(args, "Op", &bo, &up) || !(b = pcie_board(bo)))
		return NULL;
	vb_pcie_set_trained(b, up);
	Py_RETURN_NONE;
}

static PyObject *py_pcie_info(PyObject *self, PyObject *args)
{
	PyObject *bo;
	vb_board *b;
	struct vb_pcie_link_stats l;
	(void)self;
	if (!PyArg_ParseTuple(args, "O", &bo) || !(b = pcie_board(bo)))
		return NULL;
	const struct vb_pcie_params *m = vb_pcie_params_of(b);
	vb_pcie_link_stats(b, &l);
	return Py_BuildValue("{s:i,s:I,s:I,s:d,s:K,s:K,s:K,s:K,s:K}", "trained", (int)m->trained, "gen", m->gen,
			     "lanes", m->lanes, "rate_mbps", l.rate_mbps, "guest_errors", vb_pcie_guest_errors(b),
			     "bar0", m->bar0, "bar2", m->bar2, "bar2_size", m->bar2_size, "ep_ddr_axi", m->ep_ddr_axi);
}

static PyObject *py_pcie_queue_bytes(PyObject *self, PyObject *arg)
{
	uint64_t n;
	(void)self;
	if (!sgpy_range(arg, "pcie_queue_bytes: queue elements", 0, PSDMA_MAX_ELEMS, &n))
		return NULL;
	return PyLong_FromUnsignedLongLong(psdma_queue_bytes((uint32_t)n));
}

static PyMethodDef pcie_methods[] = {
	{ "pcie_queue_bytes", py_pcie_queue_bytes, METH_O, "queue memory the driver core needs for n elements" },
	{ "pcie_run", (PyCFunction)(void (*)(void))py_pcie_run, METH_VARARGS | METH_KEYWORDS,
	  "run packets through a PS-PCIe DMA channel with the C driver core" },
	{ "pcie_ep_read", py_pcie_ep_read, METH_VARARGS, "pcie_ep_read(board, axi_addr, n): endpoint DDR bytes" },
	{ "pcie_ep_write", py_pcie_ep_write, METH_VARARGS, "pcie_ep_write(board, axi_addr, bytes)" },
	{ "pcie_set_trained", py_pcie_set_trained, METH_VARARGS, "pcie_set_trained(board, up)" },
	{ "pcie_info", py_pcie_info, METH_VARARGS, "link state and BARs" },
	{ NULL, NULL, 0, NULL },
};

int sgpy_register_pcie(PyObject *m)
{
	PyObject *d = PyDict_New();
	if (!d)
		return -1;
#define EXPORT(name) if (set_u64(d, #name, (uint64_t)(name)) < 0) return -1;
	PSDMA_EXPORTS(EXPORT)
#undef EXPORT
	if (PyModule_AddObject(m, "pcie_constants", d) < 0)
		return -1;
	return PyModule_AddFunctions(m, pcie_methods);
}
