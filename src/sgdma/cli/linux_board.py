"""``--board linux:...`` for the commands that run on a real board (selftest, capture)."""
from __future__ import annotations

import sys
from contextlib import contextmanager

import click


@contextmanager
def linux_board(spec: str):
    """The LinuxBoard a spec names, closed afterwards.  A bad spec is a usage error (exit 2); a board that cannot
    be opened, or fails while the command runs, exits 3 with the backend's message (it names the file or the
    registers and the fix)."""
    from sgdma.board.linux import open_board
    from sgdma.driver.errors import DmaError

    try:
        board = open_board(spec)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--board")
    except OSError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(3)
    try:
        yield board
    except (DmaError, OSError, TimeoutError, RuntimeError, MemoryError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(3)
    finally:
        board.close()
