#!/usr/bin/env python3
"""The S0 sweep at one fidelity, in this process, for counting its instructions under callgrind.

    valgrind --tool=callgrind --callgrind-out-file=OUT python3 benchmarks/fidelity_ir.py --fidelity fast
    valgrind ... python3 benchmarks/fidelity_ir.py --fidelity fast --trials 0     # the same start-up, no sweep

Prints JSON: the virtual ns the sweep stands for (fast: its exact part plus the extrapolated part).  The sweep's
instructions are the difference of the two runs' totals (benchmarks/run.py fidelity_s0 does both).
"""
from __future__ import annotations

import argparse
import json
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from sgdma.executor import LocalExecutor  # noqa: E402
from sgdma.experiments import characterize as ch  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fidelity", default="exact", choices=["exact", "fast", "functional"])
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--board", default="zcu111")
    a = ap.parse_args()
    setup = ch.Setup(board=a.board, trials=max(a.trials, 1), fidelity=a.fidelity)
    bench = ch.Bench(setup)
    bench.warm_up()
    out = {"virtual_ns": 0.0, "trials": 0, "extrapolated": 0}
    if a.trials:
        ex = LocalExecutor(1)
        recs = list(ch.sweep(setup, ch.s0_points(), executor=ex))
        ex.close()
        out = {"virtual_ns": sum(r.simulated_ns for r in recs), "trials": sum(r.trials for r in recs),
               "extrapolated": sum(r.extrapolated for r in recs)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
