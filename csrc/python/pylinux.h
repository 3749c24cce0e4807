/* pylinux.h - what module.c and linux.c share (the binding's Linux part). */
#ifndef SGDMA_PYLINUX_H
#define SGDMA_PYLINUX_H

#include <Python.h>

#include "sgdma/platform.h"
#include "vboard.h"

/* Adds LinuxPlatform and the linux_* functions to the module. */
int sgdma_py_linux_register(PyObject *m);
/* 1 and plat filled if o is a LinuxPlatform, 0 if it is not, -1 on error. */
int sgdma_py_linux_platform(PyObject *o, struct sg_platform *plat);
/* The vb_board of a _core.Board, or NULL with TypeError (module.c). */
vb_board *sgdma_py_vboard(PyObject *o);

#endif
