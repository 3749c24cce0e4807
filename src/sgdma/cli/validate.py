"""``sgdma validate``: the model against every public figure."""
from __future__ import annotations

import click

from sgdma.cli.common import SEED_MAX, OutPath, _write_json, exit_verdict
from sgdma.cli.executor import executor_options, open_executor


@click.command()
@click.option("--trials", default=100, show_default=True, type=click.IntRange(1),
              help="trials per point of the S0 sweep (the spread checks need enough trials to see refresh; at "
                   "most what fits the sweep's bound of 2^32 BDs, about 5000)")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, SEED_MAX))
@executor_options(cache=False)
@click.option("--json", "json_path", type=OutPath(), help="write the checks as JSON")
@click.option("--out", "out_dir", type=OutPath(directory=True), default=None,
              help="write the report here (report.html: every figure beside the model's value and its band)")
def validate(trials: int, seed: int, jobs: int | None, executor: str, scheduler: str | None, json_path: str | None,
             out_dir: str | None) -> None:
    """Each public figure (docs/calibration.md) beside the model's value; non-zero exit if one is out of band
    (a known miss, marked so, is shown with its band but not counted)."""
    from sgdma.experiments import characterize as ch
    from sgdma.experiments import validate as v

    per_trial = sum(p.bds * p.cycles for p in ch.s0_points())
    if trials * per_trial > ch.MAX_SWEEP_BD_RUNS:       # the sweep's own bound, in this command's option
        raise click.BadParameter(f"{trials}: the S0 sweep runs {per_trial} BDs per trial, and at most "
                                 f"{ch.MAX_SWEEP_BD_RUNS // per_trial} trials fit its limit of "
                                 f"{ch.MAX_SWEEP_BD_RUNS:.3g} BDs", param_hint="--trials")
    with open_executor(executor, jobs, scheduler) as ex:
        checks = v.run(trials, seed, executor=ex)
    width = max(len(c.figure) for c in checks)
    click.echo(f"{'figure':<{width}}  {'published':>10}  {'model':>10}  {'ratio':>7}  {'band':<22} result")
    for c in checks:
        ratio = f"{c.ratio:7.3f}" if c.published else "      -"
        click.echo(f"{c.figure:<{width}}  {c.published:>10.4g}  {c.model:>10.4g}  {ratio}  {c.band:<22} "
                   f"{'ok' if c.ok else 'OUT OF BAND' if c.counted else 'MISS (known)'}"
                   f"{'  (' + c.note + ')' if c.note else ''}")
    counted = [c for c in checks if c.counted]
    failed = [c for c in counted if not c.ok]
    known = [c for c in checks if not c.counted]
    click.echo(f"{len(counted) - len(failed)} of {len(counted)} figures within their bands"
               + (f"; {len(known)} known miss{'es' if len(known) > 1 else ''} reported, not counted "
                  f"({sum(c.ok for c in known)} of them in band)" if known else ""))
    _write_json(json_path, [c.as_dict() for c in checks])
    if out_dir:
        from sgdma.output import report

        rec = {"kind": "validate", "version": 1, "trials": trials, "seed": seed, "checks": [c.as_dict() for c in checks]}
        click.echo(f"report: {report.write(rec, out_dir)['report_html']}")
    exit_verdict(not failed)
