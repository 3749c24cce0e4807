"""``sgdma info``: a preset's address map, clocks and sources."""
from __future__ import annotations

import sys

import click

from sgdma.cli.common import OutPath, _core_constants, _write_json
from sgdma.hw import board_summary, presets


@click.command()
@click.option("--board", default="zcu111", show_default=True, is_flag=False, flag_value="",
              help="board preset name or .toml file; --board alone lists the boards")
@click.option("--json", "json_path", type=OutPath(), help="write the preset (or the list of boards) as JSON")
@click.option("--costs", is_flag=True,
              help="only the timing costs (times, clocks, rates, cycle counts), each with its kind "
                   "(cited, derived, calibrated, assumed) and source, and the count of each kind")
def info(board: str, json_path: str | None, costs: bool) -> None:
    """The preset's CPU, DDR, ports and DMA, its address map, and the source of every number.

    ``--board`` with no name lists every board preset with a one-line description.
    ``--board linux:[dma=NAME,buffers=NAME]`` lists this system's UIO devices and
    u-dma-buf buffers instead (and opens the DMA when named)."""
    from sgdma.board.virtual import VirtualBoard
    from sgdma.board.linux.spec import is_linux_spec

    if costs and (board == "" or is_linux_spec(board)):
        raise click.BadParameter("--costs lists one board preset's timing costs: give a preset name, e.g. "
                                 "--board zcu111 --costs", param_hint="--costs")
    if board == "":
        _list_boards(json_path)
        return
    if is_linux_spec(board):
        _linux_info(board, json_path)
        return
    try:
        doc = presets.load(board)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--board")
    if costs:
        _costs(board, json_path)
        return
    vb = VirtualBoard(board)
    blk = vb.axi_dma
    alias = presets.aliases().get(board)
    click.echo(f"{doc.get('name', board)}: {doc.get('description', '')}")
    if alias:
        click.echo(f"({board} is another name for {alias})")
    click.echo("")
    rows = board_summary.summary(doc)
    click.echo("Board")
    label = max(len(r[0]) for r in rows)
    for what, figure, source in rows:
        click.echo(f"  {what:<{label}}  {figure}")
        if source:
            click.echo(f"  {'':<{label}}    source: {source}")
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


def _costs(board: str, json_path: str | None) -> None:
    from sgdma.hw import costs as hwcosts

    rows = hwcosts.of(board)
    n = hwcosts.counts(rows)
    click.echo(f"{board}: {len(rows)} timing costs: " + ", ".join(f"{n[k]} {k}" for k in hwcosts.KINDS))
    width = max(len(c.key) for c in rows)
    for c in rows:
        click.echo(f"  {c.key:<{width}}  {str(c.value) + (' ' + c.unit if c.unit else ''):<16}  {c.kind:<10}  "
                   f"{c.source}")
    _write_json(json_path, {"board": board, "counts": n,
                            "costs": [{"key": c.key, "value": c.value, "unit": c.unit, "kind": c.kind,
                                       "source": c.source} for c in rows]})


def _list_boards(json_path: str | None) -> None:
    rows = board_summary.listing()
    width = max(len(n) for n, _ in rows)
    click.echo("Board presets (sgdma info --board NAME for one; every command's --board takes these names):")
    for name, text in rows:
        click.echo(f"  {name:<{width}}  {text}")
    _write_json(json_path, [{"name": n, "description": t, "alias_of": presets.aliases().get(n)} for n, t in rows])


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
