"""The characterize report (kind "characterize", S0's sweep): the first screen says the peak, where the
stream saturates and each region's regime (from the record's "regimes", computed by
sgdma.experiments.limits.characterize); then throughput and latency heat maps (bytes/BD x BDs, each cell
labelled with its regime), single-pass and cyclic side by side, S0-style line plots and every record."""
from __future__ import annotations

import numpy as np

from sgdma.output.figure import Figure, Row, Trace, sequential
from sgdma.output.view import Fact, View

SHORT = {"fetch-bound": "F", "refresh-bound": "R", "stream-bound": "S", "overhead-bound": "O"}


def view(rec: dict) -> View:
    rows = rec["records"]
    reg = {(p["bytes_per_bd"], p["bds"], p["cycles"]): p for p in (rec.get("regimes") or {}).get("points", [])}
    board = rows[0]["board"] if rows else "?"
    cycles = sorted({r["cycles"] for r in rows})
    single = [r for r in rows if r["cycles"] == 1] or rows
    best = max(rows, key=lambda r: r["throughput_mbps"]["median"]) if rows else None
    lines = [_headline(rows, board, best, rec.get("regimes"))]
    lines += _regime_lines(single, reg, rec.get("regimes"))
    figs = []
    half = len(cycles) > 1                   # single pass and cyclic side by side
    for key, what, caption in (
            ("throughput_mbps", "throughput (MB/s)", "Median throughput per (bytes per BD, ring size), MB/s; the "
             "letter in each cell is its regime (F fetch-bound, R refresh-bound, S stream-bound, O overhead-bound) "
             "from the relaxed replays; blank: not computed."),
            ("latency_ns", "latency (ns)", "Median latency per cell (S0's definition: tail write to the first "
             "stream word, ns); letters as above.")):
        for c in cycles[:2] if half else cycles:
            sub = [r for r in rows if r["cycles"] == c]
            mode = "single pass" if c == 1 else f"cyclic, {c} laps"
            figs.append(_heat(sub, key, f"{key.split('_')[0]}_c{c}", f"Median {what}, {mode}", reg, caption, half))
        for c in cycles[2:] if half else []:
            sub = [r for r in rows if r["cycles"] == c]
            figs.append(_heat(sub, key, f"{key.split('_')[0]}_c{c}", f"Median {what}, cyclic, {c} laps", reg,
                              caption, False))
    figs += _lines(single, board)
    facts = [Fact("board", board, "", "preset of the virtual board"),
             Fact("records", len(rows), "", f"(bytes per BD, ring size, cycles) points; cycles {cycles}")]
    if best:
        facts.append(Fact("peak median throughput", best["throughput_mbps"]["median"], "MB/s",
                          f"at {best['bytes_per_bd']} bytes per BD, {best['bds']} BDs, {best['cycles']} cycle(s)"))
        facts.append(Fact("lowest median latency", min(r["latency_ns"]["median"] for r in rows), "ns",
                          "S0's latency: tail write to first stream word"))
    if rec.get("regimes"):
        facts.append(Fact("stream ceiling", rec["regimes"]["stream_ceiling_mbps"], "MB/s",
                          "the stream's width x clock: no DMA moves more"))
    table = ("Every record (median [min, max])", ["BDs", "bytes/BD", "cycles", "regime", "latency (ns)",
                                                  "throughput (MB/s)"],
             [[r["bds"], r["bytes_per_bd"], r["cycles"],
               reg.get((r["bytes_per_bd"], r["bds"], r["cycles"]), {}).get("regime", ""),
               f"{r['latency_ns']['median']:.0f} [{r['latency_ns']['min']:.0f}, {r['latency_ns']['max']:.0f}]",
               f"{r['throughput_mbps']['median']:.1f} [{r['throughput_mbps']['min']:.1f}, "
               f"{r['throughput_mbps']['max']:.1f}]"] for r in rows])
    return View(title=rec.get("title", f"sgdma characterize on {board}"), headline=lines, ok=None, facts=facts,
                figures=figs, tables=[table])


