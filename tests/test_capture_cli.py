"""`sgdma capture`: one run, the sweep, the max-rate search, bad input."""
import json

import pytest

from click.testing import CliRunner

from sgdma.cli import main


def test_capture_run_json(tmp_path):
    out = tmp_path / "c.json"
    res = CliRunner().invoke(main, ["capture", "--board", "zynq7000", "--rate", "40e6", "--sample-bytes", "4",
                                    "--buffer-size", "128KiB", "--buffers", "16", "--api", "zerocopy",
                                    "--cache", "sync", "--seconds", "0.02", "--json", str(out)])
    assert res.exit_code == 0, res.output
    d = json.loads(out.read_text())
    for key in ("sustained", "overflows", "throughput_mbps", "cpu_load", "buffers_delivered"):
        assert key in d
    assert d["sustained"] and d["overflows"] == 0 and d["throughput_mbps"] > 150


def test_unsustainable_capture_exits_non_zero():
    res = CliRunner().invoke(main, ["capture", "--api", "copy", "--cache", "uncached", "--seconds", "0.02"])
    assert res.exit_code == 1 and "NO" in res.output          # a negative verdict: samples dropped


def test_sweep_covers_every_api_and_policy(tmp_path):
    out = tmp_path / "s.json"
    res = CliRunner().invoke(main, ["capture", "--sweep", "buffer-size", "--board", "zynq7000", "--json", str(out),
                                    "--plot", str(tmp_path / "p")])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert doc["kind"] == "capture" and doc["version"] == 1
    recs = doc["records"]
    assert {r["api"] for r in recs} == {"copy", "zerocopy", "batch"}
    assert {r["cache"] for r in recs} == {"sync", "uncached", "writecombine", "coherent"}
    assert {r["buffer_bytes"] for r in recs} >= {64, 32768}
    assert any(p.suffix == ".png" for p in (tmp_path / "p").iterdir())


def test_find_max_rate_and_bad_input():
    res = CliRunner().invoke(main, ["capture", "--find-max-rate", "--api", "copy", "--cache", "uncached"])
    assert res.exit_code == 0 and "highest rate sustained" in res.output
    bad = CliRunner().invoke(main, ["capture", "--buffer-size", "1001", "--sample-bytes", "4"])
    assert bad.exit_code != 0 and "1001" in bad.output


@pytest.mark.parametrize("value", ["800MB/s,read=2", "garbage", "-5MB/s"])
def test_bad_cpu_load_is_refused_before_the_board_is_built_naming_the_option(value):
    r = CliRunner().invoke(main, ["capture", "--board", "zc706", "--seconds", "100us", "--cpu-load", value])
    assert r.exit_code == 2
    assert "'--cpu-load'" in r.output
