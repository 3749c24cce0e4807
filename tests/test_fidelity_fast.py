"""Declared fidelities (issue 27): fast against exact trial by trial, functional's memory path, the plumbing.

The reference for every fast figure is an exact run of the same seeds through the exact path (s0_trials), never
the fast path's own verdict.
"""
import json

import numpy as np
import pytest
from click.testing import CliRunner

from sgdma.cli import main
from sgdma.experiments import characterize as ch
from sgdma.experiments import fidelity as fid


def _benches(board, **kw):
    exact = ch.Bench(ch.Setup(board=board, **kw))
    fast = ch.Bench(ch.Setup(board=board, fidelity="fast", **kw))
    exact.warm_up()
    fast.warm_up()
    return exact, fast


def _pairs(board, k=12, seed=1):
    """A stratified sample of S0's Table II (fid.stratified: one point per stratum of ring length x BD size),
    its long points (the ones fast extrapolates) and two fixed ones; 3 trials each, exact and fast."""
    pts = ch.s0_points()
    chosen = [pts[i] for i in fid.stratified(pts, k, seed=seed)]
    chosen = [p for p in chosen if p.bds * p.cycles >= 512] + [ch.Point(8192, 1024), ch.Point(32, 4096)]
    exact, fast = _benches(board)
    out = []
    for p in chosen:
        seeds = ch.trial_seeds(0, p, 3)
        out.append((p, ch._c_trials(exact, p, seeds), ch._fast_c_trials(fast, p, seeds)))
    return out


@pytest.fixture(scope="module")
def s0_pairs():
    return _pairs("zcu111")


@pytest.mark.parametrize("board", ["zcu111", "zcu102", "zynq7000"])
def test_error_estimate_bounds_the_true_error_trial_by_trial(board, s0_pairs):
    extrapolated = 0
    for p, (lat, thr, _), (flat, fthr, _, ext, exact_bds, est) in (s0_pairs if board == "zcu111"
                                                                    else _pairs(board, 8, seed=2)):
        err = np.abs(fthr / thr - 1)
        for k in range(len(thr)):
            if ext[k]:
                extrapolated += 1
                assert err[k] <= est[k], (p, k, err[k], est[k])
                assert exact_bds[k] < p.bds * p.cycles
            else:                                   # ran on to DONE: the exact trial itself
                assert fthr[k] == thr[k] and exact_bds[k] == p.bds * p.cycles and est[k] == 0
    assert extrapolated >= 6                        # the check is not vacuous


def test_pynq_z2_stays_within_the_tolerance():
    """On pynq-z2 the estimate is not a bound on every trial (docs/performance.md: 2 of 258 over S0's grid,
    BD periods near p/q refresh periods with q above what a short window can test, drifting through
    alignments it has not seen); what fast promises there is --fast-check's: every trial inside the
    tolerance, latency exact."""
    extrapolated = 0
    for p, (lat, thr, _), (flat, fthr, _, ext, _, est) in _pairs("pynq-z2", 8, seed=3):
        np.testing.assert_array_equal(flat, lat)
        assert np.all(np.abs(fthr / thr - 1) <= fid.DEFAULT_TOLERANCE), p
        extrapolated += int(ext.sum())
    assert extrapolated >= 6


def _against_exact(board, p, n, **kw):
    exact, fast = _benches(board, **kw)
    seeds = ch.trial_seeds(0, p, n)
    _, thr, _ = ch._c_trials(exact, p, seeds)
    _, fthr, _, ext, exact_bds, est = ch._fast_c_trials(fast, p, seeds)
    return np.abs(fthr / thr - 1), ext, exact_bds, est


def test_a_drifting_refresh_alignment_is_in_the_estimate():
    """pynq-z2, 4 KiB BDs: the BD period is near 1.5 refresh periods, so the refreshes land on a few alignments
    that drift slowly until one hides the refresh and the rate locks 0.5 % faster; every sub-window of the
    first windows agrees.  The estimator that only compared them reported 0.22 % on these seeds against a true
    0.52 %; the unseen alignments now keep the window growing past the lock."""
    err, ext, exact_bds, est = _against_exact("pynq-z2", ch.Point(4096, 8192), 3)
    assert ext.all()
    assert np.all(err <= est), (err, est)
    assert np.all(est <= fid.DEFAULT_TOLERANCE / 2)


def test_a_refresh_alignment_over_several_bds_is_in_the_estimate():
    """zedboard, 8 KiB BDs: the BDs run for stretches as 1030/1031 clocks and for stretches as 1030, 1037, 1037
    (a cycle of three BDs, near four refresh periods), and the refresh's drift through that cycle moves them
    between the two, 0.09 % apart in rate.  Measured over one BD's fraction the drift had swept the cycle, so
    two of these three trials reported 0.045 % against a true 0.090 %; over the three-BD cycle it has not."""
    err, ext, exact_bds, est = _against_exact("zedboard", ch.Point(8192, 16, 512), 3)
    assert ext.all()
    assert np.all(err <= est), (err, est)


