"""Where chunks of work run: threads or processes on this machine, or a Dask cluster.

An executor maps a picklable function over a list of tasks and yields ``(index, result)`` as each finishes,
in whatever order they finish; callers reassemble by index, so results never depend on where or in which order
work ran.  Dask is an optional extra (``pip install "sgdma[cluster]"``).
"""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import operator
import os
import signal
import threading
import time
from typing import Callable, Iterable, Iterator


class ExecutorError(RuntimeError):
    """The executor could not run (a scheduler that cannot be reached, a missing extra, a dead worker)."""


class WorkerLost(ExecutorError):
    """A task did not come back because the worker running it died (map(..., keep_going=True) yields it as
    the task's result)."""


def default_jobs() -> int:
    """Every core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:          # pragma: no cover  (not Linux)
        return max(1, multiprocessing.cpu_count())


_task = threading.local()


def should_stop() -> bool:
    """True when the executor running this task on a thread was stopped (Ctrl-C).  A thread cannot be
    terminated, so a long task asks between steps and ends early; process workers are terminated instead."""
    ev = getattr(_task, "stop", None)
    return ev is not None and ev.is_set()


class Stopped(Exception):
    """A task that ended early because its executor was stopped."""


def _stoppable(ev: threading.Event, fn: Callable, task):
    _task.stop = ev
    try:
        return fn(task)
    finally:
        _task.stop = None


def _worker_init(parent: int) -> None:
    """A pool worker: Ctrl-C is the parent's to handle (it stops the workers at once, see LocalExecutor.stop),
    and a worker whose parent died (SIGKILL, a crash) exits instead of running on as an orphan."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="sgdma-parent-watch", daemon=True).start()


#: How long close() lets an idle worker process exit before terminating it.  A forked child inherits every
#: lock some other thread of the parent held at the fork (an allocator's, a logging handler's, an event loop's);
#: one that stays held makes the child hang at exit, and an unbounded shutdown would hang the command with it.
WORKER_EXIT_GRACE_S = 10.0


def _shutdown_bounded(pool) -> None:
    """Shut ``pool`` down, waiting at most WORKER_EXIT_GRACE_S for its processes to exit (then terminate,
    then kill).  A thread pool's threads are joined as usual: a thread cannot be terminated."""
    if not isinstance(pool, cf.ProcessPoolExecutor):
        pool.shutdown(wait=True, cancel_futures=True)
        return
    # CPython's ProcessPoolExecutor keeps its workers in _processes; there is no public way to reach them
    procs = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)      # shutdown(wait=False) forgets both
    results = getattr(pool, "_result_queue", None)
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + WORKER_EXIT_GRACE_S
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    for p in procs:
        if p.is_alive():
            p.terminate()
            p.join(1.0)
            if p.is_alive():
                p.kill()
                p.join(1.0)
    if manager is not None:           # it ends once its processes have; bounded all the same
        manager.join(WORKER_EXIT_GRACE_S)
    if results is not None and (manager is None or not manager.is_alive()):
        results.close()


