"""Xilinx's own AXI DMA examples (embeddedsw XilinxProcessorIPLib/drivers/axidma/examples) and driver sources,
compiled unmodified against `sgdma bsp` output and run on the virtual board.  The sources are not part of sgdma:
the test runs when SGDMA_EMBEDDEDSW names a local embeddedsw checkout and skips otherwise (CI runs
test_bsp.py's programs, which make the same BSP calls)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ESW = os.environ.get("SGDMA_EMBEDDEDSW")
AXIDMA = Path(ESW or "/nonexistent") / "XilinxProcessorIPLib" / "drivers" / "axidma"
EXAMPLES = ["poll_multi_pkts", "selftest", "sg_intr", "sg_poll", "sgcyclic_intr", "simple_intr", "simple_poll"]

pytestmark = [
    pytest.mark.skipif(not ESW, reason="set SGDMA_EMBEDDEDSW to a local embeddedsw checkout"),
    pytest.mark.skipif(shutil.which("make") is None or shutil.which("cc") is None, reason="needs make and cc"),
]

MAKEFILE = """\
include {bsp}/sgdma_bsp.mk
DRV := {drv}
prog: {example} $(filter-out %/xaxidma_g.c,$(wildcard $(DRV)/src/*.c)) {bsp}/xaxidma_g.c $(SGDMA_BSP_LIB)
\t$(CC) -O2 -w $(SGDMA_BSP_CFLAGS) -I$(DRV)/src -o $@ $(filter %.c,$^) $(SGDMA_BSP_LIBS)
"""


def _bsp(board: str, out: Path, simple: bool) -> None:
    sets = ["--set", "stream.loopback=1"] + (["--set", "dma.include_sg=0"] if simple else [])
    r = subprocess.run([sys.executable, "-m", "sgdma.cli", "bsp", "--board", board, "--out", str(out)] + sets,
                       cwd=ROOT, capture_output=True, text=True)       # the sgdma this test runs with
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("board", ["zcu111", "pynq-z2"])
def test_every_axidma_example_runs_unmodified(board, tmp_path):
    assert AXIDMA.is_dir(), f"SGDMA_EMBEDDEDSW={ESW} has no XilinxProcessorIPLib/drivers/axidma"
    found = sorted(p.stem.removeprefix("xaxidma_example_") for p in (AXIDMA / "examples").glob("xaxidma_example_*.c"))
    assert found == sorted(EXAMPLES), f"the examples folder changed: {found}"
    failures = []
    for mode in ("sg", "simple"):
        _bsp(board, tmp_path / mode, mode == "simple")
    for name in EXAMPLES:
        bsp = tmp_path / ("simple" if name.startswith("simple") else "sg")  # simple-mode examples refuse an SG DMA
        d = tmp_path / name
        d.mkdir()
        (d / "Makefile").write_text(MAKEFILE.format(bsp=bsp, drv=AXIDMA,
                                                    example=AXIDMA / "examples" / f"xaxidma_example_{name}.c"))
        b = subprocess.run(["make", "-s", "-C", str(d), "prog"], capture_output=True, text=True, timeout=900)
        if b.returncode != 0:
            failures.append(f"{name}: build failed\n{b.stderr[-2000:]}")
            continue
        r = subprocess.run([str(d / "prog")], capture_output=True, text=True, timeout=600, cwd=d)
        if r.returncode != 0 or "Successfully ran" not in r.stdout:
            failures.append(f"{name}: exit {r.returncode}\n{r.stdout[-1500:]}{r.stderr[-1500:]}")
    assert not failures, "\n\n".join(failures)
