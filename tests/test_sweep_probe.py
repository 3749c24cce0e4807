"""Bad input and bad luck around issue 12's sweeps, found by probing the CLI and the Python API (each test failed
before its fix): damaged cache chunks, Ctrl-C and a killed parent with process workers, a worker that dies,
--parquet without an engine, what an interrupted sweep writes."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import sweep_samples
import sgdma
from sgdma.cli import main
from sgdma.experiments import characterize as ch
from sgdma.output import report

SETUP = ch.Setup(board="zcu111", trials=2, seed=5, timing_only=True)
POINTS = [ch.Point(64, 4), ch.Point(4096, 16), ch.Point(256, 4)]
# the sgdma under test (an in-place build under src/, or the installed package in CI's venv)
SRC = str(Path(sgdma.__file__).resolve().parents[1])


@pytest.fixture(scope="module")
def serial():
    return sweep_samples(ch.sweep(SETUP, POINTS, jobs=1))


@pytest.mark.parametrize("damage", ["truncated", "empty", "junk", "short"])
def test_a_damaged_cache_chunk_is_run_again(serial, tmp_path, damage):
    cache = tmp_path / "c"
    list(ch.sweep(SETUP, POINTS, jobs=1, cache=str(cache)))
    f = sorted(cache.glob("*.npz"))[0]
    if damage == "truncated":                    # cut short: a zip without its directory (BadZipFile)
        f.write_bytes(f.read_bytes()[:100])
    elif damage == "empty":                      # EOFError from numpy
        f.write_bytes(b"")
    elif damage == "junk":
        f.write_bytes(b"not a chunk\n")
    else:                                        # a whole file, but with fewer trials than its chunk
        import numpy as np
        with np.load(f) as z:
            d = {k: z[k] for k in z.files}
        np.savez(f, **{k: (v[:0] if v.ndim else v) for k, v in d.items()})
    done = []
    again = sweep_samples(ch.sweep(SETUP, POINTS, jobs=1, cache=str(cache), progress=lambda d, t: done.append(d)))
    assert again == serial
    _, first, last = f.stem.split("_")
    assert done[0] == len(POINTS) * SETUP.trials - (int(last) - int(first))    # only the damaged chunk is redone


_SCRIPT = textwrap.dedent("""
    import signal, sys, time
    from sgdma.experiments import characterize as ch
    from sgdma.cli import main
    real = ch.run_chunk
    def slow(task):                  # one chunk never ends on its own: only stopping the worker ends it
        setup, chunk = task
        if chunk.index == 1 and chunk.first == 0:
            signal.signal(signal.SIGINT, signal.SIG_IGN)   # as a C loop: Python's Ctrl-C handler never runs
            while True:
                time.sleep(1)
        return real(task)
    ch.run_chunk = slow
    main(sys.argv[1:], prog_name="sgdma")
