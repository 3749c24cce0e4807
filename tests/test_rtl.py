"""The gateware (rtl/): generated register include, Verilator lint, yosys synthesis,
cocotb unit tests and the co-simulation against the virtual board.

Skipped only when a tool is absent; .ci/run installs Verilator, Icarus, yosys and cocotb."""
import importlib.util
import shutil

import numpy as np
import pytest

import sgdma
from sgdma.board.beats import BeatTrace
from sgdma.rtl import cosim, regs, sim, tools

RTL = tools.rtl_dir()


def needs(*exes):
    missing = [e for e in exes if not shutil.which(e)]
    return pytest.mark.skipif(bool(missing), reason=f"not installed: {', '.join(missing)} (.ci/run installs it)")


needs_cocotb = pytest.mark.skipif(importlib.util.find_spec("cocotb") is None,
                                  reason="cocotb not installed (pip install '.[rtl]')")


def test_generated_include_matches_the_header():
    assert (RTL / "generated" / regs.INCLUDE).read_text() == regs.render(), "run `sgdma rtl regs`"


def test_readme_register_map_is_generated():
    assert regs.readme_current(RTL / "README.md"), "run `sgdma rtl regs`"


def test_include_fields_decode_to_the_c_masks():
    c, text = sgdma._core.constants, regs.render()
    defs = dict(ln.split()[1:3] for ln in text.splitlines() if ln.startswith("`define SGDMA_") and len(ln.split()) > 2)
    assert 1 << int(defs["SGDMA_CSM_CTL_START_BIT"]) == c["CSM_CTL_START"]
    lo, hi = int(defs["SGDMA_CSM_CTL_SEL_LSB"]), int(defs["SGDMA_CSM_CTL_SEL_MSB"])
    assert ((1 << (hi + 1)) - (1 << lo)) == c["CSM_CTL_SEL"]


@needs("verilator")
def test_verilator_lint_is_clean():
    assert tools.lint(RTL) == []


@needs("verilator")
def test_testbench_verilog_lint_is_clean():
    """The live co-simulation's DUTs in rtl/tb/ (every .v there is listed) lint clean too."""
    assert sorted(tools.TB_BLOCKS) == sorted(p.stem for p in (RTL / "tb").glob("*.v"))
    assert tools.lint_tb(RTL) == []


@needs("verilator")
@pytest.mark.parametrize("param, value, rule", [("FIFO_DEPTH", 12, "power of two"), ("FIFO_DEPTH", 1, "power of two"),
                                                ("GATE_CLOCKS", 0, "GATE_CLOCKS")])
def test_bad_parameters_fail_at_elaboration(param, value, rule):
    msgs = tools.lint(RTL, {param: value}, top="sgdma_dac_stream")
    assert msgs and rule in msgs[0]


@needs("yosys")
def test_bad_parameter_fails_synthesis():
    with pytest.raises(RuntimeError, match="power of two"):
        tools.synth("sgdma_dac_stream", RTL, {"FIFO_DEPTH": 48})


@needs("yosys")
@pytest.mark.parametrize("block", tools.BLOCKS)
def test_synthesis_infers_no_latch(block):
    s = tools.synth(block, RTL)
    assert s.latches == 0 and s.flops > 0 and s.total > s.flops
    assert "DLATCH" not in s.log.split("Printing statistics")[-1].upper()


@needs("iverilog")
@needs_cocotb
def test_csm_unit(tmp_path):
    o = sim.run("test_csm_unit", "sgdma_csm", ["sgdma_csm.v"], build_dir=tmp_path)
    assert o.ok and len(o.passed) >= 8, o.failed


@needs("iverilog")
@needs_cocotb
def test_dac_unit(tmp_path):
    o = sim.run("test_dac_unit", "sgdma_dac_stream", ["sgdma_dac_stream.v"], build_dir=tmp_path,
                params=dict(DATA_WIDTH=16, FIFO_DEPTH=4, GATE_CLOCKS=5, LEAD_CLOCKS=3))
    assert o.ok and len(o.passed) >= 8, o.failed


def test_beat_trace_matches_the_sink_packets():
    board = sgdma.VirtualBoard("zcu102", seed=1)
    dma = sgdma.AxiDma(board)
    dma.reset()
    trace = BeatTrace.record(board)
    ring = dma.mm2s.ring(4)
    ring.add_packets([board.allocate(n) for n in (64, 48, 512, 16)])
    ring.submit()
    ring.wait()
    t = trace.take()
    assert list(t.packets()) == [4, 3, 32, 1]                 # 16-byte beats, per packet
    k = t.cycles()
    assert np.all(np.diff(k) >= 1)                             # one beat per clock at most
    ends = np.cumsum(t.packets())
    for p, (n, first, last, _cut) in enumerate(board._b.sink_info()):
        assert k[ends[p] - t.packets()[p]] == round((first - t.origin_ps) / t.clk_ps)
        assert k[ends[p] - 1] == round((last - t.origin_ps) / t.clk_ps)


@needs("iverilog")
@needs_cocotb
def test_cosimulation_equal_to_the_clock(tmp_path):
    results = [cosim.run(sc, build_dir=tmp_path) for sc in cosim.default_scenarios()]
    for r in results:
        assert r.equal, (r.scenario, r.mismatches)
    starving, paced = results[2], results[3]
    assert starving.model["underflow_count"] > 10              # the comparison covers many late words
    gate = 60
    assert paced.model["counters"]["throughput"] >= (paced.model["beats"] - 4 - 1) * gate   # FIFO-paced


@needs("iverilog")
@needs_cocotb
def test_cosimulation_refuses_a_trace_from_another_clock():
    sc = cosim.characterization_point("zcu111", 2, 64)
    with pytest.raises(ValueError, match="recorded at a 3003.003 ps clock"):
        cosim.run(sc, clock_mhz=250.0)
