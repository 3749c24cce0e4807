"""The fidelity options of characterize, plan and run (sgdma.experiments.fidelity), and ``--fast-check``."""
from __future__ import annotations

import functools

import click

from sgdma.board import fidelity as fid


class Tolerance(click.ParamType):
    name = "tolerance"

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            return value
        try:
            return fid.parse_tolerance(value)
        except fid.FidelityError as e:
            self.fail(str(e), param, ctx)


def _periods(ctx, param, value):
    try:
        fid.check("exact", value, fid.DEFAULT_TOLERANCE)
    except fid.FidelityError as e:
        raise click.BadParameter(str(e).split(": ", 1)[1]) from None
    return value


def fidelity_options(check: bool = False):
    """--fidelity, --fast-periods, --tolerance (and --fast-check K when `check`)."""
    def deco(f):
        if check:
            f = click.option("--fast-check", "fast_check", default=0, type=click.IntRange(0, 1 << 16),
                             help="with --fidelity fast: rerun K stratified random points exactly, print the max "
                                  "relative error of median/min/max throughput and latency, exit 1 above "
                                  "--tolerance")(f)
        f = click.option("--tolerance", default="2%", show_default=True, type=Tolerance(),
                         help="fast: the relative throughput error to meet (the window grows while the estimate "
                              "exceeds half of it; a trial that ends first ran exact)")(f)
        f = click.option("--fast-periods", default=fid.DEFAULT_PERIODS, show_default=True, type=int,
                         callback=_periods,
                         help="fast: DRAM refresh periods in the first window (even; it grows a period at a "
                              "time up to 4x, then doubles)")(f)
        f = click.option("--fidelity", type=click.Choice(fid.FIDELITIES), default="exact", show_default=True,
                         help="exact: the reference; fast: exact prefix + extrapolation over whole refresh "
                              "periods, with an error estimate; functional: ideal memory path, untimed")(f)
        return _fast_only(f)
    return deco


def _fast_only(f):
    """--fast-periods and --tolerance size fast's window: given with another fidelity they would be dropped
    without a word, so the command refuses them (exit 2) before any work."""
    @functools.wraps(f)
    def checked(*args, **kwargs):
        fidelity = kwargs.get("fidelity")
        if fidelity != "fast":
            ctx = click.get_current_context()
            given = [o for n, o in (("fast_periods", "--fast-periods"), ("tolerance", "--tolerance"))
                     if ctx.get_parameter_source(n) not in (None, click.core.ParameterSource.DEFAULT)]
            if given:
                many = len(given) > 1
                raise click.UsageError(f"{' and '.join(given)} size{'' if many else 's'} the fast fidelity's "
                                       f"window, unused with --fidelity {fidelity}: add --fidelity fast or leave "
                                       f"{'them' if many else 'it'} out")
        return f(*args, **kwargs)
    return checked


def print_fidelity(records: list[dict]) -> None:
    """One line on how the records were produced, when not plain exact."""
    if not records or records[0].get("fidelity", "exact") == "exact":
        return
    fidelity = records[0]["fidelity"]
    if fidelity == "fast":
        trials = sum(r["trials"] for r in records)
        extra = sum(r["extrapolated"] for r in records)
        worst = max(r["error_estimate"] for r in records)
        click.echo(f"fidelity fast: {extra} of {trials} trials extrapolated, throughput error estimate at most "
                   f"{100 * worst:.2f} %; latency and set-up exact")
        notes = sorted({r["fidelity_note"] for r in records if r["fidelity_note"]})
        for n in notes[:3]:
            click.echo(f"  {n}")
    else:
        click.echo(f"fidelity functional: {fid.FUNCTIONAL_NOTE.split(': ', 1)[1]}")


def fast_check(setup, points, records: list[dict], k: int, executor) -> dict:
    """Rerun k stratified random points exactly; the max relative errors of the fast records against them."""
    from dataclasses import replace

    from sgdma.experiments import characterize as ch

    from sgdma.experiments import fidelity as xfid

    idx = xfid.stratified(points, k, setup.seed)
    exact = list(ch.sweep(replace(setup, fidelity="exact"), [points[i] for i in idx], executor=executor))
    fast = [ch.Record(**records[i]) for i in idx]
    return {"points": len(idx), **xfid.check_errors(fast, exact)}
