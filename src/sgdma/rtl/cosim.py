"""Co-simulation of the gateware against the virtual board.

A scenario runs on the model with a BeatTrace recording (sgdma.board.beats); the
trace's beats and GPIO writes, turned into clock edges, are replayed into
rtl/tb/sgdma_cosim_top.v (timing engine + DAC streamer) by rtl/tb/test_cosim.py,
and the gateware's counters and late words are compared with the model's,
clock for clock.
"""
from __future__ import annotations

import json
import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..board.beats import BeatTrace
from ..board import VirtualBoard
from ..driver import AxiDma
from . import sim

OFFSET = 16          # first replayed edge: after the testbench's reset
TAIL = 8             # edges after the last event


@dataclass
class Scenario:
    name: str
    trace: BeatTrace
    counters: dict                 # the model's CSM counters
    dac: dict | None = None        # the model's DAC: gate_clocks, lead_clocks, fifo, underflows (ps)


@dataclass
class Comparison:
    scenario: str
    model: dict
    rtl: dict
    mismatches: list[str] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return not self.mismatches


def s0_start(board, dma, ring, beats: int) -> None:
    """S0's RPU sequence up to the stream: CURDESC + RS, arm, RESET, READY, START, tail write."""
    tail = ring.prepare()
    csm = board.csm
    csm.arm(beats)
    csm.reset()
    csm.wait_ready()
    csm.start()
    dma.mm2s.write_tail(tail)


def s0_finish(board) -> dict:
    """S0's RPU sequence after the tail write: DONE, the counters."""
    csm = board.csm
    csm.wait_done()
    c = csm.counters()
    return {k: c[k] for k in ("setup", "latency", "throughput", "beats")}


def _s0_handshake(board, dma, ring, beats: int) -> dict:
    s0_start(board, dma, ring, beats)
    return s0_finish(board)


