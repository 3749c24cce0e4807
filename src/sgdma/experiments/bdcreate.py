"""S0's BD-ring creation experiment (sec. IV.B, Figs. 8-10) on the virtual board.

Measured the way S0 did: the creating CPU writes "reset PL" to the timing engine over GPIO,
builds the ring, writes "start"; the engine's setup counter (PL clocks, reset release to start
received) is the measurement, divided by the ring size for the per-BD figures.  The build's cost
comes from the CPU model (sgdma.cpu) and is charged to virtual time with ``board.advance``; the
GPIO writes are the board's own MMIO at that CPU's cost.

The engine counts deterministically from virtual time, so 100 000 samples need not each go
through the board: the first few do, end to end, and the rest are converted with the same
arithmetic as the engine (``setup_clocks``; the PL clock phase of their GPIO writes is drawn
uniformly); ``run`` checks that both agree sample for sample on the end-to-end ones.
"""
from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np

from sgdma.board.virtual import VirtualBoard
from sgdma.models.cpu import CpuModel
from sgdma.hw.layout import Layout
from sgdma.output.plots import pyplot, save

DEFAULT_BDS = (1, 16, 256, 4096)
END_TO_END = 8                                   # samples per ring size run through GPIO and the CSM
HIST_EDGES_NS = np.logspace(1, 5, 101)           # 10 ns .. 100 us, 25 bins per decade
S0_APU_BEST_NS = (100.0, 250.0)                  # S0 Fig. 10: best case 0.1-0.25 us per BD
S0_RATIO = (5.0, 9.0)                            # S0 sec. IV.B: APU median 5-9x faster than RPU


def stats(a: np.ndarray) -> dict:
    p1, p50, p99 = np.percentile(a, [1, 50, 99])
    return {"median": float(p50), "min": float(a.min()), "max": float(a.max()), "p1": float(p1), "p99": float(p99)}


def board_for(preset, model: CpuModel, seed: int = 0) -> VirtualBoard:
    """A board whose GPIO accesses cost what they cost the creating CPU."""
    return VirtualBoard(preset, seed=seed, timing_only=True, mmio_read_ns=model.mmio_read_ns,
                        mmio_write_ns=model.mmio_write_ns)


def measure(board: VirtualBoard, cost_ns: float, release_ps: list | None = None) -> int:
    """One sample end to end: reset PL, the build (virtual time), start; the setup counter.
    Appends the time the RESET release landed to ``release_ps`` when given."""
    csm = board.csm
    csm.reset()
    if release_ps is not None:
        release_ps.append(board.now_ps)
    board.advance(cost_ns)
    csm.start()
    return csm.counters()["setup"]


def setup_clocks(board: VirtualBoard, costs_ns: np.ndarray, release_ps: np.ndarray) -> np.ndarray:
    """What ``measure`` reads for each cost, by the engine's own arithmetic (csrc/vboard/pl/csm.c):
    the PL sees each GPIO write at its first clock edge at or after the write lands, so the counter
    is the edge of the START write (release + build, advance rounding to whole ps, + the write)
    less the edge of the RESET release."""
    clk_ps = 1e6 / board.axi_dma.clock_mhz
    write_ps = np.floor(board.option("cpu.mmio_write_ns") * 1000.0 + 0.5)
    build_ps = np.rint(np.asarray(costs_ns, dtype=float) * 1000.0)
    rel = np.asarray(release_ps, dtype=float)

    def edge(t):       # vb_edge_index: times within 2 ps after an edge are that edge
        return np.maximum(np.ceil((t - 2.0) / clk_ps), 0)
    return (edge(rel + build_ps + write_ps) - edge(rel)).astype(np.int64)


def release_phases(board: VirtualBoard, n: int, rng: np.random.Generator) -> np.ndarray:
    """RESET-release times for samples that do not go through the board: the CPU's clock is
    unrelated to the PL's, so the write lands at a uniform phase of the PL clock."""
    clk_ps = 1e6 / board.axi_dma.clock_mhz
    return np.floor(rng.uniform(0.0, clk_ps, n)).astype(np.int64) + int(round(clk_ps))


def _rng(seed: int, cpu: str, n: int) -> np.random.Generator:
    """One stream per (seed, CPU, ring size): independent of the sweep's order."""
    return np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(cpu.encode()), n]))


def run(board: str = "zcu111", cpu: str = "apu", bds=DEFAULT_BDS, samples: int = 100_000,
        seed: int = 0, executor=None, progress=None) -> list[dict]:
    """Per ring size, ``samples`` BD-ring creations by ``cpu``: JSON-serialisable records.  The ring sizes
    run on ``executor`` (sgdma.executor; default: this process); each has its own random streams, so the
    records do not depend on where or in which order they ran.  ``progress(samples_done, total)``."""
    from sgdma.executor import LocalExecutor

    model = CpuModel.for_board(board, cpu)
    vb = board_for(board, model, seed)
    bds = [int(n) for n in bds]
    max_bds = Layout.of(vb).max_bds
    if not bds or any(n < 1 or n > max_bds for n in bds):
        raise ValueError(f"bds {bds}: each ring needs 1..{max_bds} BDs (the {board} BD region)")
    if int(samples) < 1:
        raise ValueError("samples must be >= 1")
    tasks = [(board, cpu, n, int(samples), seed) for n in bds]
    out = [None] * len(tasks)
    total = len(tasks) * int(samples)
    if progress:
        progress(0, total)
    for done, (i, rec) in enumerate((executor or LocalExecutor(1)).map(ring_size_record, tasks), 1):
        out[i] = rec
        if progress:
            progress(done * int(samples), total)
    return out


