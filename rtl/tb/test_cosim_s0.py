"""S0 end to end, live: the virtual board's software and AXI DMA against the repo's gateware
(sgdma_cosim_top: the DAC streamer sgdma_dac_stream and the timing engine sgdma_csm).

The APU fills the MM2S ring of a gate sequence (sgdma.rtl.cosim.gate_board), the RPU runs S0's
sequence (arm, RESET, READY, START, tail write: cosim.s0_start); its GPIO writes reach the
gateware's gpio_ctl/gpio_length at the edge after they land, and the DMA's stream drives the
DAC streamer through sgdma.cocotb.DmaStreamSource - the DAC's TREADY paces the DMA.  The model's
own DAC is off on this board: the RTL is the consumer.

Expectations, from the model alone (cosim.gate_sequence, the DAC model playing): the timing
engine's four counters, every word's arrival edge, the DAC's underflows.  The live board's own
timing-engine model must agree too.  Configured by the environment: GATES, BYTES, GATE_CLOCKS,
LEAD_CLOCKS, FIFO (the RTL's FIFO_DEPTH), SGDMA_COSIM_OUT (JSON for tests/test_cosim_live.py).
"""
import json
import os

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotb.utils import get_sim_time

from sgdma.board.beats import CTL, BeatTrace
from sgdma.cocotb import DmaStreamSource
from sgdma.rtl import cosim
from sgdma_tb import read_counters
from test_cosim import Watch

PRESET = "zcu102"
CFG = {k: int(os.environ[k.upper()]) for k in ("gates", "bytes", "gate_clocks", "lead_clocks", "fifo")}
SEED = 3
LIMIT = 100_000          # clocks: a short sequence is done long before


def _now() -> int:
    return round(get_sim_time("ps"))


async def drive_gpio(dut, writes, clk_ps: int, last_ctl: list):
    """Each (HDL edge ps, reg, value): set just after the edge before, so the gateware samples it
    at that edge (a GPIO write is seen at the first edge at or after it lands)."""
    for edge_ps, reg, value in writes:
        wait = (edge_ps - clk_ps - _now()) // clk_ps
        assert wait >= 0, f"GPIO write for edge {edge_ps} ps reached the HDL at {_now()} ps: the board was behind"
        if wait:
            await ClockCycles(dut.clk, wait)
        if reg == CTL:
            dut.gpio_ctl.value = value
            last_ctl[0] = value
        else:
            dut.gpio_length.value = value


@cocotb.test()
async def s0_gate_sequence_live(dut):
    g = CFG
    model = cosim.gate_sequence(PRESET, g["gates"], g["bytes"], g["gate_clocks"], g["lead_clocks"], g["fifo"],
                                seed=SEED)
    board, dma, ring, beats = cosim.gate_board(PRESET, g["gates"], g["bytes"], None, g["lead_clocks"], g["fifo"],
                                               SEED)
    clk_ps = round(1e6 / board.axi_dma.clock_mhz)
    for s in (dut.s_axis_tvalid, dut.s_axis_tlast, dut.s_axis_tdata, dut.gpio_ctl, dut.gpio_length):
        s.value = 0
    cocotb.start_soon(Clock(dut.clk, clk_ps, "ps").start())
    dut.rst_n.value = 0
    await ClockCycles(dut.clk, 3)
    dut.rst_n.value = 1
    await RisingEdge(dut.clk)
    watch = Watch(dut)
    cocotb.start_soon(watch.run())
    src = DmaStreamSource(dut, "s_axis", dut.clk, board, reset=dut.rst_n)
    rec = BeatTrace.record(board)
    cosim.s0_start(board, dma, ring, beats)          # the board runs ahead to the tail write
    t = rec.take()
    edges = rec.edges(t.ctl_ps)
    writes = [(int(t.origin_ps + round(k * clk_ps)) - src.offset, int(r), int(v))
              for k, r, v in zip(edges, t.ctl_reg, t.ctl_value)]
    last_ctl = [0]
    gpio = cocotb.start_soon(drive_gpio(dut, writes, clk_ps, last_ctl))
    for _ in range(LIMIT):
        await RisingEdge(dut.clk)
        if src.beats == beats and watch.plays == beats:
            break
    assert src.beats == beats and watch.plays == beats, \
        f"{src.beats} beats taken, {watch.plays} played of {beats} in {LIMIT} clocks"
    assert gpio.done()
    await ClockCycles(dut.clk, 4)
    rtl = await read_counters(dut, last_ctl[0])
    live_model = cosim.s0_finish(board)               # the live board's own timing engine
    taken = np.array(src.taken_ps, dtype=np.int64)
    want = model.trace.beat_ps.astype(np.int64)
    k = lambda ps: int(rec.edges(np.array([ps]))[0])      # noqa: E731  (board edge index)
    accepted = [k(x) for x in taken]
    index = {a: j for j, a in enumerate(accepted)}
    gates_before = np.r_[0, np.cumsum(model.trace.beat_last)[:-1]]
    late = [[int(gates_before[index[k(a * clk_ps + src.offset)]]), index[k(a * clk_ps + src.offset)],
             k(due * clk_ps + src.offset), k(a * clk_ps + src.offset)] for due, a in watch.late]
    want_late = [[gi, b, k(due), k(act)] for gi, b, due, act in model.dac["underflows"]]
    out = {"counters": rtl, "live_model_counters": live_model, "model_counters": model.counters,
           "beat_edges": accepted, "model_beat_edges": [k(x) for x in want],
           "underflows": late, "model_underflows": want_late,
           "underflow_count": int(dut.underflow_count.value)}
    with open(os.environ["SGDMA_COSIM_OUT"], "w") as f:
        json.dump(out, f)
    assert len(taken) == len(want)
    bad = np.flatnonzero(taken != want)
    assert not bad.size, f"word {int(bad[0])} arrived at edge {accepted[bad[0]]}, the model's at {k(want[bad[0]])}"
    assert rtl == model.counters, (rtl, model.counters)
    assert live_model == model.counters, (live_model, model.counters)
    assert late == want_late and out["underflow_count"] == len(want_late), (late[:4], want_late[:4])