class LocalExecutor:
    """Threads (the C core releases the GIL while it simulates) or forked processes.  The pool starts at the
    first map that needs one and serves every later map until close(): a command that maps many times
    (plan: one sweep per candidate size) forks its workers once."""

    def __init__(self, jobs: int | None = None, kind: str = "processes"):
        if kind not in ("threads", "processes"):
            raise ValueError(f"--executor {kind!r}: choose threads, processes or dask")
        self.jobs = check_jobs(jobs) or default_jobs()
        self.kind = kind
        self.workers = self.jobs
        self._pool = None
        self._lanes: list[cf.ProcessPoolExecutor] = []     # _isolate's one-worker pools
        self.pools_started = 0
        self._stop = threading.Event()          # set by stop(): tasks on threads end at their next step

    def _get_pool(self):
        if self._pool is None:
            if self.kind == "threads":
                self._stop = threading.Event()
                self._pool = cf.ThreadPoolExecutor(self.jobs)
            else:
                self._pool = cf.ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("fork"),
                                                    initializer=_worker_init, initargs=(os.getpid(),))
            self.pools_started += 1
        return self._pool

    def map(self, fn: Callable, tasks: list, keep_going: bool = False) -> Iterator[tuple[int, object]]:
        """``keep_going``: a task whose worker died yields a WorkerLost as its result instead of ending the map
        (a dead process breaks the whole pool, so every task not finished by then is lost with it and run
        again, see _isolate).

        ``jobs`` 1 runs every task here, in this process (no fork: a debugger or profiler sees the work, and
        a task that crashes the interpreter ends the command).  Threads run a single task here too (a thread
        isolates nothing).  Processes run even a single task in a worker, so that a chunk that crashes its
        process is that chunk's failure, not the command's end."""
        if self.jobs <= 1 or (self.kind == "threads" and len(tasks) <= 1):
            for i, t in enumerate(tasks):
                yield i, fn(t)
            return
        if not tasks:
            return
        pool = self._get_pool()
        if self.kind == "threads":
            futures = {pool.submit(_stoppable, self._stop, fn, t): i for i, t in enumerate(tasks)}
        else:
            futures = {pool.submit(fn, t): i for i, t in enumerate(tasks)}
        lost = []
        try:
            for f in cf.as_completed(futures):
                if keep_going and isinstance(f.exception(), cf.BrokenExecutor):
                    lost.append(futures[f])
                    continue
                yield futures[f], f.result()
            if lost:
                self.close()                          # the next map gets a fresh pool
                yield from self._isolate(fn, tasks, sorted(lost))
        except BaseException as e:
            for f in futures:
                f.cancel()
            if isinstance(e, cf.BrokenExecutor):      # a worker died: the next map gets a fresh pool
                self.close()
            elif isinstance(e, KeyboardInterrupt):
                self.stop()
            raise

    def _lane(self) -> cf.ProcessPoolExecutor:
        lane = cf.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"), initializer=_worker_init,
                                      initargs=(os.getpid(),))
        self._lanes.append(lane)                      # so that stop() (Ctrl-C) ends it too
        return lane

    def _isolate(self, fn: Callable, tasks: list, lost: list[int]) -> Iterator[tuple[int, object]]:
        """The tasks a dead worker took down with the pool, run again side by side on ``jobs`` fresh one-worker
        pools ("lanes"), each holding one task at a time: a worker that dies now ran that task alone, so the
        task is named (a WorkerLost) and only its lane is replaced; the others finish."""
        queue = list(lost)
        running: dict[cf.Future, tuple[cf.ProcessPoolExecutor, int]] = {}
        idle = [self._lane() for _ in range(min(self.jobs, len(queue)))]
        ok = False
        try:
            while queue or running:
                while idle and queue:
                    lane, i = idle.pop(), queue.pop(0)
                    running[lane.submit(fn, tasks[i])] = (lane, i)
                done, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
                for f in sorted(done, key=lambda f: running[f][1]):
                    lane, i = running.pop(f)
                    if isinstance(f.exception(), cf.BrokenExecutor):
                        res = WorkerLost(f"its worker process died ({_brief(f.exception())})")
                        lane.shutdown(wait=True)
                        self._lanes.remove(lane)
                        if queue:
                            idle.append(self._lane())
                    else:
                        res = f.result()              # an exception of the task's own ends the map, as above
                        idle.append(lane)
                    yield i, res
            ok = True
        finally:
            if ok:
                self._close_lanes()
            else:                                     # Ctrl-C or an error: end the running tasks, do not wait
                self.stop()

    def _close_lanes(self) -> None:
        lanes, self._lanes = self._lanes, []
        for lane in lanes:
            _shutdown_bounded(lane)

    def stop(self) -> None:
        """Stop now (Ctrl-C): queued tasks are dropped and running ones abandoned, their worker processes
        terminated rather than waited for.  Threads cannot be terminated: a running task ends at its next
        should_stop() check."""
        pools = [p for p in [self._pool] + self._lanes if p is not None]
        self._pool, self._lanes = None, []
        if pools:
            self._stop.set()
        for pool in pools:
            # CPython's ProcessPoolExecutor keeps its workers in _processes; there is no public way to end them
            for p in list((getattr(pool, "_processes", None) or {}).values()):
                p.terminate()
            pool.shutdown(wait=isinstance(pool, cf.ProcessPoolExecutor), cancel_futures=True)

    def close(self) -> None:
        if self._pool is not None:
            _shutdown_bounded(self._pool)
            self._pool = None
        self._close_lanes()

    def __del__(self):                                # an executor nobody closed: let its workers go
        for pool in [getattr(self, "_pool", None)] + getattr(self, "_lanes", []):
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)


#: Dask settings of the LocalCluster sgdma starts for a sweep (a cluster at --scheduler keeps its own).  Each one
#: is a diagnostic sampled for an interactive dashboard, which this cluster does not serve (bokeh is not among our
#: extras); on a machine whose every core runs a worker, their CPU comes out of the chunks' (docs/performance.md,
#: "Sweeps on Dask"; measured with benchmarks/dask_overhead.py and the idle-cluster figures there):
#: - the statistical profiler samples the running task's Python stack every 10 ms for the Profile page and
#:   Client.profile(); a chunk's stack is one C call.  Off.
#: - the event-loop tick (20 ms) only measures how late the loop runs, to warn when it was blocked longer than
#:   distributed.admin.tick.limit (3 s); a 1 s tick still sees such a block.
#: - the system monitor (500 ms) records CPU, memory, network and disk I/O for the dashboard's plots and the
#:   heartbeats' metrics; every 5 s is plenty for a batch of chunks.
#: - the memory monitor (100 ms) spills, pauses or restarts a worker near its memory limit; a worker holds one
#:   board and a chunk's arrays (~20 MB on S0's largest chunk), so a check every second still acts in time.
LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}


