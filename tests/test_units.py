"""sgdma.hw.units: the one grammar of sizes, times and rates, used by every command."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from sgdma.hw import units


@pytest.mark.parametrize("text, value", [
    ("4096", 4096), ("4K", 4096), ("4kb", 4096), ("4KiB", 4096), ("1M", 1 << 20), ("1MiB", 1 << 20),
    ("2GiB", 2 << 30), ("2^12", 4096), ("64 B", 64), ("1.5KiB", 1536), (8192, 8192), (64.0, 64),
])
def test_sizes(text, value):
    assert units.parse_size(text) == value


@pytest.mark.parametrize("bad", ["", "abc", "4X", "1.3", "2^x", "-4K", True, 1.5, "4 KB B"])
def test_bad_sizes_name_the_grammar(bad):
    with pytest.raises(units.UnitError, match="size|bytes"):
        units.parse_size(bad)


def test_size_lists():
    assert units.parse_sizes("2^5..2^7") == [32, 64, 128]
    assert units.parse_sizes("32..128,4K") == [32, 64, 128, 4096]
    assert units.parse_sizes(["1KiB", 64]) == [1024, 64]
    for bad in ("", "100..200", "128..64", ","):
        with pytest.raises(units.UnitError):
            units.parse_sizes(bad)


@pytest.mark.parametrize("text, ns", [
    ("250ps", 0.25), ("2ns", 2.0), ("1.5 us", 1500.0), ("3µs", 3000.0), ("2ms", 2e6), ("1s", 1e9),
    ("1e-6", 1000.0), (2e-9, 2.0),
])
def test_times(text, ns):
    assert units.parse_time_ns(text) == pytest.approx(ns)


@pytest.mark.parametrize("text, hz", [
    ("40e6", 40e6), ("40M", 40e6), ("2.5 MS/s", 2.5e6), ("250MHz", 250e6), ("1.2 GHz", 1.2e9), ("100 Hz", 100.0),
    ("5k", 5e3), ("10 ksps", 1e4), (40e6, 40e6),
])
def test_rates(text, hz):
    assert units.parse_rate(text) == pytest.approx(hz)


@pytest.mark.parametrize("bad", ["fast", "1 parsec", "2 Mbps", "1e999"])
def test_bad_times_and_rates(bad):
    with pytest.raises(units.UnitError):
        units.parse_time_ns(bad)
    with pytest.raises(units.UnitError):
        units.parse_rate(bad)


@given(st.integers(1, 1 << 40), st.sampled_from([("", 1), ("K", 1 << 10), ("KiB", 1 << 10), ("MiB", 1 << 20),
                                                 ("G", 1 << 30)]))
def test_size_round_trip(n, unit):
    suffix, scale = unit
    if n * scale > units.SIZE_MAX_BYTES:          # beyond any preset's address space: refused, named
        with pytest.raises(units.UnitError, match="largest size"):
            units.parse_size(f"{n}{suffix}")
    else:
        assert units.parse_size(f"{n}{suffix}") == n * scale


def test_commands_share_the_parser():
    from sgdma.cli import capture, common
    from sgdma.experiments import characterize
    assert characterize.parse_size("2^12") == capture.parse_size("4KiB") == common._size("4K") == 4096
    assert characterize.parse_list("64..256") == capture.parse_sizes("64..256")
