"""Hypothesis-driven CLI fuzz: random option values (tricky numbers, units, paths) for every command; each run
ends with a documented exit code, never a traceback, and within a bounded time."""
from __future__ import annotations

import signal

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgdma.cli import main

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
TIME_LIMIT_S = 120                 # no single invocation may take longer: that would be a hang


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


@pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="needs SIGALRM")
@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(cmd=st.sampled_from(sorted(COMMANDS)), data=st.data())
def test_cli_fuzz(cmd, data, tmp_path):
    base, fuzzable = COMMANDS[cmd]
    chosen = data.draw(st.lists(st.sampled_from(fuzzable), min_size=1, max_size=3, unique=True))
    args = [cmd] + list(base)
    for opt in chosen:
        v = data.draw(value)
        if opt in args:                              # the fuzzed value replaces the base one
            i = args.index(opt)
            del args[i:i + 2]
        if opt in ("--json", "--csv") and v not in ("/nonexistent/x", "/dev/null"):
            v = str(tmp_path / "out")                # keep real writes inside the sandbox
        args += [opt, v]
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT_S)
    try:
        res = CliRunner().invoke(main, args)
    except Hang:
        pytest.fail(f"hang: sgdma {' '.join(map(repr, args))}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert res.exit_code in (0, 1, 2, 3), (args, res.exit_code, res.output)
    assert "Traceback" not in res.output, (args, res.output)
    assert res.exception is None or isinstance(res.exception, SystemExit), (args, repr(res.exception))
