"""Plots in the form of XAPP1289's Figures 3-6 (matplotlib, PNG)."""
from __future__ import annotations

from pathlib import Path

from sgdma.output.plots import pyplot, save


def _kib(x):
    return [f"{s // 1024}K" if s >= 1024 and s < 1 << 20 else (f"{s >> 20}M" if s >= 1 << 20 else str(s)) for s in x]


def _by(records, **match):
    rows = [r for r in records if all(r[k] == v for k, v in match.items())]
    return sorted(rows, key=lambda r: r["packet"])


def fig3_summary(records, out: Path) -> Path:
    """Figure 3: S2C and C2S throughput (EP-DDR APM, payload only) against packet size, every link."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, d in zip(axes, ("s2c", "c2s")):
        for link in sorted({r["link"] for r in records}):
            rows = _by(records, link=link, direction=d, endpoint_dma=False)
            if rows:
                ax.plot([r["packet"] for r in rows], [r["ep_ddr_mbps"] for r in rows], marker="o", label=link)
        ax.set_xscale("log", base=2)
        ax.set_title(f"{d.upper()} throughput, root DMA (EP-DDR APM)")
        ax.set_xlabel("packet size (bytes)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("MB/s")
    return save(fig, out / "fig3_performance_summary.png")


def fig4_ps_ddr_reads(records, out: Path) -> Path:
    """Figure 4: PS-DDR read bandwidth at the root port against packet size, C2S, with its composition."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for link in sorted({r["link"] for r in records}):
        rows = _by(records, link=link, direction="c2s", endpoint_dma=False)
        if rows:
            x = [r["packet"] for r in rows]
            line, = ax.plot(x, [r["ps_ddr_rd_mbps"] for r in rows], marker="o", label=f"{link} all reads")
            ax.plot(x, [r["ps_ddr_rd_elements_mbps"] for r in rows], ls="--", color=line.get_color(),
                    label=f"{link} SRC/DST element fetches")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("packet size (bytes)")
    ax.set_ylabel("PS-DDR read bandwidth (MB/s)")
    ax.set_title("RP DDR read bandwidth (C2S traffic)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return save(fig, out / "fig4_rp_ddr_reads_c2s.png")


def fig5_root_vs_ep(records, out: Path) -> Path:
    """Figure 5: root DMA vs endpoint DMA throughput, one panel per link."""
    plt = pyplot()
    links = sorted({r["link"] for r in records})
    cols = min(3, len(links))
    rows_n = -(-len(links) // cols)
    fig, axes = plt.subplots(rows_n, cols, figsize=(4.5 * cols, 3.6 * rows_n), squeeze=False)
    for ax, link in zip(axes.flat, links):
        for d, color in (("s2c", "tab:blue"), ("c2s", "tab:red")):
            for ep, ls in ((False, "-"), (True, "--")):
                rows = _by(records, link=link, direction=d, endpoint_dma=ep)
                if rows:
                    ax.plot([r["packet"] for r in rows], [r["ep_ddr_mbps"] for r in rows], ls=ls, color=color,
                            marker=".", label=f"{d.upper()} {'EP DMA' if ep else 'root DMA'}")
        ax.set_xscale("log", base=2)
        ax.set_title(link)
        ax.set_xlabel("packet size (bytes)")
        ax.set_ylabel("MB/s (EP-DDR APM)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(links):]:
        ax.set_visible(False)
    fig.suptitle("Root DMA vs EP DMA")
    return save(fig, out / "fig5_root_vs_ep_dma.png")


def fig6_latency(records, out: Path) -> Path:
    """Figure 6: single-packet transfer latency, root DMA vs endpoint DMA."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    keys = sorted({(r["link"], r["direction"]) for r in records})
    for link, d in keys:
        for ep, ls in ((False, "-"), (True, "--")):
            rows = _by(records, link=link, direction=d, endpoint_dma=ep)
            if rows:
                ax.plot([r["packet"] for r in rows], [r["latency_ns"] / 1e3 for r in rows], ls=ls, marker="o",
                        label=f"{link} {d.upper()} {'EP DMA' if ep else 'root DMA'}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("packet size (bytes)")
    ax.set_ylabel("latency (us), start to completion interrupt")
    ax.set_title("Single packet transfer latency")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return save(fig, out / "fig6_single_packet_latency.png")