def test_windows_grow_past_4r_instead_of_running_exact():
    """zcu111, 4 KiB x 8192: the estimate of some trials stays above half the tolerance up to 4R periods
    (3 of these 10 seeds ran the whole 3.4 ms exact before); the window keeps doubling and they extrapolate,
    still inside their bound."""
    err, ext, exact_bds, est = _against_exact("zcu111", ch.Point(4096, 8192), 10)
    assert ext.all()
    bds_in_4r = 4 * fid.DEFAULT_PERIODS * 7.8e3 / 400         # tREFI 7.8 us, ~400 ns per 4 KiB BD
    assert np.any(exact_bds > bds_in_4r + 100), exact_bds
    assert np.all(err <= est), (err, est)


@pytest.mark.parametrize("board", ["zcu111", "zynq7000"])
def test_random_placement_extrapolates_inside_its_bound(board):
    """Random buffer placement (row misses at random BDs) is stationary like sequential: fast extrapolates it,
    and the estimate bounds the error against exact trial by trial on a stratified sample."""
    pts = ch.s0_points()
    chosen = [pts[i] for i in fid.stratified(pts, 10, seed=4)]
    chosen = [p for p in chosen if p.bds * p.cycles >= 512] + [ch.Point(1024, 4096)]
    extrapolated = 0
    for p in chosen:
        err, ext, _, est = _against_exact(board, p, 2, placement="random")
        assert np.all(err[ext > 0] <= est[ext > 0]), (p, err, est)
        extrapolated += int(ext.sum())
    assert extrapolated >= 6


def test_latency_is_exact_by_construction(s0_pairs):
    for p, (lat, _, _), (flat, *_rest) in s0_pairs:
        np.testing.assert_array_equal(flat, lat, err_msg=str(p))


def test_estimates_stay_within_half_the_tolerance_when_extrapolated(s0_pairs):
    for p, _, (_, _, _, ext, _, est) in s0_pairs:
        assert np.all(est[ext > 0] <= fid.DEFAULT_TOLERANCE / 2), p


def test_short_trials_run_exact_and_match_bit_for_bit():
    exact, fast = _benches("zcu111")
    p = ch.Point(256, 16)                           # ~10 us: shorter than warm-up + 8 refresh periods
    seeds = ch.trial_seeds(3, p, 4)
    lat, thr, sim = ch._c_trials(exact, p, seeds)
    flat, fthr, fsim, ext, exact_bds, est = ch._fast_c_trials(fast, p, seeds)
    assert not ext.any()
    np.testing.assert_array_equal(fthr, thr)
    np.testing.assert_array_equal(fsim, sim)


def test_exact_default_is_unchanged():
    setup = ch.Setup(trials=3)
    assert setup.fidelity == "exact"
    (rec,) = ch.sweep(setup, [ch.Point(64, 256)], 1)
    lat, thr, _ = ch._c_trials(_benches("zcu111", trials=3)[0], ch.Point(64, 256), ch.trial_seeds(0, ch.Point(64, 256), 3))
    assert rec.samples["throughput_mbps"] == list(thr)
    assert (rec.fidelity, rec.extrapolated, rec.exact_bds, rec.error_estimate) == ("exact", 0, 3 * 256, 0.0)


@pytest.mark.parametrize("kw, why", [({"direction": "s2mm"}, "S2MM"), ({"mode": "simple"}, "simple mode"),
                                     ({"cpu_load": "400MB/s"}, "--cpu-load")])
def test_unvalidated_setups_run_exact_and_say_so(kw, why):
    p = ch.Point(4096, 1) if kw.get("mode") == "simple" else ch.Point(4096, 64 if "direction" in kw else 2048)
    (fast,) = ch.sweep(ch.Setup(trials=2, fidelity="fast", **kw), [p], 1)
    (exact,) = ch.sweep(ch.Setup(trials=2, **kw), [p], 1)
    assert fast.extrapolated == 0 and why in fast.fidelity_note
    assert fast.samples == exact.samples


def test_records_carry_the_fidelity_in_every_output(tmp_path):
    out = tmp_path / "r.json"
    csv, pq = tmp_path / "r.csv", tmp_path / "r.parquet"
    r = CliRunner().invoke(main, ["characterize", "--bytes-per-bd", "8192", "--bds", "2048", "--trials", "2",
                                  "--timing-only", "--fidelity", "fast", "--jobs", "1", "--json", str(out),
                                  "--csv", str(csv), "--parquet", str(pq)])
    assert r.exit_code == 0, r.output
    (rec,) = json.loads(out.read_text())["records"]
    assert rec["fidelity"] == "fast" and rec["extrapolated"] == 2 and 0 < rec["exact_bds"] < 2 * 2048
    assert 0 < rec["error_estimate"] <= 0.01
    header = csv.read_text().splitlines()[0].split(",")
    assert {"fidelity", "extrapolated", "exact_bds", "error_estimate"} <= set(header)
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    df = pd.read_parquet(pq)
    assert df["fidelity"].tolist() == ["fast"] and df["extrapolated"].tolist() == [2]


