/*
 * extensions.c - the subsystems whose bindings live in their own files.  Each
 * registers its functions and constants with the module here; add one line.
 */
#include "core.h"

typedef int (*sgpy_register_fn)(PyObject *m);

int sgpy_register_trace(PyObject *m);        /* trace.c: PL beat/GPIO trace */
int sgpy_register_rtio(PyObject *m);         /* rtio.c */
int sgpy_register_fetchlog(PyObject *m);     /* fetchlog.c: BD fetch log */
int sgdma_py_linux_register(PyObject *m);    /* linux.c: the Linux user-space platform */
int sgpy_register_pcie(PyObject *m);         /* pcie.c: the PS-PCIe DMA */
int sgpy_register_cpuops(PyObject *m);       /* hostpath.c: CPU memory operations, sleep until an IRQ */
int sgpy_register_playback(PyObject *m);     /* playback.c: sink and DAC results as columns */
int sgpy_register_textjoin(PyObject *m);     /* textjoin.c: byte pieces end to end (timeline writers) */
int sgpy_register_compile(PyObject *m);      /* compile.c: the sequence compiler's per-BD passes */
int sgpy_register_fast(PyObject *m);         /* s0_fast.c: S0's trials at the fast fidelity */
int sgpy_register_plport(PyObject *m);       /* plport.c: a PL AXI master on a PS port (co-simulation) */

static const sgpy_register_fn registrations[] = {
	sgpy_register_pcie,
	sgpy_register_cpuops,
	sgpy_register_trace,
	sgpy_register_rtio,
	sgpy_register_fetchlog,
	sgpy_register_playback,
	sgpy_register_textjoin,
	sgpy_register_compile,
	sgpy_register_fast,
	sgpy_register_plport,
	sgdma_py_linux_register,
	NULL,
};

int sgpy_register_extensions(PyObject *m)
{
	for (const sgpy_register_fn *f = registrations; *f; f++)
		if ((*f)(m) < 0)
			return -1;
	return 0;
}
