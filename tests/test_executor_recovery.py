"""The executors when things go wrong: lost tasks rerun side by side, a one-task map in a worker, Dask's logger
given back, two sweeps on one cache, an interrupted sweep's account of what it kept, --jobs that is no number."""
import logging
import multiprocessing
import os
import sys
import time

import pytest
from click.testing import CliRunner

from sgdma.cli import main
from sgdma.executor import LocalExecutor, WorkerLost, make_executor
from sgdma.experiments import characterize as ch
from sgdma.experiments import sweepcache

_PAIR = None        # set in the parent after the first pool forked: only workers forked later (the reruns) see it


def _warm(_):
    _WARM.wait(timeout=30)          # both workers of the first pool exist (each holds one of the two tasks)
    return os.getpid()


def _killer_and_pairs(k):
    if k == 0:
        os._exit(5)                 # its worker dies, every time (a segfault, the OOM killer)
    if _PAIR is None:
        time.sleep(60)              # the first pool: held until the pool breaks and its workers are terminated
        return "not terminated"
    _PAIR.wait(timeout=30)          # a rerun returns only if another rerun runs beside it
    return k * 10


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
def test_lost_tasks_rerun_side_by_side_and_only_the_killer_is_named():
    global _PAIR, _WARM
    ctx = multiprocessing.get_context("fork")
    _WARM = ctx.Barrier(2)
    ex = LocalExecutor(2, "processes")
    try:
        assert len(set(dict(ex.map(_warm, [0, 1])).values())) == 2
        _PAIR = ctx.Barrier(2)
        got = dict(ex.map(_killer_and_pairs, list(range(5)), keep_going=True))
    finally:
        ex.close()
        _PAIR = None
    # before the fix the four reruns ran one at a time: each waited alone at the barrier and broke it
    assert isinstance(got.pop(0), WorkerLost)
    assert got == {1: 10, 2: 20, 3: 30, 4: 40}
    assert not ex._lanes and ex._pool is None


def _pid(_):
    return os.getpid()


def _die(_):
    os._exit(3)


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
def test_a_one_task_map_runs_in_a_worker_when_processes_were_asked_for():
    ex = LocalExecutor(2, "processes")
    try:
        assert dict(ex.map(_pid, [None]))[0] != os.getpid()
        # a task that crashes its process is that task's failure; before the fix it ended this process
        lost = dict(ex.map(_die, [None], keep_going=True))[0]
        assert isinstance(lost, WorkerLost) and "died" in str(lost)
    finally:
        ex.close()
    # documented fast paths: --jobs 1, and threads (which isolate nothing), run here
    assert dict(LocalExecutor(1, "processes").map(_pid, [None]))[0] == os.getpid()
    threads = LocalExecutor(2, "threads")
    assert dict(threads.map(_pid, [None]))[0] == os.getpid()
    threads.close()


def test_dask_stop_gives_the_distributed_logger_its_level_back():
    pytest.importorskip("distributed")
    log = logging.getLogger("distributed")
    before = log.level
    log.setLevel(logging.INFO)
    try:
        ex = make_executor("dask", 1)
        assert dict(ex.map(_square, [3])) == {0: 9}
        ex.stop()
        assert log.level == logging.INFO          # before the fix: CRITICAL, for the rest of the process
    finally:
        log.setLevel(before)


def _square(x):
    return x * x


SETUP = ch.Setup(board="zcu111", trials=2, seed=1, timing_only=True)
POINTS = [ch.Point(64, 4), ch.Point(256, 4)]


def test_two_sweeps_on_one_cache_write_through_their_own_temp_files(tmp_path, monkeypatch):
    temps = []
    real = os.replace

    def replace(src, dst):
        temps.append((str(src), str(dst)))
        return real(src, dst)

    monkeypatch.setattr(sweepcache.os, "replace", replace)
    a = sweepcache.open_cache(str(tmp_path), SETUP, POINTS)
    b = sweepcache.open_cache(str(tmp_path), SETUP, POINTS)   # another sweep's view of the same directory
    chunks = ch.plan_chunks(SETUP, POINTS, 1)
    a.save_plan(chunks)
    b.save_plan(chunks)
    res = ch.run_chunk((SETUP, chunks[0]))
    a.save(chunks[0], res)
    b.save(chunks[0], res)
    manifest = [s for s, d in temps if d.endswith(sweepcache.MANIFEST)]
    chunk = [s for s, d in temps if d.endswith(f"{chunks[0].key}.npz")]
    # before the fix both used .sweep.json.tmp / .<key>.tmp.npz: one sweep could rename the other's half file
    assert len(manifest) == 2 and len(set(manifest)) == 2
    assert len(chunk) == 2 and len(set(chunk)) == 2
    assert all(f".{os.getpid()}." in s and os.path.dirname(s) == str(tmp_path) for s in manifest + chunk)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([sweepcache.MANIFEST, f"{chunks[0].key}.npz"])
    assert sweepcache.open_cache(str(tmp_path), SETUP, POINTS).load(chunks[0]) is not None


