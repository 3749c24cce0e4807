"""``sgdma pcie``: XAPP1289's experiments with the ZynqMP PS-PCIe DMA on the virtual board."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from sgdma.cli.common import OutPath, _write_json, seed_option


def _links(text: str) -> list[str]:
    from sgdma.pcie.link import LINKS, parse_link

    if text.strip().lower() == "all":
        return list(LINKS)
    out = []
    for t in text.split(","):
        try:
            g, w = parse_link(t)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--link") from None
        if f"gen{g}x{w}" not in out:               # a link named twice is measured once
            out.append(f"gen{g}x{w}")
    return out


def _sizes(ctx, param, text: str) -> list[int]:
    """--packet-size in the one unit grammar, each 1 .. one SRC element's 24-bit byte count (checked when parsed)."""
    from sgdma.pcie.experiments import PSDMA_SD_MAX_BYTES, parse_sizes

    try:
        return parse_sizes(text)
    except ValueError as e:
        raise click.BadParameter(f"{e} (one SRC element's 24-bit byte count: 1..{PSDMA_SD_MAX_BYTES})") from None


def _plot_dir(plot):
    if plot:
        p = Path(plot)
        p.mkdir(parents=True, exist_ok=True)
        return p
    return None


@click.group("pcie")
def pcie() -> None:
    """PCIe root-port DMA on Zynq UltraScale+ (XAPP1289): PS-PCIe DMA, timed link, endpoint with its own DDR."""


def _run(experiment, *args, **kw):
    """An experiment's refusal is a usage error (exit 2); the driver failing while it runs is exit 3."""
    from sgdma.driver.pciedma import PcieDmaError

    try:
        return experiment(*args, **kw)
    except ValueError as e:
        raise click.UsageError(str(e))
    except PcieDmaError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(3)


@pcie.command("sweep")
@click.option("--link", "link", default="all", show_default=True,
              help="gen1x1..gen2x4, a comma list, or 'all'")
@click.option("--direction", type=click.Choice(["s2c", "c2s", "both"]), default="both", show_default=True)
@click.option("--packet-size", "sizes", default="64..4M", show_default=True, callback=_sizes,
              help="e.g. 64..4M, 64,4K,64K or 2^12")
@click.option("--endpoint-dma", is_flag=True, help="also run the endpoint's DMA (Figure 5)")
@click.option("--board", default="zcu102", show_default=True)
@seed_option
@click.option("--plot", type=OutPath(directory=True), help="write Figures 3-5 (PNG) into this directory")
@click.option("--json", "json_path", type=OutPath(), help="write every point as JSON")
@click.option("--out", "out_dir", type=OutPath(directory=True), default=None,
              help="write the report here (report.html, figures); adds what binds each point, from replays with one resource relaxed at a time")
def sweep_cmd(link, direction, sizes, endpoint_dma, board, seed, plot, json_path, out_dir):
    """Throughput against packet size for each link, seen by both APMs (Figures 3, 4, 5)."""
    from sgdma.pcie import experiments as ex
    from sgdma.pcie import figures

    links, sz = _links(link), sizes
    dirs = ["s2c", "c2s"] if direction == "both" else [direction]
    recs = _run(ex.sweep, links, dirs, sz, endpoint_dma=endpoint_dma, preset=board, seed=seed)
    click.echo(f"{'link':7} {'dir':4} {'engine':8} {'packet':>8} {'EP-DDR MB/s':>12} {'PS-DDR rd MB/s':>15} "
               f"{'(elements)':>11} {'PS-DDR wr MB/s':>15}")
    for r in recs:
        click.echo(f"{r['link']:7} {r['direction']:4} {'EP DMA' if r['endpoint_dma'] else 'root DMA':8} "
                   f"{r['packet']:>8} {r['ep_ddr_mbps']:12.1f} {r['ps_ddr_rd_mbps']:15.1f} "
                   f"{r['ps_ddr_rd_elements_mbps']:11.1f} {r['ps_ddr_wr_mbps']:15.1f}")
    out = _plot_dir(plot)
    if out:
        paths = [figures.fig3_summary(recs, out)]
        if "c2s" in dirs:
            paths.append(figures.fig4_ps_ddr_reads(recs, out))
        if endpoint_dma:
            paths.append(figures.fig5_root_vs_ep(recs, out))
        for p in paths:
            click.echo(f"wrote {p}")
    _write_json(json_path, recs)
    if out_dir:
        from sgdma.experiments.limits.pcie import analyse

        _report(out_dir, {"mode": "sweep", "board": board, "seed": seed, "records": recs,
                          "limits": analyse(recs, board, seed)})


@pcie.command("latency")
@click.option("--link", "link", default="gen2x4", show_default=True, help="gen1x1..gen2x4, a comma list, or 'all'")
@click.option("--direction", type=click.Choice(["s2c", "c2s", "both"]), default="both", show_default=True)
@click.option("--packet-size", "sizes", default="64,256,1K,4K,16K,64K", show_default=True, callback=_sizes,
              help="e.g. 64,4K or 2^12")
@click.option("--iterations", default=8, show_default=True, type=click.IntRange(1, 1000))
@click.option("--board", default="zcu102", show_default=True)
@seed_option
@click.option("--plot", type=OutPath(directory=True), help="write Figure 6 (PNG) into this directory")
@click.option("--json", "json_path", type=OutPath(), help="write every record as JSON")
@click.option("--out", "out_dir", type=OutPath(directory=True), default=None,
              help="write the report here (report.html, figures)")
def latency_cmd(link, direction, sizes, iterations, board, seed, plot, json_path, out_dir):
    """Single-packet latency, software start to completion interrupt: root DMA vs endpoint DMA (Figure 6)."""
    from sgdma.pcie import experiments as ex
    from sgdma.pcie import figures

    links, sz = _links(link), sizes
    dirs = ["s2c", "c2s"] if direction == "both" else [direction]
    recs = _run(ex.latency, links, dirs, sz, iterations=iterations, preset=board, seed=seed)
    click.echo(f"{'link':7} {'dir':4} {'engine':8} {'packet':>8} {'mean us':>9} {'min us':>8} {'max us':>8}")
    for r in recs:
        click.echo(f"{r['link']:7} {r['direction']:4} {'EP DMA' if r['endpoint_dma'] else 'root DMA':8} "
                   f"{r['packet']:>8} {r['latency_ns'] / 1e3:9.3f} {r['latency_min_ns'] / 1e3:8.3f} "
                   f"{r['latency_max_ns'] / 1e3:8.3f}")
    out = _plot_dir(plot)
    if out:
        click.echo(f"wrote {figures.fig6_latency(recs, out)}")
    _write_json(json_path, recs)
    if out_dir:
        _report(out_dir, {"mode": "latency", "board": board, "seed": seed, "records": recs})


def _report(out_dir, rec: dict) -> None:
    from sgdma.output import report

    click.echo(f"report: {report.write({'kind': 'pcie', 'version': 1, **rec}, out_dir)['report_html']}")