""")


def _start(tmp_path, *args):
    script = tmp_path / "run.py"
    script.write_text(_SCRIPT)
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, str(script), "characterize", "--bytes-per-bd", "64,4K,256", "--bds", "4,16",
           "--trials", "2", "--jobs", "2", "--timing-only", *args]
    return subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _wait_for(pred, what, bound_s=120, proc=None):
    end = time.monotonic() + bound_s
    while not pred():
        if proc is not None and proc.poll() is not None:     # it ended early: say why, do not wait the bound
            raise AssertionError(f"{what}: the sweep exited {proc.returncode} first: {proc.stderr.read()[-2000:]}")
        assert time.monotonic() < end, f"{what} did not happen within {bound_s} s"
        time.sleep(0.2)


def _group(pgid):
    return subprocess.run(["pgrep", "-g", str(pgid)], capture_output=True, text=True).stdout.split()


@pytest.mark.skipif(sys.platform != "linux", reason="process groups and pgrep")
def test_ctrl_c_stops_process_workers_keeps_finished_chunks_and_resumes(tmp_path):
    cache = tmp_path / "c"
    p = _start(tmp_path, "--cache", str(cache), "--json", str(tmp_path / "r.json"))
    _wait_for(lambda: len(list(cache.glob("p*.npz"))) >= 4, "four finished chunks", proc=p)
    os.killpg(p.pid, signal.SIGINT)            # a terminal's Ctrl-C reaches the whole foreground group
    try:
        out, err = p.communicate(timeout=60)   # before the fix: waited for the chunk that never ends
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        pytest.fail("the sweep did not stop on Ctrl-C")
    assert p.returncode == 3
    assert "interrupted (Ctrl-C)" in err and f"--cache {cache}" in err and "resume" in err
    assert "Traceback" not in err              # before the fix: every idle worker printed its KeyboardInterrupt
    _wait_for(lambda: not _group(p.pid), "the workers' exit", 30)
    kept = sorted(f.name for f in cache.glob("p*.npz"))
    assert len(kept) >= 4
    # resume with the real chunks: the finished ones are not run again, the numbers are an uninterrupted run's
    res = CliRunner().invoke(main, ["characterize", "--bytes-per-bd", "64,4K,256", "--bds", "4,16", "--trials", "2",
                                    "--jobs", "1", "--timing-only", "--cache", str(cache), "--json",
                                    str(tmp_path / "resumed.json")])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["characterize", "--bytes-per-bd", "64,4K,256", "--bds", "4,16", "--trials", "2",
                                    "--jobs", "1", "--timing-only", "--json", str(tmp_path / "fresh.json")])
    strip = lambda path: [{k: v for k, v in r.items() if k not in ("wall_s", "cpu_s")}   # noqa: E731
                          for r in json.loads(path.read_text())["records"]]
    assert strip(tmp_path / "resumed.json") == strip(tmp_path / "fresh.json")


@pytest.mark.skipif(sys.platform != "linux", reason="process groups and pgrep")
def test_workers_do_not_outlive_a_killed_parent(tmp_path):
    cache = tmp_path / "c"
    p = _start(tmp_path, "--cache", str(cache))
    _wait_for(lambda: len(list(cache.glob("p*.npz"))) >= 1, "a finished chunk", proc=p)
    assert len(_group(p.pid)) >= 3             # the parent and its two workers
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    try:                                       # before the fix the worker in the endless chunk stayed forever
        _wait_for(lambda: not _group(p.pid), "the orphaned workers' exit", 30)
    finally:
        for pid in _group(p.pid):
            os.kill(int(pid), signal.SIGKILL)
        p.communicate()


def _dies(task):
    setup, chunk = task
    if chunk.point == POINTS[1] and chunk.first == 0:
        os._exit(7)                            # the worker process dies (a segfault, the OOM killer)
    return _real_run_chunk(task)


_real_run_chunk = ch.run_chunk


def test_a_dead_worker_names_its_chunks_alone_keeps_the_rest_and_the_sweep_resumes(serial, tmp_path, monkeypatch):
    from sgdma.executor import LocalExecutor

    monkeypatch.setattr(ch, "run_chunk", _dies)          # forked workers inherit it
    ex = LocalExecutor(2, "processes")
    cache = tmp_path / "c"
    try:
        with pytest.raises(ch.SweepFailed) as e:
            list(ch.sweep(SETUP, POINTS, executor=ex, cache=str(cache)))
    finally:
        ex.close()
    msg = str(e.value)
    # the pool broke under every chunk it held; rerun one at a time, only the chunk that kills its worker fails
    assert msg.startswith("1 chunk(s) failed: 4096 B x 16 BDs x 1 cycles trials 0-0 (WorkerLost: its worker "
                          "process died"), msg
    assert "--cache to resume" in msg
    kept = {f.stem for f in cache.glob("p*.npz")}
    planned = json.loads((cache / "sweep.json").read_text())["plan"]
    assert kept == {f"p{i}_{lo}_{hi}" for i, lo, hi in planned} - {"p1_0_1"}
    monkeypatch.setattr(ch, "run_chunk", _real_run_chunk)
    assert sweep_samples(ch.sweep(SETUP, POINTS, jobs=1, cache=str(cache))) == serial


def _die_on_3(k):
    if k == 3:
        os._exit(9)
    return k * 10


@pytest.mark.parametrize("kind", ["processes", "dask"])
def test_keep_going_map_yields_the_dead_workers_task_as_lost_and_runs_the_rest(kind):
    from sgdma.executor import WorkerLost, make_executor

    if kind == "dask":
        dask = pytest.importorskip("distributed") and __import__("dask")
        # no retries on other workers, and a worker holds only the task it runs (none queued that would be
        # suspected with it)
        cfg = dask.config.set({"distributed.scheduler.allowed-failures": 0,
                               "distributed.scheduler.worker-saturation": 1.0})
    else:
        import contextlib
        cfg = contextlib.nullcontext()
    with cfg:
        ex = make_executor(kind, 2)
        try:
            got = dict(ex.map(_die_on_3, list(range(6)), keep_going=True))
        finally:
            ex.close()
    assert sorted(got) == list(range(6))
    assert isinstance(got[3], WorkerLost)
    assert {k: v for k, v in got.items() if k != 3} == {k: k * 10 for k in range(6) if k != 3}


def test_failed_chunks_are_a_failure_while_running_not_a_usage_error(tmp_path, monkeypatch):
    def fails(task):
        raise RuntimeError("model fault")

    monkeypatch.setattr(ch, "run_chunk", fails)
    res = CliRunner().invoke(main, ["characterize", "--bytes-per-bd", "64", "--bds", "4", "--trials", "2",
                                    "--jobs", "1", "--cache", str(tmp_path / "c")])
    assert res.exit_code == 3, res.output
    assert "model fault" in res.output and "--cache to resume" in res.output


def test_parquet_without_an_engine_is_refused_before_the_sweep(tmp_path, monkeypatch):
    ran = []
    monkeypatch.setattr(ch, "sweep", lambda *a, **k: ran.append(1) or iter(()))
    for engine in ("pyarrow", "fastparquet"):
        monkeypatch.setitem(sys.modules, engine, None)   # import fails as if not installed
    res = CliRunner().invoke(main, ["characterize", "--bytes-per-bd", "64", "--bds", "4", "--trials", "2",
                                    "--parquet", str(tmp_path / "r.parquet")])
    assert res.exit_code == 2, res.output
    assert "--parquet" in res.output and "pyarrow" in res.output and "pip install" in res.output
    assert not ran and not (tmp_path / "r.parquet").exists()


def test_an_interrupted_sweep_writes_its_finished_points_as_a_partial_record(tmp_path, monkeypatch):
    real_sweep = ch.sweep

    def interrupted(setup, points, **kw):
        it = real_sweep(setup, points, **kw)
        yield next(it)
        raise KeyboardInterrupt

    monkeypatch.setattr(ch, "sweep", interrupted)
    out = tmp_path / "r.json"
    res = CliRunner().invoke(main, ["characterize", "--bytes-per-bd", "64,128", "--bds", "4", "--trials", "2",
                                    "--jobs", "1", "--json", str(out), "--csv", str(tmp_path / "r.csv")])
    assert res.exit_code == 3, res.output
    assert "after 1 of 2 points" in res.output and "--cache DIR" in res.output
    rec = report.load(out, "characterize")            # the report layer reads it (a bare list before the fix)
    assert rec["partial"] is True and [r["bytes_per_bd"] for r in rec["records"]] == [64]
    assert len((tmp_path / "r.csv").read_text().splitlines()) == 2


def test_a_stopped_thread_executor_ends_a_running_chunk_at_its_next_c_call(monkeypatch):
    from sgdma.executor import Stopped, _stoppable
    import threading

    setup = ch.Setup(board="zcu111", trials=2000, seed=1, timing_only=True)
    p = ch.Point(8192, 16, 16)
    calls, stop = [], threading.Event()
    real = ch._c_trials

    def counted(bench, point, seeds):
        calls.append(len(seeds))
        stop.set()                               # Ctrl-C arrives while the first call runs
        return real(bench, point, seeds)

    monkeypatch.setattr(ch, "_c_trials", counted)
    with pytest.raises(Stopped):
        _stoppable(stop, ch.run_chunk, (setup, ch.Chunk(0, p, 0, setup.trials)))
    assert len(calls) == 1 and calls[0] < setup.trials     # one C call, not the whole chunk in one


def test_thread_executor_stop_reaches_running_tasks():
    import threading
    from sgdma.executor import LocalExecutor, should_stop

    ex = LocalExecutor(2, "threads")
    started = []

    def task(k):
        started.append(k)
        end = time.monotonic() + 60             # bound: the test fails rather than hangs
        while not should_stop() and time.monotonic() < end:
            time.sleep(0.01)
        return should_stop()

    results = []
    consumer = threading.Thread(target=lambda: results.extend(r for _, r in ex.map(task, [0, 1])), daemon=True)
    consumer.start()
    _wait_for(lambda: len(started) == 2, "both tasks running", 30)
    ex.stop()                                   # what Ctrl-C does: a thread cannot be killed, it is asked
    consumer.join(60)
    assert not consumer.is_alive() and results == [True, True]


def test_a_rerun_on_a_complete_cache_gives_every_point(serial, tmp_path):
    cache = str(tmp_path / "c")
    list(ch.sweep(SETUP, POINTS, jobs=1, cache=cache))
    # nothing left to run: before the fix the records were only built as chunks came back, so none came
    assert sweep_samples(ch.sweep(SETUP, POINTS, jobs=1, cache=cache)) == serial


@pytest.mark.parametrize("manifest,message", [
    ('[1, 2]', "not a sweep manifest"),
    ('{"kind": "sgdma-characterize-cache"', "not a sweep manifest"),            # cut short
    ("plan=[[99, 0, 1]]", "chunk plan .* is damaged"),                           # a point that does not exist
    ("plan=[[0, 0, 1]]", "chunk plan .* is damaged"),                            # trials left out
    ("plan=None", "chunk plan .* is damaged"),
    ("version=0.0.0-old", r"written by sgdma 0.0.0-old \(this is "),
])
def test_a_damaged_or_foreign_manifest_is_refused_naming_the_cache(tmp_path, manifest, message):
    from sgdma.experiments.sweepcache import CacheMismatch

    cache = tmp_path / "c"
    list(ch.sweep(SETUP, POINTS[:1], jobs=1, cache=str(cache)))
    m = cache / "sweep.json"
    if "=" in manifest:
        key, value = manifest.split("=", 1)
        doc = json.loads(m.read_text())
        doc[key] = value if key == "version" else json.loads(value.replace("None", "null"))
        m.write_text(json.dumps(doc))
    else:
        m.write_text(manifest)
    with pytest.raises(CacheMismatch, match=f"--cache {cache}.*{message}.*(delete it|another directory)"):
        list(ch.sweep(SETUP, POINTS[:1], jobs=1, cache=str(cache)))


@pytest.mark.parametrize("jobs", [0, -1, 2.5, "3", True])
def test_bad_jobs_in_the_python_api_are_refused_not_run_serially(jobs):
    from sgdma.executor import make_executor

    with pytest.raises(ValueError, match=r"--jobs .*whole number of workers >= 1"):
        make_executor("threads", jobs)
    with pytest.raises(ValueError, match=r"--jobs"):
        list(ch.sweep(SETUP, POINTS[:1], jobs=jobs))


def test_a_cache_of_another_sweep_names_what_differs(tmp_path):
    from sgdma.experiments.sweepcache import CacheMismatch

    cache = str(tmp_path / "c")
    list(ch.sweep(SETUP, POINTS[:1], jobs=1, cache=cache))
    other = ch.Setup(board="zcu111", trials=3, seed=5, timing_only=True)
    with pytest.raises(CacheMismatch, match=r"another sweep \(trials 2 there, 3 here\); use another directory"):
        list(ch.sweep(other, POINTS[:1], jobs=1, cache=cache))
    with pytest.raises(CacheMismatch, match=r"another sweep \(1 points there, 2 here\)"):
        list(ch.sweep(SETUP, POINTS[:2], jobs=1, cache=cache))