def test_sweep_cache_keys_the_fidelity(tmp_path):
    pts = [ch.Point(64, 8)]
    list(ch.sweep(ch.Setup(trials=2), pts, 1, cache=str(tmp_path)))
    with pytest.raises(ValueError, match="fidelity 'exact' there, 'fast' here"):
        list(ch.sweep(ch.Setup(trials=2, fidelity="fast"), pts, 1, cache=str(tmp_path)))


def test_fast_check_cli_passes_and_reports_the_errors():
    r = CliRunner().invoke(main, ["characterize", "--bytes-per-bd", "32,4096", "--bds", "16,4096", "--trials", "2",
                                  "--timing-only", "--fidelity", "fast", "--fast-check", "2", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert "fast-check: 2 points rerun exact" in r.output and "PASS" in r.output


def test_check_errors_takes_the_worst_statistic():
    fast = ch.Record("zcu111", "sg", "mm2s", "sequential", 32, 8, 1, 1, {"median": 1.0, "min": 1.0, "max": 1.0},
                     {"median": 103.0, "min": 100.0, "max": 110.0}, 0.0, 0.0, fidelity="fast")
    exact = ch.Record("zcu111", "sg", "mm2s", "sequential", 32, 8, 1, 1, {"median": 1.0, "min": 1.0, "max": 1.0},
                      {"median": 100.0, "min": 100.0, "max": 100.0}, 0.0, 0.0)
    got = fid.check_errors([fast], [exact])
    assert got["throughput"] == pytest.approx(0.10) and got["latency"] == 0.0


@pytest.mark.parametrize("args, what", [
    (["--fidelity", "fastest"], "--fidelity"), (["--fast-periods", "7"], "--fast-periods"),
    (["--tolerance", "200%"], "--tolerance"), (["--tolerance", "two"], "--tolerance"),
    (["--fast-check", "3"], "--fidelity fast")])
def test_bad_fidelity_options_are_usage_errors(args, what):
    r = CliRunner().invoke(main, ["characterize", "--bds", "4", "--bytes-per-bd", "32", "--trials", "1"] + args)
    assert r.exit_code == 2 and what in r.output, r.output


def test_functional_is_the_ideal_memory_path():
    # ideal memory: an 8 KiB BD streams at the engine's one beat per clock (256 bit x 333 MHz on the ZCU111),
    # and the first word comes sooner than through the timed interconnect and DRAM
    (fun,) = ch.sweep(ch.Setup(trials=2, fidelity="functional"), [ch.Point(8192, 64)], 1)
    (exact,) = ch.sweep(ch.Setup(trials=2), [ch.Point(8192, 64)], 1)
    blk = ch.Bench(ch.Setup()).board.axi_dma
    assert fun.throughput_mbps["min"] == pytest.approx(blk.data_bytes * blk.clock_mhz, rel=0.01)
    assert fun.latency_ns["max"] < exact.latency_ns["min"]
    assert fun.fidelity == "functional" and "ideal memory" in fun.fidelity_note


def test_functional_moves_the_same_bytes():
    from sgdma.board.virtual import VirtualBoard
    from sgdma.driver.axidma import AxiDma

    got = []
    for opts in ({}, fid.board_options("functional")):
        b = VirtualBoard("zcu111", options=opts)
        dma = AxiDma(b)
        dma.reset()
        buf = b.allocate(4 * 1024)
        buf[:] = np.arange(buf.size, dtype=np.uint8) * 7
        buf.flush()
        ring = dma.mm2s.ring(4)
        ring.fill(buf.physical_address + np.arange(4, dtype=np.uint64) * 1024, np.full(4, 1000, np.uint32))
        ring.submit()
        b.run_until_quiet()
        got.append((b.mm2s_sink.packets(), b.dma_registers()["mm2s"]["DMASR"]))
    assert got[0] == got[1]


def test_plan_and_run_carry_the_fidelity(tmp_path):
    from sgdma.experiments import plan as pl

    p = pl.plan(2000.0, 64, board="zcu111", trials=2, fidelity="fast")
    assert p.fidelity == "fast" and "DAC pacing" in p.fidelity_note
    out = tmp_path / "run.json"
    r = CliRunner().invoke(main, ["demo", "--fidelity", "functional", "--json", str(out), "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    rec = json.loads(out.read_text())
    assert rec["fidelity"] == "functional" and rec["extrapolated"] == 0 and rec["exact_bds"] > 0


def test_fast_check_above_the_tolerance_exits_1(monkeypatch):
    import sgdma.cli.characterize as cli_ch

    monkeypatch.setattr(cli_ch, "fast_check_run",
                        lambda *a: {"points": 1, "throughput": 0.025, "latency": 0.0, "estimate": 0.009})
    r = CliRunner().invoke(main, ["characterize", "--bytes-per-bd", "32", "--bds", "4", "--trials", "1",
                                  "--timing-only", "--fidelity", "fast", "--fast-check", "1", "--jobs", "1"])
    assert r.exit_code == 1 and "throughput 2.500 %" in r.output and "FAIL" in r.output, r.output
