"""The report layer: records in, reports out; headroom from the model; bad input; a real browser."""
import json
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from sgdma.cli import main
from sgdma.output import report
from sgdma.sequence import randomized_benchmarking
from sgdma.sequence.demo import run_circuit
from sgdma.sequence.playback import PlaybackConfig
from sgdma.sequence.runner import play_circuit

CIRCUIT = randomized_benchmarking(60, seed=3, qubit=0)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("seq")
    rec = run_circuit(CIRCUIT, "zcu111", PlaybackConfig(gate_time_ns=1000.0), out, title="t", max_runs=12)
    return rec, out


def test_record_has_kind_version_and_rebuilds(run, tmp_path):
    rec, out = run
    assert rec["kind"] == "sequence" and rec["version"] == 1
    src = tmp_path / "r.json"
    src.write_text(json.dumps(rec))
    res = CliRunner().invoke(main, ["report", str(src), "--out", str(tmp_path / "again")])
    assert res.exit_code == 0, res.output
    page = (tmp_path / "again" / "report.html").read_text()
    assert "Headroom" in page and "cdn" not in page.lower().split("<script>")[0]
    for key in ("over_time", "slack_hist", "latency_hist"):
        assert (tmp_path / "again" / f"{key}.png").stat().st_size > 1000
        assert (tmp_path / "again" / f"{key}.svg").exists()


def test_headroom_is_where_the_model_starts_to_fail(run):
    rec, _ = run
    h = rec["headroom"]
    assert rec["underflows"] == 0 and h["headroom_ns"] < 1000.0      # no underflows, still a headroom
    assert h["search"]["runs"] <= 12
    ok, _, _ = play_circuit(CIRCUIT, "zcu111", PlaybackConfig(), gate_time_ns=h["headroom_ns"])
    bad, _, _ = play_circuit(CIRCUIT, "zcu111", PlaybackConfig(), gate_time_ns=h["search"]["longest_failing_ns"])
    assert not ok.underflows and bad.underflows
    assert h["margin"] == pytest.approx(1000.0 / h["headroom_ns"])


def test_stream_bound_from_first_principles(run):
    rec, _ = run
    # 256-bit stream at 333 MHz (zcu111 preset): one 32-byte word per 3.003 ns; the bound is the median gate's words
    words = np.median(rec["columns"]["gate_beats"])
    assert rec["headroom"]["bounds"]["stream bandwidth"]["bound_ns"] == pytest.approx(words * 1e3 / 333.0)
    assert rec["headroom"]["binding"] in ("stream bandwidth", "BD fetch", "DDR refresh", "FIFO depth",
                                          "hand-off latency")


def test_fifo_occupancy_stays_within_the_fifo(run):
    from sgdma.output.sequence_view import _arr, _fifo_occupancy

    rec, _ = run
    c = rec["columns"]
    _, occ = _fifo_occupancy(_arr(c, "first_ns"), _arr(c, "last_ns"), _arr(c, "play_ns"),
                             np.array(c["gate_beats"], float), rec["dac_word_ns"])
    assert occ.min() >= 0 and occ.max() <= rec["fifo_depth"]
    # an un-underflowed run paced by the DAC fills the FIFO: the DMA waits for room
    assert occ.max() == rec["fifo_depth"]


def test_refresh_windows_are_periodic(run):
    rec, _ = run
    s = np.array(rec["columns"]["refresh_start_ns"])
    e = np.array(rec["columns"]["refresh_end_ns"])
    assert len(s) > 2
    assert np.allclose(np.diff(s), 7800.0, atol=0.2) and np.allclose(e - s, 350.0, atol=0.2)   # zcu111 tREFI, tRFC


def test_bd_fetches_one_per_bd(run):
    rec, _ = run
    assert len(rec["columns"]["bd_fetch_issue_ns"]) == rec["bds"]


def test_thousands_of_underflows_list_first_and_worst(tmp_path):
    circ = randomized_benchmarking(1500, seed=1, qubit=0)
    rec = run_circuit(circ, "zcu111", PlaybackConfig(gate_time_ns=40.0), tmp_path, headroom=False)
    assert rec["underflows"] > 1000
    v = report.view_of(rec)
    titles = [t for t, _, _ in v.tables]
    assert any(t.startswith("First underflows (10 of") for t in titles)
    assert any(t.startswith("Worst underflows (10 of") for t in titles)
    assert all(len(rows) <= 10 for t, _, rows in v.tables if "underflows" in t)
    worst = [r for t, _, rows in v.tables if t.startswith("Worst") for r in rows]
    lates = [float(r[3]) for r in worst]
    assert lates == sorted(lates, reverse=True)
    # the listed first underflows are a prefix; the worst of all of them heads the worst table
    assert lates[0] >= max(u["late_ns"] for u in rec["underflow_list"]) - 1
    assert lates[0] == pytest.approx(max(u["late_ns"] for u in rec["underflow_worst"]), abs=1)


def test_wrong_kind_and_version_say_what_was_expected(tmp_path):
    p = tmp_path / "plan.json"
    p.write_text(json.dumps({"kind": "plan", "version": 1, "feasible": True}))
    res = CliRunner().invoke(main, ["report", str(p), "--expect", "sequence"])
    assert res.exit_code == 2 and "expected a 'sequence' record" in res.output and "'plan'" in res.output
    p.write_text(json.dumps({"kind": "sequence", "version": 99}))
    res = CliRunner().invoke(main, ["report", str(p)])
    assert res.exit_code == 2 and "version 99" in res.output and "reads version 1" in res.output
    p.write_text(json.dumps([1, 2]))
    res = CliRunner().invoke(main, ["report", str(p)])
    assert res.exit_code == 2 and "'kind' and 'version'" in res.output


def test_generic_entry_point_for_other_experiments(tmp_path):
    rec = {"kind": "selftest", "version": 3, "title": "selftest", "latency_ns": 812.5, "events": [{"t_ns": 1, "ch": 2}],
           "figures": [{"title": "f", "x_label": "x", "y_label": "y", "series": [{"x": [1, 2], "y": [3, 4]}]}]}
    files = report.write(rec, tmp_path, static=False)
    page = open(files["report_html"]).read()
    assert "812" in page and "latency ns" in page and "fig-fig0" in page


def test_matplotlib_only_when_a_picture_is_written(run, tmp_path):
    rec, _ = run
    src = tmp_path / "r.json"
    src.write_text(json.dumps(rec))
    code = ("import sys, json; from sgdma.output import report; "
            f"report.write(json.load(open({str(src)!r})), {str(tmp_path)!r}, static=False); "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_repr_html(run):
    rec, _ = run
    assert "<iframe" in report.Report(rec)._repr_html_()


def test_report_in_a_real_browser(run):
    from sgdma.output import browser

    if browser.chromium() is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium); the browser check needs it")
    pytest.importorskip("websocket", reason="websocket-client is not installed (pip install websocket-client)")
    _, out = run
    r = browser.check(out / "report.html")
    assert r["console_errors"] == []
    assert r["plots"] == 3 and all(d["nonempty"] for d in r["drawn"])
    assert r["scroll_width"] <= r["width"] == 1280
    assert (out / "report_screenshot.png").stat().st_size > 10_000
