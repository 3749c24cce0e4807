"""``sgdma bsp --board B --out DIR``: the files a Vitis-style program needs to
build against the BSP shim on board B."""
from __future__ import annotations

import click

from sgdma.cli.common import OutPath


@click.command("bsp")
@click.option("--board", default="zcu111", show_default=True, help="board preset name or .toml file")
@click.option("--out", "out_dir", required=True, type=OutPath(directory=True),
              help="directory for xparameters.h, xaxidma_g.c, sgdma_bsp_config.c, sgdma_bsp.mk")
def bsp(board: str, out_dir: str) -> None:
    """Generate xparameters.h and the driver configuration table from a preset."""
    from sgdma.hw.bspgen import generate

    try:
        files = generate(board, out_dir)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--board")
    for f in files:
        click.echo(f"wrote {f}")
