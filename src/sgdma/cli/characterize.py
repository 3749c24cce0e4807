"""``sgdma characterize`` (S0's sweeps) and ``sgdma characterize bd-create``."""
from __future__ import annotations

import click

from sgdma.cli.common import (SEED_MAX, Failure, OutPath, interrupted, refuse_ignored, _write_json, _write_record,
                              _list_option, _write_csv, cpu_load_option, exit_verdict)
from sgdma.cli.fidelity import fast_check as fast_check_run, fidelity_options, print_fidelity
from sgdma.cli.executor import TrialProgress, executor_options, open_executor, parquet_path_type, write_parquet


def _renamed(new: str):
    """The old names of --payload/--no-payload still work and say the new one: --functional was easily taken
    for --fidelity functional (untimed), which it has nothing to do with."""
    def callback(ctx, param, value):
        if value:
            click.echo(f"warning: {param.opts[0]} is deprecated (it reads like a --fidelity): use {new}", err=True)
        return value
    return callback


@click.group(invoke_without_command=True)
@click.option("--board", default="zcu111", show_default=True, help="board preset")
@_list_option("--bytes-per-bd", "2^5..2^13", "bytes per BD")
@_list_option("--bds", "4,16,1024", "BDs per ring", counts=True)
@_list_option("--cycles", "1", "ring cycles (> 1: cyclic mode)", counts=True)
@click.option("--mode", type=click.Choice(["sg", "simple"]), default="sg", show_default=True)
@click.option("--placement", type=click.Choice(["sequential", "random"]), default="sequential", show_default=True)
@click.option("--direction", type=click.Choice(["mm2s", "s2mm"]), default="mm2s", show_default=True)
@click.option("--port", default=None, help="PS port on PS-DDR boards (zynq7000: hp, acp, gp; zcu102: hp, hpc, acp)")
@click.option("--trials", type=click.IntRange(1, 1_000_000), default=None,
              help="seeded trials per point [default: 10; 100 with --preset s0]")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, SEED_MAX))
@cpu_load_option
@click.option("--payload/--no-payload", "payload", default=None,
              help="--no-payload: timing only, no payload bytes move [default: --payload; --no-payload with "
                   "--preset s0]")
@click.option("--timing-only", "old_no_payload", is_flag=True, hidden=True, callback=_renamed("--no-payload"))
@click.option("--functional", "old_payload", is_flag=True, hidden=True, callback=_renamed("--payload"))
@click.option("--preset", type=click.Choice(["s0"]), default=None,
              help="s0: S0's Table II sweep (bytes/BD x BDs, plus ring cycles) on its board")
@fidelity_options(check=True)
@executor_options
@click.option("--json", "json_path", type=OutPath(), help="write records as JSON")
@click.option("--csv", "csv_path", type=OutPath(), help="write records as CSV")
@click.option("--parquet", "parquet_path", type=parquet_path_type(), help="write records as Parquet (needs pyarrow)")
@click.option("--plot", "plot_dir", type=OutPath(directory=True), help="write figures (PNG) here")
@click.option("--out", "out_dir", type=OutPath(directory=True), default=None,
              help="write the report here (report.html, figures); adds each point's regime, from replays of the "
                   "model with DDR refresh off and with zero interconnect latency")
