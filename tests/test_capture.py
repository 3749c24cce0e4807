"""Continuous capture end to end: the counter pattern through ADC -> FIFO -> S2MM -> DDR -> the
transport APIs; loss accounting, the coherency checker, determinism and refused input."""
import numpy as np
import pytest

import sgdma
from sgdma.capture import (DROPPED_BEFORE, DROPPED_WITHIN, CaptureDriver, CaptureError, PlaybackDriver, open_rx,
                           open_tx, run_capture)
from sgdma.capture.session import CounterCheck

APIS = ("copy", "zerocopy")
MODES = ("continuous", "burst")


def _collect(board, api, rate, buffers=4, size=16 << 10, sb=4, laps=40, slow_ns=600_000, fifo=8192):
    """Drive the transport by hand (not run_capture): a consumer that looks every slow_ns."""
    rx = open_rx(board, size, buffers, cache="sync", api=api, sample_bytes=sb)
    board._b.adc_start(rate, sb, fifo, size)
    got, flags = [], []
    for _ in range(laps):
        board.advance(slow_ns)
        if api == "copy":
            data = rx.read(size, timeout_ns=0)
            if data.size:
                got.append(data.copy())
                flags.append(rx.last_flags)
        else:
            while True:
                v = rx.try_acquire()
                if v is None:
                    break
                with v:
                    got.append(np.array(v.data))
                    flags.append(v.flags)
    board._b.adc_stop()
    return rx, np.concatenate(got).view(f"<u{sb}").astype(np.int64), flags, board._b.adc_report()


@pytest.mark.parametrize("api", APIS)
def test_no_sample_lost_without_an_overflow_count(api):
    board = sgdma.VirtualBoard("zynq7000", seed=3)
    rx, values, flags, rep = _collect(board, api, 40e6)
    assert rep["produced"] == rep["delivered"] + rep["dropped"] + rep["level"]
    d = np.diff(values)
    assert (d >= 1).all(), "every delivered sample in order"
    lost_in_gaps = int((d[d > 1] - 1).sum()) + int(values[0])
    last = int(values[-1])
    dropped_inside = sum(min(first + n, last + 1) - first for _, _, first, n in rep["drops"] if first <= last)
    assert lost_in_gaps == dropped_inside > 0
    # the gaps are exactly the reported episodes, one by one
    starts = values[np.r_[0, np.flatnonzero(d > 1) + 1]]
    ends = np.r_[-1, values[np.flatnonzero(d > 1)]]
    gaps = [(int(e) + 1, int(s - e - 1)) for s, e in zip(starts, ends) if s - e > 1]
    drops = [(first, min(n, last + 1 - first)) for _, _, first, n in rep["drops"] if first <= last]
    assert gaps == drops
    assert any(f & (DROPPED_BEFORE | DROPPED_WITHIN) for f in flags)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("mode", MODES)
def test_run_capture_loss_accounting_end_to_end(api, mode):
    # a consumer slower than the ADC: continuous overflows; the accounting must still balance
    r = run_capture("zynq7000", 40e6, 4, 16 << 10, 8, api=api, cache="sync", mode=mode, consumer_rate=100e6,
                    seconds=0.02, seed=1)
    assert r["verified"], r["verify"]
    assert r["adc"]["produced"] == r["adc"]["delivered"] + r["adc"]["dropped"] + r["adc"]["level"]
    assert r["buffers_delivered"] > 0 and r["bytes_delivered"] == r["buffers_delivered"] * (16 << 10)
    if mode == "continuous":
        assert not r["sustained"] and r["overflows"] == r["adc"]["dropped"] > 0
        assert r["verify"]["gaps"] > 0 and r["verify"]["dropped_between"] <= r["overflows"]
        assert r["buffers_flagged"] > 0
        assert r["drops"] and all(t0 <= t1 for t0, t1, _, _ in r["drops"])
    else:
        # the pool (8 x 16 KiB) fills at the ADC's rate before the consumer touches it
        assert r["sustained"] and r["overflows"] == 0 and r["buffers_delivered"] == 8
        assert r["fill_mbps"] == pytest.approx(160.0, rel=0.05)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("cache", ("sync", "uncached", "writecombine", "coherent"))
def test_sustained_capture_delivers_everything_in_order(api, cache):
    r = run_capture("zynq7000", 10e6, 4, 32 << 10, 8, api=api, cache=cache, seconds=0.02, seed=0)
    assert r["sustained"] and r["overflows"] == 0 and r["verified"] and r["keeping_up"]
    assert r["verify"]["gaps"] == 0 and r["verify"]["samples"] == r["bytes_delivered"] // 4
    assert r["throughput_mbps"] == pytest.approx(40.0, rel=0.05)
    assert r.get("coherency_violations", 0) == 0


@pytest.mark.parametrize("sb", (1, 2, 3, 8))
def test_narrow_and_odd_sample_widths(sb):
    size = 3 * 8 * 256 if sb == 3 else 8 << 10
    r = run_capture("zynq7000", 80e6 / sb, sb, size, 4, api="copy", cache="sync", consumer_rate=60e6,
                    seconds=0.01, seed=2)
    assert not r["sustained"] and r["verified"], r["verify"]