def characterization_point(preset: str = "zcu111", bds: int = 16, bytes_per_bd: int = 1024,
                           seed: int = 3) -> Scenario:
    """One MM2S characterization trial (S0's RPU program) with the stream recorded."""
    board = VirtualBoard(preset, seed=seed)
    dma = AxiDma(board)
    dma.reset()
    buf = board.allocate(bds * bytes_per_bd, np.uint8)
    ring = dma.mm2s.ring(bds)
    ring.fill(buf.physical_address + np.arange(bds, dtype=np.uint64) * bytes_per_bd,
              np.full(bds, bytes_per_bd, np.uint32))
    trace = BeatTrace.record(board)
    width = board.axi_dma.data_bytes
    counters = _s0_handshake(board, dma, ring, bds * -(-bytes_per_bd // width))
    board.run_until_quiet()
    return Scenario(f"characterization {preset} {bds}x{bytes_per_bd} B", trace.take(), counters)


def gate_board(preset: str, gates: int, bytes_per_gate: int, gate_clocks: int | None, lead_clocks: int,
               fifo: int, seed: int):
    """The gate sequence's board, driver and filled MM2S ring (APU side), and its payload in beats.
    The model's DAC plays the stream when gate_clocks is given (None: a live consumer will)."""
    board = VirtualBoard(preset, seed=seed, timing_only=True)
    clk_ps = 1e6 / board.axi_dma.clock_mhz
    if abs(clk_ps - round(clk_ps)) > 1e-9:
        raise ValueError(f"gate sequence on {preset}: its {clk_ps:.3f} ps clock is not a whole number of ps, "
                         "so a DAC period in clocks has no exact time in the model: use zcu102 (250 MHz)")
    dma = AxiDma(board)
    dma.reset()
    if gate_clocks is not None:
        board.dac.configure(gate_clocks * round(clk_ps) / 1e3, lead_clocks * round(clk_ps) / 1e3, fifo)
    buf = board.allocate(gates * bytes_per_gate)
    ring = dma.mm2s.ring(gates)
    ring.fill(buf.physical_address + np.arange(gates, dtype=np.uint64) * bytes_per_gate,
              np.full(gates, bytes_per_gate, np.uint32))
    return board, dma, ring, gates * -(-bytes_per_gate // board.axi_dma.data_bytes)


def gate_sequence(preset: str = "zcu102", gates: int = 48, bytes_per_gate: int = 32, gate_clocks: int = 25,
                  lead_clocks: int = 125, fifo: int = 16, seed: int = 3) -> Scenario:
    """Gates (one BD, one packet each) played by the DAC at one word per gate_clocks,
    with the timing engine armed for the whole sequence."""
    board, dma, ring, beats = gate_board(preset, gates, bytes_per_gate, gate_clocks, lead_clocks, fifo, seed)
    trace = BeatTrace.record(board)
    counters = _s0_handshake(board, dma, ring, beats)
    board.run_until_quiet()
    rep = board.dac.report()
    return Scenario(f"gate sequence {preset} {gates} gates x {bytes_per_gate} B, {gate_clocks} clk/word, "
                    f"FIFO {fifo}", trace.take(), counters,
                    {"gate_clocks": gate_clocks, "lead_clocks": lead_clocks, "fifo": fifo,
                     "underflows": [list(u) for u in rep["underflows"]]})


def _write_trace(sc: Scenario, path: Path) -> int:
    """Edges relative to the replay; returns the edge index base subtracted."""
    t = sc.trace
    beat = t.cycles()
    ctl = t.edges(t.ctl_ps)
    base = int(min(beat.min() if beat.size else ctl.min(), ctl.min() if ctl.size else beat.min())) - OFFSET
    end = int(max(beat.max() if beat.size else 0, ctl.max() if ctl.size else 0)) - base + TAIL
    if sc.dac:
        end += sc.dac["lead_clocks"] + (sc.dac["fifo"] + 2) * sc.dac["gate_clocks"]
    np.savez(path, beat_cycle=beat - base, beat_last=t.beat_last.astype(np.uint8), ctl_cycle=ctl - base,
             ctl_reg=t.ctl_reg, ctl_value=t.ctl_value, end_cycle=end)
    return base


def run(sc: Scenario, clock_mhz: float | None = None, build_dir: Path | None = None) -> Comparison:
    """Replay ``sc`` into the gateware simulated at ``clock_mhz`` (default: the trace's
    clock) and compare.  A trace recorded at another clock is refused."""
    t = sc.trace
    clk_ps = 1e6 / clock_mhz if clock_mhz else t.clk_ps
    t.check_clock(clk_ps)
    params = {"USE_DAC": int(sc.dac is not None), "DATA_WIDTH": t.data_bytes * 8}
    if sc.dac:
        params.update(FIFO_DEPTH=sc.dac["fifo"], GATE_CLOCKS=sc.dac["gate_clocks"],
                      LEAD_CLOCKS=sc.dac["lead_clocks"])
    with tempfile.TemporaryDirectory(prefix="sgdma-cosim-") as tmp:
        trace_path, out_path = Path(tmp) / "trace.npz", Path(tmp) / "out.json"
        base = _write_trace(sc, trace_path)
        o = sim.run("test_cosim", "sgdma_cosim_top", ["sgdma_csm.v", "sgdma_dac_stream.v", "sgdma_cosim_top.v"],
                    params=params, build_dir=build_dir, clk_fs=2 * int(round(clk_ps * 500)),   # even: the clock toggles every half period
                    env={"SGDMA_COSIM_TRACE": str(trace_path), "SGDMA_COSIM_OUT": str(out_path)})
        if not o.ok:
            raise RuntimeError(f"co-simulation of {sc.name} did not run: {o.failed}")
        rtl = json.loads(out_path.read_text())
    model = {"counters": sc.counters, "beats": int(t.beat_ps.size)}
    cmp = Comparison(sc.name, model, rtl)
    for k, v in sc.counters.items():
        if rtl["counters"][k] != v:
            cmp.mismatches.append(f"counter {k}: model {v}, RTL {rtl['counters'][k]}")
    if rtl["beats"] != t.beat_ps.size:
        cmp.mismatches.append(f"beats replayed: {rtl['beats']} of {t.beat_ps.size}")
    if rtl["slips"]:
        cmp.mismatches.append(f"the RTL back-pressured {len(rtl['slips'])} beats the model let through "
                              f"(first: beat {rtl['slips'][0][0]} at edge {rtl['slips'][0][1]}, "
                              f"taken at {rtl['slips'][0][2]})")
    if sc.dac:
        edge = lambda ps: int(t.edges(np.array([ps]))[0]) - base  # noqa: E731
        want = [[g, b, edge(due), edge(act)] for g, b, due, act in sc.dac["underflows"]]
        model["underflows"] = want
        model["underflow_count"] = len(want)
        model["first_underflow_gate"] = want[0][0] if want else None
        for key in ("underflow_count", "first_underflow_gate", "underflows"):
            if rtl[key] != model[key]:
                cmp.mismatches.append(f"{key}: model {model[key] if key != 'underflows' else want[:4]}, "
                                      f"RTL {rtl[key] if key != 'underflows' else rtl[key][:4]}")
        if rtl["plays"] != t.beat_ps.size:
            cmp.mismatches.append(f"DAC played {rtl['plays']} of {t.beat_ps.size} words")
    return cmp


def default_scenarios() -> list[Scenario]:
    """Two characterization points and two gate sequences (one starving, one back-pressured)."""
    return [
        characterization_point("zcu111", 16, 1024, seed=3),
        characterization_point("zynq7000", 4, 4096, seed=5),
        gate_sequence("zcu102", gates=48, bytes_per_gate=32, gate_clocks=25, lead_clocks=125, fifo=16),
        gate_sequence("zcu102", gates=32, bytes_per_gate=64, gate_clocks=60, lead_clocks=60, fifo=4),
    ]
