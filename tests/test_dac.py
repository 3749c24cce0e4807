"""The PL DAC consumer: fixed-rate playback behind a FIFO, underflows and deadline misses by gate."""
import numpy as np
import pytest

import sgdma


def play(gates=64, bytes_per_gate=32, beat_ns=1000.0, fifo=16, lead_ns=1000.0, **board_kw):
    b = sgdma.VirtualBoard("zcu111", seed=3, timing_only=True, **board_kw)
    dma = sgdma.AxiDma(b)
    dma.reset()
    b._b.dac_configure(int(beat_ns * 1000), int(lead_ns * 1000), fifo)
    buf = b.allocate(gates * bytes_per_gate)
    ring = dma.mm2s.ring(gates)
    ring.fill(buf.physical_address + np.arange(gates, dtype=np.uint64) * bytes_per_gate,
              np.full(gates, bytes_per_gate, np.uint32))          # one BD, one packet, per gate
    ring.submit()
    b.run_until_quiet()
    return b, b._b.dac_report()


def test_no_underflow_when_the_dma_keeps_up():
    b, rep = play(beat_ns=1000.0)
    assert rep["gates"] == 64 and rep["beats"] == 64
    assert rep["underflows"] == [] and rep["deadline_misses"] == []


def test_fifo_back_pressure_paces_the_dma():
    b, rep = play(gates=64, beat_ns=1000.0, fifo=8)
    t = b.mm2s_sink.timing()
    # once the FIFO is full, gate k can enter only after gate k-8 played: ~1 us apart
    gaps = np.diff([x["first_ns"] for x in t])[20:]
    assert np.median(gaps) == pytest.approx(1000.0, rel=0.01)


def test_underflows_when_gates_are_faster_than_bd_fetches():
    # 32 B per BD is fetch-bound (~280 ns per BD on zcu111): 100 ns gates starve the DAC
    b, rep = play(gates=64, beat_ns=100.0, fifo=16, lead_ns=500.0)
    assert rep["underflows"], rep
    gates = [g for g, *_ in rep["underflows"]]
    assert gates == sorted(gates) and max(gates) < 64
    for gate, beat, due, actual in rep["underflows"]:
        assert actual > due
    # after the first slip every later gate is behind its nominal slot
    first = rep["underflows"][0][0]
    missed = {g for g, *_ in rep["deadline_misses"]}
    assert set(range(first + 1, 64)) <= missed


def test_larger_bds_fix_it():
    """Packing 8 gates' words per BD is not the fix (one packet per gate); a longer gate time is."""
    _, rep = play(gates=64, beat_ns=400.0, fifo=16, lead_ns=2000.0)
    assert rep["underflows"] == []
