"""The capture report (kind "capture"): a run at one rate, a highest-rate search, or a buffer-size sweep.
The first screen answers: is the asked rate sustained, the highest sustained rate and the margin, what
binds there (from the record's "limits", computed by sgdma.experiments.limits.capture) and what relaxing
it gives."""
from __future__ import annotations

import numpy as np

from sgdma.output.figure import PALETTE, Figure, Row, Trace
from sgdma.output.view import Fact, View

CPU_ITEMS = {"isr": "interrupts (entry + handler)", "syscall": "system calls", "cache_maintenance": "cache maintenance",
             "copy": "copies to the application", "consumer": "the consumer's own work", "wakeup": "wake-ups",
             "driver": "driver bookkeeping (BD reclaim, re-arm)"}


def view(rec: dict) -> View:
    if "records" in rec:
        return _sweep(rec)
    return _run(rec)


def _ms(sps: float) -> str:
    return f"{sps / 1e6:.3g} MS/s"


def verdict_lines(rec: dict) -> tuple[list[str], bool | None]:
    lim = rec.get("limits")
    sb = rec["sample_bytes"]
    if "sustained" in rec:
        ok = bool(rec["sustained"])
        first = (f"{'Sustained' if ok else 'Not sustained'}: {_ms(rec['rate_sps'])} x {sb} B "
                 f"({rec['offered_mbps']:.1f} MB/s) into {rec['buffers']} x {rec['buffer_bytes']} B buffers, "
                 f"{rec['overflows']} samples dropped, CPU load {100 * rec['cpu_load']:.0f} %.")
    else:
        ok = None
        first = (f"Highest sustained rate: {_ms(rec['max_rate_sps'])} ({rec['max_mbps']:.1f} MB/s) with "
                 f"{rec['buffers']} x {rec['buffer_bytes']} B buffers ({rec['api']}/{rec['cache']}).")
    lines = [first]
    if not lim:
        lines.append("Margin and binding resource: not computed for this record (write it with --out, which "
                     "replays the model with each resource relaxed).")
        return lines, ok
    lines.append(f"Margin: the highest sustained rate is {_ms(lim['max_rate_sps'])} ({lim['max_mbps']:.1f} MB/s), "
                 f"{lim['margin']:.2f}x the asked {_ms(lim['asked_sps'])} (bisected on the model, "
                 f"{lim['trials']} trials).")
    binds = f"Binds: {lim['binding']} — {lim['why']}"
    if lim["binding"] == "CPU":
        items = _cpu_items(lim["cpu_at_max"]["by_kind_ns"])
        binds += "; its time at the highest rate: " + ", ".join(f"{n} {p:.0f} %" for n, p, _ in items[:4])
    if lim.get("replays"):
        binds += (f". Replayed at {_ms(lim['failing_sps'])}: " +
                  ", ".join(f"{k} relaxed {'sustains' if v['ok'] else 'fails'}" for k, v in lim["replays"].items()))
    lines.append(binds + ".")
    if lim.get("relaxed"):
        r = lim["relaxed"]
        also = "".join(f"; with {k} relaxed instead, {_ms(v)}" for k, v in (r.get("others") or {}).items())
        lines.append(f"With the {r['resource']} relaxed the same set-up sustains {_ms(r['max_rate_sps'])} "
                     f"({r['max_mbps']:.1f} MB/s){also}.")
    return lines, ok


def _cpu_items(by_kind: dict) -> list[tuple[str, float, float]]:
    total = sum(by_kind.values()) or 1.0
    return sorted(((CPU_ITEMS.get(k, k), 100 * v / total, v) for k, v in by_kind.items()), key=lambda t: -t[1])


