"""Two result records of one kind side by side (``sgdma report A.json B.json``): what changed in the set-up,
how each answers (its verdict lines), what moved among the headline facts (margin, binding resource, ...)
and each point's figure of merit in both runs — how a design is sized."""
from __future__ import annotations

from sgdma.output.figure import PALETTE, Figure, Row, Trace
from sgdma.output.view import View, fmt

# kind -> (list of points in a record, the key naming a point, the figure of merit, its label)
POINTS = {
    "characterize": (lambda r: r["records"], lambda p: f"{p['bytes_per_bd']} B x {p['bds']} BDs x {p['cycles']}",
                     lambda p: p["throughput_mbps"]["median"], "median throughput (MB/s)"),
    "pcie": (lambda r: r["records"],
             lambda p: f"{p['link']} {p['direction']} {'EP' if p['endpoint_dma'] else 'root'} {p['packet']} B",
             lambda p: p.get("ep_ddr_mbps", p.get("latency_ns")), "MB/s (sweep) or latency ns"),
    "rtio": (lambda r: [p for p in r.get("rows", []) if p.get("sustained", True)],
             lambda p: f"{p['board']} {p['initiator']}", lambda p: p["interval_ns"],
             "sustained interval (ns)"),
    "validate": (lambda r: r["checks"], lambda p: p["figure"], lambda p: p["model"], "model value"),
    "capture": (lambda r: r.get("records", []), lambda p: f"{p['api']}/{p['cache']} {p['buffer_bytes']} B",
                lambda p: p["max_mbps"], "sustained MB/s"),
    "plan": (lambda r: r.get("tried") or [], lambda p: f"{p['bytes_per_bd']} B per BD", lambda p: p["worst_mbps"],
             "worst-trial MB/s"),
}
RESULTS = {"records", "rows", "checks", "columns", "limits", "regimes", "headroom", "tried", "runs", "map", "drops",
           "underflow_list", "underflow_worst", "provenance", "analyzer", "figures", "title"}
MAX_POINTS_DRAWN = 60
# the fields that say how a run was set up, per kind (the rest of a record is its results)
SETUP = {
    "capture": ("board", "api", "cache", "mode", "rate_sps", "sample_bytes", "buffer_bytes", "buffers", "fifo_bytes",
                "consumer", "consumer_rate", "dma_mode", "seed"),
    "plan": ("board", "gate_time_ns", "bytes_per_gate", "channels", "fifo_depth", "trials", "seed", "cpu_load_mbps",
             "fidelity"),
    "sequence": ("board", "preset", "gate_time_ns", "gates", "bds", "fifo_depth", "word_bytes", "stream_clock_mhz",
                 "mailbox", "seed", "fidelity"),
    "characterize": ("board", "mode", "direction", "placement", "trials", "cpu_load_mbps", "fidelity"),
    "pcie": ("board", "mode", "seed", "link", "mps"),
    "rtio": ("board", "mode", "batch", "pulses", "period_mu"),
    "validate": ("trials", "seed"),
}
SHARED = ("board", "mode", "direction", "placement", "trials", "link", "fidelity")


def _setup(rec: dict) -> dict:
    """The set-up of a record: its kind's input fields, else its scalars that are not results; and the scalars
    its points share (a list record)."""
    keys = SETUP.get(rec["kind"])
    out = {k: v for k, v in rec.items() if isinstance(v, (int, float, str, bool)) and k not in RESULTS and
           (keys is None or k in keys)}
    pts = POINTS.get(rec["kind"], (lambda r: [],))[0](rec)
    for k, v in (pts[0].items() if pts else ()):
        if isinstance(v, (str, int)) and k in (keys or SHARED) and all(p.get(k) == v for p in pts):
            out.setdefault(k, v)
    return out


def view(a: dict, b: dict, va: View, vb: View, name_a: str = "A", name_b: str = "B") -> View:
    """``va``, ``vb``: the two records' own views (sgdma.output.report.view_of)."""
    sa, sb = _setup(a), _setup(b)
    changed = [(k, sa.get(k), sb.get(k)) for k in sorted(set(sa) | set(sb)) if sa.get(k) != sb.get(k)]
    fa = {f.name: f for f in va.facts}
    fb = {f.name: f for f in vb.facts}
    moved = [(n, fa[n], fb[n]) for n in fa if n in fb and fa[n].value != fb[n].value]
    key = [f"{n} {fmt(x.value)} -> {fmt(y.value)} {x.unit}".rstrip() for n, x, y in moved
           if n in ("margin", "binding resource", "headroom", "highest sustained rate", "peak median throughput",
                    "worst trial", "out of band", "fastest", "peak")]
    lines = ["What moved: " + ("; ".join(key) if key else
                                   f"{len(moved)} of the headline facts" if moved else "nothing in the headline facts")
                 + (". Set-up changes: " + ", ".join(f"{k} {fmt(x)} -> {fmt(y)}" for k, x, y in changed[:6])
                    if changed else ". Same set-up") + ".", f"{name_a}: {va.headline[0]}", f"{name_b}: {vb.headline[0]}"]
    tables = [("Set-up: what differs", ["field", name_a, name_b], [[k, fmt(x), fmt(y)] for k, x, y in changed]),
              ("Headline facts", ["fact", name_a, name_b, "change", "unit"],
               [[n, fmt(fa[n].value), fmt(fb[n].value) if n in fb else "", _change(fa[n].value,
                                                                                    fb[n].value if n in fb else None),
                 fa[n].unit] for n in fa])]
    figs = []
    if a["kind"] in POINTS:
        get, name, merit, label = POINTS[a["kind"]]
        pa = {name(p): merit(p) for p in get(a)}
        pb = {name(p): merit(p) for p in get(b)}
        keys = [k for k in pa if k in pb]
        if keys:
            tables.append((f"Each point in both runs: {label}", ["point", name_a, name_b, f"{name_b} / {name_a}"],
                           [[k, fmt(pa[k]), fmt(pb[k]), _ratio(pa[k], pb[k])] for k in keys]))
            shown = keys[:MAX_POINTS_DRAWN]
            figs.append(Figure("compare_points", f"{label}: {name_a} and {name_b}",
                               f"Each point present in both records ({len(shown)} of {len(keys)} drawn).", "point",
                               [Row(label, [Trace("markers", list(range(len(shown))), [pa[k] for k in shown],
                                                  name=name_a, color=PALETTE[0]),
                                            Trace("markers", list(range(len(shown))), [pb[k] for k in shown],
                                                  name=name_b, color=PALETTE[1])])],
                               x_ticks=shown))
    both_ok = None if va.ok is None or vb.ok is None else (va.ok and vb.ok)
    return View(title=f"sgdma compare ({a['kind']}): {name_a} vs {name_b}", headline=lines, ok=both_ok,
                facts=[], figures=figs, tables=tables, tables_first=True)


def _change(x, y) -> str:
    if isinstance(x, bool) or isinstance(y, bool) or not isinstance(x, (int, float)) or \
            not isinstance(y, (int, float)):
        return "" if x == y else "changed"
    return _ratio(x, y)


def _ratio(x, y) -> str:
    if not isinstance(x, (int, float)) or not isinstance(y, (int, float)) or not x:
        return ""
    return f"{y / x:.3g}x"
