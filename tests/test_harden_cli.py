"""Hardening of the commands added since wave 2, table-driven: one unit grammar (SI case), outputs checked when
parsed, options a mode ignores refused, runs too short to answer refused -- each a usage error (exit 2) naming
the option, nothing run or written."""
from __future__ import annotations

import math
import os

import pytest
from click.testing import CliRunner

from sgdma.cli import main
from sgdma.hw import units


@pytest.mark.parametrize("text,hz", [("40mHz", 0.04), ("40MHz", 40e6), ("40m", 0.04), ("40M", 40e6),
                                     ("10 ksps", 1e4), ("10Ksps", 1e4), ("2.5GHz", 2.5e9), ("40 MS/s", 40e6),
                                     ("1e6", 1e6)])
def test_rate_prefix_case_is_si(text, hz):
    assert math.isclose(units.parse_rate(text), hz)


@pytest.mark.parametrize("text,bps", [("100MB/s", 100e6), ("1.2GB/s", 1.2e9), ("64MiB/s", 64 * 2**20),
                                      ("800kB/s", 800e3), ("5e6", 5e6), ("1e6B/s", 1e6)])
def test_bandwidth_grammar(text, bps):
    assert math.isclose(units.parse_bandwidth(text), bps)


@pytest.mark.parametrize("text", ["100Mb/s", "nan", "inf", "-1MB/s", "0", "100MB", "1e999B/s", "MB/s"])
def test_bandwidth_refused(text):
    with pytest.raises(units.UnitError):
        units.parse_bandwidth(text)


CASES = [
    # unit grammar everywhere
    (["pcie", "latency", "--packet-size", "4G"], "--packet-size"),
    (["pcie", "latency", "--packet-size", "0"], "--packet-size"),
    (["pcie", "sweep", "--packet-size", "2^25"], "24-bit"),
    (["capture", "--consumer-rate", "100Mb/s"], "--consumer-rate"),
    (["capture", "--rate", "nan"], "--rate"),
    # outputs checked when parsed, before any work
    (["pcie", "latency", "--json", "/nonexistent/x.json"], "--json"),
    (["pcie", "latency", "--plot", "/dev/null/x"], "--plot"),
    (["pcie", "sweep", "--json", "/nonexistent/x.json"], "--json"),
    (["bsp", "--out", "/dev/null/x"], "--out"),
    (["report", "{rec}", "--out", "/dev/null/x"], "--out"),
    (["pcie", "latency", "--seed", "-1"], "--seed"),
    # options a mode ignores
    (["capture", "--sweep", "buffer-size", "--api", "copy"], "--api"),
    (["capture", "--sweep", "buffer-size", "--cache", "uncached"], "--cache"),
    (["capture", "--sweep", "buffer-size", "--buffer-size", "4K"], "--buffer-size"),
    (["capture", "--plot", "{tmp}/p"], "--plot"),
    (["capture", "--find-max-rate", "--rate", "1M"], "--rate"),
    (["characterize", "--preset", "s0", "--bds", "4"], "--bds"),
    (["characterize", "--preset", "s0", "--bytes-per-bd", "64"], "--bytes-per-bd"),
    # a run too short to fill one buffer cannot say "sustained"
    (["capture", "--seconds", "1ns"], "--seconds"),
    (["capture", "--rate", "40mHz"], "2 s default"),
]


@pytest.mark.parametrize("args,needle", CASES)
def test_cli_bad_input(tmp_path, args, needle):
    rec = tmp_path / "r.json"
    rec.write_text('{"kind": "plan", "version": 1}')
    args = [a.replace("{rec}", str(rec)).replace("{tmp}", str(tmp_path)) for a in args]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2, r.output
    assert needle in r.output, r.output
    assert "Traceback" not in r.output
    assert not (tmp_path / "p").exists()


def test_progress_is_quiet_off_a_terminal(tmp_path):
    """stderr is not a terminal under CliRunner: no progress line unless --progress asks for it."""
    r = CliRunner().invoke(main, ["characterize", "--bds", "4", "--bytes-per-bd", "64",
                                                  "--trials", "2", "--jobs", "1"])
    assert r.exit_code == 0 and r.stderr == "", r.stderr
    r = CliRunner().invoke(main, ["characterize", "--bds", "4", "--bytes-per-bd", "64",
                                                  "--trials", "2", "--jobs", "1", "--progress"])
    assert r.exit_code == 0 and "trials" in r.stderr, r.stderr


@pytest.mark.parametrize("text,needle", [('gatez = []\n', "did you mean 'gates'"),
                                         ('[[gates]]\ngate = "rx"\ntheta = 0.5\nqubit = 0\nqbit = 1\n',
                                          "did you mean 'qubit'"),
                                         ('[[gates]]\ngate = "ms"\nqubit = 0\n', "acts on 2 qubit")])
def test_circuit_file_mistakes_suggest_the_fix(tmp_path, text, needle):
    f = tmp_path / "c.toml"
    f.write_text(text)
    r = CliRunner().invoke(main, ["run", str(f), "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and needle in r.output, r.output


@pytest.mark.parametrize("args", [["run", "{zero}.toml"], ["run", "{zero}.json"], ["run", "{fifo}"],
                                  ["info", "--board", "{fifo}"], ["info", "--board", "{zero}.toml"],
                                  ["capture", "--cpu-costs", "{zero}.toml"], ["report", "{zero}.json"]])
def test_input_files_that_never_end_are_refused(tmp_path, args):
    """A FIFO waits for a writer and /dev/zero never ends: both are refused before a byte is read."""
    import os

    os.mkfifo(tmp_path / "f.toml")
    for ext in (".toml", ".json"):
        (tmp_path / f"z{ext}").symlink_to("/dev/zero")
    args = [a.replace("{zero}", str(tmp_path / "z")).replace("{fifo}", str(tmp_path / "f.toml")) for a in args]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2 and "not a regular file" in r.output, r.output


def test_bytes_per_gate_takes_units():
    r = CliRunner().invoke(main, ["plan", "--gate-time", "1ms", "--bytes-per-gate", "2^40"])
    assert r.exit_code == 2 and "--bytes-per-gate" in r.output and "largest" in r.output, r.output


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")
def test_output_under_proc_is_refused_even_for_root(tmp_path):
    """os.access answers yes to root for /proc: the check creates (and removes) a probe instead."""
    from sgdma.cli.common import writable_problem

    assert "cannot create" in writable_problem("/proc/sgdma-nope", True)
    assert "cannot create" in writable_problem("/proc/sgdma-nope.json", False)
    assert writable_problem(str(tmp_path / "new" / "dir"), True) is None
    assert list(tmp_path.iterdir()) == []                     # the probe leaves nothing behind
