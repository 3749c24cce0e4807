"""``sgdma report RESULT.json``: rebuild a report (HTML, PNG, SVG) from a result record."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from sgdma.cli.common import OutPath, writable_problem


@click.command("report")
@click.argument("result", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "out_dir", default=None, type=OutPath(directory=True),
              help="directory for report.html and the figures (default: next to RESULT)")
@click.option("--expect", default=None, help="the kind of record required (e.g. sequence, characterize)")
@click.option("--check-browser", is_flag=True, help="open it in headless Chromium and check it (screenshot too)")
def report_cmd(result, out_dir, expect, check_browser) -> None:
    """Rebuild the report of a --json result record (kinds: sequence, characterize, capture, plan, or any
    experiment's record with 'kind' and 'version')."""
    from sgdma.output import report

    if out_dir is None and writable_problem(str(Path(result).parent), True):
        raise click.UsageError(f"the report goes next to RESULT, but {Path(result).parent}: "
                               f"{writable_problem(str(Path(result).parent), True)}; give --out DIR")
    try:
        rec = report.load(result, expect)
    except report.ReportError as e:
        raise click.UsageError(str(e))
    out = Path(out_dir) if out_dir else Path(result).parent
    files = report.write(rec, out)
    click.echo(f"{rec['kind']} report: {files['report_html']}")
    if check_browser:
        from sgdma.output.browser import check

        r = check(files["report_html"])
        bad = r["console_errors"] or not all(d["nonempty"] for d in r["drawn"]) or r["scroll_width"] > r["width"]
        click.echo(f"browser: {len(r['console_errors'])} console errors, {sum(d['nonempty'] for d in r['drawn'])}/"
                   f"{r['plots']} plots drawn, width {r['scroll_width']}/{r['width']} px; screenshot {r['screenshot']}")
        sys.exit(1 if bad else 0)