def _run(rec: dict) -> View:
    lines, ok = verdict_lines(rec)
    lim = rec.get("limits") or {}
    facts = [Fact("board", rec["board"], "", "preset of the virtual board"),
             Fact("API / cache", f"{rec['api']} / {rec['cache']}", "", "how the application gets each buffer and "
                  "how the cache is kept coherent with the DMA's writes"),
             Fact("highest sustained rate", lim.get("max_rate_sps", rec.get("max_rate_sps")), "samples/s",
                  "bisected on the model: no drop and the reader keeping up"),
             Fact("margin", lim.get("margin"), "x", "highest sustained rate / asked rate"),
             Fact("binding resource", lim.get("binding", rec.get("limit")), "", "the resource whose relaxation "
                  "sustains the lowest failing rate (replays of the model)")]
    if "sustained" in rec:
        facts += [Fact("throughput", rec["throughput_mbps"], "MB/s", "bytes delivered to the application per second"),
                  Fact("CPU load", 100 * rec["cpu_load"], "%", "share of the consumer CPU's time busy"),
                  Fact("latency ADC -> application", (rec.get("latency_us") or {}).get("median"), "us",
                       "median, sample written by the ADC to its buffer handed to the application"),
                  Fact("buffers delivered", rec["buffers_delivered"], "", f"over {rec['simulated_s'] * 1e3:.1f} ms "
                       "of virtual time"),
                  Fact("PL FIFO", rec["fifo_bytes"], "bytes", "between the ADC and the DMA")]
    figs, tables = [], []
    if lim.get("timeline") and len(lim["timeline"]["t_ps"]) > 1:
        figs.append(_timeline(lim["timeline"], rec["sample_bytes"]))
    if lim.get("cpu_at_max"):
        items = _cpu_items(lim["cpu_at_max"]["by_kind_ns"])
        figs.append(Figure("cpu_breakdown", "Where the consumer CPU's time goes at the highest sustained rate",
                           "Busy time per cost item over the run at the highest sustained rate (% of busy time).",
                           "share of busy time (%)",
                           [Row("", [Trace("bar", list(range(len(items))), [p for _, p, _ in items],
                                           color=PALETTE[0])], y_ticks=[n for n, _, _ in items])],
                           x_ticks=None))
        _horizontal(figs[-1])
        tables.append(("CPU time per cost item at the highest sustained rate", ["item", "share (%)", "busy (us)"],
                       [[n, f"{p:.1f}", f"{v / 1e3:.0f}"] for n, p, v in items]))
    if lim.get("replays"):
        tables.append((f"Replays at {_ms(lim['failing_sps'])} (the lowest failing rate) with one resource relaxed",
                       ["relaxed", "sustained", "samples dropped"],
                       [[k, "yes" if v["ok"] else "no", v["overflows"]] for k, v in lim["replays"].items()]))
    if rec.get("runs"):
        runs = sorted(rec["runs"], key=lambda r: r["rate_sps"])
        figs.append(Figure("search", "The bisection: each trial rate, sustained or not",
                           "Every trial of the highest-rate search: sample rate (MS/s) and the CPU load it caused (%); "
                           "green sustained, red not.", "sample rate (MS/s)",
                           [Row("CPU load (%)", [
                               Trace("markers", [r["rate_sps"] / 1e6 for r in runs if r["ok"]],
                                     [100 * r["cpu_load"] for r in runs if r["ok"]], name="sustained",
                                     color=PALETTE[2]),
                               Trace("markers", [r["rate_sps"] / 1e6 for r in runs if not r["ok"]],
                                     [100 * r["cpu_load"] for r in runs if not r["ok"]], name="not sustained",
                                     color=PALETTE[1])])], x_log=True))
    drops = rec.get("drops") or []
    if drops:
        figs.append(Figure("drops", "Drops over time", "Each drop episode of the ADC's PL FIFO: when it began (us of "
                           "virtual time) and how many samples it lost.", "time (us)",
                           [Row("samples dropped", [Trace("bar", [d[0] / 1e3 for d in drops], [d[3] for d in drops],
                                                          color=PALETTE[1])])]))
    title = rec.get("title", f"sgdma capture on {rec['board']}")
    return View(title=title, headline=lines, ok=ok, facts=facts, figures=figs, tables=tables,
                notes=["Timeline: sampled each time a buffer reaches the application (a replay of this run)."])


