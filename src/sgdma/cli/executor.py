"""Options and progress shared by the commands that run sweeps on an executor."""
from __future__ import annotations

import contextlib
import re
import sys
import time

import click


def executor_options(f=None, *, cache: bool = True):
    """--jobs, --executor, --scheduler (and --cache for the sweeps that keep chunks): ``@executor_options`` or
    ``@executor_options(cache=False)``."""
    if f is None:
        return lambda g: executor_options(g, cache=cache)
    from sgdma.cli.common import OutPath

    from sgdma.cli.common import progress_option

    f = progress_option(f)
    if cache:
        f = click.option("--cache", default=None, type=OutPath(directory=True),
                         help="keep finished chunks here; an interrupted sweep resumes from them")(f)
    f = click.option("--scheduler", default=None,
                     help="Dask scheduler address (tcp://host:8786) [default: a local cluster]")(f)
    f = click.option("--executor", type=click.Choice(["processes", "threads", "dask"]), default="processes",
                     show_default=True, help="where the work runs")(f)
    f = click.option("--jobs", type=Jobs(), default=None, help="local workers [default: every core]")(f)
    return f


class Jobs(click.ParamType):
    """--jobs: a whole number of workers, 1 to MAX; click's own wording ('not a valid integer range') names
    neither the rule nor the fix."""
    name = "integer"
    MAX = 1024          # assumed: far above any machine's cores; a typo (--jobs 20000) is refused, not forked

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            n = value
        else:
            text = str(value).strip()
            n = int(text) if re.fullmatch("[0-9]+", text) else None
        if n is None or not 1 <= n <= self.MAX:
            from sgdma.executor import default_jobs

            self.fail(f"{value!r} is not a whole number from 1 to {self.MAX}; give the number of workers "
                      f"(e.g. --jobs 2), or leave --jobs out to use every core ({default_jobs()} here)", param, ctx)
        return n


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
    except BaseException:           # Ctrl-C or an error: what still runs is not wanted, do not wait for it
        ex.stop()
        raise
    else:
        ex.close()


class TrialProgress:
    """A progress line that counts trials (or another unit of work), with the rate and an ETA, on stderr."""

    SHOW_AFTER_S = 1.0     # sub-second work prints nothing

    def __init__(self, total: int, label: str, unit: str = "trials"):
        from sgdma.cli.common import FORCE_PROGRESS, progress_wanted

        self.total, self.label, self.unit = total, label, unit
        self.t0 = time.monotonic()
        self.first = None
        self.tty = sys.stderr.isatty()
        self.wanted = progress_wanted()
        self.forced = FORCE_PROGRESS or not self.tty          # asked for: every line from the first
        self.last_print = 0.0
        self.shown = self.latest = None          # (done, total) last printed / last reported

    def __enter__(self):
        return self

    def update(self, done: int, total: int | None = None) -> None:
        """``total`` None or 0 (and none given at the start): a count without an end (no ETA)."""
        total = total or self.total
        self.latest = (done, total)
        now = time.monotonic()
        if not self.wanted or (not self.forced and now - self.t0 < self.SHOW_AFTER_S):
            return
        if self.first is None:
            self.first = (now, done)            # trials found in a cache are not this run's rate
        t_ref, d_ref = self.first
        rate = (done - d_ref) / (now - t_ref) if now > t_ref and done > d_ref else 0.0
        finished = bool(total) and done >= total
        if not self.tty and not finished and now - self.last_print < 5.0:
            return
        self.last_print = now
        speed = f"{rate:8.{0 if rate >= 10 else 2}f} {self.unit}/s"
        if total:
            eta = f"{(total - done) / rate:5.0f} s" if rate > 0 else "    ?"
            line = f"{self.label}: {done}/{total} {self.unit}  {speed}  ETA {eta}"
        else:
            line = f"{self.label}: {done} {self.unit}  {speed}"
        self.open = self.tty and not finished
        self.shown = (done, total)
        click.echo(line + ("\r" if self.open else "\n"), file=sys.stderr, nl=False)

    def __exit__(self, *exc):
        if self.latest is not None and self.latest != self.shown and self.wanted and \
                (self.shown is not None or self.forced):
            # a count without a known end is never "finished": show where it ended (a log gets the last count too)
            self.last_print, self.tty = 0.0, False
            self.update(*self.latest)
        elif getattr(self, "open", False):
            click.echo("", file=sys.stderr)
        return False


def parquet_engine_problem() -> str | None:
    """Why a Parquet file cannot be written here (None if it can): pandas and pyarrow (or fastparquet)."""
    try:
        from pandas.io.parquet import get_engine

        get_engine("auto")
    except ImportError:
        return 'writing Parquet needs pandas and pyarrow: pip install "sgdma[results]" (or use --csv/--json)'
    return None


def parquet_path_type():
    """--parquet's type: a writable file, and an engine to write it, both checked before any work runs."""
    from sgdma.cli.common import OutPath

    class ParquetPath(OutPath):
        def convert(self, value, param, ctx):
            value = super().convert(value, param, ctx)
            problem = parquet_engine_problem()
            if problem:
                self.fail(problem, param, ctx)
            return value

    return ParquetPath()


def write_parquet(path: str, df) -> None:
    try:
        df.to_parquet(path)
    except ImportError:
        raise click.UsageError("--parquet needs pyarrow: pip install pyarrow (or use --csv/--json)") from None
