/*
 * plport.c - binding of a PL AXI master on the board's PS port
 * (csrc/vboard/api_plport.c), for the co-simulation bridge (sgdma.cocotb).
 */
#include "core.h"

#define PL_MAX_BURST (1u << 16)   /* bytes: above any AXI burst (256 beats x 128 bytes) */

static int burst_len(uint32_t len)
{
	if (len == 0 || len > PL_MAX_BURST) {
		PyErr_Format(PyExc_ValueError, "PL burst of %u bytes: must be 1 to %u bytes (one AXI burst)", len,
			     PL_MAX_BURST);
		return -1;
	}
	return 0;
}

/* pl_read(board, t_ps, addr, len) -> (resp, t_issue, t_first, t_done, bytes) */
static PyObject *py_pl_read(PyObject *mod, PyObject *args)
{
	PyObject *o, *data;
	uint64_t t, addr;
	uint32_t len;
	struct vb_pl_xfer x;
	int resp;
	vb_board *b;
	(void)mod;
	if (!PyArg_ParseTuple(args, "OO&O&O&", &o, sgpy_u64, &t, sgpy_u64, &addr, sgpy_u32, &len) ||
	    !(b = sgpy_board(o)) || burst_len(len) < 0)
		return NULL;
	if (!(data = PyBytes_FromStringAndSize(NULL, len)))
		return NULL;
	SGPY_SIMULATE((BoardObject *)o, resp = vb_pl_read(b, t, addr, len, PyBytes_AS_STRING(data), &x));
	return Py_BuildValue("(iKKKN)", resp, (unsigned long long)x.t_issue, (unsigned long long)x.t_first,
			     (unsigned long long)x.t_done, data);
}

/* pl_write(board, t_aw_ps, t_wlast_ps, addr, data) -> (resp, t_issue, t_bresp) */
static PyObject *py_pl_write(PyObject *mod, PyObject *args)
{
	PyObject *o;
	Py_buffer buf;
	uint64_t t_aw, t_wlast, addr;
	struct vb_pl_xfer x;
	int resp;
	vb_board *b;
	(void)mod;
	if (!PyArg_ParseTuple(args, "OO&O&O&y*", &o, sgpy_u64, &t_aw, sgpy_u64, &t_wlast, sgpy_u64, &addr, &buf))
		return NULL;
	if (!(b = sgpy_board(o)) || burst_len(buf.len > UINT32_MAX ? UINT32_MAX : (uint32_t)buf.len) < 0) {
		PyBuffer_Release(&buf);
		return NULL;
	}
	SGPY_SIMULATE((BoardObject *)o, resp = vb_pl_write(b, t_aw, t_wlast, addr, (uint32_t)buf.len, buf.buf, &x));
	PyBuffer_Release(&buf);
	return Py_BuildValue("(iKK)", resp, (unsigned long long)x.t_issue, (unsigned long long)x.t_done);
}

/* mm2s_beat(board) -> None | (bytes of the stream's width, valid bytes, tlast) */
static PyObject *py_mm2s_beat(PyObject *mod, PyObject *o)
{
	uint8_t beat[VB_MM2S_BEAT_MAX];
	struct vb_mm2s_beat x;
	vb_board *b;
	int r;
	(void)mod;
	if (!(b = sgpy_board(o)))
		return NULL;
	SGPY_SIMULATE((BoardObject *)o, r = vb_mm2s_peek(b, beat, &x));
	if (r == -1)
		Py_RETURN_NONE;
	if (r == -3) {
		PyErr_Format(PyExc_ValueError, "MM2S stream wider than %d bytes: not bridged", VB_MM2S_BEAT_MAX);
		return NULL;
	}
	if (r < 0) {
		PyErr_SetString(PyExc_RuntimeError, "MM2S beat: its BD's buffer is no longer in the board's memory "
				"(freed while the DMA streams it)");
		return NULL;
	}
	return Py_BuildValue("(y#IO)", (const char *)beat, (Py_ssize_t)x.width, x.nbytes,
			     x.last ? Py_True : Py_False);
}

