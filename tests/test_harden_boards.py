"""One validation layer for both boards: VirtualBoard and LinuxBoard refuse exactly the same values with the same
exception types (over-wide values, negative or zero sizes, floats, impossible widths, use after close()); RtioPort
is single-threaded like every other device."""
from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sgdma
from sgdma.board.checks import BoardClosed
from sgdma.board.threads import ConcurrentUseError
from test_linux_backend import PHYS, fake, open_board  # noqa: F401 - the fake root fixture, shared

@pytest.fixture
def boards(fake):
    """A virtual board and a LinuxBoard over test_linux_backend's fake root (served by another virtual board)."""
    lb = open_board(fake)
    lb._fake = fake
    return sgdma.VirtualBoard("zcu111"), lb


BAD_CALLS = [
    ("write32 value over 32 bits", lambda b: b.write32(b.axi_dma.base, 1 << 32)),
    ("write32 negative value", lambda b: b.write32(b.axi_dma.base, -1)),
    ("write32 float value", lambda b: b.write32(b.axi_dma.base, 1.0)),
    ("read32 address over 64 bits", lambda b: b.read32(1 << 64)),
    ("read32 negative address", lambda b: b.read32(-4)),
    ("read32 float address", lambda b: b.read32(float(b.axi_dma.base))),
    ("allocate negative", lambda b: b.allocate(-1)),
    ("allocate float shape", lambda b: b.allocate(4.0)),
    ("allocate empty dtype", lambda b: b.allocate(4, dtype=np.dtype([]))),
    ("allocate align 3", lambda b: b.allocate(64, align=3)),
    ("allocate align 0", lambda b: b.allocate(64, align=0)),
    ("allocate too big", lambda b: b.allocate(1 << 62)),
    ("view zero bytes", lambda b: b.view(PHYS, 0)),
    ("view negative", lambda b: b.view(PHYS, -1)),
    ("mmio zero length", lambda b: b.mmio(b.axi_dma.base, 0)),
    ("mmio past 2^64", lambda b: b.mmio((1 << 64) - 4, 8)),
    ("mmio write float", lambda b: b.mmio(b.axi_dma.base).write(0, 1.5)),
    ("mmio write 2^32", lambda b: b.mmio(b.axi_dma.base).write(0, 1 << 32)),
    ("mmio float offset", lambda b: b.mmio(b.axi_dma.base).read(4.0)),
]


def _outcome(call, board):
    try:
        call(board)
    except Exception as e:                           # noqa: BLE001 - the type is what is compared
        return type(e).__mro__[1] if type(e).__name__ == "BusError" else type(e)
    return None


@pytest.mark.parametrize("name,call", BAD_CALLS, ids=[n for n, _ in BAD_CALLS])
def test_both_boards_refuse_alike(boards, name, call):
    vb, lb = boards
    a, b = _outcome(call, vb), _outcome(call, lb)
    assert a is not None and a in (ValueError, TypeError, MemoryError, IndexError), (name, a)
    assert a is b, (name, a, b)


def test_linux_board_refuses_impossible_widths(boards):
    vb, lb = boards
    for kw in ({"length_width": 27}, {"length_width": 7}, {"addr_width": 65}, {"data_width": 48},
               {"max_burst": 3}, {"addr_width": 1.5}):
        with pytest.raises((ValueError, TypeError), match="PG021|whole number"):
            sgdma.LinuxBoard(dma="axi_dma_0", buffers=None, registers=lb._fake, **kw)
        # the virtual board refuses the same builds (its preset check)
        key = next(iter(kw))
        if isinstance(kw[key], int):
            with pytest.raises(ValueError, match="PG021"):
                sgdma.VirtualBoard("zcu111", options={f"dma.{key}": kw[key]})


def test_use_after_close(boards):
    for b in boards:
        b.close()
        for call in (lambda: b.read32(b.axi_dma.base), lambda: b.write32(b.axi_dma.base, 0),
                     lambda: b.allocate(64), lambda: b.view(PHYS, 4), lambda: b.mmio(b.axi_dma.base)):
            with pytest.raises(BoardClosed):
                call()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(addr=st.one_of(st.integers(-(1 << 70), 1 << 70), st.floats(allow_nan=True)),
       value=st.one_of(st.integers(-(1 << 40), 1 << 40), st.floats(allow_nan=True)))
def test_write32_any_value_same_verdict(boards, addr, value):
    vb, lb = boards
    base = vb.axi_dma.base
    # only the DMA's own register window is compared (elsewhere the two buses legitimately differ)
    if isinstance(addr, int) and 0 <= addr < 1 << 64:
        addr = base + (addr % 0x30) // 4 * 4 + 0x100        # unused offsets past both channels' registers
    a, b = _outcome(lambda x: x.write32(addr, value), vb), _outcome(lambda x: x.write32(addr, value), lb)
    assert a is b, (addr, value, a, b)


def test_rtio_port_is_single_threaded():
    vb = sgdma.VirtualBoard("zc706")
    port = vb.rtio
    err = []

    def other():
        try:
            port.now()
        except ConcurrentUseError as e:
            err.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join(timeout=60)
    assert err and "RtioPort" in str(err[0])


def test_rtio_port_refuses_floats():
    port = sgdma.VirtualBoard("zc706").rtio
    with pytest.raises(TypeError, match="whole number"):
        port.at(1.5)
    with pytest.raises(ValueError):
        port.output(1 << 32, [1])


@pytest.mark.parametrize("call", [
    lambda: sgdma.VirtualBoard("zcu111").advance(float("nan")),
    lambda: sgdma.VirtualBoard("zcu111").advance(1e30),
    lambda: sgdma.VirtualBoard("zcu111").advance(-1),
    lambda: sgdma.VirtualBoard("zcu111").run_until_quiet(float("inf")),
    lambda: sgdma.VirtualBoard("zcu111", options={"cpu.mmio_read_ns": float("inf")}),
    lambda: sgdma.VirtualBoard("zcu111", options={"dma.clock_mhz": float("nan")}),
    lambda: sgdma.PcieDma(sgdma.VirtualBoard("zcu102")).channel(0, "s2c").run(64, 1, limit_ms=float("inf")),
    lambda: sgdma.PcieDma(sgdma.VirtualBoard("zcu102")).channel(0, "s2c").run(64, 1, poll_us=float("nan")),
    lambda: sgdma.PcieDma(sgdma.VirtualBoard("zcu102")).channel(0, "s2c").run(0, 1),
])
def test_time_and_option_values_the_clock_cannot_hold(call):
    with pytest.raises(ValueError):
        call()


def test_rtio_core_times():
    from sgdma import rtio

    core = rtio.Core(sgdma.VirtualBoard("zc706"))
    for bad in (float("nan"), float("inf"), 1e30):
        with pytest.raises(ValueError, match="RTIO timeline"):
            core.delay(bad)
    # a wait far ahead ends at the counter, without a timed read per mu (it used to spin for ever)
    target = core.get_rtio_counter_mu() + 10**9
    core.wait_until_mu(target)
    assert target <= core.get_rtio_counter_mu() < target + 10**6
    with pytest.raises(ValueError, match="picosecond clock"):
        core.wait_until_mu(1 << 62)
