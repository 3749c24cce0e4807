"""Will a design keep up?  Decided by short runs of the timed virtual board.

Need: `channels` gate streams of `bytes_per_gate` every `gate_time_ns`, multiplexed
on one AXI DMA.  For BDs carrying 1, 2, 4, ... whole gates (one packet per BD),
the planner measures the worst-case throughput over seeded trials (S0's method)
and plays a short sequence into the DAC model to count underflows; it recommends
the smallest BD that keeps up with margin, and the smallest ring whose worst
trial still does.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from sgdma.experiments import characterize as ch
from sgdma.experiments import fidelity as fid
from sgdma.board.virtual import VirtualBoard
from sgdma.driver.axidma import AxiDma
from sgdma.hw import units
from sgdma.hw.layout import Layout

MARGIN_TARGET = 1.2       # keep 20 % headroom over the need, on the worst trial
RING_CANDIDATES = (16, 64, 256, 1024, 4096)


@dataclass
class Plan:
    board: str
    feasible: bool
    margin: float                 # worst-trial throughput / required throughput
    required_mbps: float
    achieved_mbps: float
    recommended_bytes_per_bd: int
    recommended_gates_per_bd: int
    recommended_ring_bds: int
    underflows: int
    reason: str
    tried: list
    cpu_load_mbps: float = 0.0          # the background CPU load the short runs had (0: none)
    cpu_load_read_fraction: float = 0.0
    fidelity: str = "exact"             # the fidelity of the short runs (the DAC playback runs exact under fast)
    extrapolated: int = 0               # trials extrapolated (fast), over every candidate measured
    exact_bds: int = 0                  # BDs simulated exactly in the candidates' trials
    error_estimate: float = 0.0         # bound of the relative throughput error of any trial (0: all exact)
    fidelity_note: str = ""

    def as_dict(self) -> dict:
        return asdict(self)

    def _repr_html_(self) -> str:
        """In Jupyter: the plan report's first screen (verdict, margin, recommendation), as `sgdma plan --out`."""
        from sgdma.output.report import Report

        return Report({"kind": "plan", "version": 1, "title": f"sgdma plan on {self.board}",
                       **self.as_dict()})._repr_html_()


