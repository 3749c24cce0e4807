"""Freestanding C programs (csrc/apps) run against a virtual board, in C, one call per batch of trials."""
from __future__ import annotations

from sgdma import _core


def s0_trials(board, **kwargs) -> tuple[bytes, bytes]:
    """S0's RPU benchmark (csrc/apps/s0_bench.c) over the driver core on `board`: one point, one trial per
    seed; returns the raw counters (uint32 x 4 per trial) and simulated ps per trial (uint64)."""
    return _core.s0_trials(board._b, **kwargs)


def s0_fast_trials(board, **kwargs) -> bytes:
    """The same program at the fast fidelity (csrc/python/s0_fast.c): per trial, float64 x 7 (set-up, latency
    and throughput clocks, extrapolated, exact BDs, error estimate, simulated ps)."""
    return _core.s0_fast_trials(board._b, **kwargs)
