"""The binding cannot corrupt memory: every number is range-checked before it narrows, the GIL is released
around long simulations (and the board refuses a second thread meanwhile), the stream sink is bounded."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import sgdma
from sgdma import _core
from sgdma.driver.axidma import AxiDma
from sgdma.experiments import characterize as ch
from sgdma.hw import pg021 as P


@pytest.fixture
def board():
    return sgdma.VirtualBoard("pg021")


@pytest.mark.parametrize("count", [2**58 + 4, 2**32, 2**32 + 4, 0, -1])
def test_ring_count_that_does_not_fit_is_refused(board, count):
    chan = AxiDma(board).mm2s._c
    base = board.regions[0][1]
    with pytest.raises(ValueError):
        _core.Ring(chan, base, count)


def test_a_ring_that_fits_is_built(board):
    chan = AxiDma(board).mm2s._c
    ring = _core.Ring(chan, board.regions[0][1], 4)
    assert ring.state()["count"] == 4


@pytest.mark.parametrize("call", [
    lambda b, c: b.cpu_write32(0, 2**32, 10),
    lambda b, c: b.write32(-4, 0),
    lambda b, c: b.irq_pending(2),
    lambda b, c: b.stats(-1),
    lambda b, c: b.probe(2**64),
    lambda b, c: b.adc_start(1e6, 2**32 + 1, 4096, 4096),
    lambda b, c: b.dac_configure(1000, 0, 2**32 + 1),
    lambda b, c: b.advance_ps(-1),
    lambda b, c: b.reseed(2**64),
    lambda b, c: c.set_irq(P.CR_IOC_IRQEN, 2**32 + 1, 0),
    lambda b, c: c.read(2**32 + P.DMASR),
    lambda b, c: c.read(P.DMASR + 1),
    lambda b, c: c.write(P.DMACR, 2**32),
    lambda b, c: c.set_poll_limit(2**32),
    lambda b, c: c.simple_start(-1, 16),
    lambda b, c: _core.Chan(b, 2, 0x4040_0000, 32, 14, 4),
    lambda b, c: _core.Chan(b, 0, 0x4040_0000, 2**32 + 32, 14, 4),
    lambda b, c: _core.format_reg("dmasr", 2**32),
])
def test_numbers_that_do_not_fit_are_refused_not_wrapped(board, call):
    chan = AxiDma(board).mm2s._c
    with pytest.raises(ValueError):
        call(board._b, chan)


def test_fill_count_is_checked_before_it_narrows(board):
    chan = AxiDma(board).mm2s._c
    ring = _core.Ring(chan, board.regions[0][1], 4)
    n = 2**32 + 1                      # would become 1 if narrowed
    with pytest.raises(ValueError):
        ring.fill(n, np.zeros(1, np.uint64), np.zeros(1, np.uint32), np.zeros(1, np.uint8))
    assert ring.state()["n_filled"] == 0


def test_floats_are_not_taken_for_addresses(board):
    with pytest.raises(TypeError):
        board._b.read32(1.5)


def test_simulation_releases_the_gil_and_the_board_refuses_a_second_thread():
    """While s0_trials runs in one thread the other thread keeps running Python, and every call it makes on the
    same board is refused (busy) instead of racing the simulation."""
    bench = ch.Bench(ch.Setup(board="zcu111", trials=1))
    point = ch.Point(8192, 256)
    seeds = ch.trial_seeds(0, point, 60)
    result = {}
    started = threading.Event()

    def work():
        bench.board.adopt()          # the Python API serves one thread at a time (sgdma.board.threads)
        started.set()
        result["out"] = ch._c_trials(bench, point, seeds)

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    busy = ran = 0
    while t.is_alive():
        ran += 1
        try:
            bench.board._b.now_ps()
        except RuntimeError as e:
            assert "busy" in str(e)
            busy += 1
    t.join()
    assert busy > 0 and ran > busy // 2
    lat, thr, _ = result["out"]
    assert len(lat) == 60
    # the same trials without a second thread give the same numbers (determinism)
    again = ch._c_trials(ch.Bench(ch.Setup(board="zcu111", trials=1)), point, seeds)
    assert np.array_equal(again[0], lat) and np.array_equal(again[1], thr)


@pytest.mark.parametrize("cap", [0, 2**62])
def test_sink_keeps_every_byte_whether_its_log_is_reserved_or_grown(cap):
    """The sink's byte log is one reservation of its whole cap (default cap: 0), or, where the host has no
    address space for the cap (2^62 bytes), an array grown as packets arrive: the same bytes either way,
    across many growth steps and packets of odd sizes."""
    board = sgdma.VirtualBoard("zcu111", sink_record=True, options={"stream.sink_max_bytes": cap})
    dma = AxiDma(board)
    dma.reset()
    rng = np.random.default_rng(12)
    sizes = rng.integers(1, 5000, 300)
    payload = [rng.integers(0, 256, n, dtype=np.uint8) for n in sizes]
    ring = dma.mm2s.ring(len(payload))
    bufs = [board.allocate(int(n), np.uint8) for n in sizes]
    for buf, data in zip(bufs, payload):
        buf[:] = data
    ring.add_packets(bufs)
    ring.submit()
    board.run_until_quiet()
    assert [bytes(p) for p in board.mm2s_sink.packets()] == [d.tobytes() for d in payload]
    assert board.mm2s_sink.overflow == {"packets": 0, "bytes": 0}


def test_sink_is_bounded_and_counts_what_it_cannot_keep():
    """A sink over its cap keeps whole packets up to it and counts the rest; nothing aborts."""
    board = sgdma.VirtualBoard("pg021", include_sg=0, options={"stream.sink_max_bytes": 3000})
    dma = AxiDma(board)
    payload = [np.full(1000, i, np.uint8) for i in range(5)]
    bufs = [board.allocate(1000, np.uint8) for _ in payload]
    for buf, data in zip(bufs, payload):
        buf[:] = data
    for buf in bufs:                    # five packets of 1000 bytes: three fit, two are counted
        dma.mm2s.transfer(buf)
        dma.mm2s.wait()
    kept = board.mm2s_sink.packets()
    assert [bytes(p) for p in kept] == [d.tobytes() for d in payload[:3]]
    assert board.mm2s_sink.overflow == {"packets": 2, "bytes": 2000}
    board.mm2s_sink.clear()             # room again
    dma.mm2s.transfer(bufs[4])
    dma.mm2s.wait()
    assert [bytes(p) for p in board.mm2s_sink.packets()] == [payload[4].tobytes()]