def test_counter_check_catches_reordering_and_silent_loss():
    c = CounterCheck(4)
    c.feed(np.arange(0, 100, dtype="<u4").view(np.uint8))
    c.feed(np.arange(150, 200, dtype="<u4").view(np.uint8))      # 50 lost
    assert c.reconcile([(0, 0, 100, 50)])["ok"]
    assert not c.reconcile([])["ok"]                               # lost without a drop report
    assert not c.reconcile([(0, 0, 100, 49)])["ok"]                # the count differs
    c2 = CounterCheck(4)
    c2.feed(np.array([0, 1, 3, 2, 4], "<u4").view(np.uint8))       # out of order
    assert not c2.reconcile([(0, 0, 2, 1)])["ok"]


# -- the coherency checker ---------------------------------------------------------------------------
@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("speculative", (False, True))
def test_checker_silent_on_correct_code(api, mode, speculative):
    board = sgdma.VirtualBoard("zynq7000", seed=0)
    board.coherency.speculative = speculative
    r = run_capture(board, 20e6, 4, 16 << 10, 4, api=api, cache="sync", mode=mode, seconds=0.01)
    assert r["buffers_delivered"] >= 4
    assert board.coherency.dma_checks > 0          # it was watching
    board.coherency.check()


@pytest.mark.parametrize("api", APIS)
def test_checker_catches_a_missing_invalidate(api, monkeypatch):
    monkeypatch.setattr(CaptureDriver, "invalidate", lambda self, slot: None)
    board = sgdma.VirtualBoard("zynq7000", seed=0)
    run_capture(board, 20e6, 4, 16 << 10, 4, api=api, cache="sync", seconds=0.01)
    v = board.coherency.violations()
    assert v and v[0].kind == "STALE_READ"
    assert v[0].buffer == "rx[0]" and v[0].offset == 0        # the first buffer read on the second lap
    assert "invalidate" in v[0].missing_call
    with pytest.raises(AssertionError, match="STALE_READ in rx"):
        board.coherency.check()


def test_checker_ignores_uncached_and_coherent_buffers(monkeypatch):
    monkeypatch.setattr(CaptureDriver, "invalidate", lambda self, slot: None)
    for cache, port in (("uncached", None), ("writecombine", None), ("coherent", "acp")):
        board = sgdma.VirtualBoard("zynq7000", port=port)
        run_capture(board, 20e6, 4, 16 << 10, 4, api="zerocopy", cache=cache, seconds=0.01)
        assert board.coherency.count == 0


@pytest.mark.parametrize("api", APIS)
def test_checker_catches_a_missing_clean_on_playback(api, monkeypatch):
    monkeypatch.setattr(PlaybackDriver, "clean", lambda self, index, nbytes: None)
    board = sgdma.VirtualBoard("zynq7000")
    tx = open_tx(board, 4096, 4, cache="sync", api=api)
    data = np.arange(3 * 4096, dtype=np.uint32).view(np.uint8)[:3 * 4096]
    if api == "copy":
        tx.write(data)
    else:
        with tx.acquire() as buf:
            buf.data[:] = data[:4096]
    tx.drain()
    v = board.coherency.violations()
    assert v and v[0].kind == "UNCLEANED_READ" and v[0].buffer == "tx[0]" and v[0].offset == 0
    assert "flush" in v[0].missing_call


# -- determinism ---------------------------------------------------------------------------------------
def _strip(r):
    return {k: v for k, v in r.items() if k != "wall_s"}


@pytest.mark.parametrize("api", APIS)
def test_deterministic_for_a_seed(api):
    kw = dict(api=api, cache="sync", consumer_rate=170e6, seconds=0.01)
    a = run_capture("zynq7000", 40e6, 4, 16 << 10, 8, seed=7, **kw)
    b = run_capture("zynq7000", 40e6, 4, 16 << 10, 8, seed=7, **kw)
    c = run_capture("zynq7000", 40e6, 4, 16 << 10, 8, seed=8, **kw)
    assert _strip(a) == _strip(b)
    assert a["latency_us"] != c["latency_us"]        # the wake-up jitter is the seed's


def test_find_max_rate_is_deterministic():
    from sgdma.capture import find_max_rate

    kw = dict(sample_bytes=4, buffer_bytes=8 << 10, buffers=8, api="copy", cache="sync", seed=3, rel_tol=0.05)
    a, b = find_max_rate("zynq7000", **kw), find_max_rate("zynq7000", **kw)
    assert a["max_rate_sps"] == b["max_rate_sps"] and a["runs"] == [dict(r) for r in b["runs"]]


