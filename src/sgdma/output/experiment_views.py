"""Views of the other experiments' records: characterize (S0's Figs. 5-7 and the summary table),
capture and plan (their figures of merit, with a verdict)."""
from __future__ import annotations

import numpy as np

from sgdma.output.figure import PALETTE, Figure, Row, Trace
from sgdma.output.view import Fact, View


def view(rec: dict) -> View:
    return {"characterize": _characterize, "capture": _capture, "plan": _plan}[rec["kind"]](rec)


def _characterize(rec: dict) -> View:
    rows = [r for r in rec["records"] if r.get("cycles", 1) == 1]
    board = rows[0]["board"] if rows else "?"
    sizes = sorted({r["bds"] for r in rows})

    def series(key):
        out = []
        for i, n in enumerate(sizes):
            rr = sorted((r for r in rows if r["bds"] == n), key=lambda r: r["bytes_per_bd"])
            out.append(Trace("line", [r["bytes_per_bd"] for r in rr], [r[key]["median"] for r in rr],
                             name=f"{n} BDs", color=PALETTE[i % len(PALETTE)]))
        return out

    figs = [Figure("fig5_latency", f"MM2S latency vs bytes per BD ({board})",
                   "Median latency per ring size (S0's definition: tail write to the first stream word, ns).",
                   "bytes per BD", [Row("latency (ns)", series("latency_ns"))], x_log=True),
            Figure("fig7_throughput", f"MM2S median throughput vs bytes per BD ({board})",
                   "Median throughput per ring size: payload / (last word - first word), MB/s.",
                   "bytes per BD", [Row("throughput (MB/s)", series("throughput_mbps"), y_log=True)], x_log=True)]
    best = max(rows, key=lambda r: r["throughput_mbps"]["median"]) if rows else None
    facts = [Fact("board", board, "", "preset of the virtual board"),
             Fact("points", len(rows), "", "(ring size, bytes per BD) combinations measured")]
    if best:
        facts += [Fact("peak median throughput", best["throughput_mbps"]["median"], "MB/s",
                       f"at {best['bytes_per_bd']} bytes per BD, {best['bds']} BDs"),
                  Fact("lowest median latency", min(r["latency_ns"]["median"] for r in rows), "ns",
                       "S0's latency: tail write to first stream word")]
    table = ("Summary (median [min, max])", ["BDs", "bytes/BD", "latency (ns)", "throughput (MB/s)"],
             [[r["bds"], r["bytes_per_bd"],
               f"{r['latency_ns']['median']:.0f} [{r['latency_ns']['min']:.0f}, {r['latency_ns']['max']:.0f}]",
               f"{r['throughput_mbps']['median']:.1f} [{r['throughput_mbps']['min']:.1f}, "
               f"{r['throughput_mbps']['max']:.1f}]"] for r in rows[:300]])
    return View(title=rec.get("title", f"sgdma characterize on {board}"),
                headline=[f"{len(rows)} points on {board}" + (f": peak {best['throughput_mbps']['median']:.0f} MB/s"
                                                               if best else "")],
                facts=facts, figures=figs, tables=[table])


def _capture(rec: dict) -> View:
    from sgdma.output.report import generic_view

    if "records" in rec:
        return _capture_sweep(rec)
    v = generic_view(rec)
    if "sustained" in rec:
        v.ok = bool(rec["sustained"])
        v.headline = [f"{'Sustained' if rec['sustained'] else 'Not sustained'}: {rec.get('overflows', 0)} samples "
                      f"dropped, {rec.get('throughput_mbps', 0):.1f} MB/s to the application, CPU load "
                      f"{100 * rec.get('cpu_load', 0):.1f} %."]
    drops = rec.get("drops") or []
    if drops:
        t = [d[0] / 1e3 for d in drops]
        v.figures.append(Figure("drops", "Drops over time", "Each drop episode of the ADC's PL FIFO: when it "
                                "began (us of virtual time) and how many samples it lost.", "time (us)",
                                [Row("samples dropped", [Trace("bar", t, [d[3] for d in drops], color=PALETTE[1])])]))
    return v


