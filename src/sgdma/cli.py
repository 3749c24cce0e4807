"""The ``sgdma`` command: thin wrappers over the applications."""
from __future__ import annotations

import json
import sys

import click

from . import presets


def _write_json(path: str | None, data) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(data, f, indent=2)
            f.write("\n")


def _print_selftest(res, title: str) -> None:
    click.echo(title)
    click.echo(f"  board                 {res.board} (seed {res.seed})")
    click.echo(f"  SG loopback           {res.packets} packets, {res.mm2s_bds} MM2S BDs -> {res.s2mm_bds} S2MM BDs")
    click.echo(f"  simple mode           {res.simple_transfers} transfers")
    click.echo(f"  bytes verified        {res.bytes}")
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


@click.group()
@click.version_option(package_name="sgdma")
def main() -> None:
    """sgdma: scatter-gather DMA toolkit for FPGA SoCs (PG021 driver core + virtual board)."""


@main.command()
@click.option("--board", default="zcu111", show_default=True, help="board preset")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="write the summary as JSON")
def demo(board: str, seed: int, json_path: str | None) -> None:
    """Run the loopback self-test on the virtual board and summarise it."""
    from . import selftest

    res = selftest.run(board, seed)
    _print_selftest(res, "sgdma demo: MM2S -> S2MM loopback through the virtual AXI DMA, driven by the C driver core")
    _write_json(json_path, res.as_dict())
    sys.exit(0 if res.ok else 1)


@main.command("selftest")
@click.option("--board", default="zcu111", show_default=True, help="board preset")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--rounds", default=4, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--packets", default=32, show_default=True, type=click.IntRange(1, 100_000), help="packets per round")
@click.option("--max-packet", default=3000, show_default=True, type=click.IntRange(1, 1 << 26),
              help="largest packet in bytes")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="write the result as JSON")
def selftest_cmd(board: str, seed: int, rounds: int, packets: int, max_packet: int, json_path: str | None) -> None:
    """MM2S -> S2MM loopback with random packet sizes and BD splits; non-zero exit on any mismatch."""
    from . import selftest

    res = selftest.run(board, seed, rounds=rounds, packets=packets, max_packet=max_packet)
    _print_selftest(res, "sgdma selftest")
    _write_json(json_path, res.as_dict())
    sys.exit(0 if res.ok else 1)


@main.command()
@click.option("--board", default="zcu111", show_default=True, help="board preset name or .toml file")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="write the preset as JSON")
def info(board: str, json_path: str | None) -> None:
    """The preset's address map, clocks, widths, and the source of every number."""
    from .board import VirtualBoard

    try:
        doc = presets.load(board)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--board")
    vb = VirtualBoard(board)
    blk = vb.axi_dma
    click.echo(f"{doc.get('name', board)}: {doc.get('description', '')}")
    click.echo("")
    click.echo("Address map")
    click.echo(f"  AXI DMA registers  0x{blk.base:010x} - 0x{blk.base + 0xFFFF:010x}")
    click.echo(f"  AXI GPIO           0x{vb.gpio_base:010x} - 0x{vb.gpio_base + 0xFFFF:010x}")
    for name, base, size in vb.regions:
        click.echo(f"  DDR {name:<14} 0x{base:010x} - 0x{base + size - 1:010x}  ({size / 2**20:.0f} MiB)")
    click.echo("")
    click.echo("AXI DMA build")
    click.echo(f"  {'SG engine' if blk.include_sg else 'simple mode only'}; {blk.data_width}-bit data at "
               f"{blk.clock_mhz:g} MHz = {blk.data_bytes * blk.clock_mhz:.0f} MB/s per direction; "
               f"{blk.addr_width}-bit addresses; length width {blk.length_width} "
               f"(max {blk.max_length} bytes per BD); max burst {blk.max_burst} beats")
    click.echo("")
    click.echo("Every number and its source")
    rows = presets.entries(doc)
    width = max(len(k) for k, *_ in rows)
    for key, value, unit, source in rows:
        shown = f"0x{value:x}" if isinstance(value, int) and (key.endswith("base") or key.endswith("size")) else value
        click.echo(f"  {key:<{width}}  {str(shown) + (' ' + unit if unit else ''):<18}  {source}")
    _write_json(json_path, doc)


if __name__ == "__main__":  # pragma: no cover
    main()
