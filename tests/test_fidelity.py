"""The timed model against the public figures (calibration.md): `sgdma validate` as tests."""
import pytest

from sgdma.experiments import validate


@pytest.fixture(scope="module")
def s0():
    return {c.figure: c for c in validate.s0_checks(trials=100, seed=0, jobs=2)}


def test_latency_band(s0):
    lo = s0["latency over the S0 sweep, minimum"]
    hi = s0["latency over the S0 sweep, maximum"]
    assert lo.ok and hi.ok, (lo, hi)
    assert lo.model < hi.model


def test_latency_independent_of_ring_size(s0):
    assert s0["median latency: spread across ring sizes"].ok


def test_large_bd_throughput_reaches_the_stream_rate(s0):
    assert s0["throughput at 8 KiB/BD, 1024 BDs"].ok


@pytest.mark.parametrize("name", ["SG / simple throughput at 4096 B/BD", "SG / simple throughput at 8192 B/BD",
                                  "SG / simple throughput at 32 B/BD"])
def test_sg_against_simple_mode(s0, name):
    assert s0[name].ok, s0[name]


def test_spread_shrinks_with_ring_size(s0):
    c = s0["throughput spread 4 > 16 > 1024 BDs (bytes/BD sizes where it holds)"]
    assert c.ok, c.note


def test_cycles_equal_larger_rings(s0):
    assert s0["N cycles of a k-BD ring vs one ring of N*k BDs (worst difference)"].ok


def test_pg021_internal_latencies_exact():
    for c in validate.pg021_checks():
        assert c.ok and c.model == pytest.approx(c.published, abs=0.5), c


def test_refresh_visible():
    period, stall = validate.refresh_checks(samples=300)
    assert period.ok, period
    assert stall.ok, stall


def test_same_seed_same_numbers_however_the_sweep_is_split():
    from sgdma.experiments import characterize as ch

    pts = [ch.Point(256, 16), ch.Point(8192, 4, 8)]
    one = [r.as_dict(samples=True) for r in ch.sweep(ch.Setup(trials=10, seed=5), pts, 1)]
    two = [r.as_dict(samples=True) for r in ch.sweep(ch.Setup(trials=10, seed=5), pts, 2)]
    for r in one + two:
        r.pop("wall_s")
        r.pop("cpu_s")
    assert one == two