def short_playback(board_name: str, bytes_per_bd: int, n_bds: int, word_ns: float, fifo: int, seed: int,
                   cpu_load=None, fidelity: str = "exact") -> dict:
    """Play n_bds packets of bytes_per_bd into the DAC consumer; its report.  Paced by the DAC, so `fast`
    plays exact (the estimator is not validated for DAC pacing); `functional` uses its ideal memory path."""
    b = VirtualBoard(board_name, seed=seed, timing_only=True, cpu_load=cpu_load, options=fid.board_options(fidelity))
    dma = AxiDma(b)
    dma.reset()
    b.dac.configure(word_ns, word_ns * max(1, fifo // 2), fifo)
    buf = b.allocate(n_bds * bytes_per_bd)
    ring = dma.mm2s.ring(n_bds)
    ring.fill(buf.physical_address + np.arange(n_bds, dtype=np.uint64) * bytes_per_bd,
              np.full(n_bds, bytes_per_bd, np.uint32))
    ring.submit()
    b.run_until_quiet()
    return b.dac.report()


@dataclass(frozen=True)
class Bound:
    """An analytic limit checked before any simulation: what it is, the need and the capacity."""
    name: str            # "stream bandwidth", "memory bandwidth", "memory", "BD length"
    need: float
    capacity: float
    unit: str
    why: str

    @property
    def ok(self) -> bool:
        return self.need <= self.capacity


def bounds(gate_time_ns: float, bytes_per_gate: int, channels: int, board: VirtualBoard) -> list[Bound]:
    """Every analytic bound of the design on ``board`` (PG021: the stream moves one data-width word per DMA
    clock; a gate that is not a whole number of words still takes its last beat, with TKEEP)."""
    blk = board.axi_dma
    width = blk.data_bytes
    beats = -(-bytes_per_gate // width)
    beat_ns = 1e3 / blk.clock_mhz
    stream_mbps = width * blk.clock_mhz
    need_stream = channels * beats * width / gate_time_ns * 1e3
    out = [Bound("stream bandwidth", need_stream, stream_mbps, "MB/s",
                 f"{channels} x {beats} beat(s) of {width} B per {gate_time_ns:g} ns gate; the {blk.data_width}-bit "
                 f"stream at {blk.clock_mhz:g} MHz moves one beat per {beat_ns:.3g} ns "
                 f"(a gate needs >= {channels * beats * beat_ns:.4g} ns)")]
    ic_w, ic_mhz = board.option("ic.width_bits"), board.option("ic.clock_mhz")
    if ic_w > 0 and ic_mhz > 0:
        out.append(Bound("memory bandwidth", channels * bytes_per_gate / gate_time_ns * 1e3, ic_w / 8 * ic_mhz, "MB/s",
                         f"the DMA reads through a {ic_w:g}-bit memory port at {ic_mhz:g} MHz (preset [ic])"))
    lay = Layout.of(board)
    out.append(Bound("memory", 2 * beats * width, lay.buffer_bytes, "B",
                     f"a ring needs room for at least two gates ({beats * width} B each) in the "
                     f"{lay.buffer_bytes} B buffer region of the preset's [layout]"))
    return out


def plan(gate_time_ns: float, bytes_per_gate: int, channels: int = 1, board: str = "zcu111",
         fifo_depth: int = 64, trials: int = 20, seed: int = 0, cpu_load=None, executor=None,
         progress=None, fidelity: str = "exact", fast_periods: int = fid.DEFAULT_PERIODS,
         tolerance: float = fid.DEFAULT_TOLERANCE) -> Plan:
    """A verdict for every input: infeasible with the analytic bound that rules it out before any simulation;
    otherwise short timed runs decide (worst-trial throughput, then DAC underflows behind the FIFO).
    ``cpu_load``: a background CPU load competing for DRAM in every run (as VirtualBoard's).

    The trials of every candidate run on ``executor`` (sgdma.executor; default: this process), one executor
    for the whole plan; ``progress(trials_done, None)`` counts trials as they finish (the total is not known
    ahead: the search stops at the first candidate that keeps up)."""
    load = ch.CpuLoad.of(cpu_load)
    fid.check(fidelity, fast_periods, tolerance)
    tag = {"cpu_load_mbps": load.rate_mbps if load else 0.0, "cpu_load_read_fraction": load.read_fraction if load
           else 0.0, "fidelity": fidelity}
    loaded = (f"; under a background CPU load of {load.rate_mbps:g} MB/s ({100 * load.read_fraction:.0f} % reads)"
              if load else "")
    if not (isinstance(gate_time_ns, (int, float)) and math.isfinite(gate_time_ns) and gate_time_ns > 0):
        raise ValueError(f"gate time {gate_time_ns!r} ns: must be a finite time > 0")
    for name, v, lo in (("bytes per gate", bytes_per_gate, 1), ("channels", channels, 1),
                        ("fifo depth", fifo_depth, 1), ("trials", trials, 1), ("seed", seed, 0)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ValueError(f"{name} {v!r}: must be a whole number >= {lo}")
    span_ns = gate_time_ns * 4096 * 256 * channels            # the longest playback the planner may run
    if span_ns > units.TIME_MAX_NS:
        raise ValueError(f"--gate-time {gate_time_ns:g} ns: a planning playback (up to 256 BDs x 4096 gates) would span "
                         f"{span_ns / 1e9:.3g} s of virtual time, beyond the board clock's {units.TIME_MAX_NS / 1e9:.3g} s; "
                         f"use a gate time under {units.TIME_MAX_NS / (4096 * 256 * channels) / 1e9:.3g} s")
    vb = VirtualBoard(board, cpu_load=load)
    width, max_len = vb.axi_dma.data_bytes, vb.axi_dma.max_length
    gate_bytes = -(-bytes_per_gate // width) * width          # whole stream words per gate
    need = channels * bytes_per_gate / gate_time_ns * 1e3     # MB/s
    for b in bounds(gate_time_ns, bytes_per_gate, channels, vb):
        if not b.ok:
            return Plan(board, False, b.capacity / b.need, need, 0.0, gate_bytes, 1, 0, 0,
                        f"{b.name}: needs {b.need:.4g} {b.unit}, at most {b.capacity:.4g} {b.unit} ({b.why}); "
                        "decided analytically, nothing simulated", [], **tag)
    lay = Layout.of(vb)
    setup = ch.Setup(board=board, trials=trials, seed=seed, timing_only=True, cpu_load=load, fidelity=fidelity,
                     fast_periods=fast_periods, tolerance=tolerance)
    from sgdma.executor import LocalExecutor

    executor = executor or LocalExecutor(1)
    done = [0]
    notes = [fid.FUNCTIONAL_NOTE] if fidelity == "functional" else []

    def measure(bpb: int, n: int):
        """One candidate's record, its trials in chunks on the executor."""
        base = done[0]
        count = (lambda d, t: progress(base + d, None)) if progress else None
        (rec,) = ch.sweep(setup, [ch.Point(bpb, n)], executor=executor, progress=count)
        done[0] += trials
        tag["extrapolated"] = tag.get("extrapolated", 0) + rec.extrapolated
        tag["exact_bds"] = tag.get("exact_bds", 0) + rec.exact_bds
        tag["error_estimate"] = max(tag.get("error_estimate", 0.0), rec.error_estimate)
        if rec.fidelity_note and rec.fidelity_note not in notes:
            notes.append(rec.fidelity_note)
        tag["fidelity_note"] = "; ".join(notes)
        return rec

    tried, choice = [], None
    largest_bd = max_len // width * width
    k = 1
    while k <= 4096:
        bpb = min(k * gate_bytes, largest_bd)                  # a gate over the BD limit spans several BDs
        n_bds = min(1024, lay.max_bds, lay.buffer_bytes // bpb)
        if n_bds < 2:
            break
        rec = measure(bpb, n_bds)
        worst = rec.throughput_mbps["min"]
        tried.append({"bytes_per_bd": bpb, "gates_per_bd": k, "bds": n_bds, "worst_mbps": worst, "median_mbps":
                      rec.throughput_mbps["median"], "latency_ns_max": rec.latency_ns["max"]})
        if worst >= MARGIN_TARGET * need:
            choice = (k, bpb, worst)
            break
        if bpb == largest_bd or (k * 2) * gate_bytes > max_len:
            break
        k *= 2
    if choice is None:
        best = max(tried, key=lambda t: t["worst_mbps"]) if tried else {"worst_mbps": 0.0, "bytes_per_bd": gate_bytes,
                                                                           "gates_per_bd": 1}
        return Plan(board, False, best["worst_mbps"] / need, need, best["worst_mbps"], best["bytes_per_bd"],
                    best["gates_per_bd"], 0, 0,
                    f"measured throughput: needs {need:.1f} MB/s with {MARGIN_TARGET:.1f}x margin; the best BD size "
                    f"({best['bytes_per_bd']} B) reaches {best['worst_mbps']:.1f} MB/s on its worst trial{loaded}",
                    tried, **tag)
    k, bpb, worst = choice
    # the DAC plays one word every word_ns: channels gates of gate_bytes per gate time
    word_ns = gate_time_ns / (channels * gate_bytes / width)
    n_play = min(256, lay.max_bds, lay.buffer_bytes // bpb)
    report = short_playback(board, bpb, n_play, word_ns, fifo_depth, seed, load, fidelity)
    if fidelity == "fast":
        notes.append("the DAC playback ran exact (the fast estimator is not validated for DAC pacing)")
        tag["fidelity_note"] = "; ".join(notes)
    ring_bds = next((n for n in RING_CANDIDATES if n * bpb <= lay.buffer_bytes and n <= lay.max_bds
                     and measure(bpb, n).throughput_mbps["min"] >= MARGIN_TARGET * need),
                    0)
    under = len(report["underflows"])
    feasible = under == 0
    reason = (f"{k} gate(s) of {gate_bytes} B per BD sustain {worst:.1f} MB/s on the worst of {trials} trials "
              f"against {need:.1f} MB/s needed ({worst / need:.2f}x); a {n_play}-BD playback into a "
              f"{fifo_depth}-word DAC FIFO had {under} underflows")
    if not feasible:
        reason = f"FIFO: {reason} (a deeper FIFO or larger BDs hide the DMA's per-BD gaps)"
    if bpb < gate_bytes:
        reason += f"; a gate of {gate_bytes} B spans {-(-gate_bytes // bpb)} BDs of one packet"
    elif k > 1:
        reason += "; one packet per BD then carries several gates (the PL splits them by size)"
    if not ring_bds:
        reason += (f"; no ring of {', '.join(map(str, RING_CANDIDATES))} BDs kept the {MARGIN_TARGET:.1f}x margin on "
                   "its worst trial: use a longer ring in cyclic mode and verify with sgdma run")
    reason += loaded
    return Plan(board, feasible, worst / need, need, worst, bpb, k, ring_bds, under, reason, tried, **tag)


def shortest_gate_time(board: str, bytes_per_gate: int, fifo_depth: int = 64, seed: int = 0, n_gates: int = 128,
                       max_runs: int = 14, rel_tol: float = 0.02, cpu_load=None) -> float:
    """Shortest gate time (ns) at which n_gates one-BD gates of bytes_per_gate play into the DAC model
    with zero underflows: bisected in log time between a failing and a passing point, at most max_runs plays."""
    vb = VirtualBoard(board, timing_only=True, cpu_load=cpu_load)
    width, clk = vb.axi_dma.data_bytes, 1e3 / vb.axi_dma.clock_mhz
    words = -(-bytes_per_gate // width)
    fails = lambda t: bool(short_playback(board, words * width, n_gates, t / words, fifo_depth, seed,  # noqa
                                          cpu_load)["underflows"])
    lo = words * clk * 0.999                  # below one word per stream clock nothing keeps up
    hi = max(lo * 2, 100.0)
    runs = 0
    while fails(hi) and runs < max_runs // 2:
        lo, hi, runs = hi, hi * 4, runs + 1
    runs += 1
    while runs < max_runs and hi / lo > 1 + rel_tol:
        mid = (lo * hi) ** 0.5
        if fails(mid):
            lo = mid
        else:
            hi = mid
        runs += 1
    return hi


def _shortest_row(task) -> float:
    board, b, fifo_depth, seed, max_runs, cpu_load = task
    return shortest_gate_time(board, b, fifo_depth, seed, max_runs=max_runs, cpu_load=cpu_load)


def feasibility_map(gate_times_ns, bytes_per_gate, board: str = "zcu111", fifo_depth: int = 64, seed: int = 0,
                    max_runs: int = 14, cpu_load=None, executor=None) -> dict:
    """Margin (gate time / shortest sustainable gate time) over gate time x bytes per gate; >= 1 plays
    without underflow.  One bounded bisection per bytes-per-gate row; the rows run on ``executor``."""
    from sgdma.executor import LocalExecutor, run_all

    gate_times_ns = [float(t) for t in gate_times_ns]
    shortest = run_all(executor or LocalExecutor(1), _shortest_row,
                       [(board, int(b), fifo_depth, seed, max_runs, cpu_load) for b in bytes_per_gate])
    return {"gate_time_ns": gate_times_ns, "bytes_per_gate": [int(b) for b in bytes_per_gate],
            "shortest_gate_time_ns": shortest,
            "margin": [[t / s for t in gate_times_ns] for s in shortest]}
