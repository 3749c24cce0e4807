"""The sgdma command."""
import json

from click.testing import CliRunner

from sgdma.cli import main


def test_selftest_passes_and_writes_json(tmp_path):
    out = tmp_path / "selftest.json"
    res = CliRunner().invoke(main, ["selftest", "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "PASS" in res.output
    data = json.loads(out.read_text())
    assert data["ok"] and data["bytes"] > 0 and data["first_word_latency_ns"] > 0


def test_selftest_other_boards():
    for board in ("zynq7000", "pg021", "zcu102"):
        res = CliRunner().invoke(main, ["selftest", "--board", board, "--rounds", "2", "--packets", "8"])
        assert res.exit_code == 0, (board, res.output)


def test_selftest_is_deterministic(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for p in (a, b):
        CliRunner().invoke(main, ["selftest", "--seed", "7", "--rounds", "1", "--json", str(p)])
    da, db = json.loads(a.read_text()), json.loads(b.read_text())
    da.pop("wall_s"), db.pop("wall_s")
    assert da == db


def test_info_bad_board():
    res = CliRunner().invoke(main, ["info", "--board", "nope"])
    assert res.exit_code != 0 and "unknown board preset" in res.output
