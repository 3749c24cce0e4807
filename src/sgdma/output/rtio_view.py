"""The rtio reports (kind "rtio"): bench — each initiator's sustained event interval against the gateware
limit and the softcore, and what binds it (the record's "limits", from sgdma.experiments.limits.rtio);
demo — the analyzer's timeline of the recorded pulse train and the DMA's sustained interval."""
from __future__ import annotations

import numpy as np

from sgdma.output.figure import PALETTE, Figure, Row, Trace
from sgdma.output.view import Fact, View


def view(rec: dict) -> View:
    return _demo(rec) if rec.get("mode") == "demo" else _bench(rec)


def _bench(rec: dict) -> View:
    rows, lim = rec["rows"], rec.get("limits") or [{}] * len(rec["rows"])
    gw = rows[0]["gateware_limit_ns"] if rows else float("nan")
    held = [r.get("sustained", True) for r in rows]
    failed = [r for r, h in zip(rows, held) if not h]
    main = [r for r, h in zip(rows, held) if h and r["board"] == rec.get("board", rows[0]["board"])]
    soft = [r for r, h in zip(rows, held) if h and r not in main]
    best = min(main, key=lambda r: r["interval_ns"]) if main else None
    lines = []
    if failed:                                  # the negative verdict comes first
        lines.append("Not sustained: " + "; ".join(
            f"{r['initiator']} on {r['board']}" + (f" (batch {r['batch']})" if r.get("batch") else "") +
            f": {r.get('reason', 'no interval sustained')}" for r in failed) + ".")
    if best:
        lines.append(f"Fastest initiator on {best['board']}: {best['initiator']}, one event every "
                     f"{best['interval_ns']:.0f} ns sustained — {best['interval_ns'] / gw:.1f}x the gateware's "
                     f"{gw:.0f} ns limit" + (f"; the {soft[0]['board']} softcore sustains {soft[0]['interval_ns']:.0f} "
                                               f"ns ({soft[0]['interval_ns'] / best['interval_ns']:.1f}x slower)."
                                               if soft else "."))
    binds = [f"{r['initiator']} ({r['board']}): {lm.get('binding', 'not sustained' if not h else '?')}"
             for r, lm, h in zip(rows, lim, held)]
    lines.append("Binds: " + "; ".join(binds) + (" (replays with one resource relaxed)." if rec.get("limits") else
                                                 " — not computed (write the report with --out)."))
    labels = [f"{r['board']} {r['initiator']}" + ("" if h else " (not sustained)") for r, h in zip(rows, held)]
    at = [i for i, h in enumerate(held) if h]         # a row not sustained has no bar
    traces = [Trace("hbar", [rows[i]["interval_ns"] for i in at], at, name="sustained interval", color=PALETTE[0])]
    if rec.get("limits"):
        traces.append(Trace("markers", [lim[i]["relaxed_interval_ns"].get(lim[i]["binding"], np.nan) for i in at],
                            at, name="with the binding resource relaxed", color=PALETTE[2]))
    traces.append(Trace("line", [gw, gw], [-0.5, len(rows) - 0.5], name=f"gateware limit ({gw:.0f} ns)",
                        color=PALETTE[1]))
    figs = [Figure("intervals", "Sustained event interval per initiator (lower is better)",
                   "Shortest pulse period each initiator sustains without underflow (ns, bisected on the model), "
                   "the interval with its binding resource relaxed, and the gateware's one CRI write per "
                   "cri_write_cycles limit; an initiator that sustains no interval has no bar.", "event interval (ns)",
                   [Row("", traces, y_ticks=labels)], x_log=True)]
    table = ("Initiators", ["board", "initiator", "interval (ns)", "x gateware", "binds", "relaxed (ns)",
                            "GP rd/ev", "GP wr/ev", "SEV/ev"],
             [_table_row(r, lm, gw) for r, lm in zip(rows, lim)])
    facts = [Fact("gateware limit", gw, "ns", "one CRI write per cri_write_cycles RTIO clocks"),
             Fact("fastest", best["interval_ns"] if best else None, "ns", best["initiator"] if best else ""),
             Fact("not sustained", len(failed), "", "initiators that sustain no interval"),
             Fact("ACPKI batch", rec.get("batch"), "events", "events per ACPKI batch")]
    return View(title=f"sgdma rtio bench on {rec.get('board')}", headline=lines, ok=False if failed else None,
                facts=facts, figures=figs, tables=[table])


