"""Benchmark (not a test): pl_stream_sink.v fed by cocotbext-axi's untimed AxiStreamSource and by
the board's MM2S through DmaStreamSource, the same packets, in one simulator run.  Each writes its
clocks and wall time to SGDMA_BENCH_OUT (JSON lines); `python -m sgdma.rtl.bench` prints them."""
import json
import os
import time

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSource

import sgdma
from sgdma.cocotb import DmaStreamSource

PACKETS = int(os.environ.get("PACKETS", "16"))
PACKET_BYTES = 4096
CLK_PS = 4000                     # zcu102's DMA clock, 250 MHz
WIDTH = 16


def payload():
    return [np.full(PACKET_BYTES, i, np.uint8) for i in range(PACKETS)]


async def reset(dut):
    cocotb.start_soon(Clock(dut.clk, CLK_PS, "ps").start())
    dut.rst_n.value = 0
    await ClockCycles(dut.clk, 4)
    dut.rst_n.value = 1


async def measure(dut, name, t0):
    clocks = 0
    while int(dut.packets.value) < PACKETS:
        await RisingEdge(dut.clk)
        clocks += 1
        assert clocks < 100 * PACKETS * PACKET_BYTES // WIDTH, "stream never finished"
    wall = time.perf_counter() - t0
    with open(os.environ["SGDMA_BENCH_OUT"], "a") as f:
        f.write(json.dumps({"name": name, "clocks": clocks, "wall_s": wall}) + "\n")


@cocotb.test()
async def bench_axistream(dut):
    await reset(dut)
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst_n, reset_active_level=False)
    t0 = time.perf_counter()
    for p in payload():
        await src.send(AxiStreamFrame(p.tobytes()))
    await measure(dut, "AxiStreamSource (untimed)", t0)


@cocotb.test()
async def bench_dma_source(dut):
    await reset(dut)
    b = sgdma.VirtualBoard("zcu102")
    d = sgdma.AxiDma(b)
    d.reset()
    bufs = []
    for p in payload():
        x = b.allocate(PACKET_BYTES, np.uint8)
        x[:] = p
        bufs.append(x)
    DmaStreamSource(dut, "s_axis", dut.clk, b, reset=dut.rst_n)
    t0 = time.perf_counter()
    ring = d.mm2s.ring(PACKETS)
    ring.add_packets(bufs)
    ring.submit()
    await measure(dut, "DmaStreamSource (zcu102 MM2S)", t0)