class DaskExecutor:
    """Dask distributed: a scheduler at ``address``, or a LocalCluster of ``jobs`` single-threaded workers."""

    def __init__(self, address: str | None = None, jobs: int | None = None, connect_timeout_s: float = 10.0):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ExecutorError('--executor dask needs Dask distributed: pip install "sgdma[cluster]"') from None
        self._cluster = None
        if address:
            try:
                self.client = Client(address, timeout=f"{connect_timeout_s}s")
            except (OSError, TimeoutError) as e:
                raise ExecutorError(f"--scheduler {address}: no Dask scheduler answered within "
                                    f"{connect_timeout_s:g} s ({e.__class__.__name__}); start one with "
                                    f"`dask scheduler` or leave --scheduler out for a local cluster") from None
            except Exception as e:   # something answered, but not as a scheduler (a proxy, another service)
                raise ExecutorError(f"--scheduler {address}: what answered there is not a Dask scheduler "
                                    f"({e.__class__.__name__}: {str(e)[:120]}); give the address `dask "
                                    f"scheduler` prints, or leave --scheduler out for a local cluster") from None
        else:
            import dask

            with dask.config.set(LOCAL_CLUSTER_CONFIG):     # the nannies hand it to the worker processes
                self._cluster = LocalCluster(n_workers=jobs or default_jobs(), threads_per_worker=1,
                                             processes=True, dashboard_address=":0")
            self.client = Client(self._cluster)
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})) or (jobs or 1))

    def map(self, fn: Callable, tasks: list, keep_going: bool = False) -> Iterator[tuple[int, object]]:
        """``keep_going``: a task that killed its workers (Dask's KilledWorker, after its allowed retries)
        yields a WorkerLost as its result; the other tasks run on."""
        from distributed import KilledWorker, as_completed

        futures = self.client.map(fn, tasks, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            for f in as_completed(futures):
                if keep_going and f.status == "error" and isinstance(f.exception(), KilledWorker):
                    yield index[f.key], WorkerLost(_brief(f.exception()))
                    continue
                yield index[f.key], f.result()
        except BaseException:
            self.client.cancel(futures)
            raise

    def stop(self) -> None:
        """Stop now (Ctrl-C): a LocalCluster's workers are killed rather than waited for (its nanny would wait
        4 s for a worker busy in C, then kill it and log warnings); a remote cluster's tasks are left to it."""
        import logging

        log = logging.getLogger("distributed")
        level = log.level
        log.setLevel(logging.CRITICAL)                    # the shutdown we asked for is no news
        try:
            if self._cluster is not None:
                for nanny in list(getattr(self._cluster, "workers", {}).values()):
                    pid = getattr(getattr(nanny, "process", None), "pid", None)
                    if pid:
                        with contextlib.suppress(OSError):
                            os.kill(pid, signal.SIGKILL)
            self.close()
        finally:
            log.setLevel(level)                           # the caller's logging is theirs

    def close(self) -> None:
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()


def _brief(e: BaseException) -> str:
    """An executor's exception in one short clause (Dask's KilledWorker text runs to several sentences)."""
    text = str(e).split(". ")[0].strip().rstrip(".")
    return f"{type(e).__name__}: {text[:160]}" if text else type(e).__name__


def check_jobs(jobs) -> int | None:
    """``jobs``: None (every core) or a whole number >= 1; anything else is refused, not run serially."""
    if jobs is None:
        return None
    try:
        n = None if isinstance(jobs, bool) else operator.index(jobs)     # numpy integers too, not 2.5 or "3"
    except TypeError:
        n = None
    if n is None or n < 1:
        raise ValueError(f"--jobs {jobs!r}: give a whole number of workers >= 1, or leave it out for every core "
                         f"({default_jobs()} here)")
    return n


def make_executor(kind: str = "processes", jobs: int | None = None, scheduler: str | None = None):
    jobs = check_jobs(jobs)
    if kind == "dask":
        return DaskExecutor(scheduler, jobs)
    if scheduler:
        raise ValueError("--scheduler applies to --executor dask only")
    return LocalExecutor(jobs, kind)


def run_all(executor, fn: Callable, tasks: Iterable) -> list:
    """Every result, in task order."""
    tasks = list(tasks)
    out = [None] * len(tasks)
    for i, r in executor.map(fn, tasks):
        out[i] = r
    return out