@click.pass_context
def characterize(ctx, board, bytes_per_bd, bds, cycles, mode, placement, direction, port, trials, seed, cpu_load,
                 payload, old_no_payload, old_payload, preset, fidelity, fast_periods, tolerance, fast_check, jobs,
                 executor, scheduler, cache,
                 json_path, csv_path, parquet_path, plot_dir, out_dir):
    """Latency/throughput sweeps on the timed virtual board (S0's experiment)."""
    if ctx.invoked_subcommand is not None:
        return
    timing_only = _timing_only(payload, old_no_payload, old_payload)
    if out_dir and fidelity == "functional":
        raise click.UsageError("--out with --fidelity functional: the report's regimes replay the memory timing "
                               "with one resource relaxed, and functional has none; use exact or fast")
    if plot_dir and fidelity == "functional":
        raise click.UsageError("--plot with --fidelity functional: S0's figures plot latency and throughput, and "
                               "functional's times are not the board's; use exact or fast")
    from sgdma.experiments import characterize as ch

    if preset == "s0":
        refuse_ignored(ctx, ("bytes_per_bd", "bds", "cycles"), "with --preset s0 (its points are S0's Table II)")
    records, points = [], []
    checked = None
    trials_done = [0, 0]                            # (done, total) as the sweep last reported them
    try:
        if preset == "s0":
            points = ch.s0_points()
            trials = trials or 100
            timing_only = True if timing_only is None else timing_only
        else:
            if len(bytes_per_bd) * len(bds) * len(cycles) > ch.MAX_POINTS:
                raise click.UsageError(f"--bytes-per-bd x --bds x --cycles make "
                                       f"{len(bytes_per_bd) * len(bds) * len(cycles)} points; at most {ch.MAX_POINTS}")
            points = [ch.Point(b, n, c) for b in bytes_per_bd for n in bds for c in cycles]
            trials = trials or 10
            timing_only = False if timing_only is None else timing_only
        setup = ch.Setup(board=board, mode=mode, direction=direction, placement=placement, trials=trials,
                         seed=seed, timing_only=timing_only, port=port, cpu_load=cpu_load, fidelity=fidelity,
                         fast_periods=fast_periods, tolerance=tolerance)
        if fast_check and fidelity != "fast":
            raise click.UsageError("--fast-check checks the fast fidelity against exact: add --fidelity fast")
        if fast_check:
            from sgdma.experiments.fidelity import unvalidated

            why = unvalidated(setup)
            if why:                                 # every trial runs exact: the check could not fail
                raise click.UsageError(f"--fast-check with {why}: fast runs every trial of this sweep exact (its "
                                       f"estimator is not validated there), so there is nothing to check; leave "
                                       f"--fast-check out")
        with open_executor(executor, jobs, scheduler) as ex, \
                TrialProgress(len(points) * trials, f"{len(points)} points x {trials} trials") as bar:
            def progress(done, total):
                trials_done[:] = done, total
                bar.update(done, total)

            for rec in ch.sweep(setup, points, executor=ex, cache=cache, progress=progress):
                records.append(rec.as_dict())
            if fast_check:
                checked = fast_check_run(setup, points, records, fast_check, ex)
    except ch.SweepFailed as e:                     # chunks failed while running: exit 3, finished ones cached
        _write_outputs(records, json_path, csv_path, parquet_path, ch, partial=True)
        raise Failure(f"{e}{_kept(records, points, json_path, csv_path, parquet_path, sentence=True)}") from None
    except (ch.SweepError, ValueError) as e:
        raise click.UsageError(str(e))
    except KeyboardInterrupt:                       # keep what was measured: the points done so far
        _write_outputs(records, json_path, csv_path, parquet_path, ch, partial=True)
        raise Failure(f"{interrupted()}{_kept(records, points, json_path, csv_path, parquet_path)}"
                      f"{_kept_trials(trials_done, cache)}") from None
    if preset == "s0":
        _print_s0_summary(records)
    else:
        _print_sweep(records)
    print_fidelity(records)
    regimes = None
    if out_dir:
        from sgdma.experiments.limits.characterize import analyse

        with open_executor(executor, jobs, scheduler) as ex:
            regimes = analyse(setup, points, records, executor=ex)
    _write_outputs(records, json_path, csv_path, parquet_path, ch, regimes=regimes)
    if out_dir:
        from sgdma.output import report

        rec = {"kind": "characterize", "version": 1, "records": records, "regimes": regimes}
        click.echo(f"report: {report.write(rec, out_dir)['report_html']}")
    if plot_dir:
        from sgdma.output import plots

        for path in plots.s0_figures(records, plot_dir):
            click.echo(f"wrote {path}")
    if checked is not None:
        ok = checked["throughput"] <= tolerance and checked["latency"] <= tolerance
        click.echo(f"fast-check: {checked['points']} points rerun exact: max relative error of median/min/max "
                   f"throughput {100 * checked['throughput']:.3f} %, latency {100 * checked['latency']:.3f} % "
                   f"(estimate at most {100 * checked['estimate']:.3f} %; tolerance {100 * tolerance:g} %): "
                   f"{'PASS' if ok else 'FAIL'}")
        exit_verdict(ok)


