"""Every integer crossing the binding is range-checked: a value the C field cannot hold is a ValueError (or a
TypeError for a non-integer) naming the field, never masked, wrapped or cast, and never a crash.  Run under the
sanitizer build (scripts/sanitize.sh) a wrap that does not crash still fails."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgdma import _core
from sgdma.board.virtual import VirtualBoard

BIG = [-1, 1 << 32, 1 << 63, 1 << 64, -(1 << 64), 10**40]


@pytest.fixture(scope="module")
def rtio_board():
    return VirtualBoard("zc706")


@pytest.fixture(scope="module")
def pcie_board():
    return VirtualBoard("zcu102")


def _rtio_calls(b):
    """(name, call with one bad integer x) for each RTIO entry point: fields of 32 bits, timestamps, limits."""
    return [
        ("output target", lambda x: _core.rtio_output(b, x, [1])),
        ("output word", lambda x: _core.rtio_output(b, 0, [x])),
        ("at", lambda x: _core.rtio_at(b, x)),
        ("delay", lambda x: _core.rtio_delay(b, x)),
        ("pulses target", lambda x: _core.rtio_pulses(b, x, 1, 10)),
        ("pulses half", lambda x: _core.rtio_pulses(b, 0, 2, x)),
        ("pulses n", lambda x: _core.rtio_pulses(b, 0, x, 1 << 40)),
        ("input channel", lambda x: _core.rtio_input(b, x, 0, False, 1000)),
        ("input limit", lambda x: _core.rtio_input(b, 0, 0, False, x)),
        ("drain limit", lambda x: _core.rtio_drain(b, x)),
        ("playback limit", lambda x: _core.rtio_playback(b, 0, x)),
        ("loopback out", lambda x: _core.rtio_loopback(b, x, -1)),
        ("analyzer base", lambda x: _core.rtio_analyzer_arm(b, x, 64)),
        ("init initiator", lambda x: _core.rtio_init(b, x)),
    ]


# for each entry point, the integers its C field cannot hold (all must raise ValueError)
OUT_OF_FIELD = {
    "output target": [-1, 1 << 32, 1 << 64],
    "output word": [-1, 1 << 32, 1 << 64],
    "at": [1 << 63, -(1 << 63) - 1, (1 << 63) - 1],
    "delay": [1 << 63, (1 << 63) - 1],
    "pulses target": [-1, 1 << 32],
    "pulses half": [0, -1, 1 << 63],
    "pulses n": [-1, 1 << 64, 1 << 40],
    "input channel": [-1, 1 << 32],
    "input limit": [-1, 1 << 64, (1 << 64) - 1],
    "drain limit": [-1, 1 << 64, (1 << 64) - 1],
    "playback limit": [-1, 1 << 64, (1 << 64) - 1],
    "loopback out": [-1, 1 << 32],
    "analyzer base": [-64, 1 << 32, (1 << 64) - 64],
    "init initiator": [-1, 4, 1 << 32, 1 << 64],
}


def test_rtio_fields_refuse_out_of_range(rtio_board):
    b = rtio_board._b
    _core.rtio_init(b, 3)
    _core.rtio_at(b, 0)
    calls = dict(_rtio_calls(b))
    assert set(calls) == set(OUT_OF_FIELD)
    for name, bad in OUT_OF_FIELD.items():
        for x in bad:
            with pytest.raises(ValueError):
                calls[name](x)
        with pytest.raises(TypeError):
            calls[name](1.5)


def test_rtio_timestamp_ps_overflow_refused(rtio_board):
    b = rtio_board._b
    _core.rtio_init(b, 3)
    _core.rtio_at(b, 0)
    with pytest.raises(ValueError, match="picosecond clock"):
        _core.rtio_at(b, (1 << 63) - 1)
    _core.rtio_at(b, 1 << 40)
    with pytest.raises(ValueError, match="overflows|picosecond"):
        _core.rtio_delay(b, (1 << 63) - 1)
    with pytest.raises(ValueError, match="overflow"):
        _core.rtio_pulses(b, 0, 1 << 62, 1 << 20)
    with pytest.raises(ValueError, match="64-bit picosecond clock"):
        _core.rtio_drain(b, (1 << 64) - 1)
    _core.rtio_at(b, 0)


def test_analyzer_ring_wrap_refused(rtio_board):
    with pytest.raises(ValueError, match="below 4 GiB"):
        _core.rtio_analyzer_arm(rtio_board._b, (1 << 64) - 64, 64)


def test_pcie_run_fields_checked(pcie_board):
    b = pcie_board._b
    base = dict(board=b, side=0, chan=0, dir=0, packet=64, count=1, queue=0, nelem=8, host=0, host_bytes=64,
                card=0, card_bytes=64)
    for field, bad in [("packet", 0), ("packet", 1 << 32), ("side", 2), ("chan", 4), ("dir", 2), ("nelem", 1),
                       ("nelem", 1 << 17), ("count", -1), ("host", 1 << 64), ("coalesce", 1 << 32)]:
        with pytest.raises(ValueError, match="pcie_run|outside|32 bits"):
            _core.pcie_run(**{**base, field: bad})
    with pytest.raises(ValueError, match="picosecond clock"):
        _core.pcie_run(**base, poll_ps=1000, limit_ps=(1 << 64) - 1)
    with pytest.raises(ValueError):
        _core.pcie_queue_bytes(1 << 40)
    with pytest.raises(ValueError):
        _core.pcie_ep_read(b, 1 << 64, 1)


def test_adc_rate_whose_chunk_passes_the_clock_is_refused():
    vb = VirtualBoard("zynq7000")
    for rate in (float("inf"), float("nan"), 0.0, -1.0, 2e12):
        with pytest.raises(ValueError, match="ADC"):
            vb._b.adc_start(rate, 4, 4096, 0)
    with pytest.raises(ValueError, match="picosecond clock"):
        vb._b.adc_start(1e-9, 4, 1 << 20, 0)       # one chunk of 2^17 samples at 1e-9/s: ~1e26 ps
    vb._b.adc_start(1e6, 4, 4096, 0)                 # an ordinary rate is taken
    vb._b.adc_stop()


def test_board_converters():
    vb = VirtualBoard("zcu111")
    for bad in BIG:
        with pytest.raises((ValueError, OverflowError)):
            vb._b.write32(0, bad if bad >= 1 << 32 or bad < 0 else 1 << 32)
    with pytest.raises(TypeError):
        vb._b.read32(1.0)
    with pytest.raises(ValueError):
        vb._b.coh_register(0, 64, 1 << 40)
    with pytest.raises(KeyError):
        vb._b.coh_unregister(12345)
    with pytest.raises(ValueError):
        vb._b.coh_unregister(1 << 70)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(x=st.one_of(st.integers(min_value=-(1 << 70), max_value=1 << 70),
                   st.sampled_from([0, -1, (1 << 32) - 1, 1 << 32, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 64])),
       which=st.integers(min_value=0, max_value=13))
def test_rtio_entry_points_never_wrap(rtio_board, x, which):
    """Any integer into any RTIO entry point: accepted only inside the field, else a ValueError."""
    b = rtio_board._b
    _core.rtio_init(b, 3)
    _core.rtio_at(b, 0)
    name, call = _rtio_calls(b)[which]
    try:
        call(x)
    except ValueError:
        return
    if name in ("output target", "output word", "pulses target", "input channel", "loopback out"):
        assert 0 <= x < 1 << 32 or (name == "loopback out" and x >= -(1 << 31))
    if name in ("input limit", "drain limit", "playback limit"):
        assert 0 <= x < 1 << 64


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(packet=st.integers(min_value=-(1 << 40), max_value=1 << 40), nelem=st.integers(-4, 1 << 17),
       chan=st.integers(-2, 6))
def test_pcie_run_any_geometry(pcie_board, packet, nelem, chan):
    """Any packet/queue geometry: a result or a ValueError, never a crash (packet 0 once divided by zero)."""
    b = pcie_board._b
    try:
        r = _core.pcie_run(b, 0, chan, 0, packet, 1, 0x10000000, nelem, 0x20000000, 4096, 0, 4096,
                           poll_ps=10**6, limit_ps=10**9)
    except ValueError:
        assert not (1 <= packet < 1 << 32 and 2 <= nelem <= 65536 and 0 <= chan < 4)
        return
    assert isinstance(r["rc"], int)


def test_rtio_stimulus_times_checked(rtio_board):
    with pytest.raises(ValueError, match="stimulus"):
        _core.rtio_stimulus(rtio_board._b, 0, np.array([1, (1 << 63) - 1], np.int64).tobytes(), b"\x01\x00")


@pytest.mark.parametrize("key", ["dma.include_sg", "dma.has_dre", "stream.loopback", "stream.sink_record"])
def test_yes_no_board_options_refuse_other_values(key):
    """A yes/no build option given 2 was taken as 'yes' (bsp --set dma.include_sg=2 wrote it into xparameters.h)."""
    with pytest.raises(ValueError, match=rf"{key} = 2: a yes/no option takes 0 or 1"):
        VirtualBoard("pg021", options={key: 2})
