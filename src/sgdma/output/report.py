"""One report layer for every experiment.  A report is built from a result record only — the JSON the
command's --json flag writes, carrying "kind" and "version" — so `sgdma report RESULT.json` rebuilds it
later.  Experiments without a dedicated view call `write(record, out_dir)` with their
own record and get the generic view: their numbers as facts, their lists of records as tables."""
from __future__ import annotations

import json
from pathlib import Path

from sgdma.output.view import Fact, View, html_page, write_static

# kind -> (version this code reads, view module)
KINDS = {
    "sequence": (1, "sgdma.output.sequence_view"),
    "characterize": (1, "sgdma.output.characterize_view"),
    "capture": (1, "sgdma.output.capture_view"),
    "plan": (1, "sgdma.output.plan_view"),
    "validate": (1, "sgdma.output.validate_view"),
    "rtio": (1, "sgdma.output.rtio_view"),
    "pcie": (1, "sgdma.output.pcie_view"),
}


class ReportError(ValueError):
    """A record the report layer cannot read (wrong kind, version or shape)."""


def load(path: str | Path, expect: str | None = None) -> dict:
    """Read a result record; `expect` names the kind the caller needs."""
    from sgdma.output import records

    try:      # bounded and schema-checked: a damaged record is refused naming the file, field and rule
        rec = records.load_json(path)
        check(rec, expect, str(path))
        records.check_record(rec, str(path), {k: v[0] for k, v in KINDS.items()})
    except records.RecordError as e:
        raise ReportError(str(e)) from None
    return rec


def check(rec, expect: str | None = None, where: str = "record") -> None:
    if not isinstance(rec, dict) or "kind" not in rec or "version" not in rec:
        raise ReportError(f"{where}: a result record is a JSON object with 'kind' and 'version' fields "
                          f"(kinds: {', '.join(sorted(KINDS))} or another experiment's name); this one has none — "
                          "write it with the command's --json flag")
    kind, version = rec["kind"], rec["version"]
    if expect and kind != expect:
        raise ReportError(f"{where}: expected a '{expect}' record (version {KINDS.get(expect, (1,))[0]}), "
                          f"got kind '{kind}' — it comes from another command")
    if kind in KINDS and version != KINDS[kind][0]:
        raise ReportError(f"{where}: '{kind}' record version {version}; this sgdma reads version "
                          f"{KINDS[kind][0]} — rebuild the record with this version's `sgdma` command")


def view_of(rec: dict) -> View:
    check(rec)
    if rec["kind"] in KINDS:
        import importlib

        mod = importlib.import_module(KINDS[rec["kind"]][1])
        return mod.view(rec)
    return generic_view(rec)


def html_of(rec: dict) -> str:
    return html_page(view_of(rec), rec)


def write(rec: dict, out_dir: str | Path, static: bool = True) -> dict:
    """report.html (self-contained), one PNG and SVG per figure, and the record (result.json)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    v = view_of(rec)
    files = {"result_json": str(out / "result.json"), "report_html": str(out / "report.html")}
    (out / "result.json").write_text(json.dumps({k: x for k, x in rec.items() if k != "outputs"}) + "\n")
    (out / "report.html").write_text(html_page(v, rec, embed_record=False))
    if static:
        files.update(write_static(v, out))
    return files


def write_compare(a: dict, b: dict, out_dir: str | Path, name_a: str = "A", name_b: str = "B") -> str:
    """compare.html: two records of one kind side by side (sgdma.output.compare); returns its path."""
    from sgdma.output.compare import view as compare_view

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "compare.html"
    path.write_text(html_page(compare_view(a, b, view_of(a), view_of(b), name_a, name_b), {"kind": f"{a['kind']} (two records)",
                                                                  "version": a["version"]}, embed_record=False,
                              rebuild="sgdma report A.json B.json"))
    return str(path)


class Report:
    """A record with a notebook face: `Report(rec)` in Jupyter shows the same page inline.

    plotly.js (4.8 MB) goes into the notebook once, offline: the first Report shown in a kernel leaves its text in
    the notebook page, and every report (an iframe) runs it in its own window.  ``plotly="inline"`` puts it into
    this output too: for a notebook whose first report's output was cleared or not trusted (docs/reports.md)."""

    _plotly_shown = False                  # this kernel has put plotly.js into the notebook page

    def __init__(self, rec: dict, plotly: str = "once"):
        check(rec)
        if plotly not in ("once", "inline"):
            raise ValueError(f"plotly={plotly!r}: 'once' (the first Report of the kernel carries plotly.js) or "
                             f"'inline' (this one does)")
        self.record, self.plotly = rec, plotly

    def _repr_html_(self) -> str:
        import html

        lib = ""
        if self.plotly == "inline" or not Report._plotly_shown:
            from plotly.offline import get_plotlyjs

            text = json.dumps(get_plotlyjs()).replace("</", "<\\/")
            lib = f"<script>window.sgdmaPlotlySource = {text};</script>"     # for every report's iframe to run
            Report._plotly_shown = True
        page = html_page(view_of(self.record), self.record, plotly="parent")
        return f"{lib}<iframe srcdoc=\"{html.escape(page)}\" style='width:100%;height:900px;border:0'></iframe>"

    def write(self, out_dir) -> dict:
        return write(self.record, out_dir)


def generic_view(rec: dict) -> View:
    """Any experiment's record: scalars become facts (unit from a _ns/_mbps/... suffix), lists of
    flat records become tables (first 200 rows), and 'figures' entries in the record are drawn."""
    from sgdma.output.figure import Figure, Row, Trace

    facts, tables, figs = [], [], []
    for k, val in rec.items():
        if k in ("kind", "version", "title", "figures", "headline"):
            continue
        if isinstance(val, (int, float, str, bool)) or val is None:
            facts.append(Fact(k.replace("_", " "), val, _unit(k), rec.get("definitions", {}).get(k, "")))
        elif isinstance(val, list) and val and all(isinstance(r, dict) for r in val):
            cols = [c for c in val[0] if not isinstance(val[0][c], (dict, list))]
            tables.append((f"{k} ({min(200, len(val))} of {len(val)})", cols,
                           [[r.get(c, "") for c in cols] for r in val[:200]]))
    for i, f in enumerate(rec.get("figures", [])):
        traces = [Trace(s.get("kind", "line"), s["x"], s["y"], name=s.get("name", "")) for s in f["series"]]
        figs.append(Figure(f"fig{i}", f.get("title", ""), f.get("caption", ""), f.get("x_label", ""),
                           [Row(f.get("y_label", ""), traces)], x_log=f.get("x_log", False)))
    return View(title=rec.get("title", f"sgdma {rec['kind']}"), headline=list(rec.get("headline", [])) or
                [f"{rec['kind']} result (version {rec['version']})"], facts=facts, figures=figs, tables=tables)


def _unit(key: str) -> str:
    for suffix, unit in (("_ns", "ns"), ("_us", "us"), ("_mbps", "MB/s"), ("_bytes", "bytes"), ("_hz", "Hz"),
                         ("_pct", "%"), ("_s", "s")):
        if key.endswith(suffix):
            return unit
    return ""
