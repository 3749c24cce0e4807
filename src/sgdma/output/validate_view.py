"""The validate report (kind "validate"): every public figure beside the model's value and its band, with
a pass/fail column; the first line counts the figures out of band."""
from __future__ import annotations

from sgdma.output.figure import PALETTE, Figure, Row, Trace
from sgdma.output.view import Fact, View, fmt


def view(rec: dict) -> View:
    checks = rec["checks"]
    counted = [c for c in checks if c.get("counted", True)]
    bad = [c for c in counted if not c["ok"]]
    known = [c for c in checks if not c.get("counted", True) and not c["ok"]]
    ok = not bad
    lines = [f"{'All' if ok else len(counted) - len(bad)} of {len(counted)} published figures within their bands"
             + ("." if ok else f"; out of band: {', '.join(c['figure'] for c in bad)}.")]
    for c in known:      # reported with the band they miss, outside the verdict
        lines.append(f"Known miss, not counted: {c['figure']}: model {fmt(c['model'])} against published "
                     f"{fmt(c['published'])} {c.get('unit', '')}, band {c['band']}.")
    ratios = [c for c in checks if c.get("published")]
    for c in bad:
        unit = f" {c['unit']}" if c.get("unit") else ""
        lines.append(f"{c['figure']}: model {fmt(c['model'])} against published {fmt(c['published'])}{unit}, "
                     f"band {c['band']}" + (f" ({c['note']})" if c.get("note") else "") + ".")
    lines.append(f"Model runs: S0 sweep at {rec.get('trials')} trials per point, seed {rec.get('seed')}.")
    figs = []
    if ratios:
        names = [c["figure"] for c in ratios]
        # one trace per result, so a row not ok is never drawn in the green "within band" colour
        groups = [("within band", PALETTE[2], lambda c: c["ok"]),
                  ("out of band", PALETTE[1], lambda c: not c["ok"] and c.get("counted", True)),
                  ("known miss, not counted", PALETTE[4], lambda c: not c["ok"] and not c.get("counted", True))]
        traces = []
        for name, color, member in groups:
            idx = [i for i, c in enumerate(ratios) if member(c)]
            if idx:
                traces.append(Trace("hbar", [ratios[i]["ratio"] for i in idx], idx, color=color, name=name))
        figs.append(Figure("ratios", "Model / published for each figure", "Ratio of the model's value to the "
                           "published one (1 = equal); green within its band, red out of it, orange a known miss "
                           "left out of the verdict.", "model / published",
                           [Row("", traces, y_ticks=names, height=max(1.0, len(ratios) / 6))]))
    table = ("Every figure", ["figure", "published", "model", "unit", "ratio", "band", "result", "note"],
             [[c["figure"], fmt(c["published"]), fmt(c["model"]), c.get("unit", ""),
               "" if not c.get("published") else f"{c['ratio']:.3f}", c["band"], _result(c), c.get("note", "")]
              for c in checks])
    facts = [Fact("figures", len(checks), "", "public figures checked (the calibration sources)"),
             Fact("out of band", len(bad), "", "figures whose model value is outside the band")]
    return View(title="sgdma validate: the model against public figures", headline=lines, ok=ok, facts=facts,
                figures=figs, tables=[table], tables_first=True)


def _result(c: dict) -> str:
    """pass within the band; out of it, FAIL when it counts in the verdict, else a known miss."""
    return "pass" if c["ok"] else "FAIL" if c.get("counted", True) else "known miss"
