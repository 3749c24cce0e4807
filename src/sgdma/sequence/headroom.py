"""Headroom: the shortest gate time a circuit sustains with zero underflows, bisected on the
model, and the resource that binds there.

The search replays the circuit on fresh boards (same preset, seed and FIFO) at other gate
times; it assumes more time per gate never hurts and is bounded by `max_runs` plays.  The
binding resource is decided from the model's own quantities: each resource's analytic bound on
the gate time, and two counterfactual replays at the failing gate time (refresh off, a 16x FIFO).
"""
from __future__ import annotations

import math

import numpy as np

from sgdma.sequence.playback import PlaybackConfig
from sgdma.sequence.runner import play_circuit

RESOURCES = ("stream bandwidth", "BD fetch", "DDR refresh", "FIFO depth", "hand-off latency")


def _fails(circuit, board, cfg, seed, t_ns, **kw) -> tuple[bool, object]:
    r, _, _ = play_circuit(circuit, board, cfg, seed, gate_time_ns=t_ns, **kw)
    return bool(r.underflows), r


def search(circuit, board: str, cfg: PlaybackConfig, seed: int = 0, max_runs: int = 16,
           rel_tol: float = 0.01) -> dict:
    """Bisect (in log gate time) between a failing and a passing gate time; at most max_runs plays."""
    runs = 0
    t = cfg.gate_time_ns
    lo = hi = None
    last_fail = None
    fails, r = _fails(circuit, board, cfg, seed, t)
    runs += 1
    if fails:
        lo, last_fail = t, r
        while runs < max_runs // 2:                      # grow until it passes
            t *= 2
            fails, r = _fails(circuit, board, cfg, seed, t)
            runs += 1
            if not fails:
                hi = t
                break
            lo, last_fail = t, r
    else:
        hi = t
        while runs < max_runs // 2:                      # shrink until it fails
            t /= 4
            fails, r = _fails(circuit, board, cfg, seed, t)
            runs += 1
            if fails:
                lo, last_fail = t, r
                break
            hi = t
    if lo is not None and hi is not None:
        while runs < max_runs and hi / lo > 1 + rel_tol:
            mid = math.sqrt(lo * hi)
            fails, r = _fails(circuit, board, cfg, seed, mid)
            runs += 1
            if fails:
                lo, last_fail = mid, r
            else:
                hi = mid
    return {"shortest_ok_ns": hi, "longest_failing_ns": lo, "runs": runs, "max_runs": max_runs,
            "resolution": (hi / lo - 1) if (lo and hi) else None,
            "failing_first_underflow_gate": last_fail.underflows[0].gate if last_fail is not None else None,
            "converged": bool(lo and hi and hi / lo <= 1 + rel_tol)}


def bounds(result, board_options: dict) -> dict:
    """Each resource's analytic lower bound on the gate time (ns), from the run's own quantities.

    m = median stream words per gate (the DAC plays one word every gate_time / m)."""
    beats = np.asarray(result.gate_beats, dtype=float)
    m = float(np.median(beats)) if len(beats) else 1.0
    clk = 1e3 / result.stream_clock_mhz
    f = np.asarray(result.bd_fetch_ns)
    fetch = float(np.median(f[:, 1] - f[:, 0])) if len(f) else 0.0
    total = float(beats.sum()) or 1.0
    n_bds = len(f) if len(f) else result.bds
    fifo = max(1, result.fifo_depth)
    trfc, trefi = board_options.get("trfc_ns", 0.0), board_options.get("trefi_ns", 0.0)
    out = {
        "stream bandwidth": {"bound_ns": m * clk,
                             "why": f"the stream moves one {result.word_bytes}-byte word per {clk:.2f} ns clock; "
                                    f"a median gate is {m:.0f} words"},
        "BD fetch": {"bound_ns": m * n_bds * fetch / total,
                     "why": f"the SG engine fetches one BD at a time, {fetch:.0f} ns each (median of this run); "
                            f"{n_bds} BDs for {total:.0f} words"},
        "DDR refresh": {"bound_ns": m * (trfc + fetch) / fifo if trefi > 0 else 0.0,
                        "why": (f"a {trfc:.0f} ns refresh window every {trefi / 1e3:.1f} us stops DDR reads; the "
                                f"{fifo}-word FIFO must play through it and the {fetch:.0f} ns refill")
                        if trefi > 0 else "refresh is off in this preset"},
        "FIFO depth": {"bound_ns": m * fetch / fifo,
                       "why": f"the {fifo}-word FIFO must cover one {fetch:.0f} ns DDR round trip when the DMA "
                              "moves to the next BD"},
        "hand-off latency": {"bound_ns": 0.0,
                             "why": f"the APU -> RPU hand-off ({result.mailbox_latency_ns:.0f} ns) and the start "
                                    f"latency ({result.latency_ns:.0f} ns) come before the DAC's clock starts, "
                                    "so they delay the start, not the gate rate"},
    }
    return out


