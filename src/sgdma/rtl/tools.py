"""Lint (Verilator) and generic synthesis (yosys) of the gateware in rtl/."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

BLOCKS = ("sgdma_csm", "sgdma_dac_stream")
# the testbench tops in rtl/tb/ (the live co-simulation's DUTs) and the blocks each instantiates
TB_BLOCKS = {"pl_mem_reader": (), "pl_regs_irq": (), "pl_stream_gen": (), "pl_stream_sink": (),
             "sgdma_cosim_top": BLOCKS}
TIMEOUT_S = 300


class ToolMissing(RuntimeError):
    """A simulator or synthesis tool is not installed."""


def rtl_dir(path: str | os.PathLike | None = None) -> Path:
    """The rtl/ folder: the argument, $SGDMA_RTL_DIR, ./rtl, or the source tree's.  A folder the caller names
    must be one: falling back to another would test (or regenerate) RTL nobody asked about."""
    if path is not None and not (Path(path) / "sgdma_csm.v").is_file():
        raise FileNotFoundError(f"--rtl-dir {path}: no sgdma_csm.v there; give the rtl/ folder of an sgdma checkout "
                                f"(or leave --rtl-dir out to use this checkout's)")
    for cand in (path, os.environ.get("SGDMA_RTL_DIR"), Path.cwd() / "rtl",
                 Path(__file__).resolve().parents[3] / "rtl"):
        if cand and (Path(cand) / "sgdma_csm.v").is_file():
            return Path(cand).resolve()
    raise FileNotFoundError("rtl/ not found (sgdma_csm.v): run from the sgdma checkout, pass --rtl-dir "
                            "or set SGDMA_RTL_DIR")


def need(tool: str) -> str:
    exe = shutil.which(tool)
    if not exe:
        raise ToolMissing(f"{tool} is not installed (Debian: apt-get install {tool}; .ci/run installs it)")
    return exe


def sources(d: Path) -> list[Path]:
    return [d / f"{b}.v" for b in BLOCKS]


def lint(d: Path | None = None, params: dict | None = None, top: str | None = None) -> list[str]:
    """verilator --lint-only -Wall per block (or ``top``, in rtl/ or rtl/tb/); [] when clean, else the messages."""
    d = rtl_dir(d)
    need("verilator")
    out = []
    for b in ([top] if top else BLOCKS):
        path = d / f"{b}.v" if (d / f"{b}.v").is_file() else d / "tb" / f"{b}.v"
        deps = [str(d / f"{x}.v") for x in TB_BLOCKS.get(b, ())]
        args = ["verilator", "--lint-only", "-Wall", f"-I{d / 'generated'}", str(path), *deps, "--top-module", b]
        args += [f"-G{k}={v}" for k, v in (params or {}).items()]
        r = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT_S)
        if r.returncode or r.stderr.strip():
            out.append(f"{b}: {r.stderr.strip() or r.stdout.strip()}")
    return out


def lint_tb(d: Path | None = None) -> list[str]:
    """verilator --lint-only -Wall on every testbench top in rtl/tb/ (TB_BLOCKS)."""
    return [m for b in TB_BLOCKS for m in lint(d, top=b)]


@dataclass
class Synth:
    block: str
    cells: dict            # cell type -> count (yosys generic gates)
    latches: int
    flops: int
    log: str

    @property
    def total(self) -> int:
        return sum(self.cells.values())


def synth(block: str, d: Path | None = None, params: dict | None = None) -> Synth:
    """yosys generic synthesis of one block; counts latches and flip-flops."""
    d = rtl_dir(d)
    need("yosys")
    chparam = "".join(f"chparam -set {k} {v} {block}; " for k, v in (params or {}).items())
    script = (f"read_verilog -sv -I{d / 'generated'} {d / (block + '.v')}; {chparam}"
              f"synth -top {block} -flatten; stat")
    r = subprocess.run(["yosys", "-p", script], capture_output=True, text=True, timeout=TIMEOUT_S)
    if r.returncode:
        err = [ln for ln in (r.stdout + r.stderr).splitlines() if "ERROR" in ln]
        raise RuntimeError(f"yosys {block}: {err[-1] if err else r.stderr[-2000:]}")
    stat = r.stdout[r.stdout.rfind("Printing statistics"):]
    cells = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s+(\$\S+)\s+(\d+)\s*$", stat, re.M)}
    latches = sum(n for c, n in cells.items() if "DLATCH" in c.upper() or "SR_" in c.upper())
    flops = sum(n for c, n in cells.items() if "DFF" in c.upper())
    return Synth(block, cells, latches, flops, r.stdout)
