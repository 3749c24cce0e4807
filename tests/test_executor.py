"""Sweeps in chunks of trials: the same numbers however the work is split, resumable, honest about failures."""
import json
import time

import numpy as np
import pytest

from sgdma.experiments import characterize as ch
from sgdma.executor import ExecutorError, LocalExecutor, make_executor
from sgdma.experiments.sweepcache import CacheMismatch

SETUP = ch.Setup(board="zcu111", trials=12, seed=3, timing_only=True)
POINTS = [ch.Point(32, 4), ch.Point(4096, 16), ch.Point(8192, 4, 2), ch.Point(256, 64)]


def _samples(records):
    return [(r.bytes_per_bd, r.bds, r.cycles, r.samples["latency_ns"], r.samples["throughput_mbps"],
             r.simulated_ns) for r in records]


@pytest.fixture(scope="module")
def serial():
    return _samples(ch.sweep(SETUP, POINTS, jobs=1))


def test_chunks_cover_every_trial_once_largest_first():
    chunks = ch.plan_chunks(SETUP, POINTS, workers=4)
    for i in range(len(POINTS)):
        spans = sorted((c.first, c.last) for c in chunks if c.index == i)
        assert spans[0][0] == 0 and spans[-1][1] == SETUP.trials
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    sizes = [ch.point_cost(SETUP, c.point) * (c.last - c.first) for c in chunks]
    assert sizes == sorted(sizes, reverse=True)
    # the costliest point spreads over every worker
    big = max(range(len(POINTS)), key=lambda i: ch.point_cost(SETUP, POINTS[i]))
    assert sum(c.index == big for c in chunks) >= 4


def test_trial_seed_depends_on_sweep_seed_point_and_index_only():
    p = POINTS[1]
    whole = ch.trial_seeds(7, p, 12)
    assert np.array_equal(ch.trial_seeds(7, p, 5), whole[:5])
    assert not np.array_equal(ch.trial_seeds(8, p, 12), whole)


@pytest.mark.parametrize("kind,jobs", [("processes", 2), ("threads", 2), ("processes", 3)])
def test_bit_identical_however_split(serial, kind, jobs):
    ex = LocalExecutor(jobs, kind)
    assert _samples(ch.sweep(SETUP, POINTS, executor=ex)) == serial


def test_bit_identical_on_a_two_worker_dask_cluster(serial):
    pytest.importorskip("distributed")
    ex = make_executor("dask", jobs=2)
    try:
        assert ex.workers == 2
        assert _samples(ch.sweep(SETUP, POINTS, executor=ex)) == serial
    finally:
        ex.close()


def test_unreachable_scheduler_fails_within_seconds_naming_it():
    pytest.importorskip("distributed")
    t0 = time.monotonic()
    with pytest.raises(ExecutorError, match="tcp://127.0.0.1:9"):
        from sgdma.executor import DaskExecutor
        DaskExecutor("tcp://127.0.0.1:9", connect_timeout_s=2)
    assert time.monotonic() - t0 < 30


def test_cache_resumes_and_refuses_another_sweep(serial, tmp_path):
    cache = tmp_path / "c"
    first = _samples(ch.sweep(SETUP, POINTS, jobs=1, cache=str(cache)))
    assert first == serial
    files = sorted(cache.glob("*.npz"))
    assert files and json.loads((cache / "sweep.json").read_text())["version"]
    # drop one chunk, as if interrupted: the rest comes from the cache, the result is the same
    files[0].unlink()
    progress = []
    again = _samples(ch.sweep(SETUP, POINTS, jobs=1, cache=str(cache), progress=lambda d, t: progress.append(d)))
    assert again == serial
    assert progress[0] > 0                      # started from the cached trials
    with pytest.raises(CacheMismatch, match="setup"):
        list(ch.sweep(ch.Setup(board="zcu111", trials=12, seed=4, timing_only=True), POINTS, cache=str(cache)))


def test_a_failing_chunk_is_named_and_finished_chunks_are_kept(tmp_path, monkeypatch):
    real = ch.run_chunk

    def flaky(task):
        setup, chunk = task
        if chunk.point == POINTS[1] and chunk.first == 0:
            raise RuntimeError("worker lost")
        return real(task)

    monkeypatch.setattr(ch, "run_chunk", flaky)
    with pytest.raises(ch.SweepError, match=r"4096 B x 16 BDs.*worker lost.*--cache to resume"):
        list(ch.sweep(SETUP, POINTS, jobs=1, cache=str(tmp_path / "c")))
    kept = list((tmp_path / "c").glob("*.npz"))
    assert len(kept) >= len(POINTS) - 1
    monkeypatch.setattr(ch, "run_chunk", real)
    assert len(list(ch.sweep(SETUP, POINTS, jobs=1, cache=str(tmp_path / "c")))) == len(POINTS)


def test_frame_has_a_row_per_point():
    pytest.importorskip("pandas")
    df = ch.frame(list(ch.sweep(SETUP, POINTS[:2], jobs=1)))
    assert list(df["bytes_per_bd"]) == [32, 4096] and "throughput_mbps_median" in df


def test_bad_executor_names_the_option():
    with pytest.raises(ValueError, match="--executor"):
        make_executor("cluster")