# -- refused up front ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, match", [
    (dict(buffer_bytes=16 << 10, sample_bytes=3), r"not a multiple of the sample size \(3 B\)"),
    (dict(buffer_bytes=4 * 1001, sample_bytes=4), r"not a multiple of the zynq7000 S2MM stream width \(8 B = 64 bits\)"),
    (dict(buffers=20000, buffer_bytes=64 << 10), r"do not fit the zynq7000 buffer region \(256 MiB\): at most 4096"),
    (dict(buffers=70000, buffer_bytes=64), r"BD region \(4 MiB\) holds at most 65536"),
    (dict(buffer_bytes=16 << 20), r"exceeds one BD .* at most 8388607 B"),
    (dict(rate=0), r"rate=0 samples/s: the ADC needs a positive"),
    (dict(rate=-1e6), r"positive, finite"),
    (dict(rate=float("nan")), r"positive, finite"),
    (dict(rate=400e6), r"exceeds the zynq7000 S2MM stream: 8 B x 150 MHz = 1200 MB/s; at most 3e\+08"),
    (dict(buffers=0), r"at least one buffer"),
    (dict(api="mmap"), r"api 'mmap': choose copy or zerocopy"),
    (dict(cache="writeback"), r"cache policy 'writeback'"),
    (dict(mode="oneshot"), r"mode 'oneshot'"),
    (dict(sample_bytes=16), r"1 to 8 bytes"),
    (dict(fifo_bytes=4), r"at least two samples"),
    (dict(consumer_rate=0), r"consumer_rate=0"),
    # one buffer's processing outlasting the run: the stream ran on unread, 1.5 min of host time per 10 B/s
    (dict(consumer_rate=10, seconds=1e-3), r"consumer_rate=10 B/s: processing one 131072-byte buffer takes "
                                           r"1.31e\+04 s, longer than the whole run \(0.001 s\); use a consumer "
                                           r"rate of at least 1.31e\+08 B/s"),
    # the default run: four laps of the ring, 4 x 16 x 128 KiB at 160 MB/s
    (dict(consumer_rate=1e3), r"consumer_rate=1000 B/s: .* longer than the whole run \(0.0524288 s\)"),
    (dict(seconds=0), r"seconds=0"),
])
def test_bad_input_refused_up_front(kwargs, match):
    board = sgdma.VirtualBoard("zynq7000")
    args = dict(rate=40e6, sample_bytes=4, buffer_bytes=128 << 10, buffers=16)
    args.update(kwargs)
    with pytest.raises(CaptureError, match=match):
        run_capture(board, **args)
    assert board.now_ps == 0 and not board._b.adc_report()["active"]     # nothing ran
    assert board.bytes_free() == board._alloc[board.default_region].size  # nothing allocated


def test_coherent_needs_a_coherent_port():
    with pytest.raises(CaptureError, match="zcu111.*no coherent port"):
        run_capture("zcu111", 10e6, 4, 16 << 10, 4, cache="coherent")
    with pytest.raises(CaptureError, match=r"port='acp'"):
        run_capture(sgdma.VirtualBoard("zynq7000"), 10e6, 4, 16 << 10, 4, cache="coherent")
    with pytest.raises(CaptureError, match="no CPU"):
        run_capture("pg021", 10e6, 4, 16 << 10, 4)


def test_release_out_of_order_rearms_in_ring_order():
    board = sgdma.VirtualBoard("zynq7000")
    rx = open_rx(board, 8 << 10, 4, api="zerocopy", sample_bytes=4)
    board._b.adc_start(10e6, 4, 8192, 8 << 10)
    rx.driver.set_source(board.now_ps, 10e6)
    a, b = rx.acquire(timeout_ns=5e6), rx.acquire(timeout_ns=5e6)
    assert (a.index, b.index) == (0, 1)
    b.release()
    assert rx.driver.armed == 2                   # buffer 1 waits for buffer 0
    a.release()
    assert rx.driver.armed == 4
    seen = []
    for _ in range(8):
        with rx.acquire(timeout_ns=5e6) as v:
            seen.append(int(v.data.view("<u4")[0]))
    assert seen == [2048 * k for k in range(2, 10)]
    with pytest.raises(CaptureError, match="released twice"):
        v.release()
    with pytest.raises(CaptureError, match="already released"):
        v.data


def test_holding_every_buffer_is_reported_not_hung():
    board = sgdma.VirtualBoard("zynq7000")
    rx = open_rx(board, 8 << 10, 2, api="zerocopy", sample_bytes=4)
    board._b.adc_start(10e6, 4, 8192, 8 << 10)
    held = [rx.acquire(timeout_ns=5e6) for _ in range(2)]
    with pytest.raises(CaptureError, match="held by the reader"):
        rx.acquire()
    assert len(held) == 2


def test_consumer_slower_than_one_buffer_per_run_is_refused_by_the_cli():
    """Found by the CLI fuzz: a 1 ms capture with --consumer-rate 1 simulated 36 hours of overflow (minutes of
    host time); now exit 2 naming the option, the rule and the rate that fits."""
    import re

    from click.testing import CliRunner

    from sgdma.cli import main
    r = CliRunner().invoke(main, ["capture", "--seconds", "1ms", "--buffers", "2", "--consumer-rate", "1"])
    assert r.exit_code == 2, r.output
    # the option by its API name or, where the CLI renames it in messages, by its flag
    assert re.search(r"(consumer_rate=|--consumer-rate )1 B/s", r.output), r.output
    assert "longer than the whole run (0.001 s)" in r.output, r.output
    assert "at least 1.31e+08 B/s" in r.output and "Traceback" not in r.output
