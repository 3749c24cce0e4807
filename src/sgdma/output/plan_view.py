"""The plan report (kind "plan"): feasible or not, the margin, the recommended BD size and ring with the
runner-up and why — all from the planner's own timed runs (sgdma.experiments.plan) in the record."""
from __future__ import annotations

import numpy as np

from sgdma.output.figure import PALETTE, Figure, Row, Trace
from sgdma.output.view import Fact, View


def view(rec: dict) -> View:
    ok = bool(rec.get("feasible"))
    need = rec.get("required_mbps", float("nan"))
    tried = rec.get("tried") or []
    lines = [f"{'Feasible' if ok else 'Not feasible'} on {rec.get('board')}: the stream needs {need:.1f} MB/s; the "
             f"worst trial of the chosen BD size moved {rec.get('achieved_mbps', 0):.1f} MB/s "
             f"(margin {rec.get('margin', float('nan')):.2f}x)."]
    if rec.get("recommended_ring_bds") or ok:
        lines.append(f"Recommended: {rec['recommended_bytes_per_bd']} B per BD ({rec['recommended_gates_per_bd']} "
                     f"gate(s) per BD), rings of {rec.get('recommended_ring_bds') or '-'} BDs.")
    lines.append(f"Runner-up: {_runner_up(rec, tried)}")
    lines.append("Why: " + rec.get("reason", ""))
    facts = [Fact("board", rec.get("board"), "", "preset of the virtual board"),
             Fact("required", need, "MB/s", "channels x bytes per gate / gate time"),
             Fact("worst trial", rec.get("achieved_mbps"), "MB/s", "the chosen BD size's lowest trial throughput"),
             Fact("margin", rec.get("margin"), "x", "worst trial / required (the planner asks 1.2x)"),
             Fact("recommended BD", rec.get("recommended_bytes_per_bd"), "bytes", "bytes per BD"),
             Fact("recommended ring", rec.get("recommended_ring_bds"), "BDs", "smallest ring keeping the margin"),
             Fact("underflows", rec.get("underflows"), "", "in the short playback into the DAC FIFO")]
    figs, tables = [], []
    if tried:
        figs.append(Figure("candidates", "Each BD size the planner ran: worst-trial throughput against the need",
                           "Worst-trial and median throughput (MB/s) of each candidate BD size; the line is the "
                           "need, the dashed line the 1.2x target.", "bytes per BD",
                           [Row("MB/s", [Trace("markers", [t["bytes_per_bd"] for t in tried],
                                               [t["worst_mbps"] for t in tried], name="worst trial", color=PALETTE[1]),
                                         Trace("markers", [t["bytes_per_bd"] for t in tried],
                                               [t["median_mbps"] for t in tried], name="median", color=PALETTE[0]),
                                         Trace("line", [tried[0]["bytes_per_bd"], tried[-1]["bytes_per_bd"]],
                                               [need, need], name="need", color="#000000"),
                                         Trace("line", [tried[0]["bytes_per_bd"], tried[-1]["bytes_per_bd"]],
                                               [1.2 * need, 1.2 * need], name="1.2x target", color="#888888")])],
                           x_log=True))
        tables.append(("Candidates run", ["bytes per BD", "gates per BD", "BDs", "worst (MB/s)", "median (MB/s)",
                                          "x need", "max latency (ns)"],
                       [[t["bytes_per_bd"], t["gates_per_bd"], t["bds"], f"{t['worst_mbps']:.1f}",
                         f"{t['median_mbps']:.1f}", f"{t['worst_mbps'] / need:.2f}", f"{t['latency_ns_max']:.0f}"]
                        for t in tried]))
    grid = rec.get("map")
    if grid:
        z = np.log2(np.clip(np.array(grid["margin"], dtype=float), 1 / 16, 16))
        figs.append(Figure("feasibility_map", "Feasibility map: gate time x bytes per gate",
                           "Colour: log2 of the margin = gate time / the shortest gate time that played 128 gates "
                           "with zero underflows (bisected on the model per row). Green (> 0) keeps up, red (< 0) "
                           "does not; the black line is the shortest sustainable gate time.", "gate time (ns)",
                           [Row("bytes per gate", [
                               Trace("heatmap", grid["gate_time_ns"], grid["bytes_per_gate"], z=z.tolist(),
                                     name="log2 margin"),
                               Trace("line", grid["shortest_gate_time_ns"], grid["bytes_per_gate"],
                                     name="shortest sustainable gate time", color="#000000")], y_log=True)],
                           x_log=True))
        tables.append(("Shortest sustainable gate time per bytes per gate", ["bytes per gate",
                       "shortest gate time (ns)"], [[b, f"{s:.0f}"] for b, s in
                                                    zip(grid["bytes_per_gate"], grid["shortest_gate_time_ns"])]))
    return View(title=rec.get("title", f"sgdma plan on {rec.get('board')}"), headline=lines, ok=ok, facts=facts,
                figures=figs, tables=tables)


def _runner_up(rec: dict, tried: list) -> str:
    chosen = rec.get("recommended_bytes_per_bd")
    others = [t for t in tried if t["bytes_per_bd"] != chosen]
    if not others:
        return ("none: the first candidate (one gate per BD) already kept the 1.2x margin, so no other BD size was "
                "run." if tried else "none: decided analytically, nothing simulated.")
    t = max(others, key=lambda t: t["worst_mbps"])
    need = rec["required_mbps"]
    return (f"{t['bytes_per_bd']} B per BD ({t['gates_per_bd']} gate(s)): worst trial {t['worst_mbps']:.1f} MB/s = "
            f"{t['worst_mbps'] / need:.2f}x the need, " +
            ("below the 1.2x target." if t["worst_mbps"] < 1.2 * need else "also enough, but larger."))
