"""The BSP shim: `sgdma bsp` output from the preset, and Vitis-style programs
(examples/vitis) built unmodified against csrc/bsp and run on the virtual board."""
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from sgdma.cli import main

ROOT = Path(__file__).resolve().parents[1]


def test_bsp_generates_xparameters_from_the_preset(tmp_path):
    r = CliRunner().invoke(main, ["bsp", "--board", "zynq7000", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    # zynq7000 names zc706, whose [dma] is the shared Zynq-7000 PS part's: read that file as written
    with open(ROOT / "src/sgdma/hw/presets/parts/zynq7000-ps.toml", "rb") as f:
        doc = tomllib.load(f)
    text = (tmp_path / "xparameters.h").read_text()
    defs = dict(re.findall(r"#define (\w+)\s+(\S+)", text))
    num = lambda k: \
        int((defs[defs[k]] if defs[k] in defs else defs[k]).rstrip("UL"), 0)  # noqa: E731  (aliases resolve)
    assert num("XPAR_AXIDMA_0_BASEADDR") == doc["dma"]["base"]["value"]
    assert num("XPAR_AXIDMA_0_HIGHADDR") == doc["dma"]["base"]["value"] + 0xFFFF
    assert num("XPAR_AXIDMA_0_M_AXI_MM2S_DATA_WIDTH") == doc["dma"]["data_width"]["value"]
    assert num("XPAR_AXIDMA_0_SG_LENGTH_WIDTH") == doc["dma"]["length_width"]["value"]
    assert num("XPAR_FABRIC_AXIDMA_0_MM2S_INTROUT_VEC_ID") == 61      # UG585: IRQ_F2P[0]
    assert num("XPAR_FABRIC_AXIDMA_0_S2MM_INTROUT_VEC_ID") == 62
    assert "const u32 sgdma_bsp_config_irq_ids[2] = { 61U, 62U };" in (tmp_path / "sgdma_bsp_config.c").read_text()
    assert ".SgLengthWidth = XPAR_AXIDMA_0_SG_LENGTH_WIDTH," in (tmp_path / "xaxidma_g.c").read_text()
    r = CliRunner().invoke(main, ["bsp", "--board", "pg021", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "has no [irq] section" in r.output


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("cc") is None, reason="needs make and cc")
def test_vitis_style_programs_build_unmodified_and_pass():
    r = subprocess.run(["make", "-s", "-C", "examples/vitis", "run", f"PY={sys.executable}"], cwd=ROOT,
                       capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS: 4000 bytes, 0 mismatches, S2MM LENGTH 4000" in r.stdout
    assert "PASS: 16 packets, 16384 bytes received, 0 mismatches" in r.stdout
    # one IOC interrupt per channel, taken through XScuGic_InterruptHandler
    assert "PASS: 2048 bytes, 0 mismatches, 2 interrupts" in r.stdout
