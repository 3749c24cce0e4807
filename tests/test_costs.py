"""Every timing cost of every preset says where it comes from, and docs/costs.md is the current list."""
import json
import pathlib
import subprocess
import sys

import pytest

from sgdma.hw import costs, presets

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("board", presets.boards())
def test_every_cost_has_a_source(board):
    missing = [c.key for c in costs.of(board) if not c.source.strip()]
    assert not missing, f"{board}: costs with no source line: {missing}"


def test_costs_are_the_timing_entries():
    keys = {c.key for c in costs.of("zcu111")}
    assert {"dram.trefi_ns", "ic.request_ns", "cpu.mmio_read_ns", "dma.clock_mhz"} <= keys
    assert not keys & {"dma.base", "dma.data_width", "dma.fifo_bytes"}      # sizes and widths are not costs


@pytest.mark.parametrize("source, kind", [
    ("assumed: PG021 gives no soft-reset duration", "assumed"),
    ("Assumed (first principles): one DC CIVAC per line", "assumed"),
    ("calibrated: S0 latency band", "calibrated"),
    ("derived: tRC - tRP", "derived"),
    ("JESD79-4 DDR4-2400: tCK 0.833 ns", "cited"),
    ("S0 sec. III.D: the ring ...; assumed: Normal write-back mapping", "cited"),
    ("   ", ""),
])
def test_kind_is_read_from_the_start_of_the_source(source, kind):
    assert costs.kind_of(source) == kind


def test_docs_costs_page_is_current():
    page = (ROOT / "docs" / "costs.md").read_text()
    assert page == costs.markdown(), "docs/costs.md is stale: run python3 scripts/gen_costs_doc.py"


def test_info_costs_cli(tmp_path):
    out = tmp_path / "c.json"
    r = subprocess.run([sys.executable, "-m", "sgdma.cli", "info", "--board", "pynq-z2", "--costs", "--json",
                        str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    shown = {row["key"] for row in doc["costs"]}
    assert shown == {k for k, _v, u, _s in presets.entries(presets.load("pynq-z2")) if u in costs.COST_UNITS}
    assert sum(doc["counts"].values()) == len(doc["costs"])
    for key in ("dram.trefi_ns", "ic.request_ns"):
        assert key in r.stdout
    r = subprocess.run([sys.executable, "-m", "sgdma.cli", "info", "--board", "--costs"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "--costs" in r.stderr


def test_preset_lines_fit_the_c_loader():
    # the board's C preset loader reads a line into 1024 bytes (csrc/vboard/preset.c); a longer source
    # line is cut and the rest misread as a key, so a long source must stay under that
    root = pathlib.Path(presets.__file__).parent / "presets"
    assert list(root.rglob("*.toml"))
    long = [f"{p.relative_to(root)}:{n}" for p in sorted(root.rglob("*.toml"))
            for n, line in enumerate(p.read_text().splitlines(), 1) if len(line.encode()) >= 1023]
    assert not long, f"preset lines too long for the C loader: {long}"
