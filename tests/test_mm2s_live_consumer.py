"""MM2S paced by a live consumer (the mode DmaStreamSource needs): the beats leave when taken.

Independent expectations: a consumer ready on every clock equals the model's own unpaced stream
beat for beat; one ready one clock in m takes the 64 KiB transfer's beats exactly m clocks apart
(once the FIFO holds data, the DMA is faster than the consumer), which the model's own fluid
consumer at consumer_rate = 1/m reproduces within m clocks (it times a burst by its ends)."""
import numpy as np
import pytest

import sgdma

N = 64 << 10


def board(**kw):
    b = sgdma.VirtualBoard("zcu111", seed=1, include_sg=False, **kw)
    d = sgdma.AxiDma(b)
    d.reset()
    buf = b.allocate(N, np.uint8)
    buf[:] = np.arange(N) % 251
    return b, d, buf


def model_run(m):
    b, d, buf = board(consumer_rate=1 / m, consumer_fifo_beats=1)
    d.mm2s.transfer(buf)
    assert d.mm2s.wait() == N
    (t,) = b.mm2s_sink.timing()
    return t["first_ns"], t["last_ns"]


def live_run(m):
    """TREADY high on the clock edges whose index is a multiple of m."""
    b, d, buf = board()
    b.mm2s_live()
    per = 1e6 / b.option("dma.clock_mhz")
    d.mm2s.transfer(buf)
    times = []
    for _ in range(100_000):                    # bounded: 2048 beats and the wait for the first
        off = b.mm2s_offer_ps()
        if off is None:
            b.advance(per / 1000)
            continue
        k = round(off / per)
        t = off if k % m == 0 else round((k + m - k % m) * per)
        times.append(t)
        if b.mm2s_accept(t):
            break
    assert d.mm2s.wait() == N
    assert b.mm2s_sink.packets() == [bytes(buf)]
    (rec,) = b.mm2s_sink.timing()
    assert (rec["first_ns"], rec["last_ns"]) == (times[0] / 1000, times[-1] / 1000)
    return np.array(times), per, N // (b.axi_dma.data_width // 8)


def test_always_ready_consumer_is_the_models_own_stream():
    t, _, _ = live_run(1)
    assert (t[0] / 1000, t[-1] / 1000) == pytest.approx(model_run(1), abs=1e-9)


@pytest.mark.parametrize("m", [2, 3, 7])
def test_tready_duty_cycle_lowers_throughput_as_the_models_consumer(m):
    t, per, beats = live_run(m)
    assert len(t) == beats
    assert np.allclose(np.diff(t), m * per, atol=1.5)        # one beat every m clocks
    first, last = model_run(m)
    assert abs((t[-1] - t[0]) / 1000 - (last - first)) <= m * per / 1000 + 1e-6


def test_accept_before_the_offer_is_refused():
    b, d, buf = board()
    b.mm2s_live()
    with pytest.raises(ValueError, match="no beat is offered"):
        b.mm2s_accept(b.now_ps + 1000)
    d.mm2s.transfer(buf)
    with pytest.raises(RuntimeError, match="BDs queued"):
        b.mm2s_live(False)
