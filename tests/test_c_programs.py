"""C-level checks run by the same test command: the driver core's unit tests and the bare-metal example."""
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None or shutil.which("cc") is None,
                                reason="needs make and a C compiler")


def run(*args):
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_driver_core_unit_tests():
    r = run("make", "-s", "-C", "tests/c")
    assert r.returncode == 0, r.stdout + r.stderr
    assert " 0 failed" in r.stdout


def test_baremetal_example_runs_on_virtual_board():
    r = run("make", "-s", "-C", "examples/baremetal", "run")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("PASS: 8 packets of 1000 bytes")
