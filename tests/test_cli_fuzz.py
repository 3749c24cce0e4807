"""Hypothesis-driven CLI fuzz: random option values (tricky numbers, units, paths) for every command; each run
ends with a documented exit code, never a traceback, and within bounded work (CPU time)."""
from __future__ import annotations

import signal

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sgdma.cli import main
from sgdma.hw.units import UnitError, parse_time_ns

TOKENS = ["", "0", "-1", "1", "7", "33", "4K", "1G", "1Gi", "2^70", "2^5..2^6", "32..33", "inf", "-inf", "nan",
          "1e309", "1e-30s", "1ps", "0.4ps", "250ns", "1us", "1e6s", "40M", "40MHz", "0Hz", "abc", "1,2,,3",
          "18446744073709551616", "zcu111", "pg021", "/nonexistent/x", "/dev/null", "\x00", "µs", "1.5"]

value = st.one_of(st.sampled_from(TOKENS), st.integers(-2**70, 2**70).map(str),
                  st.floats(allow_nan=True, allow_infinity=True).map(repr),
                  st.text(max_size=8))

# per command: options whose valid values keep the work tiny, and the options to fuzz
COMMANDS = {
    "plan": (["--trials", "1"], ["--gate-time", "--bytes-per-gate", "--channels", "--fifo-depth", "--seed",
                                 "--board", "--json"]),
    "capture": (["--seconds", "1ms", "--buffers", "2"], ["--rate", "--buffer-size", "--consumer-rate", "--seconds",
                                                          "--fifo-bytes", "--sample-bytes", "--seed", "--json"]),
    "characterize": (["--trials", "1", "--jobs", "1", "--bds", "2", "--bytes-per-bd", "64"],
                     ["--bytes-per-bd", "--bds", "--cycles", "--seed", "--board", "--csv", "--json"]),
    "selftest": (["--rounds", "1", "--packets", "1"], ["--seed", "--max-packet", "--board", "--json"]),
    "info": ([], ["--board", "--json"]),
}
# A hang is work without end: no invocation may use more than CPU_LIMIT_S of CPU time (a limit on work, not on
# the wall clock, so a loaded machine does not trip it), nor block for WALL_LIMIT_S (far above any run here).
CPU_LIMIT_S = 120
WALL_LIMIT_S = 900
# The fuzz is about values, not workloads: a capture's run length the CLI accepts stays within the base 1 ms (a
# valid --seconds 255 is 300 000 buffers, minutes of honest work that the hang limit would call a hang).
MAX_RUN_NS = 1e6


def _long_run(opt: str, v: str) -> bool:
    if opt != "--seconds":
        return False
    try:
        return parse_time_ns(v) > MAX_RUN_NS
    except (UnitError, ValueError, OverflowError):
        return False                                   # refused: exactly what the fuzz is for


# The same for characterize's accepted rings: a valid --bds 7 --cycles 40M is 280 M BDs of honest work.
MAX_BDS = 2_000_000


def _opt(args: list, name: str, default: str) -> str:
    return args[args.index(name) + 1] if name in args else default


def _heavy_characterize(args: list) -> bool:
    from sgdma.cli.common import Counts
    try:
        bds = Counts().convert(_opt(args, "--bds", "4,16,1024"), None, None)
        cycles = Counts().convert(_opt(args, "--cycles", "1"), None, None)
    except Exception:
        return False                                   # refused: exactly what the fuzz is for
    return sum(bds) * sum(cycles) > MAX_BDS


class Hang(BaseException):        # not an Exception: CliRunner.invoke would catch it and hide the hang
    pass


def _alarm(signum, frame):
    raise Hang()


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM and ITIMER_PROF")
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(cmd=st.sampled_from(sorted(COMMANDS)), data=st.data())
def test_cli_fuzz(cmd, data, tmp_path):
    base, fuzzable = COMMANDS[cmd]
    chosen = data.draw(st.lists(st.sampled_from(fuzzable), min_size=1, max_size=3, unique=True))
    args = [cmd] + list(base)
    for opt in chosen:
        v = data.draw(value)
        assume(not _long_run(opt, v))
        if opt in args:                              # the fuzzed value replaces the base one
            i = args.index(opt)
            del args[i:i + 2]
        if opt in ("--json", "--csv") and v not in ("/nonexistent/x", "/dev/null"):
            v = str(tmp_path / "out")                # keep real writes inside the sandbox
        args += [opt, v]
    assume(cmd != "characterize" or not _heavy_characterize(args))
    old = {sig: signal.signal(sig, _alarm) for sig in (signal.SIGALRM, signal.SIGPROF)}
    signal.setitimer(signal.ITIMER_PROF, CPU_LIMIT_S)
    signal.alarm(WALL_LIMIT_S)
    try:
        res = CliRunner().invoke(main, args)
    except Hang:
        pytest.fail(f"hang: sgdma {' '.join(map(repr, args))}")
    finally:
        signal.alarm(0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        for sig, handler in old.items():
            signal.signal(sig, handler)
    assert res.exit_code in (0, 1, 2, 3), (args, res.exit_code, res.output)
    assert "Traceback" not in res.output, (args, res.output)
    assert res.exception is None or isinstance(res.exception, SystemExit), (args, repr(res.exception))
