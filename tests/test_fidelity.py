"""The timed model against the published figures, with independent expectations.

The figures and bands are written here with their sources (../shared/reference/calibration.md: S0 = the RFSoC
SG-DMA study; PG021 v7.1 "Performance"; the Micron MT40A512M16 datasheet).  Each test runs the model itself and
computes the figure from raw samples (latency = tail write -> first stream word; throughput = payload / (last
word - first word)), so nothing here reads `sgdma validate`'s verdicts; the last tests check that validate
reports the same values the tests compute.
"""
import numpy as np
import pytest

import sgdma
from sgdma import AxiDma
from sgdma.experiments import characterize as ch
from sgdma.experiments import validate

# S0 (calibration.md): latency range over all ring and BD sizes; stream beat of 256 bit per 3.003 ns.
S0_LATENCY_NS = (849.0, 1516.0)
S0_STREAM_MBPS = 32 / 3.003e-9 / 1e6           # 256 bit per PL clock = 10 656 MB/s
# PG021 v7.1 Performance, default configuration, clocks of the channel clock.
PG021_MM2S_CLOCKS = {"tail->sg_ar": 10, "sg_ar->data_ar": 28, "data_ar->tvalid": 6}
PG021_S2MM_CLOCKS = {"tail->sg_ar": 10, "tvalid->aw": 39}
# Micron MT40A512M16 / S0: refresh every 7.8 us; S0 saw stalls of about 210 ns at the stream side.
TREFI_NS, S0_STALL_NS = 7_800.0, 210.0


@pytest.fixture(scope="module")
def sweep():
    setup = ch.Setup(board="zcu111", trials=100, seed=0, timing_only=True)
    recs = {(r.bytes_per_bd, r.bds, r.cycles): r for r in ch.sweep(setup, ch.s0_points(), 2)}
    simple = {r.bytes_per_bd: r for r in ch.sweep(ch.Setup(board="zcu111", mode="simple", trials=100, seed=0),
                                                  [ch.Point(b, 1) for b in (32, 4096, 8192)], 1)}
    return recs, simple


def _flat(recs):
    return [r for k, r in recs.items() if k[2] == 1]


def test_latency_inside_the_published_band(sweep):
    recs, _ = sweep
    lat = np.concatenate([r.samples["latency_ns"] for r in _flat(recs)])
    assert lat.size == 9 * 13 * 100
    assert S0_LATENCY_NS[0] <= lat.min() < lat.max() <= S0_LATENCY_NS[1], (lat.min(), lat.max())


def test_latency_independent_of_ring_size(sweep):
    recs, _ = sweep
    flat = _flat(recs)
    per_ring = [np.median([r.latency_ns["median"] for r in flat if r.bds == n]) for n in sorted({r.bds for r in flat})]
    assert (max(per_ring) - min(per_ring)) / np.mean(per_ring) <= 0.02, per_ring


def test_large_bd_throughput_reaches_the_stream_rate(sweep):
    recs, _ = sweep
    board = sgdma.VirtualBoard("zcu111")
    stream = board.axi_dma.data_bytes * board.axi_dma.clock_mhz        # bytes per us = MB/s, one beat per clock
    assert stream == pytest.approx(S0_STREAM_MBPS, rel=0.001)           # the preset is S0's build
    thr = recs[(8192, 1024, 1)].samples["throughput_mbps"]
    assert np.median(thr) >= 0.95 * S0_STREAM_MBPS
    assert max(thr) <= stream * 1.0001                                  # no faster than one beat per clock


@pytest.mark.parametrize("bpb, low, high", [(4096, 0.95, 1.05), (8192, 0.95, 1.05), (32, 0.0, 0.5)])
def test_sg_against_simple_mode(sweep, bpb, low, high):
    """S0: SG matches simple mode once BD buffers exceed 2^12 bytes; far below it at 32 B per BD."""
    recs, simple = sweep
    sg = np.median(recs[(bpb, 1024, 1)].samples["throughput_mbps"])
    sm = np.median(simple[bpb].samples["throughput_mbps"])
    assert low <= sg / sm < high, (sg, sm)


def test_spread_shrinks_with_ring_size(sweep):
    """S0: variability is largest for 4 BDs and shrinks as the transfer grows (4 > 16 > 1024 BDs)."""
    recs, _ = sweep

    def spread(r):
        t = np.asarray(r.samples["throughput_mbps"])
        return (t.max() - t.min()) / np.median(t)

    for bpb in (1 << b for b in range(5, 14)):
        assert spread(recs[(bpb, 4, 1)]) > spread(recs[(bpb, 16, 1)]) > spread(recs[(bpb, 1024, 1)]), bpb


