"""``sgdma selftest``: MM2S -> S2MM loopback."""
from __future__ import annotations

import click

from sgdma.cli.common import SEED_MAX, OutPath, Size, _write_json, exit_verdict


def _print_selftest(res, title: str) -> None:
    click.echo(title)
    click.echo(f"  board                 {res.board} (seed {res.seed})")
    click.echo(f"  SG loopback           {res.packets} packets, {res.mm2s_bds} MM2S BDs -> {res.s2mm_bds} S2MM BDs")
    click.echo(f"  simple mode           {res.simple_transfers} transfers")
    click.echo(f"  bytes verified        {res.bytes}")
    if res.virtual_ns is None:          # a real board: no virtual time, nothing timed
        click.echo("  first-word latency    not measured on a real board")
        click.echo(f"  wall time             {res.wall_s:.2f} s")
    else:
        click.echo(f"  first-word latency    {res.first_word_latency_ns:.0f} ns (tail write -> first MM2S beat)")
        click.echo(f"  stream throughput     {res.stream_throughput_mbps:.0f} MB/s (64 x 4 KiB BDs, payload / "
                   "(last beat - first beat))")
        click.echo(f"  virtual time          {res.virtual_ns / 1e3:.1f} us simulated in {res.wall_s:.2f} s wall")
    if res.ok:
        click.echo("  result                PASS: every byte and every length matched")
    else:
        click.echo("  result                FAIL")
        for m in res.mismatches:
            click.echo(f"    - {m}")


def _linux_selftest(spec: str, seed: int, rounds: int, packets: int, max_packet: int):
    from sgdma.cli.linux_board import linux_board
    from sgdma.experiments import selftest

    with linux_board(spec) as board:
        return selftest.run_on(board, seed, rounds=rounds, packets=packets, max_packet=max_packet)


@click.command("selftest")
@click.option("--board", default="zcu111", show_default=True,
              help="board preset, or linux:dma=NAME,buffers=NAME for a real board whose design loops MM2S back "
                   "to S2MM (docs/boards.md)")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, SEED_MAX))
@click.option("--rounds", default=4, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--packets", default=32, show_default=True, type=click.IntRange(1, 100_000), help="packets per round")
@click.option("--max-packet", default="3000", show_default=True, type=Size(maximum=1 << 26),
              help="largest packet in bytes (e.g. 3000, 64K)")
@click.option("--json", "json_path", type=OutPath(), help="write the result as JSON")
def selftest_cmd(board: str, seed: int, rounds: int, packets: int, max_packet: int, json_path: str | None) -> None:
    """MM2S -> S2MM loopback with random packet sizes and BD splits; non-zero exit on any mismatch."""
    from sgdma.board.linux import is_linux_spec
    from sgdma.experiments import selftest

    if is_linux_spec(board):
        res = _linux_selftest(board, seed, rounds, packets, max_packet)
    else:
        try:
            res = selftest.run(board, seed, rounds=rounds, packets=packets, max_packet=max_packet)
        except ValueError as e:
            raise click.UsageError(str(e))
    _print_selftest(res, "sgdma selftest")
    _write_json(json_path, res.as_dict())
    exit_verdict(res.ok)
