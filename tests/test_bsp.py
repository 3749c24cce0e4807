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
    assert ".SgLengthWidth = XPAR_AXIDMA_0_SG_LENGTH_WIDTH," in (tmp_path / "xaxidma_g.c").read_text()
    # only the files a Vitis BSP generates, plus the make fragment
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bspconfig.h", "sgdma_bsp.mk", "xaxidma_g.c", "xparameters.h"]
    # Zynq-7000 names its PS DDR as Vitis does, with the address from the part file; its GIC is the mpcore's
    with open(ROOT / "src/sgdma/hw/presets/zc706.toml", "rb") as f:
        ddr = tomllib.load(f)["ddr"]["ps"]
    assert num("XPAR_PS7_DDR_0_S_AXI_BASEADDR") == ddr["base"]["value"]
    assert num("XPAR_PS7_DDR_0_S_AXI_HIGHADDR") == ddr["base"]["value"] + ddr["size"]["value"] - 1
    assert num("XPAR_SCUGIC_0_DIST_BASEADDR") == 0xF8F01000       # UG585 Appendix B: mpcore ICD
    assert "XPAR_PSU_DDR_0_S_AXI_BASEADDR" not in defs and "XPAR_MIG_0_C0_DDR4_MEMORY_MAP_BASEADDR" not in defs
    r = CliRunner().invoke(main, ["bsp", "--board", "pg021", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "has no [irq] section" in r.output


def test_bsp_names_zynqmp_ddr_and_pl_ddr4_as_vitis_does(tmp_path):
    r = CliRunner().invoke(main, ["bsp", "--board", "zcu111", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    with open(ROOT / "src/sgdma/hw/presets/zcu111.toml", "rb") as f:
        doc = tomllib.load(f)
    defs = dict(re.findall(r"#define (\w+)\s+(\S+)", (tmp_path / "xparameters.h").read_text()))
    num = lambda k: int(defs[k].rstrip("UL"), 0)  # noqa: E731
    assert num("XPAR_MIG_0_C0_DDR4_MEMORY_MAP_BASEADDR") == doc["ddr"]["pl"]["base"]["value"]
    assert num("XPAR_PSU_DDR_0_S_AXI_BASEADDR") == doc["ddr"]["ps_low"]["base"]["value"]
    assert num("XPAR_PSU_DDR_1_S_AXI_BASEADDR") == doc["ddr"]["ps_high"]["base"]["value"]
    assert num("XPAR_FABRIC_AXIDMA_0_S2MM_INTROUT_VEC_ID") == doc["irq"]["s2mm"]["value"]
    assert num("XPAR_SCUGIC_0_CPU_BASEADDR") == 0xF9020000         # UG1085: APU GIC-400 GICC
    assert "XPAR_PS7_DDR_0_S_AXI_BASEADDR" not in defs


def test_bsp_set_options_reach_xparameters_and_the_board(tmp_path):
    r = CliRunner().invoke(main, ["bsp", "--board", "zcu111", "--out", str(tmp_path),
                                  "--set", "dma.include_sg=0", "--set", "stream.loopback=1"])
    assert r.exit_code == 0, r.output
    assert re.search(r"#define XPAR_AXI_DMA_0_INCLUDE_SG\s+0U", (tmp_path / "xparameters.h").read_text())
    assert '#define SGDMA_BSP_OPTIONS "dma.include_sg=0,stream.loopback=1"' in (tmp_path / "bspconfig.h").read_text()
    for bad, word in (["--set", "dma.include_sg"], "KEY=NUMBER"), (["--set", "stream.loopbak=1"], "stream.loopbak"):
        out = tmp_path / "bad"
        r = CliRunner().invoke(main, ["bsp", "--out", str(out)] + bad)
        assert r.exit_code == 2 and word in r.output and "--set" in r.output, r.output
        assert not out.exists()          # nothing written


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("cc") is None, reason="needs make and cc")
@pytest.mark.parametrize("board", ["zcu111", "pynq-z2"])
def test_vitis_style_programs_build_unmodified_and_pass(board):
    r = subprocess.run(["make", "-s", "-C", "examples/vitis", "run", f"PY={sys.executable}", f"BOARD={board}"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS: 4000 bytes, 0 mismatches, S2MM LENGTH 4000" in r.stdout
    assert "PASS: 16 packets, 16384 bytes received, 0 mismatches" in r.stdout
    # one IOC interrupt per channel, taken through XScuGic_InterruptHandler
    assert "PASS: 2048 bytes, 0 mismatches, 2 interrupts" in r.stdout
    # handlers count 12 BDs per channel into the program's own variables, polled with Xil_WaitForEvent; on
    # pynq-z2 the rings sit at 0x0100_0000 in PS DDR, which starts at address 0
    assert "Successfully ran sgdma SG interrupt example: 12 packets, 6144 bytes" in r.stdout


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("cc") is None, reason="needs make and cc")
def test_an_installed_package_writes_a_working_make_fragment(tmp_path):
    """setup.py's build_py puts the C sources into the package (sgdma/csrc): `sgdma bsp` run from that tree,
    outside any checkout, writes a fragment a program builds and runs with."""
    lib = tmp_path / "site"
    r = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(lib)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    import sgdma._core

    shutil.copy(sgdma._core.__file__, lib / "sgdma")          # the extension a wheel would carry
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(lib)}
    r = subprocess.run([sys.executable, "-m", "sgdma.cli", "bsp", "--board", "pynq-z2", "--out", "bsp",
                        "--set", "stream.loopback=1"], cwd=work, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    mk = (work / "bsp" / "sgdma_bsp.mk").read_text()
    assert f"SGDMA_CSRC       := {lib / 'sgdma' / 'csrc'}" in mk and str(ROOT) not in mk
    (work / "Makefile").write_text("include bsp/sgdma_bsp.mk\n"
                                   f"prog: {ROOT / 'examples/vitis/sg_intr.c'} $(SGDMA_BSP_LIB)\n"
                                   "\t$(CC) -O2 $(SGDMA_BSP_CFLAGS) -o $@ $< $(SGDMA_BSP_LIBS)\n")
    r = subprocess.run(["make", "-s", "prog"], cwd=work, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    r = subprocess.run(["./prog"], cwd=work, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "Successfully ran sgdma SG interrupt example: 12 packets" in r.stdout, r.stdout


MEMORY_PROGRAM = r"""
#include "xil_io.h"
#include "xparameters.h"
#include "xstatus.h"

extern void xil_printf(const char *format, ...);
static volatile u32 word;       /* the program's own memory: .bss */

int main(int argc, char **argv)
{
	u32 stack[2] = { 0, 0 };

	(void)argv;
	Xil_Out32((UINTPTR)&word, 0xA5A5F00Du);
	Xil_Out16((UINTPTR)&stack[1] + 2, 0xBEEFu);
	Xil_Out8((UINTPTR)&stack[0], 0x42u);
	if (Xil_In32((UINTPTR)&word) != 0xA5A5F00Du || stack[1] != 0xBEEF0000u || Xil_In8((UINTPTR)&stack[0]) != 0x42u ||
	    Xil_In16((UINTPTR)&stack[1] + 2) != 0xBEEFu)
		return XST_FAILURE;
	/* a register still goes to the board: MM2S DMASR reads Halted after reset */
	if (!(Xil_In32(XPAR_AXIDMA_0_BASEADDR + 4) & 1u))
		return XST_FAILURE;
	xil_printf("memory ok\r\n");
	if (argc > 1)                   /* PS DDR below vm.mmap_min_addr: refused by name */
		return (int)Xil_In32(XPAR_PS7_DDR_0_S_AXI_BASEADDR + 0x800);
	return XST_SUCCESS;
}
"""


def build_program(tmp_path, board: str, source: str) -> None:
    """`sgdma bsp` for ``board`` into tmp_path/bsp, then ``source`` built against it as tmp_path/prog."""
    r = CliRunner().invoke(main, ["bsp", "--board", board, "--out", str(tmp_path / "bsp")])
    assert r.exit_code == 0, r.output
    (tmp_path / "prog.c").write_text(source)
    (tmp_path / "Makefile").write_text("include bsp/sgdma_bsp.mk\nprog: prog.c $(SGDMA_BSP_LIB)\n"
                                       "\t$(CC) -std=c11 -Wall -Wextra -Werror $(SGDMA_BSP_CFLAGS) -o $@ $< $(SGDMA_BSP_LIBS)\n")
    b = subprocess.run(["make", "-s", "prog"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert b.returncode == 0, b.stderr[-3000:]


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("cc") is None, reason="needs make and cc")
def test_xil_io_on_program_memory_is_plain_and_low_ddr_is_refused(tmp_path):
    build_program(tmp_path, "pynq-z2", MEMORY_PROGRAM)
    ok = subprocess.run(["./prog"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and "memory ok" in ok.stdout, ok.stdout + ok.stderr
    low = subprocess.run(["./prog", "low"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert low.returncode == 3 and "access to 0x800: ddr.ps starts at 0x0 but the host maps nothing below " \
        "vm.mmap_min_addr" in low.stderr, low.stderr
