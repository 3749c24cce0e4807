"""Bad and edge input found by probing the host path, the DDR controller's CPU port and capture's
search (each test failed before its fix)."""
import math

import pytest

from sgdma.board import VirtualBoard
from sgdma.capture import find_max_rate
from sgdma.models.cpu import CostFileError, check_costs, load_cost_file


def _ddr_end(b):
    return max(base + size for _, base, size in b.regions)


def test_cpu_op_outside_every_memory_region_is_refused():
    b = VirtualBoard("pynq-z2")
    end = _ddr_end(b)
    for addr in (end, 2**63, end - 64):
        with pytest.raises(ValueError, match="memory regions"):
            b.cpu_op("read", addr, 4096, ns_per_line=1.0)
    _, base, _ = b.regions[0]
    with pytest.raises(ValueError, match="destination"):
        b.cpu_op("copy", base, 4096, dst=end, ns_per_line=1.0)
    assert b.now_ps == 0                       # nothing ran
    b.cpu_op("read", base, 4096, ns_per_line=1.0)   # inside: runs
    assert b.now_ps > 0


@pytest.mark.parametrize("kw", [dict(ns_per_line=math.inf), dict(ns_per_line=1e300), dict(fixed_ns=1e300),
                                dict(ns_per_word=1e300)])
def test_cpu_op_times_that_overflow_the_clock_are_refused(kw):
    b = VirtualBoard("pynq-z2")
    _, base, _ = b.regions[0]
    kind = "uncached_read" if "ns_per_word" in kw else "read"
    with pytest.raises(ValueError, match="at most"):
        b.cpu_op(kind, base, 4096, **kw)
    assert b.now_ps == 0


def test_cpu_op_word_bytes_is_not_truncated():
    b = VirtualBoard("pynq-z2")
    _, base, _ = b.regions[0]
    with pytest.raises(ValueError, match="32 bits"):
        b.cpu_op("uncached_read", base, 64, ns_per_word=1.0, word_bytes=2**32 + 4)


@pytest.mark.parametrize("item,value", [("syscall_ns", 1e15), ("wakeup_ns", 1e300),
                                        ("file_write_mbps", 1e-300), ("memcpy_cached_mbps", 1e12)])
def test_cost_items_out_of_physical_range_are_refused(item, value):
    with pytest.raises(CostFileError, match=item):
        check_costs({item: value}, "cpu_costs")


def test_cost_file_not_utf8_names_the_file(tmp_path):
    p = tmp_path / "c.toml"
    p.write_bytes(b"\xff\xfesyscall_ns = 1")
    with pytest.raises(CostFileError, match="--cpu-costs .*UTF-8"):
        load_cost_file(p)


def test_find_max_rate_with_short_trials_finds_a_rate():
    # 1 ms per trial: at low rates no buffer completes, the reader sleeps to the deadline, which is
    # keeping up (it waits for data); before the fix the search walked down to 1 sample/s and failed
    r = find_max_rate("pynq-z2", seconds=1e-3)
    top = find_max_rate("pynq-z2")
    assert r["max_rate_sps"] > 0.25 * top["max_rate_sps"]
