"""S0's roles on the virtual board: APU build, hand-off, RPU start, DAC playback; demo and run."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

import sgdma
from sgdma.cli import main
from sgdma.sequence.playback import PlaybackConfig, play
from sgdma.sequence import Sequencer, StaleRingError, example_circuit_path, randomized_benchmarking


def setup(board="zcu111", seed=0, rb=64):
    vb = sgdma.VirtualBoard(board, seed=seed)
    dma = sgdma.AxiDma(vb)
    dma.reset()
    seq = Sequencer(vb, dma)
    handle = seq.compile(randomized_benchmarking(rb, seed=seed, qubit=0))
    return vb, dma, seq, handle


def test_demo_command_writes_everything(tmp_path):
    out = tmp_path / "demo.json"
    res = CliRunner().invoke(main, ["demo", "--out", str(tmp_path / "o"), "--json", str(out)])
    assert res.exit_code == 0, res.output
    d = json.loads(out.read_text())
    for key in ("board", "gates", "bds", "segments_unique", "segments_referenced", "memory_bytes", "latency_ns",
                "throughput_mbps", "underflows", "deadline_misses", "mailbox", "mailbox_latency_ns", "outputs"):
        assert key in d, key
    assert d["underflows"] == 0 and d["deadline_misses"] == 0 and d["gates"] > 400
    assert d["segments_referenced"] > d["segments_unique"]
    trace = json.loads((tmp_path / "o" / "timeline.json").read_text())
    assert {e["ph"] for e in trace["traceEvents"]} >= {"M", "X"}
    vcd = (tmp_path / "o" / "timeline.vcd").read_text()
    assert "$date" in vcd and "$timescale 1 ps" in vcd and "$var string" in vcd and "\n#" in vcd
    page = (tmp_path / "o" / "report.html").read_text()
    assert "id='fig-over_time'" in page and "Headroom" in page
    assert d["kind"] == "sequence" and d["headroom"]["headroom_ns"] < 1000.0
    assert (tmp_path / "o" / "over_time.png").stat().st_size > 1000


def test_too_fast_gates_underflow_and_are_named():
    vb, dma, seq, h = setup()
    r = play(vb, dma, h, PlaybackConfig(gate_time_ns=30.0, fifo_depth=8))
    assert r.underflows and r.deadline_misses > 0
    names = set(h.gate_names)
    for u in r.underflows:
        assert u.gate_name in names and u.late_ns > 0
    assert [u.gate for u in r.underflows] == sorted(u.gate for u in r.underflows)
    assert any(i.name.startswith("underflow") for i in r.timeline.instants)


def test_comfortable_gates_play_on_time_and_fifo_paces_the_dma():
    vb, dma, seq, h = setup()
    r = play(vb, dma, h, PlaybackConfig(gate_time_ns=2000.0, fifo_depth=16))
    assert r.underflows == [] and r.deadline_misses == 0
    assert np.all(r.gate_play_ns >= r.gate_first_ns)            # every gate was there before it played
    assert np.allclose(r.gate_play_ns, r.gate_deadline_ns)


@pytest.mark.parametrize("mailbox", ["gpio", "rpmsg"])
def test_handoff_is_timed(mailbox):
    vb, dma, seq, h = setup()
    before = vb._b.dram_stats()["reads"]
    r = play(vb, dma, h, PlaybackConfig(mailbox=mailbox))
    assert r.mailbox == mailbox and r.mailbox_latency_ns > 0
    dram_reads = vb._b.dram_stats()["reads"] - before
    assert dram_reads > 0                                          # the DMA always reads DDR
    assert any("mailbox" in s.name for s in r.timeline.spans)


def test_rpmsg_sees_refresh_gpio_does_not():
    """The RPMsg mailbox lives in PL DDR: some seeds land its accesses on a refresh."""
    def lat(mailbox, seed):
        vb, dma, seq, h = setup(seed=seed, rb=4)
        return play(vb, dma, h, PlaybackConfig(mailbox=mailbox, seed=seed)).mailbox_latency_ns

    rp = np.array([lat("rpmsg", s) for s in range(40)])
    gp = np.array([lat("gpio", s) for s in range(40)])
    assert rp.max() - np.median(rp) > 150          # a refresh stall (tRFC 350 ns) shows up in some hand-offs
    assert gp.max() - gp.min() < 600               # GPIO: only the RPU's poll phase varies (one read period)


def test_stale_handle_refused():
    vb, dma, seq, h = setup()
    seq.free(h)
    with pytest.raises(StaleRingError):
        play(vb, dma, h)


def test_run_command_with_the_example_and_bad_input(tmp_path):
    res = CliRunner().invoke(main, ["run", str(example_circuit_path()), "--mailbox", "rpmsg", "--out",
                                    str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    bad = tmp_path / "bad.toml"
    bad.write_text('[circuit]\nname = "x"\n[[gates]]\ngate = "rxx"\nqubit = 0\n')
    res = CliRunner().invoke(main, ["run", str(bad), "--out", str(tmp_path / "b")])
    assert res.exit_code != 0 and "rxx" in res.output
    res = CliRunner().invoke(main, ["run", str(example_circuit_path()), "--board", "pg021"])
    assert res.exit_code != 0 and "CPU" in res.output


def test_same_seed_same_run():
    def once():
        vb, dma, seq, h = setup(seed=4)
        r = play(vb, dma, h, PlaybackConfig(seed=4, mailbox="rpmsg"))
        return r.latency_ns, r.mailbox_latency_ns, r.gate_first_ns.tolist(), vb.now_ps

    assert once() == once()


def test_cyclic_passes_repeat_the_circuit(tmp_path):
    out = tmp_path / "r.json"
    res = CliRunner().invoke(main, ["run", str(example_circuit_path()), "--passes", "3", "--out", str(tmp_path / "o"),
                                    "--json", str(out)])
    assert res.exit_code == 0, res.output
    d = json.loads(out.read_text())
    assert d["passes"] == 3 and d["underflows"] == 0
    one = json.loads(CliRunner().invoke(main, ["run", str(example_circuit_path()), "--out", str(tmp_path / "p"),
                                               "--json", str(tmp_path / "one.json")]).output and
                     (tmp_path / "one.json").read_text())
    assert d["gates"] >= 3 * one["gates"]          # the RPU's reset stops the ring a few gates after pass 3


def test_run_without_out_writes_nothing_and_never_imports_matplotlib(tmp_path):
    """A run without --out prints its summary and writes no file; no figure means matplotlib (and plotly, the
    page's figures) stay unimported.  A subprocess, so no other test's imports count."""
    import subprocess
    import sys

    code = ("import sys\nfrom sgdma.cli import main\n"
            "try:\n    main(['run', sys.argv[1], '--json', 'r.json'])\nexcept SystemExit as e:\n"
            "    assert e.code in (0, None), e.code\n"
            "print(sorted(m for m in ('matplotlib', 'plotly') if m in sys.modules))\n")
    import os
    from pathlib import Path

    path = os.pathsep.join([str(Path(sgdma.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", code, str(example_circuit_path())], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": path})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert "underflows" in out.stdout and "wrote" not in out.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]
    rec = json.loads((tmp_path / "r.json").read_text())
    assert rec["outputs"] == {} and rec["headroom"] is None


def test_run_with_headroom_flag_reports_it(tmp_path):
    res = CliRunner().invoke(main, ["run", str(example_circuit_path()), "--headroom", "--json", str(tmp_path / "r.json")])
    assert res.exit_code == 0, res.output
    assert "headroom" in res.output
    rec = json.loads((tmp_path / "r.json").read_text())
    assert rec["headroom"]["headroom_ns"] > 0
