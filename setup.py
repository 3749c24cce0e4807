"""Builds the C core (driver, virtual board, binding) into sgdma._core."""
import subprocess
import sys
from glob import glob

from setuptools import Extension, setup

# The hardware contract's headers are generated from spec/pg021.toml before anything compiles.
subprocess.run([sys.executable, "scripts/gen_contract.py"], check=True)

sources = sorted(glob("csrc/driver/**/*.c", recursive=True) + glob("csrc/apps/**/*.c", recursive=True)
                 + glob("csrc/vboard/**/*.c", recursive=True) + glob("csrc/platform/linux/*.c")
                 + glob("csrc/python/**/*.c", recursive=True))

setup(
    ext_modules=[
        Extension(
            "sgdma._core",
            sources=sources,
            include_dirs=["csrc/include", "csrc/vboard"],
            extra_compile_args=["-std=c11", "-O2", "-fno-semantic-interposition", "-Wall", "-Wextra", "-Wno-missing-field-initializers",
                                "-Wno-cast-function-type"],
        )
    ]
)
