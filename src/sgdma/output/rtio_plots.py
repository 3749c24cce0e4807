"""Figures of the RTIO commands: sustained event intervals per initiator (seed 001 Fig. 2) and output waveforms."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sgdma.output.plots import pyplot, save


def intervals(rows: list[dict], path: Path) -> Path:
    """Bar per (board, initiator): sustained interval in ns, the gateware's own limit as a line."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.8))
    labels = [f"{r['board']}\n{r['initiator']}" for r in rows]
    held = [r.get("sustained", True) for r in rows]
    vals = [r["interval_ns"] if h else 0.0 for r, h in zip(rows, held)]     # not sustained: no bar, a label
    bars = ax.bar(range(len(rows)), vals, color="tab:blue")
    for b, v, h in zip(bars, vals, held):
        ax.text(b.get_x() + b.get_width() / 2, v, f"{v:.0f}" if h else "not\nsustained", ha="center", va="bottom",
                fontsize=8, color=None if h else "tab:red")
    if rows:
        ax.axhline(rows[0]["gateware_limit_ns"], color="tab:red", ls="--", lw=1, label="CRI write limit")
        ax.legend(fontsize=8)
    ax.set_xticks(range(len(rows)), labels, fontsize=8)
    ax.set_ylabel("sustained event interval (ns)")
    ax.set_title("Sustained RTIO event interval (lower is better), virtual board")
    return save(fig, path)


def waveform(edges: dict, path: Path, channels=(0,), window_mu: int | None = None, slack=None) -> Path:
    """TTL levels of `channels` from the core's recorded output edges (t_mu, channel, address, data)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 3))
    t0 = int(edges["t_mu"].min()) if len(edges["t_mu"]) else 0
    for k, ch in enumerate(channels):
        m = (edges["channel"] == ch) & (edges["address"] == 0)
        t = edges["t_mu"][m] - t0
        v = edges["data"][m] & 1
        if window_mu is not None:
            keep = t <= window_mu
            t, v = t[keep], v[keep]
        if len(t):
            ax.step(np.r_[t, t[-1]], np.r_[v, v[-1]] + 1.5 * k, where="post", label=f"ch{ch}")
    ax.set_xlabel("time (mu = ns) from the first edge")
    ax.set_yticks([])
    ax.set_title("RTIO output edges as the core emitted them")
    ax.legend(fontsize=8, loc="upper right")
    return save(fig, path)
