"""Builds the C core (driver, virtual board, binding) into sgdma._core."""
import os
import subprocess
import sys
from glob import glob

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

# C sources an installed package carries (as sgdma/csrc) so that `sgdma bsp` can hand programs the BSP shim,
# the virtual board and the driver core to build against, without a source checkout.
BSP_SOURCES = ["csrc/bsp/*", "csrc/include/**/*.h", "csrc/vboard/**/*", "csrc/driver/*",
               "csrc/platform/xil_standalone.c"]


class build_py_with_csrc(build_py):
    def run(self):
        super().run()
        for pattern in BSP_SOURCES:
            for src in glob(pattern, recursive=True):
                if os.path.isfile(src) and src.endswith((".c", ".h")):
                    dest = os.path.join(self.build_lib, "sgdma", src)
                    self.mkpath(os.path.dirname(dest))
                    self.copy_file(src, dest)

# The hardware contract's headers are generated from spec/pg021.toml before anything compiles.
subprocess.run([sys.executable, "scripts/gen_contract.py"], check=True)

sources = sorted(glob("csrc/driver/**/*.c", recursive=True) + glob("csrc/apps/**/*.c", recursive=True)
                 + glob("csrc/vboard/**/*.c", recursive=True) + glob("csrc/platform/linux/*.c")
                 + glob("csrc/python/**/*.c", recursive=True))

setup(
    cmdclass={"build_py": build_py_with_csrc},
    ext_modules=[
        Extension(
            "sgdma._core",
            sources=sources,
            include_dirs=["csrc/include", "csrc/vboard"],
            extra_compile_args=["-std=c11", "-O3", "-flto=auto", "-fno-semantic-interposition", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
                                "-Wno-cast-function-type"],
            extra_link_args=["-flto=auto", "-O3"],
        )
    ]
)
