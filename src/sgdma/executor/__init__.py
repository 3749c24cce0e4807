"""Where chunks of work run: threads or processes on this machine, or a Dask cluster.

An executor maps a picklable function over a list of tasks and yields ``(index, result)`` as each finishes,
in whatever order they finish; callers reassemble by index, so results never depend on where or in which order
work ran.  Dask is an optional extra (``pip install "sgdma[cluster]"``).
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
from typing import Callable, Iterable, Iterator


class ExecutorError(RuntimeError):
    """The executor could not run (a scheduler that cannot be reached, a missing extra, a dead worker)."""


def default_jobs() -> int:
    """Every core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:          # pragma: no cover  (not Linux)
        return max(1, multiprocessing.cpu_count())


class LocalExecutor:
    """Threads (the C core releases the GIL while it simulates) or forked processes.  The pool starts at the
    first map that needs one and serves every later map until close(): a command that maps many times
    (plan: one sweep per candidate size) forks its workers once."""

    def __init__(self, jobs: int | None = None, kind: str = "processes"):
        if kind not in ("threads", "processes"):
            raise ValueError(f"--executor {kind!r}: choose threads, processes or dask")
        self.jobs = jobs or default_jobs()
        self.kind = kind
        self.workers = self.jobs
        self._pool = None
        self.pools_started = 0

    def _get_pool(self):
        if self._pool is None:
            if self.kind == "threads":
                self._pool = cf.ThreadPoolExecutor(self.jobs)
            else:
                self._pool = cf.ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("fork"))
            self.pools_started += 1
        return self._pool

    def map(self, fn: Callable, tasks: list) -> Iterator[tuple[int, object]]:
        if self.jobs <= 1 or len(tasks) <= 1:
            for i, t in enumerate(tasks):
                yield i, fn(t)
            return
        pool = self._get_pool()
        futures = {pool.submit(fn, t): i for i, t in enumerate(tasks)}
        try:
            for f in cf.as_completed(futures):
                yield futures[f], f.result()
        except BaseException as e:
            for f in futures:
                f.cancel()
            if isinstance(e, cf.BrokenExecutor):      # a worker died: the next map gets a fresh pool
                self.close()
            raise

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __del__(self):                                # an executor nobody closed: let its workers go
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


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
            self._cluster = LocalCluster(n_workers=jobs or default_jobs(), threads_per_worker=1, processes=True,
                                         dashboard_address=None)
            self.client = Client(self._cluster)
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})) or (jobs or 1))

    def map(self, fn: Callable, tasks: list) -> Iterator[tuple[int, object]]:
        from distributed import as_completed

        futures = self.client.map(fn, tasks, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            for f in as_completed(futures):
                yield index[f.key], f.result()
        except BaseException:
            self.client.cancel(futures)
            raise

    def close(self) -> None:
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()


def make_executor(kind: str = "processes", jobs: int | None = None, scheduler: str | None = None):
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
