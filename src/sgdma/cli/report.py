"""``sgdma report RESULT.json [OTHER.json]``: rebuild a report (HTML, PNG, SVG) from a result record, or put two
records of one kind side by side."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from sgdma.cli.common import InPath, OutPath, writable_problem


@click.command("report")
@click.argument("results", nargs=-1, required=True, type=InPath())
@click.option("--out", "out_dir", default=None, type=OutPath(directory=True),
              help="directory for report.html (compare.html for two records) and the figures (default: next to the "
                   "first RESULT)")
@click.option("--expect", default=None, help="the kind of record required (e.g. sequence, characterize)")
@click.option("--check-browser", is_flag=True, help="open it in headless Chromium and check it (screenshot too)")
def report_cmd(results, out_dir, expect, check_browser) -> None:
    """Rebuild the report of a --json result record (kinds: sequence, characterize, capture, plan, validate, rtio,
    pcie, or any experiment's record with 'kind' and 'version'); with two records of one kind, compare them: what
    changed in the set-up and what moved (margin, binding resource, each point's figure of merit)."""
    from sgdma.output import report

    if len(results) > 2:
        raise click.UsageError(f"{len(results)} records given: pass one to rebuild its report, or two of the same "
                               "kind to compare them")
    if out_dir is None and writable_problem(str(Path(results[0]).parent), True):
        raise click.UsageError(f"the report goes next to RESULT, but {Path(results[0]).parent}: "
                               f"{writable_problem(str(Path(results[0]).parent), True)}; give --out DIR")
    try:
        recs = [report.load(r, expect) for r in results]
    except report.ReportError as e:
        raise click.UsageError(str(e))
    out = Path(out_dir) if out_dir else Path(results[0]).parent
    if len(recs) == 2:
        a, b = recs
        if a["kind"] != b["kind"]:
            raise click.UsageError(f"{results[0]} is a '{a['kind']}' record and {results[1]} a '{b['kind']}' one: "
                                   "compare two records of the same kind")
        html = report.write_compare(a, b, out, *_names(results))
        click.echo(f"{a['kind']} comparison: {html}")
    else:
        html = report.write(recs[0], out)["report_html"]
        click.echo(f"{recs[0]['kind']} report: {html}")
    if check_browser:
        from sgdma.output.browser import check

        r = check(html)
        bad = r["console_errors"] or not all(d["nonempty"] for d in r["drawn"]) or r["scroll_width"] > r["width"]
        click.echo(f"browser: {len(r['console_errors'])} console errors, {sum(d['nonempty'] for d in r['drawn'])}/"
                   f"{r['plots']} plots drawn, width {r['scroll_width']}/{r['width']} px; screenshot {r['screenshot']}")
        sys.exit(1 if bad else 0)


def _names(paths) -> tuple[str, str]:
    """Short names of the two records: their file names, or parent/name when those are the same."""
    a, b = (Path(p).resolve() for p in paths)
    if a.stem != b.stem:
        return a.stem, b.stem
    return f"{a.parent.name}/{a.stem}", f"{b.parent.name}/{b.stem}"
