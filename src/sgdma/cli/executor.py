"""Options and progress shared by the commands that run sweeps on an executor."""
from __future__ import annotations

import contextlib
import sys
import time

import click


def executor_options(f):
    f = click.option("--cache", default=None, type=click.Path(file_okay=False),
                     help="keep finished chunks here; an interrupted sweep resumes from them")(f)
    f = click.option("--scheduler", default=None,
                     help="Dask scheduler address (tcp://host:8786) [default: a local cluster]")(f)
    f = click.option("--executor", type=click.Choice(["processes", "threads", "dask"]), default="processes",
                     show_default=True, help="where chunks of trials run")(f)
    f = click.option("--jobs", type=click.IntRange(1, 1024), default=None,
                     help="local workers [default: every core]")(f)
    return f


@contextlib.contextmanager
def open_executor(kind: str, jobs: int | None, scheduler: str | None):
    from sgdma.executor import ExecutorError, make_executor

    try:
        ex = make_executor(kind, jobs, scheduler)
    except (ExecutorError, ValueError) as e:
        opt = "--scheduler" if scheduler else "--executor"
        raise click.BadParameter(str(e), param_hint=opt) from None
    try:
        yield ex
    finally:
        ex.close()


class TrialProgress:
    """A progress line that counts trials, with the rate and an ETA, on stderr."""

    def __init__(self, total: int, label: str):
        self.total, self.label = total, label
        self.t0 = time.monotonic()
        self.first = None
        self.tty = sys.stderr.isatty()
        self.last_print = 0.0

    def __enter__(self):
        return self

    def update(self, done: int, total: int | None = None) -> None:
        total = total or self.total
        now = time.monotonic()
        if self.first is None:
            self.first = (now, done)            # trials found in a cache are not this run's rate
        t_ref, d_ref = self.first
        rate = (done - d_ref) / (now - t_ref) if now > t_ref and done > d_ref else 0.0
        eta = f"{(total - done) / rate:5.0f} s" if rate > 0 else "    ?"
        if not self.tty and done < total and now - self.last_print < 5.0:
            return
        self.last_print = now
        end = "\r" if self.tty and done < total else "\n"
        click.echo(f"{self.label}: {done}/{total} trials  {rate:8.0f} trials/s  ETA {eta}", file=sys.stderr,
                   nl=False)
        click.echo(end, file=sys.stderr, nl=False)

    def __exit__(self, *exc):
        return False


def write_parquet(path: str, df) -> None:
    try:
        df.to_parquet(path)
    except ImportError:
        raise click.UsageError("--parquet needs pyarrow: pip install pyarrow (or use --csv/--json)") from None
