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
        figs.append(Figure("ratios", "Model / published for each figure", "Ratio of the model's value to the "
                           "published one (1 = equal); green within its band, red out of it.", "model / published",
                           [Row("", [Trace("hbar", [c["ratio"] for c in ratios], list(range(len(ratios))),
                                           color=PALETTE[2], name="within band" if ok else "")],
                                y_ticks=names, height=max(1.0, len(ratios) / 6))]))
        figs[-1].rows[0].traces[0].text = None
        if bad:
            idx = [i for i, c in enumerate(ratios) if not c["ok"]]
            figs[-1].rows[0].traces.append(Trace("hbar", [ratios[i]["ratio"] for i in idx], idx, color=PALETTE[1],
                                                 name="out of band"))
    table = ("Every figure", ["figure", "published", "model", "unit", "ratio", "band", "result", "note"],
             [[c["figure"], fmt(c["published"]), fmt(c["model"]), c.get("unit", ""),
               "" if not c.get("published") else f"{c['ratio']:.3f}", c["band"], "pass" if c["ok"] else ("FAIL" if c.get("counted", True) else "known miss"),
               c.get("note", "")] for c in checks])
    facts = [Fact("figures", len(checks), "", "public figures checked (the calibration sources)"),
             Fact("out of band", len(bad), "", "figures whose model value is outside the band")]
    return View(title="sgdma validate: the model against public figures", headline=lines, ok=ok, facts=facts,
                figures=figs, tables=[table], tables_first=True)
