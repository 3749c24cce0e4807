"""cocotb runs of the testbenches in rtl/tb/ on Icarus Verilog.

cocotb 1.9 supports Verilator >= 5.006 in principle, but a Verilator build per
testbench costs tens of seconds of C++ compilation on a 2-core machine; the
cocotb tests run on Icarus (instant elaboration) and Verilator lints.
"""
from __future__ import annotations

import os
import sys
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from .tools import ToolMissing, need, rtl_dir

SIMULATOR = "icarus"


@dataclass
class Outcome:
    testbench: str
    passed: list[str]
    failed: list[tuple[str, str]]     # (test, message)
    log: Path

    @property
    def ok(self) -> bool:
        return not self.failed and bool(self.passed)


def _results(xml: Path) -> tuple[list[str], list[tuple[str, str]]]:
    passed, failed = [], []
    for case in ET.parse(xml).getroot().iter("testcase"):
        fail = case.find("failure")
        if fail is None:
            fail = case.find("error")
        if fail is None:
            passed.append(case.get("name"))
        else:
            failed.append((case.get("name"), fail.get("message") or (fail.text or "")))
    return passed, failed


def run(testbench: str, toplevel: str, sources: list[str], params: dict | None = None,
        env: dict | None = None, build_dir: Path | None = None, d: Path | None = None,
        clk_fs: int | None = None) -> Outcome:
    """Build ``sources`` (names in rtl/ or rtl/tb/) with ``params`` and run the cocotb
    module rtl/tb/<testbench>.py against ``toplevel``."""
    try:
        import cocotb  # noqa: F401
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from cocotb.runner import get_runner
    except ImportError as e:
        raise ToolMissing(f"cocotb is not installed ({e}): pip install '.[rtl]'") from None
    need("iverilog")
    d = rtl_dir(d)
    tb = d / "tb"
    srcs = [str(d / s if (d / s).is_file() else tb / s) for s in sources]
    tag = "_".join(f"{k}{v}" for k, v in sorted((params or {}).items()))
    build = Path(build_dir or d / "build") / f"{toplevel}_{tag}"[:120]
    runner = get_runner(SIMULATOR)
    log = build / "build.log"
    build.mkdir(parents=True, exist_ok=True)
    runner.build(verilog_sources=srcs, includes=[str(d / "generated"), str(tb)], hdl_toplevel=toplevel,
                 parameters=params or {}, build_dir=str(build), always=True, timescale=("1ps", "1fs"),
                 log_file=str(log))
    xml = build / f"{testbench}.xml"
    if xml.exists():
        xml.unlink()
    e = {"COCOTB_REDUCED_LOG_FMT": "1"}
    if clk_fs:
        e["SGDMA_CLK_FS"] = str(clk_fs)
    e.update(env or {})
    test_log = build / f"{testbench}.log"
    # the runner hands its own sys.path to the simulator's Python as PYTHONPATH
    added = [p for p in (str(tb), str(Path(__file__).resolve().parents[2])) if p not in sys.path]
    sys.path[:0] = added
    pytest_name = os.environ.pop("PYTEST_CURRENT_TEST", None)   # else the runner picks its own results file
    try:
        runner.test(test_module=testbench, hdl_toplevel=toplevel, build_dir=str(build), test_dir=str(build),
                    extra_env=e, results_xml=str(xml), timescale=("1ps", "1fs"), log_file=str(test_log))
    finally:
        for p in added:
            sys.path.remove(p)
        if pytest_name is not None:
            os.environ["PYTEST_CURRENT_TEST"] = pytest_name
    if not xml.exists():
        tail = test_log.read_text(errors="replace")[-3000:] if test_log.exists() else ""
        return Outcome(testbench, [], [("(simulator)", f"no results; log {test_log}:\n{tail}")], test_log)
    passed, failed = _results(xml)
    return Outcome(testbench, passed, failed, test_log)
