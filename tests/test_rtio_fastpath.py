"""The core's scheduling caches (earliest lane, engine next-event times, record length) change nothing: a long
playback run with them on gives bit-identical edges, counters, analyzer dump, playback result and board time to the
reference path that rescans every lane and engine at every step."""
import numpy as np
import pytest

import sgdma
from sgdma.rtio import Core, CoreDMA, RTIOUnderflow
from sgdma.rtio import trace as T
from sgdma.rtio.analyzer import Analyzer


def _run(fast: bool, n: int, interval: int, ring: int, slack: int, chans: int, jitter: int):
    board = sgdma.VirtualBoard("zc706")
    board.rtio.set_fast(fast)
    core = Core(board, "csr")
    dma = CoreDMA(core, region_bytes=max(1 << 20, n * 20))
    an = Analyzer(core, ring_bytes=ring)
    rng = np.random.default_rng(7)
    ts = np.arange(n, dtype=np.int64) * interval + (rng.integers(0, jitter, n) if jitter else 0)
    ch = rng.integers(0, chans, n).astype(np.uint32)
    dma.store("t", T.Events(ts, ch << 8, np.ones(n, np.uint8), (np.arange(n) % 2 == 0).astype(np.uint32)),
              int(ts.max()) + 100)
    core.break_realtime(slack)
    err = None
    try:
        dma.playback("t")
    except RTIOUnderflow as e:
        err = (e.channel, e.timestamp, str(e))
    board.rtio.drain(int(1e12))
    edges = board.rtio.edges()
    return ({k: v.copy() for k, v in edges.items()}, board.rtio.counters(), an.dump(rearm=False),
            dict(dma.last_playback), board.now_ns, err)


@pytest.mark.parametrize("case", [
    (20000, 30, 64 * 1024, 20000, 1, 0),      # one channel, the analyzer ring wraps, lanes stay full
    (8000, 20, 8 * 1024, 20000, 1, 0),        # faster than the CRI: underflow, the rest dropped
    (8000, 60, 4096, 3000, 9, 300),           # nine channels, out of order: lane switches, collisions
])
def test_fast_path_is_bit_identical_to_the_reference(case):
    fast, ref = _run(True, *case), _run(False, *case)
    for k in ref[0]:
        np.testing.assert_array_equal(fast[0][k], ref[0][k])
    assert fast[1:] == ref[1:]
    assert len(ref[0]["t_mu"]) > 0
