"""``sgdma plan``: will a gate stream keep up?"""
from __future__ import annotations

import click

from sgdma.cli.common import SEED_MAX, OutPath, Time, _write_json, exit_verdict


@click.command("plan")
@click.option("--gate-time", required=True, type=Time(), help="time per gate, e.g. 1us or 250ns")
@click.option("--bytes-per-gate", required=True, type=click.IntRange(1, 1 << 26))
@click.option("--channels", default=1, show_default=True, type=click.IntRange(1, 1024),
              help="gate streams multiplexed on one AXI DMA")
@click.option("--board", default="zcu111", show_default=True)
@click.option("--fifo-depth", default=64, show_default=True, type=click.IntRange(1, 1 << 20),
              help="DAC FIFO in stream words")
@click.option("--trials", default=20, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, SEED_MAX))
@click.option("--json", "json_path", type=OutPath(), help="write the plan as JSON")
def plan_cmd(gate_time, bytes_per_gate, channels, board, fifo_depth, trials, seed, json_path):
    """Feasible or not, the margin, and a recommended BD size and ring, from short runs of the timed model."""
    from sgdma.experiments import plan as pl

    try:
        p = pl.plan(gate_time, bytes_per_gate, channels, board, fifo_depth, trials, seed)
    except ValueError as e:
        raise click.UsageError(str(e))
    click.echo(f"{'FEASIBLE' if p.feasible else 'NOT FEASIBLE'} on {p.board}: need {p.required_mbps:.1f} MB/s, "
               f"worst trial {p.achieved_mbps:.1f} MB/s (margin {p.margin:.2f}x)")
    click.echo(f"  recommended: {p.recommended_bytes_per_bd} bytes per BD ({p.recommended_gates_per_bd} gate(s) "
               f"per BD), rings of {p.recommended_ring_bds or '-'} BDs")
    click.echo(f"  why: {p.reason}")
    _write_json(json_path, p.as_dict())
    exit_verdict(p.feasible)
