"""Replay of a virtual-board trace (sgdma.rtl.cosim) into sgdma_cosim_top.

Inputs for clock edge k are set just after edge k-1.  Beats are offered at the
edges the model recorded; if the gateware back-pressures a beat the model let
through, it is offered again on the next edge and the slip is reported.  The
results (counters, late words, back-pressure slips) go to $SGDMA_COSIM_OUT."""
import json
import os

import cocotb
import numpy as np
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from sgdma_tb import cycle, read_counters, start


class Watch:
    def __init__(self, dut):
        self.dut, self.plays, self.late, self.starve_from = dut, 0, [], None

    async def run(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            now = cycle()
            await ReadOnly()
            self.plays += int(d.dac_valid.value)
            if int(d.starved.value) and self.starve_from is None:
                self.starve_from = now
            if int(d.underflow.value):
                self.late.append((self.starve_from, now))
            if not int(d.starved.value):
                self.starve_from = None


@cocotb.test()
async def replay(dut):
    tr = np.load(os.environ["SGDMA_COSIM_TRACE"])
    beat_k, beat_last = tr["beat_cycle"], tr["beat_last"]
    ctl_k, ctl_reg, ctl_val = tr["ctl_cycle"], tr["ctl_reg"], tr["ctl_value"]
    end = int(tr["end_cycle"])
    dut.s_axis_tvalid.value = 0
    dut.s_axis_tlast.value = 0
    dut.s_axis_tdata.value = 0
    dut.gpio_ctl.value = 0
    dut.gpio_length.value = 0
    await start(dut)
    watch = Watch(dut)
    cocotb.start_soon(watch.run())
    await RisingEdge(dut.clk)
    ctl = 0
    i = k = 0
    accepted, tlasts_before = [], []
    gates = 0
    while i < len(beat_k) or k < len(ctl_k):
        soonest = cycle() + 1                   # a stalled beat pushes everything after it
        nb = max(int(beat_k[i]), soonest) if i < len(beat_k) else None
        nc = max(int(ctl_k[k]), soonest) if k < len(ctl_k) else None
        c = min(x for x in (nb, nc) if x is not None)
        if cycle() < c - 1:
            dut.s_axis_tvalid.value = 0
            await ClockCycles(dut.clk, c - 1 - cycle())
        assert cycle() == c - 1, (cycle(), c)
        while k < len(ctl_k) and int(ctl_k[k]) <= c:
            if int(ctl_reg[k]) == 0:
                ctl = int(ctl_val[k])
                dut.gpio_ctl.value = ctl
            else:
                dut.gpio_length.value = int(ctl_val[k])
            k += 1
        offer = nb == c
        dut.s_axis_tvalid.value = int(offer)
        if offer:
            dut.s_axis_tdata.value = i & 0xFFFFFFFF
            dut.s_axis_tlast.value = int(beat_last[i])
        await ReadOnly()
        ready = int(dut.s_axis_tready.value)
        await RisingEdge(dut.clk)
        if offer and ready:
            accepted.append(c)
            tlasts_before.append(gates)
            gates += int(beat_last[i])
            i += 1
    dut.s_axis_tvalid.value = 0
    if cycle() < end:
        await ClockCycles(dut.clk, end - cycle())
    counters = await read_counters(dut, ctl)
    index = {a: j for j, a in enumerate(accepted)}
    late = [[tlasts_before[index[a]], index[a], due, a] for due, a in watch.late]
    out = {
        "counters": counters,
        "slips": [[j, int(r), a] for j, (r, a) in enumerate(zip(beat_k, accepted)) if int(r) != a],
        "underflows": late,
        "underflow_count": int(dut.underflow_count.value),
        "first_underflow_gate": int(dut.first_underflow_gate.value) if int(dut.first_underflow_valid.value) else None,
        "plays": watch.plays,
        "beats": len(accepted),
    }
    with open(os.environ["SGDMA_COSIM_OUT"], "w") as f:
        json.dump(out, f)
