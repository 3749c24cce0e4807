"""The sequence report (kind "sequence", from `sgdma demo` / `sgdma run`): does it keep up, by how
much, and what limits it — then the run over time, the per-gate distributions and the provenance.
Everything here is computed from the result record alone."""
from __future__ import annotations

import numpy as np

from sgdma.output.figure import PALETTE, Figure, Row, Trace
from sgdma.output.view import Fact, View

MAX_POINTS = 20_000          # per trace; longer series are thinned (every k-th point) for the page
LATENCY_DEF = ("S0's latency: from the RPU's tail-descriptor write (start) to the first stream word "
               "leaving the DMA at the PL")


def _arr(cols, key):
    return np.array([np.nan if v is None else v for v in cols.get(key, [])], dtype=float)


def _thin(*arrays):
    n = len(arrays[0])
    k = max(1, -(-n // MAX_POINTS))
    return [a[::k] for a in arrays]


def view(rec: dict) -> View:
    c = rec["columns"]
    first, last = _arr(c, "first_ns"), _arr(c, "last_ns")
    deadline, play, fetch = _arr(c, "deadline_ns"), _arr(c, "play_ns"), _arr(c, "fetch_ns")
    beats = np.array(c["gate_beats"], dtype=float)
    names = [c["gate_name_table"][i] for i in c["gate_name"]]
    n = len(first)
    t0 = rec["tail_write_ns"]
    us = lambda t: (np.asarray(t, dtype=float) - t0) / 1e3        # noqa: E731  time axis: us after the tail write
    word = rec["dac_word_ns"]
    clk = 1e3 / rec["stream_clock_mhz"]
    slack = deadline - first
    gate_lat = first - fetch
    head = rec.get("headroom") or {}

    # ---- headline: keeps up? by how much? what limits it? ----------------------------------------
    gt = rec["gate_time_ns"]
    ok = rec["underflows"] == 0
    verdict = (f"Keeps up: {rec['gates']} gates at {gt:.0f} ns per gate played with no underflow."
               if ok else
               f"Does not keep up: {rec['underflows']} underflows in {rec['gates']} gates at {gt:.0f} ns per gate "
               f"(first at gate {rec['underflow_list'][0]['gate']}).")
    lines = [verdict]
    if head.get("headroom_ns"):
        m = head["margin"]
        lines.append(f"Headroom: the shortest gate time with zero underflows is {head['headroom_ns']:.0f} ns; "
                     f"the chosen {gt:.0f} ns is {m:.2f}x that" + (" (margin)." if m >= 1 else
                                                                    " — it needs more time per gate."))
        lines.append("Limit: " + head["sentence"])
    elif head:
        lines.append("Headroom: " + head.get("sentence", "not found"))
    else:
        lines.append("Headroom: not computed for this run (no --headroom search).")

    facts = [
        Fact("gate time", gt, "ns", "time of one gate of the circuit's median length, as chosen"),
        Fact("headroom", head.get("headroom_ns"), "ns",
             f"shortest gate time sustained with zero underflows, bisected on the model "
             f"({(head.get('search') or {}).get('runs', 0)} replays, resolution "
             f"{100 * ((head.get('search') or {}).get('resolution') or 0):.1f} %)"),
        Fact("margin", head.get("margin"), "x", "chosen gate time / headroom (> 1: room to spare)"),
        Fact("binding resource", head.get("binding"), "", "the resource whose limit sets the headroom"),
        Fact("underflows", rec["underflows"], "", "stream words that reached the DAC FIFO after they were due"),
        Fact("deadline misses", rec["deadline_misses"], "", "gates that started after their nominal slot "
             "(each underflow delays every later gate)"),
        Fact("start latency", rec["latency_ns"], "ns", LATENCY_DEF),
        Fact("hand-off", rec["mailbox_latency_ns"], "ns",
             f"APU's first mailbox write to the RPU holding the ring address ({rec['mailbox']})"),
        Fact("ring build", rec["apu_build_ns"] / 1e3, "us", f"APU time to build the {rec['bds']}-BD ring"),
        Fact("DAC word period", word, "ns", f"one {rec['word_bytes']}-byte stream word played every this often"),
        Fact("stream throughput", rec["throughput_mbps"], "MB/s",
             "payload / (last word - first word) at the PL, S0's definition; paced by the DAC"),
        Fact("FIFO depth", rec["fifo_depth"], "words", "DAC FIFO in the PL between the DMA and the DAC"),
        Fact("gates / BDs", f"{rec['gates']} / {rec['bds']}", "", "one AXI-Stream packet per gate"),
        Fact("minimum slack", float(np.nanmin(slack)) if n else None, "ns",
             "smallest (due time - first word's arrival at the PL) over all gates"),
    ]

    figs = []
    if n:
        figs.append(_over_time(rec, first, last, deadline, play, beats, names, slack, us, word, clk))
        figs += _histograms(slack, gate_lat)
    tables = [_worst_table(slack, first, names, us), *_underflow_tables(rec)]
    tables.append(("Where the preset numbers come from (" + rec["preset"] + ")",
                   ["key", "value", "unit", "source"],
                   [[k, str(v["value"]), v["unit"], v["source"]] for k, v in rec.get("provenance", {}).items()]))
    if head.get("bounds"):
        tables.insert(0, ("Each resource's bound on the gate time (from this run's own quantities)",
                          ["resource", "needs at least (ns)", "why"],
                          [[k, f"{v['bound_ns']:.0f}", v["why"]] for k, v in head["bounds"].items()]))
    return View(title=rec["title"], headline=lines, ok=ok, facts=facts, figures=figs, tables=tables,
                notes=["Time axis: microseconds after the RPU's tail-descriptor write (virtual board time).",
                       "Timeline files: timeline.vcd (GTKWave), timeline.json (ui.perfetto.dev)."])


def _fifo_occupancy(first, last, play, beats, word):
    """Words in the DAC FIFO just before and just after each gate's first and last word arrives."""
    cum = np.cumsum(beats)
    before = cum - beats
    t = np.concatenate([first, first, last])
    arrived = np.concatenate([before, before + 1, cum])
    order = np.argsort(t, kind="stable")
    t, arrived = t[order], arrived[order]
    g = np.clip(np.searchsorted(play, t, side="right") - 1, 0, len(play) - 1)
    in_gate = np.clip(np.floor((t - play[g]) / word) + 1, 0, beats[g])
    played = np.where(t >= play[0], before[g] + in_gate, 0)
    return t, np.clip(arrived - played, 0, None)


def _bandwidth(first, last, beats, word_bytes, clk, bins=300):
    xs = np.empty(2 * len(first))
    xs[0::2], xs[1::2] = first, last + clk
    cum = np.cumsum(beats) * word_bytes
    ys = np.empty_like(xs)
    ys[0::2], ys[1::2] = cum - beats * word_bytes, cum
    edges = np.linspace(xs[0], xs[-1], bins + 1)
    b = np.interp(edges, xs, ys)
    width = edges[1] - edges[0]
    return (edges[:-1] + edges[1:]) / 2, np.diff(b) / width * 1e3, width    # MB/s (bytes/ns * 1e3)


def _over_time(rec, first, last, deadline, play, beats, names, slack, us, word, clk) -> Figure:
    c = rec["columns"]
    t_occ, occ = _fifo_occupancy(first, last, play, beats, word)
    t_bw, bw, width = _bandwidth(first, last, beats, rec["word_bytes"], clk)
    rs, re_ = _arr(c, "refresh_start_ns"), _arr(c, "refresh_end_ns")
    fi, fd = _arr(c, "bd_fetch_issue_ns"), _arr(c, "bd_fetch_done_ns")
    uf_t = np.array([u["time_ns"] for u in rec["underflow_list"]])
    fifo = rec["fifo_depth"]
    demand = rec["word_bytes"] / word * 1e3
    top_bw = max(float(np.nanmax(bw)) if len(bw) else 0, demand) * 1.1
    occ_t, occ_v = _thin(us(t_occ), occ)
    fi_t, fi_v = _thin(us(fi), fd - fi)
    sl_t, sl_v, sl_n, sl_i = _thin(us(deadline), slack, np.array(names, dtype=object), np.arange(len(names)))
    row1 = [Trace("spans", us(rs), [0, fifo], x1=us(re_), name="DDR refresh window", color="#bbbbbb"),
            Trace("step", occ_t, occ_v, name="FIFO occupancy (words)", color=PALETTE[0]),
            Trace("line", [us(first[0]), us(last[-1])], [fifo, fifo], name=f"FIFO depth ({fifo})", color="#555555")]
    if len(uf_t):
        row1.append(Trace("markers", us(uf_t), np.zeros(len(uf_t)), name=f"underflow ({rec['underflows']})",
                          color=PALETTE[1]))
    row2 = [Trace("spans", us(rs), [0, top_bw], x1=us(re_), color="#bbbbbb"),
            Trace("step", us(t_bw - width / 2), bw, name="DMA stream bandwidth (MB/s)", color=PALETTE[2]),
            Trace("line", [us(first[0]), us(last[-1])], [demand, demand], name=f"DAC demand ({demand:.0f} MB/s)",
                  color=PALETTE[4])]
    row3 = [Trace("spans", us(rs), [0, float(np.nanmax(fd - fi)) if len(fi) else 1], x1=us(re_), color="#bbbbbb"),
            Trace("markers", fi_t, fi_v, name="BD fetch: issue -> data back (ns)", color=PALETTE[3])]
    row4 = [Trace("markers", sl_t, sl_v, name="slack at each gate boundary (ns)", color=PALETTE[0],
                  text=[f"gate {i}: {nm}" for i, nm in zip(sl_i, sl_n)]),
            Trace("line", [us(first[0]), us(last[-1])], [0, 0], color="#000000")]
    if len(uf_t):
        row4.append(Trace("markers", us(uf_t), np.zeros(len(uf_t)), color=PALETTE[1]))
    return Figure(
        key="over_time", title="The run over time (one zoomable axis; drag to zoom, double-click to reset)",
        caption=("Top: words waiting in the DAC FIFO at the PL, sampled just before and after each gate's first "
                 "word and after its last word (grey: DDR refresh windows; red: underflows). Second: bytes per "
                 f"time the DMA streamed, in {width:.0f} ns bins (MB/s), against the DAC's demand. Third: every "
                 "BD fetch of the MM2S SG engine at its issue time, height = time until its data came back (ns). "
                 "Bottom: each gate's slack at its boundary (due time minus its first word's arrival, ns); below "
                 "zero is an underflow."),
        x_label="time after the tail write (us)",
        rows=[Row("FIFO (words)", row1, 1.3), Row("stream (MB/s)", row2), Row("BD fetch (ns)", row3, 0.8),
              Row("slack (ns)", row4, 0.9)])


def _hist(values, bins=40):
    v = values[np.isfinite(values)]
    if not len(v):
        return [], [], 1.0
    counts, edges = np.histogram(v, bins=bins)
    return (edges[:-1] + edges[1:]) / 2, counts, edges[1] - edges[0]


def _histograms(slack, gate_lat) -> list[Figure]:
    x1, y1, w1 = _hist(slack)
    x2, y2, w2 = _hist(gate_lat)
    return [
        Figure("slack_hist", "Per-gate slack", "Gates by slack: due time minus the arrival of the gate's first word "
               "at the PL (ns). Negative slack is an underflow; a pile at the right edge means the FIFO was full "
               "and held the DMA back.", "slack (ns)", [Row("gates", [Trace("bar", x1, y1, width=w1,
                                                                              color=PALETTE[0])])], half=True),
        Figure("latency_hist", "Per-gate latency", "Gates by latency in S0's sense, measured per gate: from the DMA "
               "issuing the fetch of the gate's first BD to the gate's first word at the PL (ns). It includes "
               "any wait for FIFO room.", "latency (ns)", [Row("gates", [Trace("bar", x2, y2, width=w2,
                                                                               color=PALETTE[3])])], half=True),
    ]


def _worst_table(slack, first, names, us):
    order = np.argsort(slack, kind="stable")[:10]
    return ("The 10 tightest gates (smallest slack)", ["gate index", "name", "slack (ns)", "first word at (us)"],
            [[int(i), names[i], f"{slack[i]:.0f}", f"{float(us(first[i])):.3f}"] for i in order])


def _underflow_tables(rec):
    if not rec["underflows"]:
        return []
    head = ["gate index", "name", "time (us after start)", "late by (ns)"]
    t0 = rec["tail_write_ns"]
    row = lambda u: [u["gate"], u["gate_name"], f"{(u['time_ns'] - t0) / 1e3:.3f}", f"{u['late_ns']:.0f}"]  # noqa
    out = [(f"First underflows (10 of {rec['underflows']})", head, [row(u) for u in rec["underflow_list"][:10]])]
    out.append((f"Worst underflows (10 of {rec['underflows']})", head, [row(u) for u in rec["underflow_worst"][:10]]))
    return out
