"""The ``sgdma`` command: thin wrappers over the experiments and applications, one module per command."""
from __future__ import annotations

import click

from sgdma.cli.bsp import bsp
from sgdma.cli.capture_cmd import capture_cmd
from sgdma.cli.characterize import characterize
from sgdma.cli.info import info
from sgdma.cli.plan import plan_cmd
from sgdma.cli.rtio import rtio
from sgdma.cli.rtl import rtl
from sgdma.cli.selftest import selftest_cmd
from sgdma.cli.sequence import demo, run_cmd
from sgdma.cli.validate import validate


@click.group()
@click.version_option(package_name="sgdma")
def main() -> None:
    """sgdma: scatter-gather DMA toolkit for FPGA SoCs (PG021 driver core + virtual board)."""


for _cmd in (demo, run_cmd, selftest_cmd, characterize, plan_cmd, capture_cmd, validate, info, rtio, bsp, rtl):
    main.add_command(_cmd)


if __name__ == "__main__":  # pragma: no cover
    main()
