"""S2MM per-burst W occupancy on the pg021 preset's ideal memory, computed by hand."""
import pytest

from sgdma.board import VirtualBoard
from sgdma.driver import AxiDma

TVALID_TO_AW = 39   # PG021 Performance Table 1
GAP = 5             # spec/pg021.toml S2MM_BURST_GAP (from PG021 Table 2)


def _span_clocks(nbytes):
    b = VirtualBoard("pg021", seed=0)
    dma = AxiDma(b)
    dma.reset()
    rx = dma.s2mm.ring(1)
    rx.fill([b.allocate(nbytes).physical_address], [nbytes])
    b.s2mm_source.send(bytes(nbytes))
    rx.submit()
    rx.wait()
    pr = b.probe("s2mm")
    return (pr["t_last_beat"] - pr["t_first_beat"]) / 1e3 / (1e3 / b.axi_dma.clock_mhz)


@pytest.mark.parametrize("nbytes", [64, 4096, 10000])
def test_s2mm_span_is_latency_beats_and_gaps(nbytes):
    beats = nbytes // 4                     # 32-bit data
    bursts = -(-beats // 16)                # 16-beat bursts, aligned buffer: no 4 KiB split
    expected = TVALID_TO_AW + beats + GAP * (bursts - 1)
    assert _span_clocks(nbytes) == pytest.approx(expected, abs=0.5)


def test_s2mm_below_stream_rate_on_ideal_memory():
    # 16 beats per 21 clocks at steady state: well below the 100 % the stream offers
    assert 4096 / 4 / _span_clocks(4096) < 0.80
