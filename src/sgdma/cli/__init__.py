"""The ``sgdma`` command: thin wrappers over the experiments and applications, one module per command.

Commands are imported when they are called (or listed in --help), so ``sgdma run`` does not pay for importing
every other command's module."""
from __future__ import annotations

import importlib

import click

from sgdma.cli.common import Group, freeze_heap_at_exit

#: command name -> (module, attribute); a new command is one line here
COMMANDS = {
    "demo": ("sgdma.cli.sequence", "demo"),
    "run": ("sgdma.cli.sequence", "run_cmd"),
    "selftest": ("sgdma.cli.selftest", "selftest_cmd"),
    "characterize": ("sgdma.cli.characterize", "characterize"),
    "plan": ("sgdma.cli.plan", "plan_cmd"),
    "capture": ("sgdma.cli.capture_cmd", "capture_cmd"),
    "validate": ("sgdma.cli.validate", "validate"),
    "info": ("sgdma.cli.info", "info"),
    "rtio": ("sgdma.cli.rtio", "rtio"),
    "bsp": ("sgdma.cli.bsp", "bsp"),
    "rtl": ("sgdma.cli.rtl", "rtl"),
    "report": ("sgdma.cli.report", "report_cmd"),
    "pcie": ("sgdma.cli.pcie", "pcie"),
}


class _LazyGroup(Group):
    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_command(self, ctx, name):
        spec = COMMANDS.get(name)
        if spec is None:
            return None
        try:
            module = importlib.import_module(spec[0])
        except ImportError as e:             # a broken install: one line and exit 3, also under --help
            from sgdma.cli.common import Failure

            raise Failure(f"sgdma {name}: cannot load it ({e}); the C extension may not be built for this "
                          f"Python: run `python setup.py build_ext --inplace` in the checkout, or reinstall "
                          f"sgdma") from None
        return getattr(module, spec[1])


@click.group(cls=_LazyGroup)
@click.version_option(package_name="sgdma")
def main() -> None:
    """sgdma: scatter-gather DMA toolkit for FPGA SoCs (PG021 driver core + virtual board)."""
    freeze_heap_at_exit()


if __name__ == "__main__":  # pragma: no cover
    main()
