#!/usr/bin/env python3
"""Simulated time per CPU second and per wall second of S0 points (timing only, one process), printed as JSON.

    PYTHONPATH=TREE/src python3 benchmarks/s0_points.py [--trials N] [--rounds R]

Runs against whichever sgdma the path gives, so benchmarks/run.py can time this tree and an older build (for
example wave 1's, commit 9973daa, built in a temporary directory) side by side on the same machine, in
alternating rounds so both see the same background load.  Works with the package layout before and after the
experiments/ subpackage.
"""
from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # idle BLAS threads spin on a small shared machine

import numpy as np  # noqa: E402

try:
    from sgdma.experiments import characterize as ch
except ImportError:                      # wave 1: sgdma.characterize
    from sgdma import characterize as ch  # type: ignore[no-redef]

#: the four points of the speed brief: large BDs in a cyclic ring, many tiny BDs, one large ring, small BDs cycled
POINTS = [(8192, 16, 64), (32, 1024, 1), (4096, 256, 1), (256, 16, 256)]


def sim_ps(result) -> float:
    """Simulated ps of a _c_trials result (an array of ps per trial now; total ns as a float in wave 1)."""
    sim = result[2]
    return float(np.sum(sim)) if isinstance(sim, np.ndarray) else float(sim) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    bench = ch.Bench(ch.Setup(trials=a.trials, seed=a.seed))
    bench.warm_up()
    out = {}
    for b, n, c in POINTS:
        p = ch.Point(b, n, c)
        seeds = ch.trial_seeds(a.seed, p, a.trials)
        c0, w0 = time.thread_time(), time.perf_counter()
        res = ch._c_trials(bench, p, seeds)
        cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
        out[f"{b}x{n}x{c}"] = {"sim_s": sim_ps(res) / 1e12, "cpu_s": cpu, "wall_s": wall}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
