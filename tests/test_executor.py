"""Sweeps in chunks of trials: the same numbers however the work is split, resumable, honest about failures."""
import json
import time

import numpy as np
import pytest

from conftest import sweep_samples
from sgdma.experiments import characterize as ch
from sgdma.executor import ExecutorError, LocalExecutor, make_executor
from sgdma.experiments.sweepcache import CacheMismatch

SETUP = ch.Setup(board="zcu111", trials=12, seed=3, timing_only=True)
POINTS = [ch.Point(32, 4), ch.Point(4096, 16), ch.Point(8192, 4, 2), ch.Point(256, 64)]


@pytest.fixture(scope="module")
def serial():
    return sweep_samples(ch.sweep(SETUP, POINTS, jobs=1))


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
    assert sweep_samples(ch.sweep(SETUP, POINTS, executor=ex)) == serial


def test_bit_identical_on_a_two_worker_dask_cluster(serial):
    pytest.importorskip("distributed")
    ex = make_executor("dask", jobs=2)
    try:
        assert ex.workers == 2
        assert sweep_samples(ch.sweep(SETUP, POINTS, executor=ex)) == serial
    finally:
        ex.close()


def test_unreachable_scheduler_fails_within_seconds_naming_it():
    pytest.importorskip("distributed")
    t0 = time.monotonic()
    with pytest.raises(ExecutorError, match="tcp://127.0.0.1:9"):
        from sgdma.executor import DaskExecutor
        DaskExecutor("tcp://127.0.0.1:9", connect_timeout_s=2)
    assert time.monotonic() - t0 < 30


def test_a_service_that_is_not_a_scheduler_is_named_not_crashed_on():
    """Something accepts the connection and answers with bytes that are not Dask's protocol (a proxy, another
    service on the port): a clear ExecutorError naming the address, within seconds, not a MemoryError."""
    pytest.importorskip("distributed")
    import socket
    import threading

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    stop = threading.Event()

    def answer():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            try:
                conn.sendall(b"\xff" * 64)     # a frame count and lengths no real scheduler sends
            except OSError:
                pass
            conn.close()

    threading.Thread(target=answer, daemon=True).start()
    address = f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    t0 = time.monotonic()
    try:
        from sgdma.executor import DaskExecutor
        with pytest.raises(ExecutorError, match=address):
            DaskExecutor(address, connect_timeout_s=2)
    finally:
        stop.set()
        srv.close()
    assert time.monotonic() - t0 < 30


def test_cache_resumes_and_refuses_another_sweep(serial, tmp_path):
    cache = tmp_path / "c"
    first = sweep_samples(ch.sweep(SETUP, POINTS, jobs=1, cache=str(cache)))
    assert first == serial
    files = sorted(cache.glob("*.npz"))
    assert files and json.loads((cache / "sweep.json").read_text())["version"]
    # drop one chunk, as if interrupted: the rest comes from the cache, the result is the same
    files[0].unlink()
    progress = []
    again = sweep_samples(ch.sweep(SETUP, POINTS, jobs=1, cache=str(cache), progress=lambda d, t: progress.append(d)))
    assert again == serial
    assert progress[0] > 0                      # started from the cached trials
    with pytest.raises(CacheMismatch, match="seed 3 there, 4 here"):
        list(ch.sweep(ch.Setup(board="zcu111", trials=12, seed=4, timing_only=True), POINTS, cache=str(cache)))


def test_a_failing_chunk_is_named_and_finished_chunks_are_kept(tmp_path, monkeypatch):
    real = ch.run_chunk

    def flaky(task):
        setup, chunk = task
        if chunk.point == POINTS[1] and chunk.first == 0:
            raise RuntimeError("worker lost")
        return real(task)

    monkeypatch.setattr(ch, "run_chunk", flaky)
    with pytest.raises(ch.SweepFailed, match=r"4096 B x 16 BDs.*worker lost.*--cache to resume"):
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


def _square(x):
    return x * x


def test_local_pool_serves_every_map_until_closed():
    ex = LocalExecutor(2, "threads")
    try:
        assert sorted(ex.map(_square, [1, 2, 3])) == [(0, 1), (1, 4), (2, 9)]
        assert sorted(ex.map(_square, [4, 5])) == [(0, 16), (1, 25)]
        assert ex.pools_started == 1
    finally:
        ex.close()
    assert sorted(ex.map(_square, [6, 7])) == [(0, 36), (1, 49)] and ex.pools_started == 2


