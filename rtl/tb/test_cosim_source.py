"""Live co-simulation: the AXI DMA's MM2S through sgdma.cocotb.DmaStreamSource into pl_stream_sink.v.

READY_EVERY (the RTL's parameter, also in the environment) sets TREADY's duty cycle, 1/READY_EVERY.
Independent expectations, from the board alone (no HDL):
- ready on every clock: every beat's time equals the model's own stream (a second board running
  the same software with its beat trace recorded), and the bytes are the packets software queued;
- ready one clock in m: every beat's time equals the model's consumer-paced stream replayed on a
  second board with the same TREADY edges (VirtualBoard.mm2s_live/offer/accept), the beats are m
  clocks apart once the FIFO holds data, and the model's own fluid consumer at rate 1/m gives the
  same duration within m clocks.
"""
import os

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotb.utils import get_sim_time

import sgdma
from sgdma.board.beats import BeatTrace
from sgdma.cocotb import AxiProtocolError, DmaStreamSource

PRESET = "zcu102"                      # 250 MHz DMA clock: a whole number of ps
M = int(os.environ.get("READY_EVERY", "1"))
SIZES = (100, 4096, 1000, 64)           # packets (one BD each); 100 and 1000: a partial last beat
LIMIT = 40_000                          # clocks: the stream is done long before


def software(**kw):
    """The board, its driver, the buffers and the submitted MM2S ring (the same on every board)."""
    b = sgdma.VirtualBoard(PRESET, seed=5, **kw)
    d = sgdma.AxiDma(b)
    d.reset()
    rng = np.random.default_rng(3)
    bufs = []
    for n in SIZES:
        x = b.allocate(n, np.uint8)
        x[:] = rng.integers(0, 256, n, dtype=np.uint8)
        bufs.append(x)
    return b, d, bufs


def submit(b, d, bufs):
    ring = d.mm2s.ring(len(bufs))
    ring.add_packets(bufs)
    ring.submit()
    return ring


async def start(dut, b) -> int:
    """The DMA's clock on the DUT, 4 clocks of reset; returns to the edge reset is released on."""
    clk_ps = round(1e6 / b.option("dma.clock_mhz"))
    cocotb.start_soon(Clock(dut.clk, clk_ps, "ps").start())
    dut.rst_n.value = 0
    await ClockCycles(dut.clk, 4)
    dut.rst_n.value = 1
    return clk_ps


async def monitor(dut, width, log):
    while True:
        await RisingEdge(dut.clk)
        if int(dut.s_axis_tvalid.value) and int(dut.s_axis_tready.value):
            keep = int(dut.s_axis_tkeep.value)
            n = bin(keep).count("1")
            assert keep == (1 << n) - 1, f"TKEEP {keep:b}: not a contiguous low run"
            log["t"].append(round(get_sim_time("ps")))
            log["data"].append(int(dut.s_axis_tdata.value).to_bytes(width, "little")[:n])
            log["last"].append(int(dut.s_axis_tlast.value))
        elif int(dut.s_axis_tready.value) and log["ready0"] is None:
            log["ready0"] = round(get_sim_time("ps"))


async def run_live(dut, quantum=1):
    b, d, bufs = software()
    clk_ps = await start(dut, b)
    log = {"t": [], "data": [], "last": [], "ready0": None}
    cocotb.start_soon(monitor(dut, b.axi_dma.data_bytes, log))
    src = DmaStreamSource(dut, "s_axis", dut.clk, b, reset=dut.rst_n, quantum=quantum)
    ring = submit(b, d, bufs)
    for _ in range(LIMIT):
        await RisingEdge(dut.clk)
        if int(dut.packets.value) == len(SIZES):
            break
    assert int(dut.packets.value) == len(SIZES), f"{int(dut.packets.value)} packets in {LIMIT} clocks"
    b.run_until_quiet()
    assert len(ring.reclaim()) == len(SIZES)
    # the bytes software queued, packet by packet, TLAST on each packet's last beat
    ends = np.flatnonzero(log["last"]) + 1
    packets = [b"".join(log["data"][i:j]) for i, j in zip(np.r_[0, ends[:-1]], ends)]
    assert packets == [bytes(x) for x in bufs]
    assert int(dut.bytes.value) == sum(SIZES) and int(dut.beats.value) == len(log["t"]) == src.beats
    t_board = np.array(log["t"], dtype=np.int64) + src.offset
    assert list(t_board) == src.taken_ps
    return t_board, log, src, clk_ps