def binding(circuit, board: str, cfg: PlaybackConfig, seed: int, found: dict, bnds: dict) -> dict:
    """Which resource binds at the headroom: counterfactual replays at the longest failing gate time,
    then the analytic bounds."""
    t = found.get("longest_failing_ns")
    evidence = {}
    if t:
        fails_now, r0 = _fails(circuit, board, cfg, seed, t)
        n0 = len(r0.underflows)
        _, r1 = _fails(circuit, board, cfg, seed, t, options={"dram.trefi_ns": 0.0})
        _, r2 = _fails(circuit, board, cfg, seed, t, fifo_depth=cfg.fifo_depth * 16)
        evidence = {"gate_time_ns": t, "underflows": n0, "refresh_off_underflows": len(r1.underflows),
                    "fifo_x16_underflows": len(r2.underflows)}
        if n0 and not r1.underflows and bnds["DDR refresh"]["bound_ns"] > 0:
            return {"resource": "DDR refresh", "evidence": evidence}
        if n0 and not r2.underflows:
            return {"resource": "FIFO depth", "evidence": evidence}
    name = max(("stream bandwidth", "BD fetch"), key=lambda k: bnds[k]["bound_ns"])
    return {"resource": name, "evidence": evidence}


def sentence(resource: str, headroom_ns: float, bnds: dict, evidence: dict, fifo_depth: int) -> str:
    b = bnds[resource]
    ev = ""
    if evidence:
        ev = (f" Replayed at {evidence['gate_time_ns']:.0f} ns: {_n(evidence['underflows'])} as configured, "
              f"{_n(evidence['refresh_off_underflows'])} with refresh off, "
              f"{_n(evidence['fifo_x16_underflows'])} with a {16 * fifo_depth}-word FIFO.")
    return (f"{resource} binds at {headroom_ns:.0f} ns per gate: {b['why']} "
            f"(bound {b['bound_ns']:.0f} ns).{ev}")


def analyse(circuit, board: str, cfg: PlaybackConfig, result, seed: int = 0, max_runs: int = 16) -> dict:
    """Headroom, margin and the binding resource for a run played at cfg.gate_time_ns."""
    found = search(circuit, board, cfg, seed, max_runs=max_runs)
    opts = _dram_timing(board)
    bnds = bounds(result, opts)
    bind = binding(circuit, board, cfg, seed, found, bnds)
    head = found["shortest_ok_ns"]
    margin = cfg.gate_time_ns / head if head else None
    return {"headroom_ns": head, "margin": margin, "search": found, "bounds": bnds, "binding": bind["resource"],
            "evidence": bind["evidence"],
            "sentence": sentence(bind["resource"], head, bnds, bind["evidence"], cfg.fifo_depth) if head else
            f"no gate time up to {found['longest_failing_ns']:.0f} ns played without underflows"}


def _dram_timing(board: str) -> dict:
    from sgdma.board.virtual import VirtualBoard

    vb = VirtualBoard(board)
    return {"trfc_ns": vb.option("dram.trfc_ns"), "trefi_ns": vb.option("dram.trefi_ns")}


def _n(k: int) -> str:
    return f"{k} underflow" + ("" if k == 1 else "s")
