"""Builds the C core (driver, virtual board, binding) into sgdma._core."""
from glob import glob

from setuptools import Extension, setup

sources = (sorted(glob("csrc/driver/*.c")) + sorted(glob("csrc/apps/*.c")) + sorted(glob("csrc/vboard/*.c"))
           + sorted(glob("csrc/platform/linux/*.c")) + sorted(glob("csrc/python/*.c")))

setup(
    ext_modules=[
        Extension(
            "sgdma._core",
            sources=sources,
            include_dirs=["csrc/include", "csrc/vboard"],
            extra_compile_args=["-std=c11", "-O2", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
                                "-Wno-cast-function-type"],
        )
    ]
)