/* dma_clock(board) -> (origin_ps, period_ps) */
static PyObject *py_dma_clock(PyObject *mod, PyObject *o)
{
	uint64_t origin;
	double ps;
	vb_board *b;
	(void)mod;
	if (!(b = sgpy_board(o)))
		return NULL;
	vb_dma_clock(b, &origin, &ps);
	return Py_BuildValue("(Kd)", (unsigned long long)origin, ps);
}

/* pl_irq_set(board, line, level, t_ps) */
static PyObject *py_pl_irq_set(PyObject *mod, PyObject *args)
{
	PyObject *o;
	unsigned line;
	int level, r;
	uint64_t t;
	vb_board *b;
	(void)mod;
	if (!PyArg_ParseTuple(args, "OIpO&", &o, &line, &level, sgpy_u64, &t) || !(b = sgpy_board(o)))
		return NULL;
	SGPY_SIMULATE((BoardObject *)o, r = vb_pl_irq_set(b, line, level, t));
	if (r < 0) {
		PyErr_Format(PyExc_ValueError, "IRQ_F2P[%u]: an RTL drives lines 2..%d ([0] and [1] are the AXI DMA's "
			     "MM2S and S2MM interrupts)", line, VB_F2P_LINES - 1);
		return NULL;
	}
	Py_RETURN_NONE;
}

/* pl_irq_get(board, line) -> (level, rose_ps | None, rises) */
static PyObject *py_pl_irq_get(PyObject *mod, PyObject *args)
{
	PyObject *o;
	unsigned line;
	bool level;
	uint64_t rose, rises;
	vb_board *b;
	int r;
	(void)mod;
	if (!PyArg_ParseTuple(args, "OI", &o, &line) || !(b = sgpy_board(o)))
		return NULL;
	SGPY_SIMULATE((BoardObject *)o, r = vb_pl_irq_get(b, line, &level, &rose, &rises));
	if (r < 0) {
		PyErr_Format(PyExc_ValueError, "IRQ_F2P[%u]: lines are 0..%d", line, VB_F2P_LINES - 1);
		return NULL;
	}
	if (rose == VB_NO_TIME)
		return Py_BuildValue("(OOK)", level ? Py_True : Py_False, Py_None, (unsigned long long)rises);
	return Py_BuildValue("(OKK)", level ? Py_True : Py_False, (unsigned long long)rose, (unsigned long long)rises);
}

static PyMethodDef plport_methods[] = {
	{ "pl_irq_set", py_pl_irq_set, METH_VARARGS,
	  "pl_irq_set(board, line, level, t_ps): IRQ_F2P[line] (2..7) driven by the RTL from t_ps" },
	{ "pl_irq_get", py_pl_irq_get, METH_VARARGS,
	  "pl_irq_get(board, line) -> (level, rose_ps or None, rises): IRQ_F2P[line] now" },
	{ "mm2s_beat", py_mm2s_beat, METH_O,
	  "mm2s_beat(board) -> None | (data, nbytes, tlast): the next MM2S beat a live consumer may take" },
	{ "dma_clock", py_dma_clock, METH_O, "dma_clock(board) -> (edge 0 in ps, period in ps)" },
	{ "pl_read", py_pl_read, METH_VARARGS,
	  "pl_read(board, t_ps, addr, len) -> (resp, t_issue, t_first, t_done, bytes): a PL master's read burst on "
	  "the PS port at t_ps (the board runs up to it first); resp 0 OKAY, 1 DECERR, 2 SLVERR" },
	{ "pl_write", py_pl_write, METH_VARARGS,
	  "pl_write(board, t_aw_ps, t_wlast_ps, addr, data) -> (resp, t_issue, t_bresp): a PL master's write burst" },
	{ NULL, NULL, 0, NULL },
};

int sgpy_register_plport(PyObject *m)
{
	return PyModule_AddFunctions(m, plport_methods);
}
