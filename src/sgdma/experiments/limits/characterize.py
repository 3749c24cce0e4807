"""Characterize: each point's regime, from replays of the same trials (same seeds) with one resource relaxed.

* refresh-bound: DDR refresh off (dram.trefi_ns = 0) lifts the median throughput;
* fetch-bound: a zero-latency interconnect (ic.request_ns = ic.response_ns = 0) lifts it: the SG engine
  waits on round trips (BD fetches and data reads) between BDs;
* stream-bound: neither lifts it and the median is within 10 % of the stream's width x clock;
* overhead-bound: neither lifts it, below the stream: fixed per-transfer costs (DataMover command,
  status write-back) of the model.
The larger lift names the regime when both lift it.  The replays run at exact fidelity (a functional sweep has
no memory timing to relax: the command refuses --out with it)."""
from __future__ import annotations

from dataclasses import replace

from sgdma.experiments import characterize as ch
from sgdma.experiments.limits import LIFT

RELAX = {"DDR refresh": (("dram.trefi_ns", 0.0),),
         "round trips": (("ic.request_ns", 0.0), ("ic.response_ns", 0.0))}
REGIME = {"DDR refresh": "refresh-bound", "round trips": "fetch-bound"}
STREAM_SHARE = 0.9
MAX_TRIALS = 8             # trials per point of a relaxed replay (same seeds as the sweep's first ones)


def analyse(setup: ch.Setup, points: list, records: list, executor=None) -> dict:
    """``records``: the sweep's (dicts or Records, in the order of ``points``).  Returns the stream ceiling
    (MB/s) and one row per point: regime, the median with each resource relaxed and its lift."""
    from sgdma.board.virtual import VirtualBoard

    b = VirtualBoard(setup.board, port=setup.port)
    ceiling = b.axi_dma.data_bytes * b.axi_dma.clock_mhz          # bytes/us = MB/s
    # replays at exact fidelity: the fast estimator's window is whole refresh periods, which one replay turns off
    short = replace(setup, trials=min(setup.trials, MAX_TRIALS), fidelity="exact")
    base = {(r.bytes_per_bd, r.bds, r.cycles): r.throughput_mbps["median"]
            for r in ch.sweep(short, points, executor=executor)}
    relaxed = {}
    for name, opts in RELAX.items():
        relaxed[name] = {(r.bytes_per_bd, r.bds, r.cycles): r.throughput_mbps["median"]
                         for r in ch.sweep(replace(short, options=opts), points, executor=executor)}
    rows = []
    for rec in records:
        r = rec if isinstance(rec, dict) else rec.__dict__
        key = (r["bytes_per_bd"], r["bds"], r["cycles"])
        lift = {n: relaxed[n][key] / base[key] if base[key] else 1.0 for n in RELAX}
        top = max(lift, key=lift.get)
        if lift[top] >= LIFT:
            regime = REGIME[top]
        elif base[key] >= STREAM_SHARE * ceiling:
            regime = "stream-bound"
        else:
            regime = "overhead-bound"
        rows.append({"bytes_per_bd": key[0], "bds": key[1], "cycles": key[2], "regime": regime,
                     "median_mbps": base[key], "lift": lift})
    return {"stream_ceiling_mbps": ceiling, "trials": short.trials, "relaxations": {k: dict(v) for k, v in
                                                                                     RELAX.items()},
            "points": rows}