@characterize.command("bd-create")
@click.option("--board", default="zcu111", show_default=True)
@click.option("--cpu", "cpus", type=click.Choice(["apu", "rpu", "both"]), default="both", show_default=True)
@_list_option("--bds", "1,16,256,4096", "BDs per ring", counts=True)
@click.option("--samples", default=100_000, show_default=True, type=click.IntRange(1, 10_000_000))
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, SEED_MAX))
@click.option("--json", "json_path", type=OutPath(), help="write records as JSON")
@click.option("--plot", "plot_dir", type=OutPath(directory=True), help="write S0 Figs. 8-10 style plots here")
@executor_options(cache=False)
def bd_create(board, cpus, bds, samples, seed, json_path, plot_dir, jobs, executor, scheduler):
    """Time to create BD rings on the APU (A53, Linux) and the RPU (R5, bare metal), as S0 measured it."""
    from sgdma.experiments import bdcreate

    wanted = ["apu", "rpu"] if cpus == "both" else [cpus]
    records = []
    total = len(wanted) * len(bds) * samples
    try:
        with open_executor(executor, jobs, scheduler) as ex, TrialProgress(total, "bd-create", "samples") as bar:
            for k, cpu in enumerate(wanted):
                before = k * len(bds) * samples
                records += bdcreate.run(board, cpu, bds, samples, seed, executor=ex,
                                        progress=lambda d, _t: bar.update(before + d, total))
    except ValueError as e:
        raise click.UsageError(str(e))
    click.echo(f"{'cpu':<4} {'BDs':>6}  {'per BD ns: min':>15} {'median':>8} {'p99':>8} {'max':>9}")
    for r in records:
        q = r["per_bd_ns"]
        click.echo(f"{r['cpu']:<4} {r['bds']:>6}  {q['min']:>15.0f} {q['median']:>8.0f} {q['p99']:>8.0f} "
                   f"{q['max']:>9.0f}")
    if len(wanted) == 2:
        for c in bdcreate.compare([r for r in records if r["cpu"] == "apu"],
                                  [r for r in records if r["cpu"] == "rpu"]):
            click.echo(f"APU median {c['apu_speedup']:.1f}x faster than the RPU at {c['bds']} BDs")
    _write_json(json_path, records)
    if plot_dir:
        for path in bdcreate.plot(records, plot_dir):
            click.echo(f"wrote {path}")


def _timing_only(payload, old_no_payload: bool, old_payload: bool):
    """--payload/--no-payload, or their old names; None: the mode's default."""
    said = {v for v, given in ((False, payload is True), (True, payload is False), (True, old_no_payload),
                               (False, old_payload)) if given}
    if len(said) > 1:
        raise click.UsageError("--payload and --no-payload (or --functional and --timing-only) both given: "
                               "choose one")
    return said.pop() if said else None


def _write_outputs(records, json_path, csv_path, parquet_path, ch, partial: bool = False, regimes=None) -> None:
    """--json/--csv/--parquet; an interrupted or failed sweep writes the points it finished (if any), its JSON
    record marked partial."""
    if not records:
        return
    _write_record(json_path, "characterize", {"partial": True, "records": records} if partial else
                  {"records": records, "regimes": regimes} if regimes else records)
    if csv_path:
        _write_csv(csv_path, records)
    if parquet_path:
        write_parquet(parquet_path, ch.frame(records))


def _kept(records, points, json_path, csv_path, parquet_path, sentence: bool = False) -> str:
    """How many points finished (in point order: a point is done when all its chunks are) and where they went."""
    done = (f" {len(records)} of {len(points)} points finished" if sentence
            else f" after {len(records)} of {len(points)} points")
    return done + ("; they were written to the output files" if records and (json_path or csv_path or parquet_path)
                   else "") + ("." if sentence else "")


