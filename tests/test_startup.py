"""A short command imports only what it uses (issue 12 sec. 5: `sgdma run` start-up).  Behaviour, not timing:
the modules a fresh interpreter has loaded after the command are checked."""
import json
import os
import subprocess
import sys
from pathlib import Path

import sgdma

SRC = str(Path(sgdma.__file__).resolve().parents[1])
#: never needed by `sgdma run` without --out / --json: plotting, tables, trace writers, clusters, other commands
HEAVY = ("matplotlib", "pandas", "pyarrow", "vcd", "dask", "distributed", "numpy.ma", "sgdma.board.linux",
         "sgdma.driver.pciedma", "sgdma.pcie", "sgdma.rtio", "sgdma.capture", "sgdma.experiments",
         "sgdma.output.report", "sgdma.executor")


def _loaded_after(code: str, cache: Path, cwd: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=SRC, XDG_CACHE_HOME=str(cache))
    probe = (code + "\nimport json, sys\n"
             "print(json.dumps(sorted(sys.modules)), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", probe], env=env, cwd=cwd, capture_output=True, text=True,
                         timeout=300)
    return {"rc": out.returncode, "stdout": out.stdout,
            "modules": set(json.loads(out.stderr.strip().splitlines()[-1]))}


def test_import_sgdma_loads_nothing_heavy(tmp_path):
    got = _loaded_after("import sgdma", tmp_path / "cache", tmp_path)
    assert got["rc"] == 0
    assert not {m for m in got["modules"] if m.startswith(("numpy", "sgdma."))}
    # the public names still resolve (on first use)
    got = _loaded_after("import sgdma\nassert sgdma.VirtualBoard.__name__ == 'VirtualBoard'\n"
                        "assert sgdma.pg021.BD_SIZE == 64 and sgdma.DmaError and sgdma.AxiDma", tmp_path / "cache",
                        tmp_path)
    assert got["rc"] == 0 and "sgdma.board.linux" not in got["modules"]


def test_run_imports_only_what_it_uses(tmp_path):
    circuit = tmp_path / "c.json"
    circuit.write_text(json.dumps({"circuit": {"name": "c"}, "gates": [
        {"gate": "ry", "theta": 1.5707963267948966, "qubit": 0}, {"gate": "ms", "qubits": [0, 1]},
        {"gate": "measure", "qubit": 1}]}))
    run = ("import sys\nfrom sgdma.cli import main\nsys.argv = ['sgdma', 'run', 'c.json']\n"
           "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n")
    first = _loaded_after(run, tmp_path / "cache", tmp_path)
    assert first["rc"] == 0 and "3 gates" in first["stdout"]
    heavy = sorted(m for m in first["modules"] if m.split(".")[0] in HEAVY or m in HEAVY or
                   any(m.startswith(h + ".") for h in HEAVY))
    assert heavy == []
    # with the presets and the gate library parsed once (sgdma.hw.tomlcache), the next run needs no TOML parser
    second = _loaded_after(run, tmp_path / "cache", tmp_path)
    assert second["rc"] == 0 and second["stdout"].split("virtual time")[0] == first["stdout"].split("virtual time")[0]
    assert "tomllib" not in second["modules"]


def test_run_json_keeps_the_per_gate_columns(tmp_path):
    """The summary-only run skips the record's columns; --json still writes them, one entry per gate."""
    from click.testing import CliRunner

    from sgdma.cli import main

    circuit = tmp_path / "c.json"
    circuit.write_text(json.dumps({"gates": [{"gate": "rx", "theta": 1.0}, {"gate": "measure"},
                                             {"gate": "rx", "theta": 1.0}]}))
    out = tmp_path / "r.json"
    res = CliRunner().invoke(main, ["run", str(circuit), "--json", str(out)])
    assert res.exit_code == 0, res.output
    cols = json.loads(out.read_text())["columns"]
    assert cols["gate_name_table"] == ["measure", "rx"] and cols["gate_name"] == [1, 0, 1]
    assert len(cols["first_ns"]) == len(cols["last_ns"]) == 3
