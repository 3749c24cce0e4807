"""Helpers shared by the commands: exit codes, option types (one unit grammar, outputs checked before the
work), output writers.

Exit codes, the same for every command (README "Exit codes"):
  0 success · 1 a negative verdict (not feasible, out of band, samples dropped, self-test mismatch) ·
  2 a usage error (bad option, bad input file; nothing was run or written) ·
  3 a failure while running (the model or the host failed, or Ctrl-C; what was done so far is kept).
"""
from __future__ import annotations

import gc
import json
import os
import stat
import sys

import click

from sgdma.hw import units

EXIT_OK, EXIT_NEGATIVE, EXIT_USAGE, EXIT_FAILURE = 0, 1, 2, 3
SEED_MAX = (1 << 64) - 1          # the board's generator takes a uint64 seed


class Failure(click.ClickException):
    """A failure while running (exit 3)."""

    exit_code = EXIT_FAILURE

    def show(self, file=None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


class Group(click.Group):
    """The sgdma group: every exception a command lets out becomes an exit code and one line, never a
    traceback.  Bad input found during the work (ValueError and its kin) is a usage error; anything else is a
    failure while running.  SGDMA_TRACEBACK=1 re-raises for debugging."""

    def main(self, *args, **kwargs):
        previous = _terminate_like_ctrl_c()
        try:
            return super().main(*args, **kwargs)
        except SystemExit:
            _flush_or_quiet()                  # output still buffered for a reader that has gone
            raise
        finally:                               # a host process (a test runner) gets its own handler back
            _restore_sigterm(previous)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except BrokenPipeError:
            _quiet_pipe_exit()
        except KeyboardInterrupt:
            raise Failure(f"{interrupted()}: stopped cleanly; outputs written so far are kept") from None
        except Exception as e:                                        # noqa: BLE001 - the last line of defence
            if os.environ.get("SGDMA_TRACEBACK"):
                raise
            msg = str(e) or type(e).__name__
            if isinstance(e, (ValueError, LookupError)) and not isinstance(e, (OSError, MemoryError)):
                raise click.UsageError(msg) from None
            raise Failure(f"{type(e).__name__}: {msg}") from None


EXIT_PIPE = 128 + 13          # the status a shell shows for a writer whose reader went away (SIGPIPE)
_TERMINATED = False


def _terminate_like_ctrl_c():
    """SIGTERM (kill, a batch system's time limit) stops the command as Ctrl-C does: the same cleanup, partial
    results kept, exit 3.  Only in the process that installed it: a worker process forked later and stopped by
    its pool dies as it would have.  Returns the handler it replaced (None if it could not install one)."""
    import signal

    parent = os.getpid()

    def handler(signum, frame):
        global _TERMINATED
        if os.getpid() != parent:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        _TERMINATED = True
        raise KeyboardInterrupt

    global _TERMINATED
    _TERMINATED = False
    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:                         # not the main thread (an embedding application): leave it be
        return None


def _restore_sigterm(previous) -> None:
    import signal

    if previous is not None:
        try:
            signal.signal(signal.SIGTERM, previous)
        except ValueError:
            pass


def interrupted() -> str:
    """How the user stopped the command, for its one-line message."""
    return "terminated (SIGTERM)" if _TERMINATED else "interrupted (Ctrl-C)"


def _quiet_pipe_exit():
    """stdout's reader has gone (`sgdma ... | head`): no traceback, no error text; the conventional status."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    raise SystemExit(EXIT_PIPE)


def _flush_or_quiet() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_pipe_exit()
    except (OSError, ValueError):
        pass


class _UnitType(click.ParamType):
    def __init__(self, parse, **limits):
        self._parse, self._limits = parse, limits

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        try:
            return self._parse(value, None, **self._limits)
        except units.UnitError as e:
            self.fail(str(e), param, ctx)


class Size(_UnitType):
    """Bytes: 4096, 4K, 128KiB, 1G, 2^12."""

    name = "size"

    def __init__(self, minimum: int = 1, maximum: int = units.SIZE_MAX_BYTES):
        super().__init__(units.parse_size, minimum=minimum, maximum=maximum)


class Sizes(_UnitType):
    """A list of sizes: 32,64,4K or 2^5..2^13."""

    name = "sizes"

    def __init__(self, minimum: int = 1, maximum: int = units.SIZE_MAX_BYTES):
        super().__init__(units.parse_sizes, minimum=minimum, maximum=maximum)


class Counts(Sizes):
    """A list of counts (BDs, cycles) in the sizes' grammar; its refusals speak of counts, not bytes."""

    name = "counts"

    def convert(self, value, param, ctx):
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as e:
            import re

            msg = re.sub(r"('[^']*') is -?\d+ bytes; the (smallest|largest) size allowed is", r"\1: the \2 allowed is",
                         e.message)
            msg = re.sub(r"not a size \([^)]*\)", "not a count (use e.g. 16, 1K or 2^10)", msg)
            e.message = msg.replace("whole number of bytes", "whole number")
            raise


class Time(_UnitType):
    """A time, converted to ns: 500ps, 1us, 2ms, 1e-6 (seconds)."""

    name = "time"

    def __init__(self, minimum_ns: float = units.TIME_MIN_NS, maximum_ns: float = units.TIME_MAX_NS):
        super().__init__(units.parse_time_ns, minimum_ns=minimum_ns, maximum_ns=maximum_ns)


class Rate(_UnitType):
    """Per second: 40e6, 40M, 40MHz, 40MS/s."""

    name = "rate"

    def __init__(self, minimum: float = 1e-9, maximum: float = units.RATE_MAX_HZ):
        super().__init__(units.parse_rate, minimum=minimum, maximum=maximum)


class Bandwidth(_UnitType):
    """Bytes per second: 100MB/s, 1.2GB/s, 64MiB/s."""

    name = "bytes/s"

    def __init__(self, minimum: float = 1e-9, maximum: float = 1e15):
        super().__init__(units.parse_bandwidth, minimum=minimum, maximum=maximum)


class OutPath(click.ParamType):
    """An output file or directory, checked writable when the option is parsed, i.e. before any work."""

    def __init__(self, directory: bool = False):
        self.directory = directory
        self.name = "dir" if directory else "file"

    def convert(self, value, param, ctx):
        problem = writable_problem(str(value), self.directory)
        if problem:
            self.fail(f"{value!r}: {problem}", param, ctx)
        _claim(str(value), self.directory, param, ctx)
        return str(value)


def _claim(path: str, directory: bool, param, ctx) -> None:
    """Two outputs of one command on one path: the second would overwrite the first (or fail on the directory
    the first made) after the work, so refuse it now.  Two directory outputs may share a folder: their files
    have different names.  An output on an input file would destroy the input."""
    if ctx is None or param is None or _special(path):
        return
    key = os.path.realpath(path)
    read = ctx.meta.get("sgdma.inputs", {}).get(key)
    if read:
        raise click.BadParameter(f"{path!r} is the {read} this command reads: writing there would destroy it; "
                                 f"give the output another path", ctx=ctx, param=param)
    claimed = ctx.meta.setdefault("sgdma.outputs", {})
    other = claimed.get(key)
    if other and other[0] != param.name and not (directory and other[1]):
        raise click.BadParameter(f"{path!r} is also the path of {other[2]}: each output needs its own path, or "
                                 f"one of them would overwrite the other", ctx=ctx, param=param)
    claimed.setdefault(key, (param.name, directory, param.opts[0]))


def _special(path: str) -> bool:
    """/dev/null, a FIFO, a terminal: written as a stream, not replaced, so several outputs may share it."""
    try:
        mode = os.stat(path).st_mode
    except OSError:                            # not there yet: a file this command will create
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


class InPath(click.Path):
    """An input file (it must exist): no output of the same command may be written over it."""

    def __init__(self, **kwargs):
        super().__init__(exists=kwargs.pop("exists", True), dir_okay=False, **kwargs)

    def convert(self, value, param, ctx):
        value = super().convert(value, param, ctx)
        if ctx is not None and param is not None:
            key = os.path.realpath(str(value))
            out = ctx.meta.get("sgdma.outputs", {}).get(key)
            what = param.opts[0] if param.opts[0].startswith("-") else param.human_readable_name
            if out:
                self.fail(f"{value!r} is also the path of {out[2]}: writing there would destroy this input; give "
                          f"the output another path", param, ctx)
            ctx.meta.setdefault("sgdma.inputs", {})[key] = what
        return value


def writable_problem(path: str, directory: bool) -> str | None:
    """Why ``path`` cannot be written (None if it can): the file or directory itself, or the nearest existing
    ancestor that would have to hold it."""
    if not path or "\0" in path:
        return "not a path"
    p = os.path.abspath(path)
    if os.path.exists(p):
        if directory and not os.path.isdir(p):
            return "exists and is not a directory"
        if not directory and os.path.isdir(p):
            return "is a directory, not a file"
        return None if os.access(p, os.W_OK | (os.X_OK if directory else 0)) else "not writable (permission denied)"
    parent = os.path.dirname(p)
    if not directory and not os.path.isdir(parent):
        return f"its directory {parent!r} does not exist"
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        return f"{parent!r} is a file, so the directory cannot be created"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot create it: {parent!r} is not writable (permission denied)"
    return _create_probe(parent)


def _create_probe(folder: str) -> str | None:
    """os.access says yes to root everywhere, /proc and read-only mounts included: create and remove one empty
    directory there (nothing is left behind) and say why that failed, if it did."""
    import tempfile

    try:
        os.rmdir(tempfile.mkdtemp(prefix=".sgdma-probe-", dir=folder))
    except OSError as e:
        return f"cannot create anything in {folder!r}: {e.strerror}"
    return None


def freeze_heap_at_exit() -> None:
    """Once per process: at interpreter exit, take every object out of the cyclic collector's reach
    (gc.freeze) before shutdown's collection passes walk the whole heap of a finished command (20-40 ms after
    a run; the operating system frees the memory).  atexit callbacks and weakref.finalize still run, and
    objects held without cycles are still released; only objects in reference cycles are not finalized at
    exit, which Python never promised."""
    global _FREEZE_AT_EXIT
    if not _FREEZE_AT_EXIT:
        import atexit

        atexit.register(gc.freeze)
        _FREEZE_AT_EXIT = True


_FREEZE_AT_EXIT = False


def progress_wanted() -> bool:
    """Progress lines go to a terminal; to a log or pipe only when asked (--progress or SGDMA_PROGRESS=1)."""
    return FORCE_PROGRESS or os.environ.get("SGDMA_PROGRESS", "") not in ("", "0") or sys.stderr.isatty()


FORCE_PROGRESS = False          # set by --progress


def _force_progress(ctx, param, value):
    global FORCE_PROGRESS
    FORCE_PROGRESS = bool(value)        # called with the default too: one command's flag never outlives it
    return value


def progress_option(f):
    return click.option("--progress", is_flag=True, expose_value=False, callback=_force_progress,
                        help="progress lines on stderr even when it is not a terminal")(f)


class Progress:
    """A progress bar with an estimate of the time left, on stderr, shown only for work that turns out long
    (after SHOW_AFTER_S of wall time) so short runs print nothing extra, and only where progress_wanted().
    ``update(done, total)``."""

    SHOW_AFTER_S = 2.0

    def __init__(self, label: str):
        self.label, self._bar, self._t0, self._done = label, None, None, 0

    def __enter__(self):
        import time

        self._t0 = time.monotonic()
        return self

    def update(self, done: float, total: float) -> None:
        import time

        if self._bar is None:
            if time.monotonic() - self._t0 < self.SHOW_AFTER_S or total <= 0 or not progress_wanted():
                return
            self._bar = click.progressbar(length=1000, label=self.label, show_eta=True, file=sys.stderr)
            self._bar.__enter__()
        step = int(1000 * min(done / total, 1.0)) - self._done
        if step > 0:
            self._bar.update(step)
            self._done += step

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.__exit__(*exc)
        return False


class CpuLoad(click.ParamType):
    """A background CPU load competing with the DMA for DRAM: a byte rate (800MB/s, 1.2GB/s; a memcpy's even
    read/write mix) and optionally the share of it that is reads (800MB/s,read=0.7).  VirtualBoard's cpu_load."""

    name = "rate[,read=F]"

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        from sgdma.board.virtual import cpu_load_options

        try:
            cpu_load_options(value)
        except ValueError as e:
            self.fail(str(e), param, ctx)
        return value


def cpu_load_option(f):
    return click.option("--cpu-load", default=None, type=CpuLoad(),
                        help="background CPU load competing for DRAM, e.g. 800MB/s (a memcpy's mix) or "
                             "800MB/s,read=0.7")(f)


def seed_option(f):
    return click.option("--seed", default=0, show_default=True, type=click.IntRange(0, SEED_MAX),
                        help="seed of the board's generator (same seed, same numbers)")(f)


def refuse_ignored(ctx: click.Context, names, why: str) -> None:
    """A usage error when the user gave any of the options ``names`` (parameter names) that the chosen mode does
    not use: an input dropped without a word would make the output answer a question nobody asked."""
    flags = {p.name: p.opts[0] for p in ctx.command.params}
    given = [flags.get(n, n) for n in names
             if ctx.get_parameter_source(n) not in (None, click.core.ParameterSource.DEFAULT)]
    if given:
        raise click.UsageError(f"{', '.join(given)}: not used {why}; leave {'them' if len(given) > 1 else 'it'} out")


def exit_verdict(ok: bool) -> None:
    """Exit 0 on a positive verdict, 1 on a negative one."""
    sys.exit(EXIT_OK if ok else EXIT_NEGATIVE)


def _core_constants() -> dict:
    from sgdma import _core

    return _core.constants


def _write_json(path: str | None, data) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(data, f, indent=2)
            f.write("\n")


def _write_record(path: str | None, kind: str, data, version: int = 1) -> None:
    """--json output as a result record the report layer reads (`sgdma report`): kind and version first."""
    if isinstance(data, dict):
        _write_json(path, {"kind": kind, "version": version, **data})
    else:
        _write_json(path, {"kind": kind, "version": version, "records": data})


def _list_option(name: str, default: str, help: str, counts: bool = False):
    return click.option(name, default=default, show_default=True, type=Counts() if counts else Sizes(),
                        help=help + " (e.g. 32,64 or 2^5..2^13)")


def parse_time_ns(text: str) -> float:
    """'1us', '250ns', '2.5 us', '1e-6' (seconds) -> ns (sgdma.hw.units grammar)."""
    try:
        return units.parse_time_ns(text)
    except units.UnitError as e:
        raise click.BadParameter(str(e)) from None


def _size(text: str) -> int:
    try:
        return units.parse_size(text)
    except units.UnitError as e:
        raise click.BadParameter(str(e)) from None


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise click.BadParameter(f"{what} {text!r} is not a number (e.g. 40e6)") from None


def _flat(rec: dict) -> dict:
    out = {}
    for k, v in rec.items():
        if isinstance(v, dict):
            out.update({f"{k}_{kk}": vv for kk, vv in v.items()})
        else:
            out[k] = v
    return out


def _write_csv(path: str, records: list[dict]) -> None:
    import csv

    rows = [_flat(r) for r in records]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