def _timeline(tl: dict, sample_bytes: int) -> Figure:
    """FIFO fill, buffers at the DMA and at the application, CPU busy and DMA write bandwidth over the run."""
    t = np.array(tl["t_ps"], dtype=float) / 1e6                          # us
    dt = np.diff(t)
    busy = np.diff(np.array(tl["cpu_busy_ns"], dtype=float)) / 1e3      # us busy per interval
    wrote = np.diff(np.array(tl["dma_bytes"], dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        busy_pct = np.where(dt > 0, 100 * busy / dt, np.nan)
        mbps = np.where(dt > 0, wrote / dt, np.nan)                     # bytes/us = MB/s
    fifo = np.array(tl["fifo_samples"], dtype=float) * sample_bytes
    every = f" (every {tl['every']}th hand-off)" if tl.get("every", 1) > 1 else ""
    return Figure("timeline", f"The run over time at {_ms(tl['rate_sps'])}",
                  "Sampled each time a buffer reaches the application" + every + ". Top: bytes waiting in the PL "
                  "FIFO (its size dashed). Second: buffers armed at the DMA and buffers completed but not yet "
                  "returned by the application. Third: share of the consumer CPU busy between samples (%). Bottom: "
                  "bytes the DMA wrote to DDR per time between samples (MB/s).", "time (us)",
                  [Row("FIFO (bytes)", [Trace("step", t, fifo, name="PL FIFO fill", color=PALETTE[0]),
                                        Trace("line", [t[0], t[-1]], [tl["fifo_bytes"]] * 2, name="FIFO size",
                                              color="#555555", dash=True)]),
                   Row("buffers", [Trace("step", t, tl["dma_armed"], name="armed at the DMA", color=PALETTE[2]),
                                   Trace("step", t, tl["app_held"], name="at the application", color=PALETTE[3])]),
                   Row("CPU busy (%)", [Trace("step", t[1:], busy_pct, name="CPU busy", color=PALETTE[1])], 0.8),
                   Row("DMA (MB/s)", [Trace("step", t[1:], mbps, name="DMA writes", color=PALETTE[4])], 0.8)])


def _horizontal(fig: Figure) -> None:
    """A bar chart of named items reads best lying down: swap the axes of its one bar trace."""
    row = fig.rows[0]
    t = row.traces[0]
    t.x, t.y = t.y, t.x
    t.kind = "hbar"


def _sweep(rec: dict) -> View:
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
                   "the highest sustained rate (%).", "buffer size (bytes)",
                   [Row("CPU load (%)", traces("cpu_load", 100.0))], x_log=True)]
    best = max(rows, key=lambda r: r["max_mbps"]) if rows else None
    facts = [Fact("board", board, "", "preset"), Fact("points", len(rows), "", "buffer size x API x cache policy")]
    if best:
        facts.append(Fact("best", best["max_mbps"], "MB/s", f"{best['api']}/{best['cache']} with "
                          f"{best['buffer_bytes']} B buffers (limit: {best['limit']})"))
    table = ("Points", ["api", "cache", "buffer (B)", "MB/s", "CPU load (%)", "limit"],
             [[r["api"], r["cache"], r["buffer_bytes"], f"{r['max_mbps']:.1f}",
               "" if r.get("cpu_load") is None else f"{100 * r['cpu_load']:.0f}", r["limit"]] for r in rows])
    head = (f"Best sustained: {best['max_mbps']:.0f} MB/s with {best['api']}/{best['cache']} and "
            f"{best['buffer_bytes']} B buffers on {board}." if best else "No points.")
    lines = [head]
    lim = rec.get("limits")
    if lim:
        lines.append(f"At that point {lim['binding']} binds — {lim['why']} (replays at {_ms(lim['failing_sps'] or 0)} "
                     "with one resource relaxed)" + (f"; relaxed, it sustains {lim['relaxed']['max_mbps']:.0f} MB/s."
                                                     if lim.get("relaxed") else "."))
        facts.append(Fact("binding resource (best point)", lim["binding"], "", lim["why"]))
    lines.append("Each point's 'limit' column: 'cpu' when the consumer CPU is >= 90 % busy at its highest rate, 'dma' "
                 "otherwise, 'stream' at the stream's ceiling; one point run with --out gets its binding resource "
                 "from relaxed replays.")
    return View(title=rec.get("title", f"sgdma capture sweep on {board}"), headline=lines, facts=facts,
                figures=figs, tables=[table])