def ring_size_record(task: tuple) -> dict:
    """One ring size of ``run``: (board, cpu, BDs, samples, seed) -> its record."""
    board, cpu, n, samples, seed = task
    model = CpuModel.for_board(board, cpu)
    vb = board_for(board, model, seed)
    clk_ns = 1e3 / vb.axi_dma.clock_mhz
    costs = model.samples(n, samples, _rng(seed, cpu, n))
    release: list[int] = []
    fresh = board_for(board, model, seed)      # a ring size's PL clock phases do not depend on the sweep order
    e2e = [measure(fresh, float(c), release) for c in costs[:END_TO_END]]
    release_all = np.r_[np.asarray(release, dtype=np.int64),
                        release_phases(vb, max(0, len(costs) - len(release)), _rng(seed, cpu + "/phase", n))]
    clocks = setup_clocks(vb, costs, release_all)
    if e2e != clocks[:END_TO_END].tolist():
        raise RuntimeError(f"{board}/{cpu}, {n} BDs: the GPIO/CSM path read {e2e}, the vectorised "
                           f"path {clocks[:END_TO_END].tolist()}")
    total = clocks * clk_ns
    per_bd = total / n
    counts, _ = np.histogram(per_bd, HIST_EDGES_NS)
    return {
        "board": board, "cpu": cpu, "core": model.core, "os": model.os, "bds": n, "samples": samples,
        "seed": seed, "per_bd_ns": stats(per_bd), "total_ns": stats(total),
        "histogram": {"edges_ns": HIST_EDGES_NS.tolist(), "counts": counts.tolist(),
                      "below": int((per_bd < HIST_EDGES_NS[0]).sum()),
                      "above": int((per_bd >= HIST_EDGES_NS[-1]).sum())},
        "end_to_end": {"samples": len(e2e), "setup_clocks": e2e, "release_ps": release},
        "pl_clock_mhz": vb.axi_dma.clock_mhz, "gpio_write_ns": model.mmio_write_ns,
        "model_mean_ns": model.expected(n),
    }


def compare(apu_records: list[dict], rpu_records: list[dict]) -> list[dict]:
    """APU speed-up over the RPU (median RPU time / median APU time) per common ring size."""
    rpu = {(r["board"], r["bds"]): r for r in rpu_records}
    out = []
    for a in apu_records:
        r = rpu.get((a["board"], a["bds"]))
        if r is None:
            continue
        ratio = r["per_bd_ns"]["median"] / a["per_bd_ns"]["median"]
        out.append({"board": a["board"], "bds": a["bds"], "apu_median_ns_per_bd": a["per_bd_ns"]["median"],
                    "rpu_median_ns_per_bd": r["per_bd_ns"]["median"], "apu_speedup": ratio,
                    "s0_range": list(S0_RATIO), "within_s0": S0_RATIO[0] <= ratio <= S0_RATIO[1]})
    return out


# -- figures (S0 Figs. 8-10) ---------------------------------------------------------
_COLOURS = {"apu": "tab:blue", "rpu": "tab:red"}


def plot(records: list[dict], directory) -> list[Path]:
    """Per-BD time vs ring size for every CPU (Figs. 8-9) and one histogram per CPU (Fig. 10)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    if not records:
        return []
    cpus = [c for c in ("apu", "rpu") if any(r["cpu"] == c for r in records)]
    board = records[0]["board"]
    return [_fig_vs_ring(records, cpus, board, directory / "bd_create_per_bd.png")] + [
        _fig_hist([r for r in records if r["cpu"] == c], c, board, directory / f"bd_create_hist_{c}.png")
        for c in cpus]


def _fig_vs_ring(records, cpus, board, path: Path) -> Path:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.axhspan(*S0_APU_BEST_NS, color="tab:blue", alpha=0.08, label="S0: APU best case 0.1-0.25 us/BD")
    for c in cpus:
        rows = sorted((r for r in records if r["cpu"] == c), key=lambda r: r["bds"])
        x = [r["bds"] for r in rows]
        ax.fill_between(x, [r["per_bd_ns"]["min"] for r in rows], [r["per_bd_ns"]["max"] for r in rows],
                        color=_COLOURS[c], alpha=0.2)
        ax.plot(x, [r["per_bd_ns"]["median"] for r in rows], "-o", ms=3, color=_COLOURS[c],
                label=f"{c.upper()} ({rows[0]['core']}) median, min-max band")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("BDs per ring")
    ax.set_ylabel("time per BD (ns)")
    ax.set_title(f"BD ring creation, time per BD ({board}, virtual board)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return save(fig, path)


def _fig_hist(rows, cpu, board, path: Path) -> Path:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    rows = sorted(rows, key=lambda r: r["bds"])
    cmap = plt.get_cmap("viridis", max(len(rows), 2))
    lo, hi = np.inf, 0.0
    for i, r in enumerate(rows):
        edges, counts = np.array(r["histogram"]["edges_ns"]), np.array(r["histogram"]["counts"], float)
        used = np.flatnonzero(counts)
        lo, hi = min(lo, edges[used[0]]), max(hi, edges[used[-1] + 1])
        ax.stairs(np.where(counts > 0, counts / r["samples"], np.nan), edges, color=cmap(i), lw=1.2,
                  label=f"{r['bds']} BDs")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo / 1.5, hi * 1.5)
    ax.set_ylim(0.5 / max(r["samples"] for r in rows), 2)
    ax.set_xlabel("time per BD (ns)")
    ax.set_ylabel(f"probability ({rows[0]['samples']} samples)")
    ax.set_title(f"BD creation on the {cpu.upper()} ({rows[0]['core']}, {rows[0]['os']}; {board}, virtual board)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return save(fig, path)
