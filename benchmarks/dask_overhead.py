"""Where a sweep's time goes on each executor: S0's chunks on 2 local processes and on a 2-worker Dask
LocalCluster (sgdma's settings, and Dask's defaults), run back to back, alternating.

Wall time on a shared machine is noise; this prints what does not depend on the load as much: the CPU time of
the chunks themselves (measured in the task), the CPU the executor's own machinery burns meanwhile (the parent,
with Dask's scheduler, client and nannies, and every other thread of the workers), the idle time of the workers
between chunks, and the chunk thread's page faults.

    PYTHONPATH=src python3 benchmarks/dask_overhead.py [--trials 100] [--rounds 2]

Needs the cluster extra (pip install ".[cluster]"; Dask brings psutil, used here to read the children's CPU).
"""
from __future__ import annotations

import argparse
import gc
import os
import resource
import threading
import time


def probe_chunk(task):
    """run_chunk, with the worker's view: start/stop, this thread's CPU and faults, the other threads' CPU."""
    from sgdma.experiments import characterize as ch

    r0 = resource.getrusage(resource.RUSAGE_THREAD)
    t0, c0, p0 = time.time(), time.thread_time(), time.process_time()
    ch.run_chunk(task)
    t1, c1, p1 = time.time(), time.thread_time(), time.process_time()
    r1 = resource.getrusage(resource.RUSAGE_THREAD)
    return {"pid": os.getpid(), "t0": t0, "t1": t1, "cpu": c1 - c0, "others": (p1 - p0) - (c1 - c0),
            "minflt": r1.ru_minflt - r0.ru_minflt, "threads": threading.active_count()}


def _children_cpu() -> dict[int, float]:
    import psutil

    out = {}
    for c in psutil.Process().children(recursive=True):
        try:
            t = c.cpu_times()
            out[c.pid] = t.user + t.system
        except psutil.Error:
            pass
    return out


def run(kind: str, trials: int) -> str:
    import sgdma.executor as sx
    from sgdma.experiments import characterize as ch

    setup = ch.Setup(trials=trials)
    if kind == "dask-defaults":
        saved, sx.LOCAL_CLUSTER_CONFIG = sx.LOCAL_CLUSTER_CONFIG, {}
        try:
            ex = sx.make_executor("dask", 2)
        finally:
            sx.LOCAL_CLUSTER_CONFIG = saved
    else:
        ex = sx.make_executor(kind, 2)
    try:
        tasks = [(setup, c) for c in ch.plan_chunks(setup, ch.s0_points(), 2)]
        list(ex.map(probe_chunk, tasks[-4:]))            # the workers' imports and boards are not the sweep
        gc.collect()
        load = os.getloadavg()[0]
        k0, c0, T0 = _children_cpu(), time.process_time(), time.time()
        rs = [r for _, r in ex.map(probe_chunk, tasks)]
        wall, parent = time.time() - T0, time.process_time() - c0
        k1 = _children_cpu()
    finally:
        ex.close()
    chunk_cpu = sum(r["cpu"] for r in rs)
    children = sum(v - k0.get(p, 0.0) for p, v in k1.items())
    machinery = parent + children - chunk_cpu             # everything but the chunks' own threads
    idle = 0.0
    for pid in {r["pid"] for r in rs}:
        spans = sorted((r["t0"], r["t1"]) for r in rs if r["pid"] == pid)
        idle += spans[0][0] - T0 + sum(b[0] - a[1] for a, b in zip(spans, spans[1:]))
    return (f"{kind:14s} wall {wall:6.1f} s (load {load:.2f})  chunk CPU {chunk_cpu:6.1f} s  executor CPU "
            f"{machinery:5.2f} s (workers' other threads {sum(r['others'] for r in rs):5.2f} s, parent "
            f"{parent:4.2f} s) = {machinery / wall:.3f} cores  idle between chunks {idle:4.2f} s  "
            f"faults {sum(r['minflt'] for r in rs)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--kinds", default="processes,dask,dask-defaults")
    a = ap.parse_args()
    for _ in range(a.rounds):
        for kind in a.kinds.split(","):
            print(run(kind, a.trials), flush=True)


if __name__ == "__main__":
    main()
