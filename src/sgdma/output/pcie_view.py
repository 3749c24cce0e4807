"""The pcie reports (kind "pcie"): sweep — throughput against the link's arithmetic ceiling for each packet
size and what binds it (the record's "limits", from sgdma.experiments.limits.pcie), root DMA vs endpoint
DMA side by side; latency — single-packet latency of both engines."""
from __future__ import annotations

from sgdma.output.figure import PALETTE, Figure, Row, Trace
from sgdma.output.view import Fact, View


def _name(r: dict) -> str:
    return f"{r['link']} {r['direction']} {'EP DMA' if r['endpoint_dma'] else 'root DMA'}"


def view(rec: dict) -> View:
    return _latency(rec) if rec.get("mode") == "latency" else _sweep(rec)


def _groups(recs):
    out = {}
    for i, r in enumerate(recs):
        out.setdefault(_name(r), []).append(i)
    return out


def _sweep(rec: dict) -> View:
    recs = rec["records"]
    lim = rec.get("limits")
    best = max(recs, key=lambda r: r["ep_ddr_mbps"])
    lines = [f"Peak {best['ep_ddr_mbps']:.0f} MB/s: {_name(best)} with {best['packet']} B packets."]
    if lim:
        share = best["ep_ddr_mbps"] / lim[recs.index(best)]["link_ceiling_mbps"]
        lines[0] = lines[0][:-1] + f", {100 * share:.0f} % of the link's arithmetic ceiling."
        for name, idx in _groups(recs).items():
            runs, prev = [], None
            for i in sorted(idx, key=lambda i: recs[i]["packet"]):
                b = lim[i]["binding"]
                if b != prev:
                    runs.append(f"{b} from {recs[i]['packet']} B")
                prev = b
            lines.append(f"{name}: " + ", ".join(runs) + ".")
    else:
        lines.append("What binds: not computed (write the report with --out, which replays each point with one "
                     "resource relaxed).")
    figs = []
    for engine in sorted({r["endpoint_dma"] for r in recs}):
        traces = []
        groups = _groups([r for r in recs])
        for k, (name, idx) in enumerate(groups.items()):
            if recs[idx[0]]["endpoint_dma"] != engine:
                continue
            idx = sorted(idx, key=lambda i: recs[i]["packet"])
            color = PALETTE[k % len(PALETTE)]
            traces.append(Trace("line", [recs[i]["packet"] for i in idx], [recs[i]["ep_ddr_mbps"] for i in idx],
                                name=name, color=color, text=[lim[i]["binding"] for i in idx] if lim else None))
            if lim:
                traces.append(Trace("line", [recs[i]["packet"] for i in idx],
                                    [lim[i]["link_ceiling_mbps"] for i in idx], name=f"{name}: link ceiling",
                                    color=color, dash=True))
        who = "endpoint DMA" if engine else "root DMA"
        figs.append(Figure(f"throughput_{'ep' if engine else 'root'}", f"{who}: throughput against packet size",
                           f"{who}: endpoint-DDR throughput per packet size (MB/s, the endpoint's APM); dashed: the "
                           "link's ceiling for the same TLPs (rate x payload / wire bytes). Hover a point for what "
                           "binds it.", "packet (bytes)", [Row("MB/s", traces)], x_log=True,
                           half=len({r["endpoint_dma"] for r in recs}) > 1))
    head = ["link", "dir", "engine", "packet", "MB/s", "PS-DDR rd MB/s", "descriptor MB/s"]
    if lim:
        head += ["link ceiling", "binds", "lift when relaxed"]
    rows = []
    for i, r in enumerate(recs):
        row = [r["link"], r["direction"], "EP DMA" if r["endpoint_dma"] else "root DMA", r["packet"],
               f"{r['ep_ddr_mbps']:.0f}", f"{r['ps_ddr_rd_mbps']:.0f}", f"{r['ps_ddr_rd_elements_mbps']:.1f}"]
        if lim:
            row += [f"{lim[i]['link_ceiling_mbps']:.0f}", lim[i]["binding"],
                    ", ".join(f"{k} {v:.2f}x" for k, v in lim[i]["lift"].items())]
        rows.append(row)
    facts = [Fact("board", rec.get("board"), "", "preset (root: ZCU102 PS-PCIe; endpoint: KCU105)"),
             Fact("peak", best["ep_ddr_mbps"], "MB/s", _name(best)),
             Fact("points", len(recs), "", "link x direction x engine x packet size")]
    return View(title=f"sgdma pcie sweep on {rec.get('board')}", headline=lines, ok=None, facts=facts,
                figures=figs, tables=[("Every point", head, rows)])


def _latency(rec: dict) -> View:
    recs = rec["records"]
    groups = _groups(recs)
    lines = []
    for d in sorted({r["direction"] for r in recs}):
        for size in sorted({r["packet"] for r in recs})[:1] + sorted({r["packet"] for r in recs})[-1:]:
            pair = {r["endpoint_dma"]: r for r in recs if r["direction"] == d and r["packet"] == size}
            if False in pair and True in pair:
                lines.append(f"{d} {size} B: root DMA {pair[False]['latency_ns'] / 1e3:.2f} us, endpoint DMA "
                             f"{pair[True]['latency_ns'] / 1e3:.2f} us.")
    lines.insert(0, "Single-packet latency, software start to the completion interrupt: " +
                 ("root DMA faster for every size." if all(
                     a["latency_ns"] <= b["latency_ns"] for a in recs if not a["endpoint_dma"]
                     for b in recs if b["endpoint_dma"] and b["packet"] == a["packet"] and
                     b["direction"] == a["direction"] and b["link"] == a["link"]) else
                  "neither engine is faster at every size."))
    traces = []
    for k, (name, idx) in enumerate(groups.items()):
        idx = sorted(idx, key=lambda i: recs[i]["packet"])
        traces.append(Trace("line", [recs[i]["packet"] for i in idx], [recs[i]["latency_ns"] / 1e3 for i in idx],
                            name=name, color=PALETTE[k % len(PALETTE)]))
    figs = [Figure("latency", "Single-packet latency against packet size", "Mean of the iterations (us), software "
                   "start to completion interrupt, root DMA and endpoint DMA.", "packet (bytes)",
                   [Row("latency (us)", traces, y_log=True)], x_log=True)]
    rows = [[r["link"], r["direction"], "EP DMA" if r["endpoint_dma"] else "root DMA", r["packet"],
             f"{r['latency_ns'] / 1e3:.3f}", f"{r['latency_min_ns'] / 1e3:.3f}", f"{r['latency_max_ns'] / 1e3:.3f}"]
            for r in recs]
    return View(title=f"sgdma pcie latency on {rec.get('board')}", headline=lines, ok=None,
                facts=[Fact("points", len(recs), "", "link x direction x engine x packet size")], figures=figs,
                tables=[("Every point", ["link", "dir", "engine", "packet", "mean (us)", "min (us)", "max (us)"],
                         rows)])
