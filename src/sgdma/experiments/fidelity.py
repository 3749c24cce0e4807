"""Declared fidelities of a run: exact (the reference), fast (exact prefix + extrapolation), functional (untimed).

exact       every BD through the DMA, interconnect, DDR controller and DRAM model: the reference.
fast        per trial, the exact trial up to a window of whole DRAM refresh periods after a warm-up, then the
            remaining BDs extrapolated at the window's time per BD (csrc/python/s0_fast.c).  Latency and set-up
            are the exact counters; throughput carries a per-trial error estimate, checked against exact by
            ``--fast-check`` and tests/test_fidelity_fast.py.  Where the estimator is not validated the trials
            run exact and the record says why.
functional  SG rings walked untimed (dma.functional, csrc/vboard/dma/functional.c): a tail write's BDs are
            checked, moved and written back at once, at a constant one beat per DMA clock, over an ideal memory
            path (no DRAM or interconnect timing).  What QEMU's model gives: registers, descriptors, data,
            interrupts and errors those of exact, times not those of the board.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sgdma.board.fidelity import (DEFAULT_PERIODS, DEFAULT_TOLERANCE, FIDELITIES, FUNCTIONAL_NOTE,  # noqa: F401
                                  FUNCTIONAL_OPTIONS, MAX_PERIODS_FACTOR, FidelityError, board_options, check,
                                  parse_tolerance)

#: BDs skipped before the window (queues fill, rows open); assumed: 16 covers the SG engine's prefetch queue
#: (4 BDs on S0's boards) and the DataMover's outstanding bursts several times over.
WARMUP_BDS = 16


def unvalidated(setup) -> str:
    """Why `fast` runs this setup's trials exact ('' when it extrapolates): the estimator is validated on SG
    MM2S, sequential or random buffers, with no competing load only (tests/test_fidelity_fast.py,
    docs/performance.md)."""
    why = []
    if setup.direction != "mm2s":
        why.append("S2MM")
    if setup.mode != "sg":
        why.append("simple mode")
    if setup.cpu_load is not None:
        why.append("--cpu-load")
    return ", ".join(why)


@dataclass
class FastTrials:
    setup_clocks: np.ndarray
    latency_clocks: np.ndarray
    throughput_clocks: np.ndarray
    extrapolated: np.ndarray      # bool per trial
    exact_bds: np.ndarray         # BDs simulated exactly per trial
    error_estimate: np.ndarray    # relative error bound of the throughput, per trial (0 for exact trials)
    simulated_ps: np.ndarray      # virtual time the trial stands for (exact part + extrapolated part)


def fast_trials(bench, p, seeds: np.ndarray, poll_limit: int) -> FastTrials:
    """S0's MM2S trials at the fast fidelity (csrc/python/s0_fast.c), one C call for all seeds."""
    from sgdma.board.programs import s0_fast_trials

    b, lay, blk, s = bench.board, bench.layout, bench.board.axi_dma, bench.setup
    raw = s0_fast_trials(
        b, dma_base=blk.base, gpio_base=b.gpio_base, bd_dev=lay.bd_base, bd_capacity=lay.max_bds,
        buffer_base=lay.buffer_base, buffer_bytes=lay.buffer_bytes, addr_width=blk.addr_width,
        length_width=blk.length_width, data_bytes=blk.data_bytes, poll_limit=poll_limit,
        bytes_per_bd=p.bytes_per_bd, bds=p.bds, cycles=p.cycles, random=s.placement == "random",
        seeds=seeds.tobytes(), warmup=WARMUP_BDS,
        periods=s.fast_periods, max_periods=s.fast_periods * MAX_PERIODS_FACTOR, accept=s.tolerance / 2,
        clk_ps=bench.clk_ns * 1e3, trfc_ps=b.option("dram.trfc_ns") * 1e3)
    o = np.frombuffer(raw, dtype=np.float64).reshape(-1, 7)
    return FastTrials(o[:, 0], o[:, 1], o[:, 2], o[:, 3] > 0, o[:, 4].astype(np.int64), o[:, 5].copy(),
                      np.round(o[:, 6]).astype(np.uint64))


def stratified(points: list, k: int, seed: int) -> list[int]:
    """Indices of k points drawn across the sweep's strata (BD size x ring length x cycles ranks), so small
    and large, short and long points are all checked: the points sorted by (cycles, bds, bytes) are cut into
    k equal strata and one is drawn at random from each."""
    order = sorted(range(len(points)), key=lambda i: (points[i].bds * points[i].cycles, points[i].bytes_per_bd))
    k = max(1, min(k, len(points)))
    rng = np.random.default_rng([seed, 27])
    edges = [len(order) * j // k for j in range(k + 1)]
    return sorted(order[int(rng.integers(lo, hi))] for lo, hi in zip(edges, edges[1:]) if hi > lo)


def check_errors(fast_records: list, exact_records: list) -> dict:
    """Max relative error of the median/min/max throughput and latency of fast records against exact ones (the
    same points), and the largest error estimate fast reported."""
    out = {"throughput": 0.0, "latency": 0.0, "estimate": 0.0}
    for f, e in zip(fast_records, exact_records):
        for stat in ("median", "min", "max"):
            out["throughput"] = max(out["throughput"],
                                    abs(f.throughput_mbps[stat] / e.throughput_mbps[stat] - 1))
            out["latency"] = max(out["latency"], abs(f.latency_ns[stat] / e.latency_ns[stat] - 1))
        out["estimate"] = max(out["estimate"], f.error_estimate)
    return out
