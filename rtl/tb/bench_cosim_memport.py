"""Benchmark (not a test): pl_mem_reader.v against cocotbext-axi's untimed AxiRam and against
the board through PsMemoryPort, same RTL and traffic, in one simulator run.  Each writes its
clocks and wall time to SGDMA_BENCH_OUT (JSON lines); `python -m sgdma.rtl.bench` prints them."""
import json
import os
import time

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiBus, AxiRam

from sgdma.board.virtual import VirtualBoard
from sgdma.cocotb import PsMemoryPort

BEATS = int(os.environ.get("BEATS", "16"))
BURSTS = int(os.environ.get("BURSTS", "4"))
NBYTES = BURSTS * BEATS * 8


async def measure(dut, name, base):
    dut.base.value = base
    dut.rst_n.value = 0
    dut.start.value = 0
    await ClockCycles(dut.clk, 4)
    dut.rst_n.value = 1
    await RisingEdge(dut.clk)
    dut.start.value = 1
    t0, clocks = time.perf_counter(), 0
    while not int(dut.done.value):
        await RisingEdge(dut.clk)
        dut.start.value = 0
        clocks += 1
        assert clocks < 1000 * BURSTS * BEATS, "reader never finished"
    wall = time.perf_counter() - t0
    with open(os.environ["SGDMA_BENCH_OUT"], "a") as f:
        f.write(json.dumps({"name": name, "clocks": clocks, "wall_s": wall}) + "\n")


@cocotb.test()
async def bench_axiram(dut):
    cocotb.start_soon(Clock(dut.clk, 10_000, "ps").start())
    ram = AxiRam(AxiBus.from_prefix(dut, "m_axi_hp0"), dut.clk, dut.rst_n, reset_active_level=False, size=1 << 16)
    ram.write(0, np.arange(NBYTES, dtype=np.uint8).tobytes())
    await measure(dut, "AxiRam (untimed)", 0)


@cocotb.test()
async def bench_bridge(dut):
    cocotb.start_soon(Clock(dut.clk, 10_000, "ps").start())
    b = VirtualBoard("pynq-z2", port="hp")
    buf = b.allocate(NBYTES, np.uint8)
    buf[:] = np.arange(NBYTES, dtype=np.uint8)
    PsMemoryPort(dut, "m_axi_hp0", dut.clk, b, port="hp0", reset=dut.rst_n)
    await measure(dut, "PsMemoryPort (pynq-z2 hp0)", buf.device_address)
