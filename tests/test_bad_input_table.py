"""Bad inputs, table-driven: every one ends in a documented exit code (CLI) or a named exception type (API),
and the message names the option or argument at fault.  No traceback, nothing run before the refusal."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from click.testing import CliRunner

import sgdma
from sgdma.cli import main
from sgdma.experiments import plan as pl
from sgdma.hw import presets, units
from sgdma.sequence import Circuit, randomized_benchmarking
from sgdma.sequence.errors import CircuitError

DATA = Path(__file__).parent / "data_bad"


def _write(tmp: Path, name: str, text: str) -> str:
    p = tmp / name
    p.write_text(text)
    return str(p)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    t = tmp_path_factory.mktemp("bad")
    pg021 = presets.path("pg021").read_text()
    no_dram = pg021.split("[dram]")[0]                      # the preset without its [dram] section
    return {
        "idle": _write(t, "idle.toml", '[[gates]]\ngate = "idle"\nn = 1000000000\nqubit = 0\n'),
        "rb": _write(t, "rb.toml", "[[gates]]\nrb = 100000000\nqubit = 0\n"),
        "list": _write(t, "list.json", "[1, 2]\n"),
        "nan": _write(t, "nan.toml", '[[gates]]\ngate = "rx"\ntheta = nan\nqubit = 0\n'),
        "inf": _write(t, "inf.json", '{"gates": [{"gate": "rx", "theta": 1e999, "qubit": 0}]}\n'),
        "same": _write(t, "same.toml", '[[gates]]\ngate = "ms"\nqubits = [0, 0]\n'),
        "neg_rb": _write(t, "negrb.toml", "[[gates]]\nrb = 4\nseed = -1\nqubit = 0\n"),
        "preset": _write(t, "nodram.toml", no_dram),
        "file": _write(t, "a_file", "x"),
        "dir": str(t),
    }


# (args, exit code, text the message must contain); paths named by key are filled from `files`
CLI_CASES = [
    (["plan", "--gate-time", "0.5ps", "--bytes-per-gate", "8"], 2, "--gate-time"),
    (["plan", "--gate-time", "inf", "--bytes-per-gate", "8"], 2, "--gate-time"),
    (["plan", "--gate-time", "nan", "--bytes-per-gate", "8"], 2, "--gate-time"),
    (["plan", "--gate-time", "1e-30s", "--bytes-per-gate", "8"], 2, "--gate-time"),
    (["plan", "--gate-time", "1e6s", "--bytes-per-gate", "8"], 2, "--gate-time"),
    (["plan", "--gate-time", "-1us", "--bytes-per-gate", "8"], 2, "--gate-time"),
    (["plan", "--gate-time", "1us", "--bytes-per-gate", "0"], 2, "--bytes-per-gate"),
    (["plan", "--gate-time", "1us", "--bytes-per-gate", "8", "--seed", "-1"], 2, "--seed"),
    (["plan", "--gate-time", "1us", "--bytes-per-gate", "8", "--json", "/nonexistent/p.json"], 2, "--json"),
    (["plan", "--gate-time", "1us", "--bytes-per-gate", "8", "--json", "{dir}"], 2, "--json"),
    (["plan", "--gate-time", "2ns", "--bytes-per-gate", "8192"], 1, "stream bandwidth"),
    (["plan", "--gate-time", "1ps", "--bytes-per-gate", "1"], 1, "stream bandwidth"),
    (["demo", "--gate-time", "1G"], 2, "--gate-time"),
    (["demo", "--out", "{file}"], 2, "--out"),
    (["demo", "--json", "/nonexistent/d.json"], 2, "--json"),
    (["demo", "--passes", "100000", "--out", "{dir}/demo"], 2, "--passes"),
    (["run", "{idle}", "--out", "{dir}/o"], 2, "idle"),
    (["run", "{rb}", "--out", "{dir}/o"], 2, "rb"),
    (["run", "{list}", "--out", "{dir}/o"], 2, "top level"),
    (["run", "{nan}", "--out", "{dir}/o"], 2, "theta"),
    (["run", "{inf}", "--out", "{dir}/o"], 2, "theta"),
    (["run", "{same}", "--out", "{dir}/o"], 2, "qubits"),
    (["run", "{neg_rb}", "--out", "{dir}/o"], 2, "seed"),
    (["run", "{idle}", "--board", "{preset}", "--out", "{dir}/o"], 2, "missing section"),
    (["capture", "--rate", "inf"], 2, "--rate"),
    (["capture", "--rate", "0"], 2, "--rate"),
    (["capture", "--rate", "40 parsecs"], 2, "--rate"),
    (["capture", "--buffer-size", "1.3"], 2, "--buffer-size"),
    (["capture", "--buffer-size", "-4K"], 2, "--buffer-size"),
    (["capture", "--consumer-rate", "nan"], 2, "--consumer-rate"),
    (["capture", "--seconds", "1e9"], 2, "seconds"),
    (["capture", "--seconds", "inf"], 2, "--seconds"),
    (["capture", "--fifo-bytes", "1G1"], 2, "--fifo-bytes"),
    (["capture", "--sweep", "buffer-size", "--plot", "{file}"], 2, "--plot"),
    (["capture", "--json", "{file}/x.json"], 2, "--json"),
    (["characterize", "--bytes-per-bd", "abc"], 2, "--bytes-per-bd"),
    (["characterize", "--bytes-per-bd", "32..33"], 2, "--bytes-per-bd"),
    (["characterize", "--bds", "0"], 2, "--bds"),
    (["characterize", "--bds", "4", "--cycles", "2^40"], 2, "limit"),
    (["characterize", "--csv", "/nonexistent/c.csv"], 2, "--csv"),
    (["characterize", "--plot", "{file}"], 2, "--plot"),
    (["characterize", "--seed", "-5"], 2, "--seed"),
    (["characterize", "bd-create", "--plot", "{file}"], 2, "--plot"),
    (["characterize", "bd-create", "--bds", "1e999"], 2, "--bds"),
    (["info", "--board", "nosuch"], 2, "--board"),
    (["info", "--board", "{preset}"], 2, "missing section"),
    (["info", "--json", "/nonexistent/i.json"], 2, "--json"),
    (["selftest", "--json", "{dir}"], 2, "--json"),
    (["selftest", "--seed", "18446744073709551616"], 2, "--seed"),
    (["validate", "--json", "/nonexistent/v.json"], 2, "--json"),
    (["rtio", "demo", "--period-ns", "nan"], 2, "--period-ns"),
    (["rtio", "demo", "--pulses", "0"], 2, "--pulses"),
    (["rtio", "bench", "--json", "/nonexistent/r.json"], 2, "--json"),
]


@pytest.mark.parametrize("args,code,text", CLI_CASES, ids=[" ".join(c[0][:3]) for c in CLI_CASES])
def test_cli_bad_input(files, args, code, text):
    argv = [a.format(**files) for a in args]
    res = CliRunner().invoke(main, argv)
    assert res.exit_code == code, res.output
    assert text in res.output
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)


def _board():
    return sgdma.VirtualBoard("zcu111")


# (call, exception type, text the message must contain)
API_CASES = [
    (lambda f: _board().allocate(-1), ValueError, "shape"),
    (lambda f: _board().allocate((4, -2)), ValueError, "shape"),
    (lambda f: _board().allocate(1.5), ValueError, "shape"),
    (lambda f: sgdma.VirtualBoard("zcu111", seed=-1), ValueError, "seed"),
    (lambda f: sgdma.VirtualBoard("zcu111", seed=2**64), ValueError, "seed"),
    (lambda f: _board().reseed(-7), ValueError, "seed"),
    (lambda f: sgdma.VirtualBoard(f["preset"]), ValueError, "[dram]"),
    (lambda f: Circuit.from_dict({"gates": [{"gate": "rx", "theta": math.nan, "qubit": 0}]}), CircuitError, "theta"),
    (lambda f: Circuit.from_dict({"gates": [{"gate": "rx", "theta": "inf", "qubit": 0}]}), CircuitError, "theta"),
    (lambda f: Circuit.from_dict({"gates": [{"gate": "ms", "qubits": [1, 1]}]}), CircuitError, "qubits"),
    (lambda f: Circuit.from_file(f["list"]), CircuitError, "top level"),
    (lambda f: randomized_benchmarking(10**9), CircuitError, "rb"),
    (lambda f: Circuit("c", repeat=0), CircuitError, "repeat"),
    (lambda f: units.parse_time_ns("inf", "--gate-time"), units.UnitError, "--gate-time"),
    (lambda f: units.parse_time_ns("0.4ps", "--gate-time"), units.UnitError, "picoseconds"),
    (lambda f: units.parse_size("1.5", "--buffer-size"), units.UnitError, "--buffer-size"),
    (lambda f: units.parse_size("2^70", "--buffer-size"), units.UnitError, "largest"),
    (lambda f: units.parse_rate("nan", "--rate"), units.UnitError, "--rate"),
    (lambda f: units.parse_sizes("64..48", "--bds"), units.UnitError, "--bds"),
    (lambda f: _board().read32(0xF000_0000), sgdma.BusError, "0xf0000000"),
    (lambda f: _board().mmio(0xF000_0000).write(0, 1), sgdma.BusError, "0xf0000000"),
    (lambda f: _board().dac.configure(math.inf, 0, 4), ValueError, "word_ns"),
    (lambda f: pl.plan(math.nan, 8), ValueError, "gate time"),
    (lambda f: pl.plan(1000.0, 0), ValueError, "bytes per gate"),
    (lambda f: pl.plan(1000.0, 8, seed=-1), ValueError, "seed"),
]


@pytest.mark.parametrize("call,exc,text", API_CASES, ids=[f"api{i}" for i in range(len(API_CASES))])
def test_api_bad_input(files, call, exc, text):
    with pytest.raises(exc) as e:
        call(files)
    assert text in str(e.value)
