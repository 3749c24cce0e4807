"""Records read back are validated: `sgdma report` refuses a damaged record with exit 2 naming the file, field
and rule (bounded read: no FIFO, no /dev/zero, no 200 000-deep nesting); a sweep cache chunk holding NaN or an
impossible figure is never used (the chunk runs again)."""
from __future__ import annotations

import io
import json
import math
import os

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgdma.cli import main
from sgdma.experiments import characterize as ch
from sgdma.experiments import sweepcache
from sgdma.output import records

GOOD = {"kind": "characterize", "version": 1,
        "records": [{"board": "zcu111", "bds": 4, "bytes_per_bd": 64, "cycles": 1,
                     "latency_ns": {"median": 900.0, "min": 850.0, "max": 990.0},
                     "throughput_mbps": {"median": 120.0, "min": 110.0, "max": 130.0}}]}


def _with(path, value):
    """GOOD with the field at path (a tuple of keys/indices) set to value."""
    rec = json.loads(json.dumps(GOOD))
    node = rec
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return rec


DAMAGED = [
    (_with(("records", 0, "latency_ns", "median"), float("nan")), "latency_ns.median", "finite"),
    (_with(("records", 0, "throughput_mbps", "max"), float("inf")), "throughput_mbps.max", "finite"),
    (_with(("records", 0, "bds"), -4), "bds", ">= 1"),
    (_with(("records", 0, "bds"), 4.5), "bds", "integer"),
    (_with(("records", 0, "bytes_per_bd"), "64"), "bytes_per_bd", "integer"),
    (_with(("records", 0, "latency_ns"), 3), "latency_ns", "object"),
    (_with(("records",), {}), "records", "list"),
    (_with(("records", 0, "board"), None), "board", "string"),
    (_with(("version",), True), "version", "integer"),
    (_with(("kind",), 7), "kind", "string"),
    ([1, 2], "record", "JSON object"),
]


@pytest.mark.parametrize("rec,field,rule", DAMAGED)
def test_damaged_record_is_exit_2_naming_file_field_rule(tmp_path, rec, field, rule):
    p = tmp_path / "r.json"
    p.write_text(json.dumps(rec))
    r = CliRunner().invoke(main, ["report", str(p), "--out", str(tmp_path / "out")])
    assert r.exit_code == 2, r.output
    assert str(p) in r.output and field in r.output and rule in r.output, r.output
    assert not (tmp_path / "out").exists()


def test_good_record_reports(tmp_path):
    p = tmp_path / "r.json"
    p.write_text(json.dumps(GOOD))
    r = CliRunner().invoke(main, ["report", str(p), "--out", str(tmp_path / "out")])
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("make,needle", [
    (lambda d: "/dev/zero", "not a regular file"),
    (lambda d: (os.mkfifo(d / "fifo"), str(d / "fifo"))[1], "not a regular file"),
    (lambda d: ((d / "deep.json").write_text("[" * 200_000 + "]" * 200_000), str(d / "deep.json"))[1], "deeper"),
    (lambda d: ((d / "x.json").write_bytes(b"\xff\xfe{"), str(d / "x.json"))[1], "not JSON"),
])
def test_unbounded_inputs_are_refused(tmp_path, make, needle):
    r = CliRunner().invoke(main, ["report", make(tmp_path), "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and needle in r.output, r.output


def test_size_limit(tmp_path):
    p = tmp_path / "big.json"
    p.write_text(" " * 2000)
    with pytest.raises(records.RecordError, match="1000-byte limit"):
        records.read_bounded(p, 1000)


# any JSON value in any field of a good record: accepted only if the schema's rule holds, never a crash
json_values = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=5),
                           lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3),
                           max_leaves=8)
FIELD_PATHS = [("records", 0, "bds"), ("records", 0, "latency_ns"), ("records", 0, "latency_ns", "min"),
               ("records", 0, "throughput_mbps", "median"), ("records",), ("version",), ("kind",), ("extra",)]


@settings(max_examples=150, deadline=None)
@given(path=st.sampled_from(FIELD_PATHS), value=json_values)
def test_any_damage_is_a_record_error_or_accepted(path, value):
    rec = _with(path, value)
    try:
        records.check_record(rec, "r.json", {"characterize": 1})
    except records.RecordError as e:
        assert "r.json" in str(e)
        return
    leaf = path[-1]
    if leaf in ("bds",):
        assert isinstance(value, int) and not isinstance(value, bool) and value >= 1
    if leaf in ("min", "median"):
        assert isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


SETUP = ch.Setup(board="zcu111", trials=2, seed=0, timing_only=True)
POINTS = [ch.Point(64, 4, 1)]


@pytest.mark.parametrize("damage", ["nan", "negative", "huge", "shape", "wall_nan", "zeros_file"])
def test_cache_chunk_with_impossible_figures_is_not_used(tmp_path, damage):
    cache = sweepcache.open_cache(str(tmp_path), SETUP, POINTS)
    chunks = ch.plan_chunks(SETUP, POINTS, 1)
    cache.save_plan(chunks)
    res = ch.run_chunk((SETUP, chunks[0]))
    cache.save(chunks[0], res)
    assert cache.load(chunks[0]) is not None
    bad = {k: np.array(res[k], dtype=float) for k in sweepcache.FIELDS}
    bad["wall_s"], bad["cpu_s"] = res["wall_s"], res["cpu_s"]
    if damage == "nan":
        bad["latency_ns"][0] = np.nan
    elif damage == "negative":
        bad["throughput_mbps"][0] = -1.0
    elif damage == "huge":
        bad["simulated_ps"][0] = 1e30
    elif damage == "shape":
        bad["latency_ns"] = bad["latency_ns"][:0]
    elif damage == "wall_nan":
        bad["wall_s"] = float("nan")
    f = tmp_path / f"{chunks[0].key}.npz"
    if damage == "zeros_file":
        f.write_bytes(b"\0" * 4096)
    else:
        buf = io.BytesIO()
        np.savez(buf, **bad)
        f.write_bytes(buf.getvalue())
    assert sweepcache.open_cache(str(tmp_path), SETUP, POINTS).load(chunks[0]) is None
