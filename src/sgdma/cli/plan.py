"""``sgdma plan``: will a gate stream keep up?"""
from __future__ import annotations

import click

from sgdma.cli.common import SEED_MAX, OutPath, Size, Time, _write_record, cpu_load_option, exit_verdict
from sgdma.cli.executor import TrialProgress, executor_options, open_executor
from sgdma.cli.fidelity import fidelity_options


@click.command("plan")
@click.option("--gate-time", required=True, type=Time(), help="time per gate, e.g. 1us or 250ns")
@click.option("--bytes-per-gate", required=True, type=Size(maximum=1 << 26), help="bytes each gate streams (e.g. 32, 4K, 2^12)")
@click.option("--channels", default=1, show_default=True, type=click.IntRange(1, 1024),
              help="gate streams multiplexed on one AXI DMA")
@click.option("--board", default="zcu111", show_default=True)
@click.option("--fifo-depth", default=64, show_default=True, type=click.IntRange(1, 1 << 20),
              help="DAC FIFO in stream words")
@click.option("--trials", default=20, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, SEED_MAX))
@cpu_load_option
@click.option("--json", "json_path", type=OutPath(), help="write the plan as JSON")
@click.option("--map", "with_map", is_flag=True,
              help="add a feasibility map: gate time x bytes per gate, 1/8..8x around the point")
@click.option("--out", "out_dir", default=None, type=OutPath(directory=True),
              help="write the report (report.html, figures) here")
@fidelity_options()
@executor_options(cache=False)
def plan_cmd(gate_time, bytes_per_gate, channels, board, fifo_depth, trials, seed, cpu_load, json_path, with_map,
             out_dir, fidelity, fast_periods, tolerance, jobs, executor, scheduler):
    """Feasible or not, the margin, and a recommended BD size and ring, from short runs of the timed model."""
    from sgdma.experiments import plan as pl

    if with_map and fidelity == "functional":
        raise click.UsageError("--map with --fidelity functional: the map bisects the shortest gate time on the "
                               "timed model, and functional has no timing; use exact or fast")
    with open_executor(executor, jobs, scheduler) as ex:          # one executor for every candidate and the map
        try:
            with TrialProgress(0, "plan") as bar:
                p = pl.plan(gate_time, bytes_per_gate, channels, board, fifo_depth, trials, seed, cpu_load=cpu_load,
                            executor=ex, progress=bar.update, fidelity=fidelity, fast_periods=fast_periods,
                            tolerance=tolerance)
        except ValueError as e:
            raise click.UsageError(str(e))
        _report(p, gate_time, bytes_per_gate, board, fifo_depth, seed, cpu_load, json_path, with_map, out_dir, ex)


def _report(p, gate_time, bytes_per_gate, board, fifo_depth, seed, cpu_load, json_path, with_map, out_dir,
            ex) -> None:
    from sgdma.experiments import plan as pl

    click.echo(f"{'FEASIBLE' if p.feasible else 'NOT FEASIBLE'} on {p.board}: need {p.required_mbps:.1f} MB/s, "
               f"worst trial {p.achieved_mbps:.1f} MB/s (margin {p.margin:.2f}x)")
    click.echo(f"  recommended: {p.recommended_bytes_per_bd} bytes per BD ({p.recommended_gates_per_bd} gate(s) "
               f"per BD), rings of {p.recommended_ring_bds or '-'} BDs")
    click.echo(f"  why: {p.reason}")
    if p.fidelity != "exact":
        click.echo(f"  fidelity: {p.fidelity}; {p.extrapolated} trials extrapolated, throughput error estimate at "
                   f"most {100 * p.error_estimate:.2f} %" + (f"; {p.fidelity_note}" if p.fidelity_note else ""))
    rec = {"kind": "plan", "version": 1, "title": f"sgdma plan on {p.board}", "gate_time_ns": float(gate_time),
           "bytes_per_gate": bytes_per_gate, "fifo_depth": fifo_depth, "seed": seed, **p.as_dict()}
    if with_map:
        t = float(gate_time)
        rec["map"] = pl.feasibility_map([t * 2.0 ** k for k in range(-3, 4)],
                                        sorted({max(1, bytes_per_gate * 2 ** k) for k in range(-3, 4)}),
                                        board, fifo_depth, seed, cpu_load=cpu_load, executor=ex)
        click.echo(f"  map: shortest gate time per bytes-per-gate row: " + ", ".join(
            f"{b} B: {s:.0f} ns" for b, s in zip(rec["map"]["bytes_per_gate"], rec["map"]["shortest_gate_time_ns"])))
    _write_record(json_path, "plan", {k: v for k, v in rec.items() if k not in ("kind", "version")})
    if out_dir:
        from sgdma.output import report

        click.echo(f"  report: {report.write(rec, out_dir)['report_html']}")
    exit_verdict(p.feasible)
