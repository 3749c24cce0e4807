"""A demanding user's probes of the newest options: conflicting options refused before any work (exit 2, the
option named, nothing written), outputs that would overwrite each other refused, enormous requests refused
naming their limit, and runs that used to crash now answering."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sgdma.cli import main

SMALL = ["characterize", "--bds", "4", "--bytes-per-bd", "64", "--trials", "1"]


def _run(args):
    return CliRunner().invoke(main, args)


@pytest.mark.parametrize("args, named", [
    (SMALL + ["--tolerance", "5%"], "--tolerance"),
    (SMALL + ["--fidelity", "functional", "--fast-periods", "4"], "--fast-periods"),
    (["plan", "--gate-time", "1us", "--bytes-per-gate", "64", "--fast-periods", "4", "--tolerance", "1%"],
     "--fast-periods and --tolerance"),
    (["demo", "--fidelity", "functional", "--tolerance", "1%"], "--tolerance"),
])
def test_fast_window_options_need_fast(args, named, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = _run(args)
    assert r.exit_code == 2, r.output
    assert named in r.output and "add --fidelity fast" in r.output
    assert list(tmp_path.iterdir()) == []                 # nothing run, nothing written (demo's default --out)


def test_fast_window_options_taken_with_fast():
    r = _run(SMALL + ["--fidelity", "fast", "--tolerance", "5%", "--fast-periods", "4"])
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("args", [
    SMALL + ["--json", "{d}/x", "--csv", "{d}/x"],
    SMALL + ["--json", "{d}/x", "--out", "{d}/x"],
    ["demo", "--json", "{d}/o", "--out", "{d}/o"],
    ["demo", "--json", "sgdma-demo"],                     # demo's default --out
    ["rtio", "bench", "--json", "{d}/o", "--plot", "{d}/o"],
])
def test_two_outputs_on_one_path_refused(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = _run([a.format(d=tmp_path) for a in args])
    assert r.exit_code == 2 and "each output needs its own path" in r.output, r.output
    assert list(tmp_path.iterdir()) == []


def test_outputs_may_share_a_device_but_not_a_file(tmp_path):
    # /dev/null is written as a stream, never replaced: two outputs there lose nothing (and were accepted before)
    r = _run(SMALL + ["--json", "/dev/null", "--csv", "/dev/null"])
    assert r.exit_code == 0, r.output
    existing = tmp_path / "x"
    existing.write_text("kept")
    r = _run(SMALL + ["--json", str(existing), "--csv", str(existing)])
    assert r.exit_code == 2 and "each output needs its own path" in r.output, r.output
    assert existing.read_text() == "kept"


def test_two_directory_outputs_may_share_a_folder(tmp_path):
    r = _run(SMALL + ["--plot", str(tmp_path / "o"), "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "o" / "report.html").exists() and (tmp_path / "o" / "fig5_latency.png").exists()


def test_s0_preset_at_functional_fidelity_prints_its_summary():
    # functional gives N cycles of a k-BD ring the same throughput as one N*k-BD ring for several pairs: the
    # summary's worst gap is a tie, which once compared the records themselves (TypeError, exit 3)
    r = _run(["characterize", "--preset", "s0", "--fidelity", "functional", "--trials", "1"])
    assert r.exit_code == 0, r.output
    assert "169 points" in r.output and "cyclic mode:" in r.output


def test_demo_names_its_fidelity_once(tmp_path):
    r = _run(["demo", "--fidelity", "functional", "--out", str(tmp_path / "d"), "--json", str(tmp_path / "d.json")])
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if x.strip().startswith("fidelity"))
    assert line.count("functional:") == 1, line
    assert json.loads((tmp_path / "d.json").read_text())["fidelity"] == "functional"


def test_rtio_playback_longer_than_its_wait_is_refused_before_it_runs(tmp_path):
    out = tmp_path / "r.json"
    r = _run(["rtio", "playback", "--events", "16777216", "--interval-mu", "1073741824", "--json", str(out)])
    assert r.exit_code == 2 and "over the playback's limit of 10 s" in r.output, r.output
    assert "--events" in r.output and "--interval-mu" in r.output and not out.exists()


def test_rtio_playback_plays_every_event_of_a_sparse_train():
    # 3 events a second apart (zc706: 1 mu = 1 ns): the drain used to stop 1 s after the DMA finished, before the
    # last edges, and the run said 0 lost
    r = _run(["rtio", "playback", "--events", "3", "--interval-mu", str(10**9)])
    assert r.exit_code == 0 and "3 edges" in r.output, r.output


def test_rtio_playback_collisions_are_a_negative_verdict():
    # events 1 mu apart on one channel collide (ARTIQ discards them): not every event was played, exit 1
    r = _run(["rtio", "playback", "--events", "100", "--interval-mu", "1"])
    assert r.exit_code == 1, r.output
    collided = int(r.output.split(" collisions")[0].rsplit(" ", 1)[1])
    edges = int(r.output.split(" edges")[0].rsplit(" ", 1)[1])
    assert collided > 0 and edges + collided == 100


def test_rtio_bench_names_the_baseline_option():
    r = _run(["rtio", "bench", "--initiator", "csr", "--baseline", "nosuch"])
    assert r.exit_code == 2 and "Invalid value for --baseline: unknown board preset 'nosuch'" in r.output, r.output


@pytest.mark.parametrize("args, fewer", [
    (["pcie", "latency", "--packet-size", "64..4M", "--iterations", "1000", "--link", "all"], "--iterations"),
    (["pcie", "sweep", "--endpoint-dma", "--packet-size", ",".join(["16777215"] * 9)], "--packet-size"),
])
def test_pcie_work_over_the_limit_refused_before_it_runs(args, fewer, tmp_path):
    from sgdma.pcie.experiments import MAX_WORK_BYTES

    out = tmp_path / "p.json"
    r = _run(args + ["--json", str(out)])
    assert r.exit_code == 2 and f"over the limit of {MAX_WORK_BYTES / 1e9:.3g} GB" in r.output, r.output
    assert fewer in r.output and not out.exists()


def test_pcie_api_refuses_the_same_work():
    from sgdma.pcie import experiments as ex

    # 6 links x 2 directions x 2 engines x 1000 iterations of 8 MiB: 192 GiB, over the 32 GiB bound
    with pytest.raises(ValueError, match="over the limit"):
        ex.latency(["gen1x1"] * 6, ["s2c", "c2s"], [8 << 20], iterations=1000)


def test_pcie_link_named_twice_measured_once(tmp_path):
    out = tmp_path / "p.json"
    r = _run(["pcie", "latency", "--link", "gen2x4,gen2x4", "--packet-size", "64", "--iterations", "1",
              "--direction", "s2c", "--json", str(out)])
    assert r.exit_code == 0, r.output
    assert len(json.loads(out.read_text())) == 2            # root DMA and endpoint DMA, once each


@pytest.mark.parametrize("args, words", [
    (["--irq-threshold", "4"], ["--irq-threshold 4 needs --irq-delay"]),
    (["--irq-threshold", "4", "--irq-delay", "1s"], ["--irq-delay 1e+09ns", "at most"]),
    (["--dma-mode", "simple", "--irq-threshold", "4", "--irq-delay", "20us"],
     ["--dma-mode simple", "--irq-threshold 1", "--dma-mode sg"]),
    (["--fifo-bytes", "1"], ["--fifo-bytes 1"]),
])
def test_capture_refusals_speak_in_options(args, words, tmp_path):
    out = tmp_path / "c.json"
    r = _run(["capture", "--seconds", "10ms", "--json", str(out)] + args)
    assert r.exit_code == 2, r.output
    assert all(w in r.output for w in words), r.output
    assert "irq_" not in r.output and "_bytes=" not in r.output and not out.exists()


@pytest.mark.parametrize("sub", [["regs", "--check"], ["test", "--no-cosim"], ["regs"]])
def test_rtl_dir_that_is_not_one_is_refused(sub, tmp_path):
    # it used to fall back to this checkout's rtl/ without a word (and `regs` would have rewritten it)
    r = _run(["rtl", *sub, "--rtl-dir", str(tmp_path)])
    assert r.exit_code == 2 and f"--rtl-dir {tmp_path}: no sgdma_csm.v there" in r.output, r.output
    assert list(tmp_path.iterdir()) == []


def test_validate_trials_bound_named_in_its_option(tmp_path):
    from sgdma.experiments import characterize as ch

    per_trial = sum(p.bds * p.cycles for p in ch.s0_points())
    fits = ch.MAX_SWEEP_BD_RUNS // per_trial
    out = tmp_path / "v.json"
    r = _run(["validate", "--trials", str(fits + 1), "--json", str(out)])
    assert r.exit_code == 2 and f"--trials: {fits + 1}" in r.output and f"at most {fits} trials" in r.output, r.output
    assert not out.exists()


@pytest.mark.parametrize("args, words", [
    (["--rounds", "10000", "--packets", "100000"], ["over the limit of 2000000", "--rounds", "--packets"]),
    (["--rounds", "10000", "--packets", "100", "--max-packet", "16M"], ["GB of payload", "--max-packet"]),
    # 100 packets of up to 64 MiB: rings and buffers far beyond the board's DDR (this was a MemoryError, exit 3)
    (["--rounds", "1", "--packets", "100", "--max-packet", "64M"], ["free in its DDR region", "--max-packet"]),
])
def test_selftest_refuses_what_it_cannot_do_before_it_runs(args, words, tmp_path):
    out = tmp_path / "s.json"
    r = _run(["selftest", "--json", str(out)] + args)
    assert r.exit_code == 2, r.output
    assert all(w in r.output for w in words), r.output
    assert not out.exists()


def test_selftest_buffers_checked_at_the_sizes_drawn(tmp_path):
    from sgdma.board.virtual import VirtualBoard

    board = VirtualBoard("zcu111")
    free, width = board.bytes_free(), board.axi_dma.data_bytes
    rings = 2 * 40000 * (-(-3000 // width) + 1) * 64          # 64-byte BDs, every packet split at every beat
    # 40000 packets: the rings fit, but what they leave is less than the source alone (~1500 bytes a packet)
    assert rings < free and free - rings < 40000 * 1400
    out = tmp_path / "s.json"
    r = _run(["selftest", "--rounds", "1", "--packets", "40000", "--json", str(out)])
    assert r.exit_code == 2, r.output
    assert f"has {free - rings} free in its DDR region after the BD rings" in r.output and "--packets" in r.output
    assert not out.exists()


def test_selftest_runs_what_fits_though_its_worst_case_would_not(tmp_path):
    # a worst case for every term (a BD per beat, every packet 3000 bytes, S2MM twice the source) is over the
    # 512 MiB region; the sizes drawn fit, and this ran before the memory check existed
    out = tmp_path / "s.json"
    r = _run(["selftest", "--rounds", "1", "--packets", "32000", "--json", str(out)])
    assert r.exit_code == 0 and "PASS" in r.output, r.output
    got = json.loads(out.read_text())
    assert got["packets"] == 32000 and got["ok"]


def test_selftest_max_packet_takes_units():
    r = _run(["selftest", "--rounds", "1", "--packets", "4", "--max-packet", "8K"])
    assert r.exit_code == 0 and "PASS" in r.output, r.output


@pytest.mark.parametrize("args, message", [
    (["--bds", "0"], "'0': the smallest allowed is 1"),
    (["--cycles", "1.5"], "'1.5' is not a whole number"),
    (["--bds", "x"], "'x' is not a count"),
])
def test_counts_are_not_called_bytes(args, message):
    r = _run(["characterize"] + args)
    assert r.exit_code == 2 and message in r.output and "bytes" not in r.output.split("Error:")[1], r.output


@pytest.mark.parametrize("flags, timing_only, warned", [
    ([], False, None), (["--no-payload"], True, None), (["--payload"], False, None),
    (["--timing-only"], True, "--timing-only is deprecated (it reads like a --fidelity): use --no-payload"),
    (["--functional"], False, "--functional is deprecated (it reads like a --fidelity): use --payload"),
    (["--preset", "s0"], True, None), (["--preset", "s0", "--payload"], False, None),
])
def test_payload_flags_and_their_old_names(flags, timing_only, warned, monkeypatch):
    from sgdma.experiments import characterize as ch

    seen = []
    monkeypatch.setattr(ch, "sweep", lambda setup, points, **kw: seen.append(setup.timing_only) or iter(()))
    args = ["characterize", "--trials", "1"] + ([] if "--preset" in flags else ["--bds", "4", "--bytes-per-bd", "64"])
    r = CliRunner().invoke(main, args + flags)
    assert r.exit_code == 0, r.output
    assert seen == [timing_only]
    assert (warned in r.output) if warned else ("deprecated" not in r.output)


def test_payload_and_its_opposite_refused():
    r = _run(SMALL + ["--payload", "--timing-only"])
    assert r.exit_code == 2 and "choose one" in r.output, r.output


def test_capture_sweep_refuses_a_rate_it_would_ignore():
    # the sweep finds each point's highest sustained rate: a --rate given with it would be dropped
    r = _run(["capture", "--sweep", "buffer-size", "--rate", "1"])
    assert r.exit_code == 2 and "--rate: not used with --sweep" in r.output, r.output


def test_a_command_that_cannot_load_is_one_line_and_exit_3(monkeypatch):
    import importlib

    import sgdma.cli as cli

    real = importlib.import_module

    def broken(name, *a, **kw):
        if name == "sgdma.cli.sequence":
            raise ImportError("cannot import name '_core' from 'sgdma'")
        return real(name, *a, **kw)

    monkeypatch.setattr(cli.importlib, "import_module", broken)
    for args in (["demo"], ["--help"]):
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 3 and "Traceback" not in r.output, r.output
        assert "sgdma demo: cannot load it" in r.output and "build_ext" in r.output


@pytest.mark.parametrize("args, words", [
    (SMALL + ["--fidelity", "functional", "--plot", "{d}/p"], "--plot with --fidelity functional"),
    (["plan", "--gate-time", "1us", "--bytes-per-gate", "64", "--fidelity", "functional", "--map"],
     "--map with --fidelity functional"),
])
def test_timing_outputs_refused_at_functional(args, words, tmp_path):
    r = _run([a.format(d=tmp_path) for a in args])
    assert r.exit_code == 2 and words in r.output, r.output
    assert list(tmp_path.iterdir()) == []


def test_a_report_says_its_fidelity_on_top(tmp_path):
    from sgdma.output import report

    r = _run(["plan", "--gate-time", "1us", "--bytes-per-gate", "64", "--trials", "2", "--fidelity", "functional",
              "--out", str(tmp_path / "f")])
    assert r.exit_code == 0, r.output
    page = (tmp_path / "f" / "report.html").read_text()
    verdict = page[page.index("<div class=\"verdict"):page.index("<div class=\"facts\">")]
    assert "fidelity functional: SG rings walked untimed" in verdict
    exact = report.html_of(json.loads((tmp_path / "f" / "result.json").read_text()) | {"fidelity": "exact"})
    assert "class='fid'" not in exact


def test_rtio_demo_longer_than_its_wait_is_refused(tmp_path):
    r = _run(["rtio", "demo", "--pulses", "100", "--period-ns", "1e9", "--out", str(tmp_path / "d")])
    assert r.exit_code == 2 and "over the playback's limit of 10 s" in r.output, r.output
    assert not (tmp_path / "d").exists()


def test_rtio_demo_region_holds_the_largest_train(tmp_path):
    # 2^20 pulses (the option's maximum) are 2^21 DMA records: more than CoreDMA's default 16 MiB region
    # (a DMAError, exit 3, before the region was sized to the train)
    r = _run(["rtio", "demo", "--pulses", str(1 << 20), "--period-ns", "200", "--out", str(tmp_path / "d")])
    assert r.exit_code == 0, r.output
    assert f"played {2 << 20} events" in r.output


def test_rtio_bench_batch_that_never_sustains_is_a_verdict(tmp_path):
    out = tmp_path / "b.json"
    r = _run(["rtio", "bench", "--initiator", "acp-batch", "--batch", "65536", "--baseline", "", "--json", str(out)])
    assert r.exit_code == 1, r.output
    assert "NOT SUSTAINED acp-batch" in r.output and "smaller --batch" in r.output and "Traceback" not in r.output
    (row,) = json.loads(out.read_text())          # the initiator is kept, with its parameters, not dropped
    assert row["initiator"] == "acp-batch" and row["batch"] == 65536 and row["sustained"] is False
    assert row["interval_ns"] is None and "no interval up to" in row["reason"]


def test_rtio_bench_report_shows_the_unsustained_initiator(tmp_path):
    r = _run(["rtio", "bench", "--initiator", "acp-batch", "--batch", "65536", "--baseline", "", "--out",
              str(tmp_path / "r")])
    assert r.exit_code == 1, r.output
    from sgdma.output import report

    rec = json.loads((tmp_path / "r" / "result.json").read_text())
    assert [(x["initiator"], x["sustained"]) for x in rec["rows"]] == [("acp-batch", False)]
    assert rec["limits"][0]["binding"] == "not sustained"
    v = report.view_of(rec)
    assert v.ok is False and v.headline[0].startswith("Not sustained: acp-batch on zc706 (batch 65536)")
    assert "not computed" not in " ".join(v.headline)
    page = (tmp_path / "r" / "report.html").read_text()
    assert "nan ns" not in page and "not sustained" in page


def test_rtio_bench_other_runtime_error_is_a_failure(monkeypatch):
    # only NotSustained is a verdict: another RuntimeError while measuring (the analyzer's writer still busy)
    # is a failure while running, exit 3
    from sgdma.rtio import bench as B

    def busy(*a, **k):
        raise RuntimeError("analyzer writer still busy")

    monkeypatch.setattr(B, "kernel_interval", busy)
    r = _run(["rtio", "bench", "--initiator", "csr", "--baseline", ""])
    assert r.exit_code == 3 and "writer still busy" in r.output and "NOT SUSTAINED" not in r.output, r.output


@pytest.mark.parametrize("mode, why", [(["--direction", "s2mm"], "S2MM"), (["--mode", "simple", "--bds", "1"],
                                                                            "simple mode"),
                                       (["--cpu-load", "800MB/s"], "--cpu-load")])
def test_fast_check_refused_where_fast_runs_exact(mode, why, tmp_path):
    # fast runs these sweeps exact, so rerunning points exact would compare exact with exact: a check that
    # cannot fail
    out = tmp_path / "c.json"
    r = _run(SMALL + ["--fidelity", "fast", "--fast-check", "2", "--json", str(out)] + mode)
    assert r.exit_code == 2 and f"--fast-check with {why}" in r.output, r.output
    assert not out.exists()


@pytest.mark.parametrize("args", [
    ["run", "{d}/c.toml", "--json", "{d}/c.toml"],
    ["run", "--json", "{d}/c.toml", "{d}/c.toml"],              # either order
    ["capture", "--cpu-costs", "{d}/c.toml", "--json", "{d}/c.toml", "--seconds", "10ms"],
])
def test_an_output_over_an_input_is_refused(args, tmp_path):
    src = tmp_path / "c.toml"
    src.write_text('[[gates]]\ngate = "rx"\ntheta = 1.0\nqubit = 0\n')
    before = src.read_text()
    r = _run([a.format(d=tmp_path) for a in args])
    assert r.exit_code == 2 and "destroy" in r.output, r.output
    assert src.read_text() == before
