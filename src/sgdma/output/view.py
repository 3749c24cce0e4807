"""What a report shows, independent of the experiment: a headline in sentences, named facts with
unit and definition, figures, tables and notes; and how it becomes one self-contained HTML page
(Plotly's own bundle inlined, no CDN) or static PNG/SVG files."""
from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path

from sgdma.output.figure import Figure, to_matplotlib, to_plotly


@dataclass
class Fact:
    name: str
    value: object
    unit: str
    definition: str


@dataclass
class View:
    title: str
    headline: list[str]
    facts: list[Fact]
    figures: list[Figure]
    tables: list[tuple[str, list[str], list[list]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ok: bool | None = None            # verdict colour of the headline (None: no verdict)
    tables_first: bool = False        # the tables are the answer (validate): before the figures


def fmt(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"
    return str(v)


_CSS = """
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#222;
margin:0;background:#f4f5f7}main{max-width:1180px;margin:0 auto;padding:16px 20px}
h1{font-size:20px;margin:4px 0 10px}h2{font-size:16px;margin:22px 0 6px}
.verdict{border-left:6px solid #888;background:#fff;padding:10px 14px;margin:0 0 12px;border-radius:4px}
.verdict.ok{border-color:#2ca02c}.verdict.bad{border-color:#d62728}.verdict p{margin:3px 0}
.verdict p:first-child{font-size:17px;font-weight:600}.verdict p.fid{color:#8a5a00;font-size:13px}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(270px,1fr));gap:6px;margin-bottom:10px}
.fact{background:#fff;border-radius:4px;padding:6px 10px}.fact b{font-size:16px}.fact .n{color:#555;font-size:12px}
.fact b.long{font-size:12.5px;font-weight:normal}.fact .d{color:#666;font-size:11.5px}
.fig{background:#fff;border-radius:4px;padding:6px;margin:10px 0}.fig .cap{font-size:12.5px;color:#444;margin:4px 8px}
.row2{display:grid;grid-template-columns:1fr 1fr;gap:10px}@media(max-width:900px){.row2{grid-template-columns:1fr}}
table{border-collapse:collapse;background:#fff;width:100%;font-size:12.5px;table-layout:auto}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top;overflow-wrap:break-word}
.tbl{overflow-x:auto}
th{background:#eef}.notes{color:#555;font-size:12px}
"""


#: A page drawn inside a notebook output (an iframe) runs plotly.js from the text the notebook page holds (Report
#: puts it there once, as window.sgdmaPlotlySource), in its own window as the file report does; it waits for it a
#: bounded time, then says in each figure how to get it.
_PLOTLY_FROM_PARENT = """<script>
function sgdmaPlotly() {
  if (window.Plotly) return window.Plotly;
  let src;
  try { src = window.parent.sgdmaPlotlySource; } catch (err) { return undefined; }
  if (!src) return undefined;
  const s = document.createElement('script');
  s.text = src;
  document.head.appendChild(s);
  return window.Plotly;
}
</script>"""
_NO_PLOTLY = ("Plotly is not loaded in this notebook: it comes with the first Report shown in the kernel. "
              "Show this one with Report(record, plotly='inline') to embed it here.")


def record_fidelity(record: dict) -> tuple[str, str] | None:
    """(fidelity, note) of a record or of its first point record; None when it does not say."""
    rows = record.get("records")
    src = record if "fidelity" in record else rows[0] if isinstance(rows, list) and rows and \
        isinstance(rows[0], dict) and "fidelity" in rows[0] else None
    if src is None:
        return None
    note = str(src.get("fidelity_note") or "")
    return str(src["fidelity"]), note.split(": ", 1)[1] if note.startswith(f"{src['fidelity']}: ") else note


def html_page(v: View, record: dict, embed_record: bool = True, rebuild: str = "sgdma report RESULT.json",
              plotly: str = "inline") -> str:
    """The report page.  ``plotly``: "inline" embeds plotly.js (a file that works offline, 4.8 MB); "parent"
    runs the copy the page holding this one's iframe keeps (a notebook output, see Report)."""
    if plotly == "inline":
        from plotly.offline import get_plotlyjs

        lib = f"<script>{get_plotlyjs()}</script>{_PLOTLY_FROM_PARENT}"
    elif plotly == "parent":
        lib = _PLOTLY_FROM_PARENT
    else:
        raise ValueError(f"plotly={plotly!r}: 'inline' or 'parent'")
    e = html.escape
    cls = "" if v.ok is None else ("ok" if v.ok else "bad")
    head = "".join(f"<p>{e(s)}</p>" for s in v.headline)
    fid = record_fidelity(record)
    if fid and fid[0] != "exact":                   # numbers not from the reference model say so on top
        head += f"<p class='fid'>fidelity {e(fid[0])}{': ' + e(fid[1]) if fid[1] else ''}</p>"
    facts = "".join(f"<div class='fact' title='{e(f.definition)}'><span class='n'>{e(f.name)}</span><br>"
                    f"<b{' class=long' if len(fmt(f.value)) > 30 else ''}>{e(fmt(f.value))}</b> {e(f.unit)}<div class='d'>{e(f.definition)}</div></div>"
                    for f in v.facts)
    figs, specs = [], []
    pairs = [f for f in v.figures if f.half]
    for f in v.figures:
        div = (f"<div class='fig'><div id='fig-{e(f.key)}' class='plot'></div>"
               f"<div class='cap'>{e(f.caption)}</div></div>")
        figs.append((f, div))
        specs.append({"id": f"fig-{f.key}", **to_plotly(f)})
    body = []
    k = 0
    while k < len(figs):
        f, div = figs[k]
        if f in pairs and k + 1 < len(figs) and figs[k + 1][0] in pairs:
            body.append(f"<div class='row2'>{div}{figs[k + 1][1]}</div>")
            k += 2
        else:
            body.append(div)
            k += 1
    tables = "".join(
        f"<h2>{e(t)}</h2><div class='tbl'><table><tr>{''.join(f'<th>{e(h)}</th>' for h in hdr)}</tr>"
        + "".join("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in r) + "</tr>" for r in rows) + "</table></div>"
        for t, hdr, rows in v.tables)
    notes = "".join(f"<p>{e(n)}</p>" for n in v.notes)
    data = json.dumps(specs).replace("</", "<\\/")
    rec_json = json.dumps(record).replace("</", "<\\/")
    rec = f"<script type='application/json' id='sgdma-record'>{rec_json}</script>" if embed_record else ""
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>{e(v.title)}</title>
<style>{_CSS}</style>{lib}</head><body><main>
<h1>{e(v.title)}</h1><div class="verdict {cls}">{head}</div><div class="facts">{facts}</div>
{tables if v.tables_first else ''}{''.join(body)}{'' if v.tables_first else tables}<div class="notes">{notes}<p>Generated from the result record (kind {e(str(record.get('kind')))},
version {e(str(record.get('version')))}); rebuild with <code>{e(rebuild)}</code>.</p></div>
</main>{rec}<script>
window.sgdmaPlots = 0;
(function draw(tries) {{
  const P = sgdmaPlotly();
  if (!P && tries < 50) {{ setTimeout(() => draw(tries + 1), 100); return; }}
  for (const s of {data}) {{
    if (!P) {{ document.getElementById(s.id).textContent = {json.dumps(_NO_PLOTLY)}; continue; }}
    P.newPlot(s.id, s.data, Object.assign(s.layout, {{autosize: true}}),
              {{responsive: true, displaylogo: false}}).then(() => {{ window.sgdmaPlots += 1; }});
  }}
}})(0);
</script></body></html>"""


def write_static(v: View, out: Path, formats=("png", "svg")) -> dict:
    """Each figure as PNG and SVG (matplotlib, imported only now)."""
    files = {}
    for f in v.figures:
        for fmt_ in formats:
            files[f"{f.key}_{fmt_}"] = str(to_matplotlib(f, out / f"{f.key}.{fmt_}"))
    return files