def _kept_trials(trials_done, cache) -> str:
    """The trials an interrupted sweep finished: chunks run largest first while points are reported in order,
    so finished chunks of points that are not complete are kept too (with --cache), or lost (without)."""
    done, total = trials_done
    if cache:
        from sgdma.experiments.sweepcache import kept_chunks

        n = kept_chunks(cache)
        return (f"; {done} of {total} trials ({n} chunk{'s' if n != 1 else ''}) finished and are kept in "
                f"--cache {cache}: run the same command to resume")
    lost = "" if not done else "; those of points not complete are lost"
    return (f"; {done} of {total} trials had finished{lost}: add --cache DIR to keep finished chunks and resume "
            f"after an interruption")


def _print_s0_summary(records: list[dict]) -> None:
    """S0's sweep in one screen: latency over all rings, throughput for rings 4/16/1024, cycles."""
    flat = [r for r in records if r["cycles"] == 1]
    by = {(r["bytes_per_bd"], r["bds"]): r for r in flat}
    click.echo(f"{'B/BD':>6}  {'latency ns: median [min, max] over all rings':<44}"
               f"{'MB/s, 4 BDs':>13}{'16 BDs':>10}{'1024 BDs':>10}")
    for bpb in sorted({r["bytes_per_bd"] for r in flat}):
        rows = [r for r in flat if r["bytes_per_bd"] == bpb]
        med = sorted(r["latency_ns"]["median"] for r in rows)[len(rows) // 2]
        lo = min(r["latency_ns"]["min"] for r in rows)
        hi = max(r["latency_ns"]["max"] for r in rows)
        thr = [by.get((bpb, n), {}).get("throughput_mbps", {}).get("median", float("nan")) for n in (4, 16, 1024)]
        click.echo(f"{bpb:>6}  {med:7.0f} [{lo:6.0f}, {hi:6.0f}]{'':<26}{thr[0]:>13.0f}{thr[1]:>10.0f}{thr[2]:>10.0f}")
    cyc = [r for r in records if r["cycles"] > 1]
    pairs = [(abs(r["throughput_mbps"]["median"] / by[(r["bytes_per_bd"], r["bds"] * r["cycles"])]
                  ["throughput_mbps"]["median"] - 1), r) for r in cyc
             if (r["bytes_per_bd"], r["bds"] * r["cycles"]) in by]
    worst = max(pairs, key=lambda p: p[0]) if pairs else None      # ties (functional: 0) must not compare records
    if worst:
        r = worst[1]
        click.echo(f"cyclic mode: N cycles of a k-BD ring vs one ring of N*k BDs differ by at most "
                   f"{worst[0] * 100:.1f} % ({r['bds']} BDs x {r['cycles']} cycles, {r['bytes_per_bd']} B/BD)")
    sim = sum(r["simulated_ns"] for r in records) / 1e9
    wall = sum(r["wall_s"] for r in records)
    if records and records[0].get("cpu_load_mbps"):
        r = records[0]
        click.echo(f"under a background CPU load of {r['cpu_load_mbps']:g} MB/s "
                   f"({100 * r['cpu_load_read_fraction']:.0f} % reads) competing for DRAM")
    click.echo(f"{len(records)} points; {sim:.2f} s of virtual time simulated in {wall:.2f} s of worker time")


def _print_sweep(records: list[dict]) -> None:
    sim = sum(r["simulated_ns"] for r in records) / 1e9
    wall = sum(r["wall_s"] for r in records)
    click.echo(f"{'B/BD':>6} {'BDs':>5} {'cyc':>5}  {'latency ns (med [min, max])':<28} "
               f"{'throughput MB/s (med [min, max])':<34}")
    for r in records:
        lat, thr = r["latency_ns"], r["throughput_mbps"]
        click.echo(f"{r['bytes_per_bd']:>6} {r['bds']:>5} {r['cycles']:>5}  "
                   f"{lat['median']:7.0f} [{lat['min']:6.0f}, {lat['max']:6.0f}]       "
                   f"{thr['median']:9.1f} [{thr['min']:9.1f}, {thr['max']:9.1f}]")
    if records and records[0].get("cpu_load_mbps"):
        r = records[0]
        click.echo(f"under a background CPU load of {r['cpu_load_mbps']:g} MB/s "
                   f"({100 * r['cpu_load_read_fraction']:.0f} % reads) competing for DRAM")
    click.echo(f"{len(records)} points; {sim:.2f} s of virtual time simulated in {wall:.2f} s of worker time")
