"""``sgdma bsp --board B --out DIR``: the files a Vitis BSP would generate for board B, so a standalone
program and the Xilinx drivers build unmodified against the BSP shim and run on the virtual board."""
from __future__ import annotations

import sys

import click

from sgdma.cli.common import OutPath


@click.command("bsp")
@click.option("--board", default="zcu111", show_default=True, help="board preset name or .toml file")
@click.option("--out", "out_dir", required=True, type=OutPath(directory=True),
              help="directory to write into (created if missing)")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="a board option of the design (e.g. dma.include_sg=0 for a simple-mode DMA, "
                   "stream.loopback=1): into xparameters.h and the board the shim builds; repeatable")
def bsp(board: str, out_dir: str, sets: tuple[str, ...]) -> None:
    """Generate a board's BSP files from its preset.

    \b
    Writes into --out, from this sgdma (a checkout or an installed package alike):
      xparameters.h  the Vitis names: XPAR_AXIDMA_0_*, XPAR_FABRIC_AXIDMA_0_*_INTROUT_VEC_ID,
                     XPAR_SCUGIC_*, XPAR_AXI_GPIO_0_*, and DDR as Vitis names it for the
                     family (XPAR_PS7_DDR_0_S_AXI_*, XPAR_PSU_DDR_0_S_AXI_*,
                     XPAR_MIG_0_C0_DDR4_MEMORY_MAP_*)
      xaxidma_g.c    the AXI DMA driver's configuration table
      bspconfig.h    the preset the shim builds its board from, and the --set options
      sgdma_bsp.mk   a make fragment: SGDMA_BSP_CFLAGS, SGDMA_BSP_LIBS and a rule that builds
                     libsgdma_bsp.a (shim + virtual board) beside it from sgdma's C sources

    Example: sgdma bsp --board pynq-z2 --out bsp; then in a Makefile `include bsp/sgdma_bsp.mk`
    (docs/boards.md).
    """
    from sgdma.hw.bspgen import facts, generate, parse_sets

    try:
        facts(board)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--board")
    try:
        options = parse_sets(sets)
        if options:         # the virtual board refuses what it cannot build: refuse it before writing anything
            from sgdma.board.virtual import VirtualBoard

            VirtualBoard(board, options=options, timing_only=True)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--set")
    try:
        files = generate(board, out_dir, options)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--set" if str(e).startswith("--set") else "--board")
    except FileNotFoundError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(3)
    except OSError as e:
        raise click.BadParameter(f"cannot write there: {e.strerror}", param_hint="--out")
    for f in files:
        click.echo(f"wrote {f}")
