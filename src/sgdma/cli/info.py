"""``sgdma info``: a preset's address map, clocks and sources."""
from __future__ import annotations

import sys

import click

from sgdma.cli.common import _core_constants, _write_json
from sgdma.hw import presets


@click.command()
@click.option("--board", default="zcu111", show_default=True, help="board preset name or .toml file")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="write the preset as JSON")
def info(board: str, json_path: str | None) -> None:
    """The preset's address map, clocks, widths, and the source of every number.

    ``--board linux:[dma=NAME,buffers=NAME]`` lists this system's UIO devices and
    u-dma-buf buffers instead (and opens the DMA when named)."""
    from sgdma.board.virtual import VirtualBoard
    from sgdma.board.linux.spec import is_linux_spec

    if is_linux_spec(board):
        _linux_info(board, json_path)
        return
    try:
        doc = presets.load(board)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--board")
    vb = VirtualBoard(board)
    blk = vb.axi_dma
    click.echo(f"{doc.get('name', board)}: {doc.get('description', '')}")
    click.echo("")
    click.echo("Address map")
    click.echo(f"  AXI DMA registers  0x{blk.base:010x} - 0x{blk.base + _core_constants()['VB_DMA_SPAN'] - 1:010x}")
    span = _core_constants()["CSM_GPIO_SPAN"]
    for i, role in enumerate(("timing engine: handshake", "timing engine: counters", "APU/RPU mailbox")):
        base = vb.gpio_base + i * span
        click.echo(f"  AXI GPIO {chr(65 + i)}         0x{base:010x} - 0x{base + span - 1:010x}  ({role})")
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


def _linux_info(board: str, json_path: str | None) -> None:
    from sgdma.board.linux.report import info_lines

    try:
        lines, data = info_lines(board)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--board")
    except OSError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(3)
    click.echo("\n".join(lines))
    _write_json(json_path, data)