def _capture_sweep(rec: dict) -> View:
    rows = rec["records"]
    series = sorted({(r["api"], r["cache"]) for r in rows})

    def traces(key, scale=1.0):
        out = []
        for i, (a, c) in enumerate(series):
            rr = sorted((r for r in rows if (r["api"], r["cache"]) == (a, c)), key=lambda r: r["buffer_bytes"])
            out.append(Trace("line", [r["buffer_bytes"] for r in rr],
                             [None if r.get(key) is None else r[key] * scale for r in rr], name=f"{a}/{c}",
                             color=PALETTE[i % len(PALETTE)]))
        return out

    board = rows[0]["board"] if rows else "?"
    figs = [Figure("capture_throughput", f"Sustained capture throughput vs buffer size ({board})",
                   "Highest sustained throughput to the application without a drop (MB/s), bisected on the model "
                   "per point, for each API / cache policy.", "buffer size (bytes)",
                   [Row("MB/s", traces("max_mbps"), y_log=True)], x_log=True),
            Figure("capture_cpu", f"CPU load at that rate ({board})", "Share of the consumer CPU's time busy at "
                   "the highest sustained rate (%).", "buffer size (bytes)", [Row("CPU load (%)",
                                                                                   traces("cpu_load", 100.0))],
                   x_log=True)]
    best = max(rows, key=lambda r: r["max_mbps"]) if rows else None
    facts = [Fact("board", board, "", "preset"), Fact("points", len(rows), "", "buffer size x API x cache policy")]
    if best:
        facts.append(Fact("best", best["max_mbps"], "MB/s", f"{best['api']}/{best['cache']} with "
                          f"{best['buffer_bytes']} B buffers (limit: {best['limit']})"))
    table = ("Points", ["api", "cache", "buffer (B)", "MB/s", "CPU load (%)", "limit"],
             [[r["api"], r["cache"], r["buffer_bytes"], f"{r['max_mbps']:.1f}",
               "" if r.get("cpu_load") is None else f"{100 * r['cpu_load']:.0f}", r["limit"]] for r in rows])
    return View(title=rec.get("title", f"sgdma capture sweep on {board}"),
                headline=[f"Capture on {board}: best {best['max_mbps']:.0f} MB/s sustained "
                          f"({best['api']}/{best['cache']}, {best['buffer_bytes']} B buffers)." if best else
                          "No points."], facts=facts, figures=figs, tables=[table])


def _plan(rec: dict) -> View:
    from sgdma.output.report import generic_view

    v = generic_view(rec)
    if "feasible" in rec:
        v.ok = bool(rec["feasible"])
        v.headline = [f"{'Feasible' if rec['feasible'] else 'Not feasible'} on {rec.get('board')}: need "
                      f"{rec.get('required_mbps', float('nan')):.1f} MB/s, worst trial "
                      f"{rec.get('achieved_mbps', float('nan')):.1f} MB/s (margin {rec.get('margin', float('nan')):.2f}x)."]
    grid = rec.get("map")
    if grid:
        z = np.log2(np.clip(np.array(grid["margin"], dtype=float), 1 / 16, 16))
        v.figures.append(Figure("feasibility_map", "Feasibility map: gate time x bytes per gate",
                                "Colour: log2 of the margin = gate time / the shortest gate time that played 128 "
                                "gates with zero underflows (bisected on the model per row). Green (> 0) keeps up, "
                                "red (< 0) does not; the black line is the shortest sustainable gate time.",
                                "gate time (ns)",
                                [Row("bytes per gate", [
                                    Trace("heatmap", grid["gate_time_ns"], grid["bytes_per_gate"], z=z.tolist(),
                                          name="log2 margin"),
                                    Trace("line", grid["shortest_gate_time_ns"], grid["bytes_per_gate"],
                                          name="shortest sustainable gate time", color="#000000")],
                                    y_log=True)], x_log=True))
        v.tables.insert(0, ("Shortest sustainable gate time per bytes per gate", ["bytes per gate",
                            "shortest gate time (ns)"], [[b, f"{s:.0f}"] for b, s in
                                                         zip(grid["bytes_per_gate"], grid["shortest_gate_time_ns"])]))
    return v