def _headline(rows, board, best, regimes) -> str:
    if not best:
        return f"No points on {board}."
    s = (f"Peak {best['throughput_mbps']['median']:.0f} MB/s on {board} at {best['bytes_per_bd']} bytes per BD "
         f"({best['bds']} BDs)")
    if regimes:
        s += f", {100 * best['throughput_mbps']['median'] / regimes['stream_ceiling_mbps']:.0f} % of the stream's " \
             f"{regimes['stream_ceiling_mbps']:.0f} MB/s ceiling"
    return s + f"; {len(rows)} points."


def _regime_lines(single, reg, regimes) -> list[str]:
    if not regimes:
        return ["Regimes: not computed for this record (write it with --out, which replays the sweep with DDR "
                "refresh off and with zero interconnect latency)."]
    by_size = {}
    for r in single:
        p = reg.get((r["bytes_per_bd"], r["bds"], r["cycles"]))
        if p:
            by_size.setdefault(r["bytes_per_bd"], []).append(p["regime"])
    seq = [(b, max(set(v), key=v.count)) for b, v in sorted(by_size.items())]
    parts, changes = [], []
    for i, (b, g) in enumerate(seq):
        if i == 0 or g != seq[i - 1][1]:
            parts.append([b, b, g])
            if i:
                changes.append(f"{g} from {b} B per BD")
        else:
            parts[-1][1] = b
    text = "; ".join(f"{g} at {lo}" + (f"..{hi}" if hi != lo else "") + " B per BD" for lo, hi, g in parts)
    out = [f"Regimes (single pass, by the relaxed replays): {text}."]
    if changes:
        out.append("The regime changes: " + ", ".join(changes) + ".")
    return out


def _heat(rows, key, fkey, title, reg, caption, half=False) -> Figure:
    xs = sorted({r["bytes_per_bd"] for r in rows})
    ys = sorted({r["bds"] for r in rows})
    z = np.full((len(ys), len(xs)), np.nan)
    text = [["" for _ in xs] for _ in ys]
    for r in rows:
        i, j = ys.index(r["bds"]), xs.index(r["bytes_per_bd"])
        z[i, j] = r[key]["median"]
        p = reg.get((r["bytes_per_bd"], r["bds"], r["cycles"]))
        text[i][j] = SHORT.get(p["regime"], "?") if p else ""
    return Figure(fkey, title, caption, "bytes per BD",
                  [Row("BDs per ring", [Trace("heatmap", list(range(len(xs))), list(range(len(ys))), z=z.tolist(),
                                              name="MB/s" if "throughput" in key else "ns", text=text,
                                              colorscale="Viridis", labels=True)],
                       y_ticks=ys)], x_ticks=xs, half=half)


def _lines(rows, board) -> list[Figure]:
    sizes = sorted({r["bds"] for r in rows})

    def series(key):
        out = []
        for i, n in enumerate(sizes):
            rr = sorted((r for r in rows if r["bds"] == n), key=lambda r: r["bytes_per_bd"])
            out.append(Trace("line", [r["bytes_per_bd"] for r in rr], [r[key]["median"] for r in rr],
                             name=f"{n} BDs", color=sequential(i, len(sizes))))
        return out

    return [Figure("fig5_latency", f"MM2S latency vs bytes per BD ({board}, single pass)",
                   "Median latency per ring size (S0's definition: tail write to the first stream word, ns); "
                   "colour darkest for the smallest ring.", "bytes per BD",
                   [Row("latency (ns)", series("latency_ns"))], x_log=True),
            Figure("fig7_throughput", f"MM2S median throughput vs bytes per BD ({board}, single pass)",
                   "Median throughput per ring size: payload / (last word - first word), MB/s.",
                   "bytes per BD", [Row("throughput (MB/s)", series("throughput_mbps"), y_log=True)], x_log=True)]
