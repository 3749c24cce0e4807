"""RTIO input channels from first principles [artiq-rtio.md sec. 1.2, 1.3]: a gate (sensitivity written at address 2
by an output event) lets the pin's edges of the chosen polarity into the channel's input FIFO, timestamped at the
edge; a full FIFO loses events and the next read raises RTIOOverflow; a read waits for an event or until the counter
reaches its bound (-1).  Pins are driven by a loopback from an output channel or by a host stimulus; expectations
are the edge times the test itself scheduled."""
import numpy as np
import pytest

import sgdma
from sgdma.rtio import Core, CoreDMA, RTIODestinationUnreachable, RTIOOverflow, TTLInOut, TTLOut
from sgdma.rtio.analyzer import MSG_EXCEPTION, MSG_INPUT, Analyzer, decode_dump
from sgdma.rtio.layout import CONST


def setup(loop=True):
    b = sgdma.VirtualBoard("zc706")
    core = Core(b, "csr")
    if loop:
        b.rtio.loopback(0, 1)      # output channel 0's level drives input pin 1
    core.break_realtime(100_000)
    return b, core, TTLOut(core, 0), TTLInOut(core, 1)


def pulses(core, out, t0, starts, width):
    for s in starts:
        core.at_mu(t0 + s)
        out.pulse_mu(width)


def test_gate_counts_only_edges_inside_it_with_their_timestamps():
    b, core, out, inp = setup()
    t0 = core.now_mu()
    core.at_mu(t0 + 1000)
    end = inp.gate_rising_mu(2000)                   # gate open over [t0+1000, t0+3000)
    assert end == t0 + 3000
    starts = [200, 1200, 1700, 2900, 3500, 4000]     # rising edges; 1200, 1700, 2900 fall inside the gate
    pulses(core, out, t0, starts, 50)
    inside = [t0 + s for s in starts if 1000 <= s < 3000]
    got = [inp.timestamp_mu(end) for _ in range(len(inside))]
    assert got == inside                             # timestamped at the edge, oldest first
    assert inp.timestamp_mu(end) == -1               # nothing more: the read timed out at the bound
    assert core.get_rtio_counter_mu() >= end


def test_polarity_of_the_gate():
    b, core, out, inp = setup()
    t0 = core.now_mu()
    starts, width = [100, 600, 1100], 80
    rising = lambda t0: [t0 + s for s in starts]               # noqa: E731
    falling = lambda t0: [t0 + s + width for s in starts]      # noqa: E731
    for gate, expect in ((inp.gate_rising_mu, rising), (inp.gate_falling_mu, falling),
                         (inp.gate_both_mu, lambda t0: sorted(rising(t0) + falling(t0)))):
        t0 = core.now_mu()
        end = gate(2000)
        pulses(core, out, t0, starts, width)
        want = expect(t0)
        assert [inp.timestamp_mu(end) for _ in range(len(want))] == want
        assert inp.timestamp_mu(end) == -1
        core.break_realtime(50_000)


def test_count_matches_the_pulses_in_the_window():
    b, core, out, inp = setup()
    t0 = core.now_mu()
    end = inp.gate_rising_mu(100_000)
    k = 37
    pulses(core, out, t0, [100 + 2000 * i for i in range(k)], 100)
    assert inp.count(end) == k
    st = b.rtio.input_counters()
    assert st["events"] == k and st["lost"] == 0 and st["timeouts"] == 1


def test_full_input_fifo_overflows_and_the_next_read_raises():
    b, core, out, inp = setup()
    depth = b.rtio.input_counters()["fifo_depth"]
    extra = 5
    t0 = core.now_mu()
    starts = [100 + 1000 * i for i in range(depth + extra)]
    end = inp.gate_rising_mu(starts[-1] + 1000)
    pulses(core, out, t0, starts, 50)
    core.wait_until_mu(end)                          # no read while the edges arrive
    with pytest.raises(RTIOOverflow, match="channel 1"):
        inp.timestamp_mu(end)
    # the FIFO kept the first `depth` events; the later ones were lost
    got = [inp.timestamp_mu(end) for _ in range(depth)]
    assert got == [t0 + s for s in starts[:depth]]
    assert inp.timestamp_mu(end) == -1
    st = b.rtio.input_counters()
    assert st["lost"] == extra and st["overflows"] == 1


def test_host_stimulus_and_sampling():
    b, core, _, inp = setup(loop=False)
    t0 = core.now_mu()
    edges = np.array([t0 + 300, t0 + 700, t0 + 900, t0 + 5000], np.int64)
    b.rtio.stimulus(1, edges, [1, 0, 1, 0])
    end = inp.gate_falling_mu(2000)
    assert inp.timestamp_mu(end) == t0 + 700         # the only falling edge in [t0, t0+2000)
    assert inp.timestamp_mu(end) == -1
    core.at_mu(t0 + 3000)
    inp.sample_input()                               # the pin is high between t0+900 and t0+5000
    assert inp.sample_get() == 1
    core.at_mu(t0 + 6000)
    inp.sample_input()
    assert inp.sample_get() == 0
    with pytest.raises(ValueError, match="strictly increasing"):
        b.rtio.stimulus(1, [t0 + 10_000, t0 + 10_000], [1, 0])
    with pytest.raises(ValueError, match="TTL channels"):
        b.rtio.stimulus(8, [t0 + 10_000], [1])


def test_reads_of_channels_without_input():
    b, core, _, _ = setup()
    t = core.now_mu() + 1000
    assert core.input(8, t) == -1                    # the wide output channel has no input FIFO: times out
    with pytest.raises(RTIODestinationUnreachable, match="channel 99"):
        core.input(99, t)


def test_dma_played_gates_and_pulses_and_the_analyzer_sees_the_reads():
    b, core, out, inp = setup()
    an = Analyzer(core, ring_bytes=64 * 1024)
    dma = CoreDMA(core)
    with dma.record("gated"):
        inp.gate_rising_mu(3000)
        core.delay_mu(-3000)
        for _ in range(10):
            core.delay_mu(100)
            out.pulse_mu(100)
    core.break_realtime(20_000)
    t0 = core.now_mu()
    dma.playback("gated")
    end = t0 + 3000
    got = [inp.timestamp_mu(end) for _ in range(10)]
    assert got == [t0 + 100 + 200 * i for i in range(10)]
    assert inp.timestamp_mu(end) == -1
    m = decode_dump(an.dump()).messages
    ins = m[m["type"] == MSG_INPUT]
    assert list(ins["timestamp"]) == got and set(ins["channel"]) == {1}
    assert not (m["type"] == MSG_EXCEPTION).any()


def test_overflow_reaches_the_analyzer_as_an_exception():
    b, core, out, inp = setup()
    an = Analyzer(core, ring_bytes=64 * 1024)
    depth = b.rtio.input_counters()["fifo_depth"]
    t0 = core.now_mu()
    end = inp.gate_rising_mu(100_000)
    pulses(core, out, t0, [100 + 1000 * i for i in range(depth + 1)], 50)
    core.wait_until_mu(end)
    with pytest.raises(RTIOOverflow):
        inp.count(end)
    m = decode_dump(an.dump()).messages
    exc = m[m["type"] == MSG_EXCEPTION]
    assert list(exc["exception"]) == [CONST["EXC_I_OVERFLOW"]] and list(exc["channel"]) == [1]
