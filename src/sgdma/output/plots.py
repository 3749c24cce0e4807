"""Figures of a characterization sweep, laid out like S0's Figs. 5-7 (matplotlib, PNG)."""
from __future__ import annotations

from pathlib import Path

import numpy as np


def pyplot():
    """matplotlib.pyplot on the file-only Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(fig, path, dpi: int = 120):
    """Lay out, write and release a figure; returns the path."""
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    return path


def _series(records: list[dict], bds: int, key: str):
    rows = sorted((r for r in records if r["bds"] == bds and r["cycles"] == 1), key=lambda r: r["bytes_per_bd"])
    x = np.array([r["bytes_per_bd"] for r in rows])
    med = np.array([r[key]["median"] for r in rows])
    lo = np.array([r[key]["min"] for r in rows])
    hi = np.array([r[key]["max"] for r in rows])
    return x, med, lo, hi


def _ring_sizes(records: list[dict]) -> list[int]:
    return sorted({r["bds"] for r in records if r["cycles"] == 1})


def _finish(ax, title: str, ylabel: str, board: str) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bytes per BD")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{title} ({board}, virtual board)")
    ax.grid(True, which="both", alpha=0.3)


def fig5_latency(records: list[dict], path: Path) -> Path:
    """Latency vs bytes/BD: every ring size's median superimposed, one min-max band over all."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    sizes = _ring_sizes(records)
    cmap = plt.get_cmap("viridis", max(len(sizes), 2))
    flat = [r for r in records if r["cycles"] == 1]
    xs = sorted({r["bytes_per_bd"] for r in flat})
    lo = [min(r["latency_ns"]["min"] for r in flat if r["bytes_per_bd"] == x) for x in xs]
    hi = [max(r["latency_ns"]["max"] for r in flat if r["bytes_per_bd"] == x) for x in xs]
    ax.fill_between(xs, lo, hi, color="tab:blue", alpha=0.15, label="min-max over all rings")
    for i, n in enumerate(sizes):
        x, med, _, _ = _series(records, n, "latency_ns")
        ax.plot(x, med, color=cmap(i), lw=1, label=f"median, {n} BDs")
    _finish(ax, "MM2S latency: tail write to first stream beat", "latency (ns)", records[0]["board"])
    ax.legend(fontsize=6, ncol=3, loc="upper right")
    ax.set_ylim(0, max(hi) * 1.35)
    return save(fig, path)


def fig6_throughput_bands(records: list[dict], path: Path, rings=(4, 16, 1024)) -> Path:
    """Throughput vs bytes/BD for rings 4, 16, 1024 with min-max bands."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for n, color in zip(rings, ("tab:red", "tab:green", "tab:blue")):
        if n not in _ring_sizes(records):
            continue
        x, med, lo, hi = _series(records, n, "throughput_mbps")
        ax.plot(x, med, color=color, label=f"{n} BDs (median)")
        ax.fill_between(x, lo, hi, color=color, alpha=0.2)
    ax.set_yscale("log")
    _finish(ax, "MM2S throughput, min-max bands", "throughput (MB/s)", records[0]["board"])
    ax.legend()
    return save(fig, path)


def fig7_median_throughput(records: list[dict], path: Path) -> Path:
    """Median throughput vs bytes/BD for every ring size."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    sizes = _ring_sizes(records)
    cmap = plt.get_cmap("plasma", max(len(sizes), 2))
    for i, n in enumerate(sizes):
        x, med, _, _ = _series(records, n, "throughput_mbps")
        ax.plot(x, med, color=cmap(i), marker=".", lw=1, label=f"{n} BDs")
    ax.set_yscale("log")
    _finish(ax, "MM2S median throughput", "throughput (MB/s)", records[0]["board"])
    ax.legend(fontsize=6, ncol=3)
    return save(fig, path)


def fig_cycles(records: list[dict], path: Path) -> Path | None:
    """Cycling a ring N times vs one ring of N x k BDs (S0: equivalent)."""
    cyc = [r for r in records if r["cycles"] > 1]
    if not cyc:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    flat = {(r["bytes_per_bd"], r["bds"]): r["throughput_mbps"]["median"] for r in records if r["cycles"] == 1}
    for (bpb, ring), style in zip(sorted({(r["bytes_per_bd"], r["bds"]) for r in cyc}), ("-o", "-s", "-^", "-v")):
        rows = sorted((r for r in cyc if r["bytes_per_bd"] == bpb and r["bds"] == ring), key=lambda r: r["cycles"])
        n = np.array([r["bds"] * r["cycles"] for r in rows])
        ax.plot(n, [r["throughput_mbps"]["median"] for r in rows], style, ms=3, label=f"{ring} BDs x cycles, {bpb} B/BD")
        same = [(k, flat[(bpb, k)]) for k in n if (bpb, k) in flat]
        if same:
            ax.plot(*zip(*same), "k:", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("BDs played (ring size x cycles); dotted: one ring of that many BDs")
    ax.set_ylabel("median throughput (MB/s)")
    ax.set_title(f"Cyclic mode vs larger rings ({records[0]['board']}, virtual board)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return save(fig, path)


def s0_figures(records: list[dict], directory: str | Path) -> list[Path]:
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    out = [fig5_latency(records, d / "fig5_latency.png"),
           fig6_throughput_bands(records, d / "fig6_throughput_bands.png"),
           fig7_median_throughput(records, d / "fig7_median_throughput.png")]
    extra = fig_cycles(records, d / "cycles_vs_ring_size.png")
    return out + ([extra] if extra else [])