def test_an_interrupted_sweep_says_how_many_trials_it_kept_in_the_cache(tmp_path, monkeypatch):
    """Chunks run largest first and points come out in order: a sweep stopped early has finished chunks of
    points that are not complete.  The message counts them, not only the complete points."""
    real = ch.run_chunk
    ran = []

    def interrupt_second(task):
        if ran:
            raise KeyboardInterrupt
        ran.append(task[1])
        return real(task)

    monkeypatch.setattr(ch, "run_chunk", interrupt_second)
    cache = tmp_path / "c"
    res = CliRunner().invoke(main, ["characterize", "--bytes-per-bd", "64,8K", "--bds", "4,16", "--trials", "3",
                                    "--jobs", "1", "--timing-only", "--cache", str(cache)])
    assert res.exit_code == 3, res.output
    first = ran[0]
    assert first.point == ch.Point(8192, 16)           # the largest point's chunk ran first: no point is complete
    assert [p.stem for p in cache.glob("p*.npz")] == [first.key]
    # before the fix: "after 0 of 4 points" and nothing about the chunk kept
    assert "after 0 of 4 points" in res.output
    assert f"{first.last - first.first} of 12 trials (1 chunk) finished" in res.output, res.output
    assert f"--cache {cache}" in res.output and "resume" in res.output


@pytest.mark.parametrize("value", ["abc", "0", "-1", "2.5", "", "²"])
def test_jobs_that_is_not_a_whole_number_names_the_option_the_rule_and_the_fix(value):
    res = CliRunner().invoke(main, ["characterize", "--bytes-per-bd", "64", "--bds", "4", "--jobs", value])
    assert res.exit_code == 2, res.output
    assert "--jobs" in res.output and "whole number from 1" in res.output
    assert "leave --jobs out" in res.output and "e.g. --jobs 2" in res.output


def test_jobs_accepts_a_whole_number():
    res = CliRunner().invoke(main, ["characterize", "--bytes-per-bd", "64", "--bds", "4", "--trials", "1",
                                    "--jobs", "1", "--timing-only"])
    assert res.exit_code == 0, res.output


def _settings(keys):
    import dask

    return {k: dask.config.get(k) for k in keys}


def _busy(seconds):
    t = time.monotonic() + seconds
    while time.monotonic() < t:
        pass
    return seconds


def test_the_local_dask_cluster_runs_without_the_dashboards_samplers():
    """The profiler samples the running chunk's stack every 10 ms, the tick and the monitors wake the event
    loops, for a dashboard nobody opens, on CPU the workers need (docs/performance.md): a LocalCluster of ours
    runs with sgdma.executor.LOCAL_CLUSTER_CONFIG, and the caller's config is left as it was."""
    pytest.importorskip("distributed")
    from sgdma.executor import LOCAL_CLUSTER_CONFIG

    before = _settings(LOCAL_CLUSTER_CONFIG)
    ex = make_executor("dask", 2)
    try:
        assert dict(ex.map(_busy, [1.5, 1.5])) == {0: 1.5, 1: 1.5}
        got = ex.client.run(_settings, list(LOCAL_CLUSTER_CONFIG))
        assert len(got) == 2 and all(v == LOCAL_CLUSTER_CONFIG for v in got.values())
        time.sleep(1.5)                         # a worker files its samples once per profile cycle (1 s)
        assert ex.client.profile()["count"] == 0          # with Dask's defaults: ~280 samples of the two tasks
        assert ex.client.run_on_scheduler(lambda dask_scheduler: dask_scheduler._tick_interval) == 1.0
    finally:
        ex.close()
    assert _settings(LOCAL_CLUSTER_CONFIG) == before != LOCAL_CLUSTER_CONFIG


def _hang_at_exit(k):
    """Registers an exit handler that never returns: the child now hangs as one that inherited a held lock at
    the fork does (seen once in the suite: plan's pool waited on such a worker for good)."""
    from multiprocessing import util
    util.Finalize(None, time.sleep, args=(3600,), exitpriority=100)
    return os.getpid()


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
def test_close_ends_a_worker_that_hangs_at_exit(monkeypatch):
    import threading

    import sgdma.executor as ex_mod
    monkeypatch.setattr(ex_mod, "WORKER_EXIT_GRACE_S", 0.5)
    ex = LocalExecutor(2, "processes")
    pids = {pid for _, pid in ex.map(_hang_at_exit, [0, 1, 2, 3])}
    closer = threading.Thread(target=ex.close, daemon=True)
    closer.start()
    closer.join(timeout=120)        # a hang guard, not a speed check: the grace is 0.5 s
    assert not closer.is_alive(), "close() waited on a worker that hangs at exit"
    for pid in pids:                # every worker is gone (reaped), none left running the handler
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