@cocotb.test()
async def mm2s_drives_the_rtl_as_the_models_stream(dut):
    assert M == 1
    t, _, _, _ = await run_live(dut)
    model = model_stream()
    assert len(model) == len(t)
    assert (t == model).all(), f"first difference at beat {int(np.flatnonzero(t != model)[0])}"


def model_stream():
    """Every beat's time in the model's own stream (no HDL, a consumer always ready)."""
    b, d, bufs = software()
    trace = BeatTrace.record(b)
    submit(b, d, bufs)
    b.run_until_quiet()
    return trace.take().beat_ps.astype(np.int64)


@cocotb.test()
async def quantum_trades_exactness_for_speed(dut):
    """QUANTUM clocks between looks at an idle MM2S.  A burst is queued when its AR issues, so a
    look within its read latency (AR to first beat, the model's probe) still finds its first beat
    ahead: every beat exact.  A longer quantum sees the first beat late, by less than the
    quantum, and no beat is ever early.  run_live checks the bytes either way."""
    assert M == 1
    q = int(os.environ["QUANTUM"])
    t, _, src, clk_ps = await run_live(dut, quantum=q)
    model = model_stream()
    b, d, bufs = software()
    submit(b, d, bufs)
    b.run_until_quiet()
    p = b.probe("mm2s")
    read_clocks = (p["t_first_beat"] - p["t_data_ar"]) // clk_ps
    dut._log.info("quantum %d (read latency %d clocks): first beat %d clocks late, last %d", q, read_clocks,
                  (t[0] - model[0]) // clk_ps, (t[-1] - model[-1]) // clk_ps)
    assert len(t) == len(model) and (t >= model).all()
    if q < read_clocks:
        assert (t == model).all()
    else:
        assert 0 < t[0] - model[0] < q * clk_ps


def replay_consumer(ready_from_ps, m, clk_ps):
    """The model alone with a consumer ready on edges ready_from + j*m*clk (board ps)."""
    b, d, bufs = software()
    b.mm2s_live()
    submit(b, d, bufs)
    times, packets = [], 0
    for _ in range(200_000):                   # bounded: the beats and the waits between them
        off = b.mm2s_offer_ps()
        if off is None:
            b.advance(clk_ps / 1000)
            continue
        j = max(0, -(-(off - ready_from_ps) // (m * clk_ps)))
        times.append(ready_from_ps + j * m * clk_ps)
        packets += b.mm2s_accept(times[-1])
        if packets == len(SIZES):
            break
    return np.array(times, dtype=np.int64)


def fluid_duration_ps(m):
    b, d, bufs = software(consumer_rate=1 / m, consumer_fifo_beats=1)
    trace = BeatTrace.record(b)
    submit(b, d, bufs)
    b.run_until_quiet()
    t = trace.take().beat_ps.astype(np.int64)
    return int(t[-1] - t[0])


@cocotb.test()
async def tready_duty_cycle_paces_the_dma_as_the_models_consumer(dut):
    assert M > 1
    t, log, src, clk_ps = await run_live(dut)
    want = replay_consumer(log["ready0"] + src.offset, M, clk_ps)
    assert len(want) == len(t)
    assert (t == want).all(), f"first difference at beat {int(np.flatnonzero(t != want)[0])}"
    gaps = np.diff(t[SIZES[0] // 16 + 1:])                  # the 4 KiB packet onwards: the FIFO is full
    assert (gaps >= M * clk_ps).all() and np.median(gaps) == M * clk_ps
    assert abs(int(t[-1] - t[0]) - fluid_duration_ps(M)) <= M * clk_ps


@cocotb.test(expect_error=AxiProtocolError)
async def stuck_tready_is_a_protocol_error(dut):
    """READY_EVERY huge: TREADY never comes; the bridge stops the test naming the stall (pytest
    reads its text) instead of hanging."""
    b, d, bufs = software()
    clk_ps = await start(dut, b)
    src = DmaStreamSource(dut, "s_axis", dut.clk, b, reset=dut.rst_n, stall_clocks=200)
    submit(b, d, bufs)
    await ClockCycles(dut.clk, 2000)
    raise AssertionError(f"no protocol error in 2000 clocks (source error: {src.error})")
