"""Live co-simulation: pl_mem_reader.v reads (and writes) PS DDR through sgdma.cocotb.PsMemoryPort.

Configured by the environment (tests/test_cosim.py): SGDMA_COSIM_CPU_LOAD (MB/s, "" for none),
SGDMA_COSIM_OUT (a JSON file for the results), PRESET (pynq-z2), BEATS/BURSTS/DATA_WIDTH as the
RTL's parameters.
The expectations are the board's own: the bytes software put in the buffer, and every burst's
latency from the model's PL read path run alone on a second board at the same times.
"""
import json
import os

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotb.utils import get_sim_time

from sgdma.board.plport import pl_read
from sgdma.board.virtual import VirtualBoard
from sgdma.cocotb import AxiProtocolError, PsMemoryPort

BEATS = int(os.environ.get("BEATS", "16"))
BURSTS = int(os.environ.get("BURSTS", "4"))
PRESET = os.environ.get("PRESET", "pynq-z2")
BYTES = int(os.environ.get("DATA_WIDTH", "64")) // 8     # the RTL's DATA_WIDTH, the port's width
WOFF = 0x1000
LIMIT = 20_000           # clocks: the reader is done long before


def board():
    load = os.environ.get("SGDMA_COSIM_CPU_LOAD") or None
    return VirtualBoard(PRESET, seed=7, port="hp", cpu_load=load)


def fill(b):
    """Software's buffer: BURSTS x BEATS x 8 bytes it wrote (and a page for the RTL's write)."""
    buf = b.allocate(WOFF + BEATS * BYTES, np.uint8)
    rng = np.random.default_rng(11)
    buf[:BURSTS * BEATS * BYTES] = rng.integers(0, 256, BURSTS * BEATS * BYTES, dtype=np.uint8)
    return buf


async def monitor(dut, clk_ps, log):
    """What the DUT's port shows: AR and RLAST handshake edges, and every R beat taken."""
    while True:
        await RisingEdge(dut.clk)
        t = int(round(get_sim_time("ps")))
        if int(dut.m_axi_hp0_arvalid.value) and int(dut.m_axi_hp0_arready.value):
            log["ar"].append((t, int(dut.m_axi_hp0_araddr.value)))
        if int(dut.m_axi_hp0_rvalid.value) and int(dut.m_axi_hp0_rready.value):
            log["beats"].append(int(dut.m_axi_hp0_rdata.value).to_bytes(BYTES, "little"))
            if int(dut.m_axi_hp0_rlast.value):
                log["rlast"].append(t)


async def start(dut, b):
    clk_ps = round(1e6 / b.option("dma.clock_mhz"))
    cocotb.start_soon(Clock(dut.clk, clk_ps, "ps").start())
    dut.rst_n.value = 0
    dut.start.value = 0
    await ClockCycles(dut.clk, 4)
    dut.rst_n.value = 1
    await RisingEdge(dut.clk)
    return clk_ps


async def run_reader(dut):
    """Pulse start and wait (bounded) for done."""
    dut.start.value = 1
    await RisingEdge(dut.clk)
    dut.start.value = 0
    for _ in range(LIMIT):
        await RisingEdge(dut.clk)
        if int(dut.done.value):
            return
    raise AssertionError(f"reader not done after {LIMIT} clocks")


def expected_latency(b2, clk_ps, t_ar, addr, offset):
    """The model's PL read path alone (a second board), and the R handshake rule a DUT sees:
    beat i is on the bus from the first edge at or after the model delivers it, taken at the
    next edge (RREADY is high throughout)."""
    resp, _, t_first, t_done, data = pl_read(b2, t_ar + offset, addr, BEATS * BYTES)
    t_first, t_done = t_first - offset, t_done - offset
    taken = t_ar
    for i in range(BEATS):
        ready = t_first + (t_done - t_first) * (i + 1) // BEATS
        shown = max(-(-ready // clk_ps) * clk_ps, taken)
        taken = shown + clk_ps
    return (taken - t_ar) // clk_ps, data


@cocotb.test()
async def read_ddr_through_hp0(dut):
    b = board()
    buf = fill(b)
    assert b.now_ps == 0
    port = PsMemoryPort(dut, "m_axi_hp0", dut.clk, b, port="hp0", reset=dut.rst_n)
    log = {"ar": [], "rlast": [], "beats": []}
    dut.base.value = buf.device_address
    clk_ps = await start(dut, b)
    cocotb.start_soon(monitor(dut, clk_ps, log))
    await run_reader(dut)
    port.check_idle()
    # the bytes are the ones software wrote
    got = b"".join(log["beats"])
    assert got == bytes(buf[:BURSTS * BEATS * BYTES])
    # every burst's latency equals the model's PL read path at the same times
    b2 = board()
    fill(b2)
    lat, exp = [], []
    for (t_ar, addr), t_last in zip(log["ar"], log["rlast"]):
        e, data = expected_latency(b2, clk_ps, t_ar, addr, port.offset)
        lat.append((t_last - t_ar) // clk_ps)
        exp.append(e)
    assert len(lat) == BURSTS
    assert lat == exp, f"latency in clocks {lat}, the model's {exp}"
    out = os.environ.get("SGDMA_COSIM_OUT")
    if out:
        with open(out, "w") as f:
            json.dump({"latency_clocks": lat, "model_clocks": exp}, f)


@cocotb.test()
async def write_lands_in_ddr(dut):
    """(WRITE=1) The burst the RTL wrote is in DDR, as software reads it."""
    b = board()
    buf = fill(b)
    port = PsMemoryPort(dut, "m_axi_hp0", dut.clk, b, port="hp0", reset=dut.rst_n)
    dut.base.value = buf.device_address
    await start(dut, b)
    await run_reader(dut)
    port.check_idle()
    words = np.frombuffer(bytes(buf[WOFF:WOFF + BEATS * BYTES]), dtype="<u4")
    want = np.repeat(0xC0DE0000 + np.arange(BEATS, dtype=np.uint32), BYTES // 4)
    assert (words == want).all(), words
    assert port.write_bursts == 1


@cocotb.test(expect_error=AxiProtocolError)
async def bad_axi_is_reported(dut):
    """(BAD=1, 2 or 3) The bridge stops the test with a protocol error (pytest reads its text);
    STALL: the bridge's stall_clocks (BAD=3: RREADY never high)."""
    b = board()
    buf = fill(b)
    PsMemoryPort(dut, "m_axi_hp0", dut.clk, b, port="hp0", reset=dut.rst_n,
                 stall_clocks=int(os.environ.get("STALL", "100000")))
    dut.base.value = buf.device_address
    await start(dut, b)
    dut.start.value = 1
    await RisingEdge(dut.clk)
    dut.start.value = 0
    await ClockCycles(dut.clk, 200)