def test_cycles_equal_larger_rings(sweep):
    """S0: cycling N times through a k-BD ring is about a ring of N*k BDs."""
    recs, _ = sweep
    pairs = [(r, recs[(k[0], k[1] * k[2], 1)]) for k, r in recs.items() if k[2] > 1 and (k[0], k[1] * k[2], 1) in recs]
    assert len(pairs) >= 10
    for cyc, ring in pairs:
        a, b = np.median(cyc.samples["throughput_mbps"]), np.median(ring.samples["throughput_mbps"])
        assert abs(a / b - 1) <= 0.03, (cyc.bytes_per_bd, cyc.bds, cyc.cycles, a, b)


def _pg021_clocks():
    b = sgdma.VirtualBoard("pg021", seed=0)
    clk_ps = 1e6 / b.axi_dma.clock_mhz
    dma = AxiDma(b)
    dma.reset()
    ring = dma.mm2s.ring(1)
    ring.add_packets([b.allocate(64)])
    ring.submit()
    ring.wait()
    p = b.probe("mm2s")
    mm2s = {"tail->sg_ar": (p["t_sg_ar"] - p["t_kick"]) / clk_ps,
            "sg_ar->data_ar": (p["t_data_ar"] - p["t_sg_ar"]) / clk_ps,
            "data_ar->tvalid": (p["t_first_beat"] - p["t_data_ar"]) / clk_ps}
    rx = dma.s2mm.ring(1)
    rx.fill([b.allocate(64).physical_address], [64])
    b.s2mm_source.send(bytes(64))
    rx.submit()
    rx.wait()
    p = b.probe("s2mm")
    s2mm = {"tail->sg_ar": (p["t_sg_ar"] - p["t_kick"]) / clk_ps, "tvalid->aw": (p["t_data_ar"] - p["t_first_beat"]) / clk_ps}
    return mm2s, s2mm


def test_pg021_internal_latencies_exact():
    mm2s, s2mm = _pg021_clocks()
    for name, clocks in PG021_MM2S_CLOCKS.items():
        assert mm2s[name] == pytest.approx(clocks, abs=0.5), name
    for name, clocks in PG021_S2MM_CLOCKS.items():
        assert s2mm[name] == pytest.approx(clocks, abs=0.5), name


def test_refresh_period_and_stall():
    """Refresh windows are tREFI apart, and a DMA kicked into one waits about S0's ~210 ns longer."""
    b = sgdma.VirtualBoard("zcu111", seed=3, timing_only=True)
    t0 = b._b.next_refresh(b.now_ps)
    starts = [t0]
    for _ in range(5):
        starts.append(b._b.next_refresh(starts[-1] + 1))
    periods = np.diff(starts) / 1e3
    assert np.allclose(periods, TREFI_NS, rtol=0.02), periods
    dma = AxiDma(b)
    dma.reset()
    ring = dma.mm2s.ring(2)
    buf = b.allocate(64)
    rng = np.random.default_rng(0)
    lats = []
    for _ in range(300):
        b.advance(float(rng.uniform(0, 3000)))
        ring.fill([buf.physical_address], [32])
        ring.submit()
        b.run_until_quiet()
        p = b.probe("mm2s")
        lats.append((p["t_first_beat"] - p["t_kick"]) / 1e3)
        ring.reclaim()
    stall = max(lats) - min(lats)
    assert 0.5 * S0_STALL_NS <= stall <= 2 * S0_STALL_NS, stall


def test_validate_reports_what_the_model_does():
    """validate's PG021 rows carry the values measured above (its report, not its verdict, is checked)."""
    mm2s, s2mm = _pg021_clocks()
    rows = {c.figure: c.model for c in validate.pg021_checks()}
    assert rows["PG021 MM2S tail write -> SG AR valid"] == pytest.approx(mm2s["tail->sg_ar"])
    assert rows["PG021 MM2S SG AR valid -> MM2S AR valid"] == pytest.approx(mm2s["sg_ar->data_ar"])
    assert rows["PG021 MM2S AR valid -> TVALID"] == pytest.approx(mm2s["data_ar->tvalid"])
    assert rows["PG021 S2MM TVALID -> AW valid"] == pytest.approx(s2mm["tvalid->aw"])


def test_same_seed_same_numbers_however_the_sweep_is_split():
    pts = [ch.Point(256, 16), ch.Point(8192, 4, 8)]
    one = [r.as_dict(samples=True) for r in ch.sweep(ch.Setup(trials=10, seed=5), pts, 1)]
    two = [r.as_dict(samples=True) for r in ch.sweep(ch.Setup(trials=10, seed=5), pts, 2)]
    for r in one + two:
        r.pop("wall_s")
        r.pop("cpu_s")
    assert one == two
