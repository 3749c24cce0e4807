"""S0's timing state machine: the RPU/GPIO handshake and its counters."""
import math

import numpy as np
import pytest

import sgdma
from sgdma.hw import pg021 as P


def run_s0_trial(board, bds=16, bytes_per_bd=1024):
    dma = sgdma.AxiDma(board)
    dma.reset()
    buf = board.allocate(bds * bytes_per_bd, np.uint8)
    ring = dma.mm2s.ring(bds)
    ring.fill(buf.physical_address + np.arange(bds, dtype=np.uint64) * bytes_per_bd,
              np.full(bds, bytes_per_bd, np.uint32))
    tail = ring.prepare()                  # CURDESC + RS before the handshake, as S0's RPU does
    csm = board.csm
    csm.arm(bds * bytes_per_bd // board.axi_dma.data_bytes)
    csm.reset()
    csm.wait_ready()
    csm.start()
    t_start = board.now_ps
    dma.mm2s.write_tail(tail)
    csm.wait_done()
    return csm.counters(), t_start, board


def test_counters_match_stream_beat_times():
    board = sgdma.VirtualBoard("zcu111", seed=3)
    c, t_start, board = run_s0_trial(board)
    info = board.mm2s_sink.timing()
    first, last = info[0]["first_ns"], info[-1]["last_ns"]
    clk = 1e3 / board.axi_dma.clock_mhz
    assert c["beats"] == 16 * 1024 // 32
    # the PL sees START at the first clock edge after the write lands; beats sit on edges
    clk_ps = clk * 1000
    first_edge, last_edge = round(first * 1000 / clk_ps), round(last * 1000 / clk_ps)
    assert abs(first_edge * clk_ps - first * 1000) <= 2 and abs(last_edge * clk_ps - last * 1000) <= 2
    assert c["latency"] == first_edge - math.ceil((t_start - 2) / clk_ps)
    assert c["throughput"] == last_edge - first_edge + 1   # inclusive
    # setup: reset release -> start received = one READY read + the START write
    expected = (board.option("cpu.mmio_read_ns") + board.option("cpu.mmio_write_ns")) / clk
    assert c["setup"] == pytest.approx(expected, abs=1)
    assert c["throughput"] >= c["beats"]                 # never faster than one beat per clock


def test_counters_read_through_gpio_registers():
    board = sgdma.VirtualBoard("zcu111", seed=4)
    c, _, board = run_s0_trial(board, bds=2, bytes_per_bd=64)
    a = board.mmio(board.gpio_base)
    # after ACK the engine is idle again: not ready, not done
    assert a.read(0x8) & (sgdma._core.constants["CSM_STS_READY"] | sgdma._core.constants["CSM_STS_DONE"]) == 0
    assert c["latency"] > P.LAT_TAIL_TO_SG_AR + P.LAT_SG_AR_TO_MM2S_AR + P.LAT_MM2S_AR_TO_TVALID


def test_engine_ignores_stream_before_start():
    board = sgdma.VirtualBoard("zcu111", seed=5)
    dma = sgdma.AxiDma(board)
    dma.reset()
    ring = dma.mm2s.ring(2)
    ring.add_packets([board.allocate(64)])
    ring.submit()
    ring.wait()
    board.csm.reset()
    assert board.csm.status() & sgdma._core.constants["CSM_STS_READY"]
    assert not board.csm.done
    with pytest.raises(TimeoutError, match="DONE"):
        board.csm.wait_done(max_polls=20)