def _table_row(r: dict, lm: dict, gw: float) -> list:
    if not r.get("sustained", True):
        return [r["board"], r["initiator"], "not sustained", "", lm.get("binding", ""), "", "", "", ""]
    return [r["board"], r["initiator"], f"{r['interval_ns']:.0f}", f"{r['interval_ns'] / gw:.1f}",
            lm.get("binding", ""), ", ".join(f"{k} {v:.0f}" for k, v in lm.get("relaxed_interval_ns", {}).items()),
            f"{r['gp_reads_per_event']:.2f}", f"{r['gp_writes_per_event']:.2f}", f"{r['sev_per_event']:.3f}"]


def _demo(rec: dict) -> View:
    a = rec["analyzer"]
    ts = np.array(a["timestamp_mu"], dtype=float)
    rc = np.array(a["rtio_counter_mu"], dtype=float)
    data = np.array(a["data"], dtype=float)
    mu = rec["ref_period_ns"]
    s = rec["summary"]
    wo, wi = rec["dma_interval"]["without_analyzer"], rec["dma_interval"]["with_analyzer"]
    slack = (ts - rc) * mu
    ok = not s.get("overflow") and s.get("exceptions", 0) == 0
    lines = [f"{'Played' if ok else 'Played with losses'}: {rec['pulses']} pulses every {rec['period_mu']} mu, "
             f"{s.get('messages')} analyzer messages ({s.get('outputs')} outputs), {s.get('exceptions', 0)} exceptions, overflow "
             f"{'yes' if s.get('overflow') else 'no'}.",
             f"DMA playback sustains one event every {wo['interval_ns']:.0f} ns without the analyzer and "
             f"{wi['interval_ns']:.0f} ns with it (gateware limit {wo['gateware_limit_ns']:.0f} ns); the analyzer "
             f"lost {wi['analyzer_lost']} messages at that rate.",
             f"Smallest slack of an output event: {np.min(slack):.0f} ns (timestamp minus the RTIO counter when it was "
             "written)." if len(slack) else "No analyzer messages."]
    t0 = ts[0] if len(ts) else 0.0
    window = ts <= t0 + 20 * rec["period_mu"]
    figs = [Figure("analyzer_timeline", "Analyzer timeline", "Top: the TTL level the analyzer logged, first 20 "
                   "periods (mu from the first event). Bottom: every output event's slack, its timestamp minus the RTIO "
                   "counter when the core accepted it (ns); it must stay above zero.", "time (mu from the first event)",
                   [Row("TTL level", [Trace("step", ts[window] - t0, data[window], name="ttl0", color=PALETTE[0])],
                        0.6),
                    Row("slack (ns)", [Trace("markers", ts - t0, slack, name="slack", color=PALETTE[3])])])]
    facts = [Fact("events", len(ts), "", "analyzer messages in the record"),
             Fact("DMA interval", wo["interval_ns"], "ns", "sustained, analyzer off"),
             Fact("DMA interval with analyzer", wi["interval_ns"], "ns", "sustained, analyzer writing to DDR")]
    return View(title=f"sgdma rtio demo on {rec.get('board')}", headline=lines, ok=ok, facts=facts, figures=figs,
                notes=["Files: analyzer.dump (ARTIQ's format), rtio.vcd (GTKWave), rtio_waveform.png."])