def test_bd_create_on_an_executor_is_the_same_and_countssweep_samples():
    from sgdma.experiments import bdcreate

    serial = bdcreate.run("zcu111", "apu", (1, 16, 256), 500, seed=5)
    seen = []
    ex = LocalExecutor(2, "threads")
    try:
        split = bdcreate.run("zcu111", "apu", (1, 16, 256), 500, seed=5, executor=ex,
                             progress=lambda d, t: seen.append((d, t)))
    finally:
        ex.close()
    assert split == serial
    assert seen[0] == (0, 1500) and seen[-1] == (1500, 1500) and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_plan_runs_every_candidate_on_one_executor():
    from sgdma.experiments import plan

    serial = plan.plan(1000.0, 32, trials=4, seed=2)
    counted = []
    ex = LocalExecutor(2, "threads")
    try:
        shared = plan.plan(1000.0, 32, trials=4, seed=2, executor=ex, progress=lambda d, t: counted.append(d))
        assert ex.pools_started == 1                       # one pool, however many candidates were swept
    finally:
        ex.close()
    assert shared.as_dict() == serial.as_dict()
    # every candidate swept (BD sizes tried, then ring sizes) adds its trials to the count
    assert counted[-1] >= 4 * len(serial.tried) and counted == sorted(counted)


def test_feasibility_map_rows_on_an_executor_match_serial():
    from sgdma.experiments import plan

    serial = plan.feasibility_map([500.0, 1000.0], [32, 256], max_runs=6)
    ex = LocalExecutor(2, "threads")
    try:
        assert plan.feasibility_map([500.0, 1000.0], [32, 256], max_runs=6, executor=ex) == serial
    finally:
        ex.close()


@pytest.mark.parametrize("args", [
    ["plan", "--gate-time", "1us", "--bytes-per-gate", "32"],
    ["characterize", "bd-create", "--samples", "10"],
    ["capture", "--sweep", "buffer-size"],
])
def test_every_executor_command_names_an_unreachable_scheduler(args, monkeypatch):
    pytest.importorskip("distributed")
    import functools

    from click.testing import CliRunner

    import sgdma.executor
    from sgdma.cli import main

    # the commands' own connect timeout is 10 s; 2 s keeps the test short and the path the same
    monkeypatch.setattr(sgdma.executor, "DaskExecutor",
                        functools.partial(sgdma.executor.DaskExecutor, connect_timeout_s=2.0))
    t0 = time.monotonic()
    res = CliRunner().invoke(main, args + ["--executor", "dask", "--scheduler", "tcp://127.0.0.1:9"])
    assert res.exit_code == 2 and "tcp://127.0.0.1:9" in res.output and "--scheduler" in res.output
    assert time.monotonic() - t0 < 60


def test_capture_executor_options_need_the_sweep():
    from click.testing import CliRunner

    from sgdma.cli import main

    res = CliRunner().invoke(main, ["capture", "--jobs", "2", "--seconds", "0.001"])
    assert res.exit_code == 2 and "--jobs" in res.output and "--sweep" in res.output


def test_progress_without_a_known_total_counts_without_an_eta(capsys, monkeypatch):
    from sgdma.cli.executor import TrialProgress

    monkeypatch.setenv("SGDMA_PROGRESS", "1")          # stderr is not a terminal here: asked for, as --progress does

    with TrialProgress(0, "plan") as bar:
        bar.update(4, None)
        bar.update(8, None)
    err = capsys.readouterr().err
    assert "plan: 4 trials" in err and "ETA" not in err


def test_progress_without_a_known_total_ends_on_its_last_count(capsys, monkeypatch):
    """A log (not a terminal) asked for with --progress is written at most every 5 s; when the work ends the last
    count still appears, so a finished plan does not read "0 trials"."""
    from sgdma.cli.executor import TrialProgress

    monkeypatch.setenv("SGDMA_PROGRESS", "1")

    with TrialProgress(0, "plan") as bar:
        for done in (0, 3, 17):
            bar.update(done, None)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("plan: 0 trials") and lines[-1].startswith("plan: 17 trials")
    with TrialProgress(5, "sweep") as bar:                     # a known total: the finished line is not repeated
        bar.update(5)
    assert capsys.readouterr().err.count("sweep: 5/5") == 1
