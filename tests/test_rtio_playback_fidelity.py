"""RTIO playback at a declared fidelity (issue 27 sec. 4): functional (ideal memory) plays the same edges as exact
whenever exact does not underflow; the gateware's own rate still binds it; fast and functional-with-analyzer are
refused before anything runs.  Expectations are the trace's own events (relocated to the playback's start)."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

from sgdma.board.fidelity import FidelityError
from sgdma.cli import main
from sgdma.rtio import trace as T
from sgdma.rtio.bench import pulse_train
from sgdma.rtio.playback import play


def mixed_trace(n=2000, seed=3):
    """Four channels, one or two words: first events at random times (some in one coarse cycle on a channel:
    collisions), then runs of 12 events each one coarse cycle before the last, which walk through all 8 lanes
    until neither the current lane nor the next can take one (sequence errors)."""
    rng = np.random.default_rng(seed)
    ts = np.sort(rng.integers(0, 80 * n, n)).astype(np.int64)
    runs = np.concatenate([ts[-1] + 2000 + 1000 * b + 8 * (11 - np.arange(12)) for b in range(n // 24)])
    ts = np.concatenate([ts, runs])
    nw = rng.integers(1, 3, len(ts)).astype(np.uint8)
    return T.Events(ts, (rng.integers(0, 4, len(ts)) << 8).astype(np.uint32), nw,
                    rng.integers(0, 1 << 31, int(nw.sum())).astype(np.uint32))


@pytest.mark.parametrize("interval", [32, 45])
def test_functional_plays_the_trace_edges_exact_plays(interval):
    n = 6000
    ev = pulse_train(n, interval)
    ex, e_ex = play("zc706", ev, n * interval, "exact")
    fn, e_fn = play("zc706", ev, n * interval, "functional")
    assert ex["underflows"] == fn["underflows"] == 0 and ex["edges"] == fn["edges"] == n
    t0 = e_ex["t_mu"][0]
    np.testing.assert_array_equal(e_ex["t_mu"], t0 + np.arange(n) * interval)     # every event at its timestamp
    np.testing.assert_array_equal(e_ex["data"], np.arange(n) % 2 == 0)
    for k in e_ex:
        np.testing.assert_array_equal(e_fn[k], e_ex[k], err_msg=k)
    assert fn["fidelity"] == "functional" and "underflow" in fn["fidelity_note"]
    assert ex["fidelity"] == "exact" and ex["extrapolated"] == 0 and ex["exact_events"] == n


def test_functional_keeps_collisions_and_sequence_errors_of_a_mixed_trace():
    ev = mixed_trace()
    ex, e_ex = play("zc706", ev, int(ev.ts.max()) + 100, "exact")
    fn, e_fn = play("zc706", ev, int(ev.ts.max()) + 100, "functional")
    assert ex["underflows"] == 0 and ex["collisions"] > 0 and ex["sequence_errors"] > 0
    assert (fn["collisions"], fn["sequence_errors"], fn["edges"]) == (ex["collisions"], ex["sequence_errors"],
                                                                      ex["edges"])
    assert ex["edges"] + ex["collisions"] + ex["sequence_errors"] == len(ev)
    for k in e_ex:
        np.testing.assert_array_equal(e_fn[k], e_ex[k], err_msg=k)


def test_functional_still_underflows_faster_than_the_dma_gateware():
    # 24 mu (24 ns on zc706) is under the DMA's own 4 cycles of 8 ns a record, whatever the memory does
    ev = pulse_train(3000, 24)
    fn, _ = play("zc706", ev, 3000 * 24, "functional")
    assert fn["underflows"] == 1 and fn["dropped"] > 0 and "underflow" in fn["raised"]


@pytest.mark.parametrize("fidelity, analyzer", [("fast", False), ("functional", True)])
def test_api_refuses_a_fidelity_it_cannot_answer(fidelity, analyzer):
    with pytest.raises(FidelityError, match="--fidelity"):
        play("zc706", pulse_train(10, 40), 400, fidelity, analyzer)


@pytest.mark.parametrize("args, words", [(["--fidelity", "fast"], ["--fidelity fast", "functional"]),
                                         (["--fidelity", "functional", "--analyzer"], ["--analyzer", "exact"])])
def test_cli_refuses_with_exit_2_and_writes_nothing(tmp_path, args, words):
    out = tmp_path / "r.json"
    r = CliRunner().invoke(main, ["rtio", "playback", "--events", "100", "--json", str(out), *args])
    assert r.exit_code == 2, r.output
    assert all(w in r.output for w in words), r.output
    assert not out.exists()


def test_cli_record_and_exit_codes(tmp_path):
    out = tmp_path / "r.json"
    r = CliRunner().invoke(main, ["rtio", "playback", "--events", "3000", "--fidelity", "functional",
                                  "--json", str(out)])
    assert r.exit_code == 0, r.output
    rec = json.loads(out.read_text())
    assert rec["kind"] == "rtio_playback" and rec["fidelity"] == "functional" and rec["records"] == 3000
    assert rec["interval_mu"] == 32                      # the DMA's own rate on zc706: 4 cycles of 8 mu
    assert {"extrapolated", "exact_events", "error_estimate", "fidelity_note"} <= set(rec)
    r = CliRunner().invoke(main, ["rtio", "playback", "--events", "3000", "--interval-mu", "24"])
    assert r.exit_code == 1 and "underflow" in r.output
