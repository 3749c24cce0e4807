"""Builds the C core (driver, virtual board, binding) into sgdma._core."""
from glob import glob

from setuptools import Extension, setup

sources = sorted(glob("csrc/driver/**/*.c", recursive=True) + glob("csrc/apps/**/*.c", recursive=True)
                 + glob("csrc/vboard/**/*.c", recursive=True) + glob("csrc/platform/linux/*.c")
                 + glob("csrc/python/**/*.c", recursive=True))

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
