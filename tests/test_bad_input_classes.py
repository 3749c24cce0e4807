"""One test (or a few) per class of issue 10: each checks the mechanism, with expectations computed here from
the preset and PG021, not from the code's own verdicts."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import sgdma
from sgdma.cli import main
from sgdma.experiments import characterize as ch
from sgdma.experiments import plan as pl
from sgdma.hw import presets, units
from sgdma.hw.pg021 import BD_SIZE
from sgdma.sequence import Circuit, Sequencer
from sgdma.sequence.errors import CircuitError, SequenceError


# -- 1. work bounded before it starts -------------------------------------------------------------------------
def test_expansion_refused_from_counts_before_anything_is_expanded(monkeypatch):
    board = sgdma.VirtualBoard("zcu111")
    dma = sgdma.AxiDma(board)
    region = presets.load("zcu111")["layout"]["bd_region_bytes"]["value"]
    holds = region // BD_SIZE                                   # 4 MiB / 64 B = 65536 BDs
    seq = Sequencer(board, dma)
    grown = []
    monkeypatch.setattr(np, "repeat", lambda *a, **k: grown.append(a) or pytest.fail("expanded"))
    with pytest.raises(CircuitError) as e:
        seq.compile(Circuit().append("idle", 0, n=10**9))
    assert f"{10**9} BDs" in str(e.value) and f"holds {holds}" in str(e.value) and not grown
    with pytest.raises(SequenceError) as e:                    # repeat: checked before np.tile
        seq.compile(Circuit("r", repeat=10**12).append("rx", 0, theta=1.0))
    assert f"holds {holds}" in str(e.value)


def test_sweep_work_bound_is_checked_before_any_point_runs():
    setup = ch.Setup(board="zcu111", trials=10)
    with pytest.raises(ch.SweepError) as e:
        next(ch.sweep(setup, [ch.Point(64, 4, 2**30)]))
    assert f"{10 * 4 * 2**30:.3g}" in str(e.value) and "limit" in str(e.value)


def test_ctrl_c_keeps_what_was_done(tmp_path, monkeypatch):
    done = []

    def fake_sweep(setup, points, jobs=1, **kw):
        for p in points[:2]:
            rec = {"bytes_per_bd": p.bytes_per_bd, "bds": p.bds, "cycles": p.cycles}
            done.append(rec)
            yield type("R", (), {"as_dict": lambda self, r=rec: r})()
        raise KeyboardInterrupt

    monkeypatch.setattr(ch, "sweep", fake_sweep)
    out = tmp_path / "part.json"
    res = CliRunner().invoke(main, ["characterize", "--bytes-per-bd", "32,64,128", "--bds", "4", "--json", str(out)])
    assert res.exit_code == 3 and "2 of 3 points" in res.output and "Traceback" not in res.output
    rec = json.loads(out.read_text())           # a result record (sgdma report reads it), marked partial
    assert rec["kind"] == "characterize" and rec["partial"] is True and rec["records"] == done


def test_progress_bar_appears_only_for_long_work(monkeypatch):
    from sgdma.cli import common

    seen = []
    monkeypatch.setattr(common.click, "progressbar", lambda **k: seen.append(k) or _Bar())
    with common.Progress("x") as p:                  # short work: nothing shown
        p.update(1, 2)
    assert not seen
    monkeypatch.setattr(common.Progress, "SHOW_AFTER_S", 0.0)
    with common.Progress("x") as p:                  # stderr is not a terminal here: nothing unless asked
        p.update(1, 2)
    assert not seen
    monkeypatch.setenv("SGDMA_PROGRESS", "1")
    with common.Progress("x") as p:
        p.update(1, 2)
    assert seen and seen[0]["show_eta"]


class _Bar:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False

    def update(self, n):
        pass


# -- 2. one unit grammar ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,ns", [("1ps", 0.001), ("250ns", 250.0), ("2.5us", 2500.0), ("2.5 µs", 2500.0),
                                     ("3ms", 3e6), ("1s", 1e9), ("1e-6", 1000.0), ("0.5ns", 0.5)])
def test_times(text, ns):
    assert units.parse_time_ns(text) == pytest.approx(ns)


@pytest.mark.parametrize("text,n", [("4096", 4096), ("4K", 4096), ("4KiB", 4096), ("4KB", 4096), ("1M", 1 << 20),
                                    ("1Mi", 1 << 20), ("1G", 1 << 30), ("1GiB", 1 << 30), ("2^12", 4096),
                                    ("1.5K", 1536), ("64B", 64)])
def test_sizes(text, n):
    assert units.parse_size(text) == n


@pytest.mark.parametrize("text,hz", [("40e6", 40e6), ("40M", 40e6), ("40MHz", 40e6), ("40 MS/s", 40e6),
                                     ("2.5GHz", 2.5e9), ("100kHz", 1e5), ("1Hz", 1.0)])
def test_rates(text, hz):
    assert units.parse_rate(text) == pytest.approx(hz)


@pytest.mark.parametrize("fn,text", [(units.parse_time_ns, "inf"), (units.parse_time_ns, "nan"),
                                     (units.parse_time_ns, "1e-30s"), (units.parse_time_ns, "1e300s"),
                                     (units.parse_time_ns, "0"), (units.parse_size, "inf"),
                                     (units.parse_size, "1e400"), (units.parse_size, "0"),
                                     (units.parse_rate, "inf"), (units.parse_rate, "-1M"), (units.parse_rate, "0")])
def test_unrepresentable_values_refused(fn, text):
    with pytest.raises(units.UnitError) as e:
        fn(text, "--opt")
    assert "--opt" in str(e.value)


def test_gate_time_under_one_beat_is_infeasible_not_zero_underflows():
    blk = sgdma.VirtualBoard("zcu111").axi_dma
    beat_ns = 1e3 / blk.clock_mhz                     # one 32-byte beat per 333 MHz clock: 3.003 ns
    p = pl.plan(beat_ns * 0.9, 8)
    assert not p.feasible and p.reason.startswith("stream bandwidth") and p.underflows == 0 and p.tried == []


# -- 3. outputs checked first -------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ["plan", "--gate-time", "1us", "--bytes-per-gate", "8", "--json", "/nonexistent/x.json"],
    ["characterize", "--bds", "4", "--csv", "/nonexistent/x.csv"],
    ["characterize", "--bds", "4", "--plot", "/dev/null"],
    ["demo", "--out", "/dev/null"],
])
def test_unwritable_output_refused_before_any_work(monkeypatch, args):
    import sgdma.experiments.plan as plan_mod
    import sgdma.sequence.demo as demo_mod

    def boom(*a, **k):
        raise AssertionError("the work started")

    monkeypatch.setattr(plan_mod, "plan", boom)
    monkeypatch.setattr(ch, "sweep", boom)
    monkeypatch.setattr(demo_mod, "run_circuit", boom)
    res = CliRunner().invoke(main, args)
    option = next(a for a in args if a in ("--json", "--csv", "--plot", "--out"))
    assert res.exit_code == 2 and option in res.output and "the work started" not in res.output


# -- 4. buffer lifetimes ----------------------------------------------------------------------------------
def _rig():
    board = sgdma.VirtualBoard("zcu111", seed=0, loopback=False)
    dma = sgdma.AxiDma(board)
    dma.reset()
    return board, dma


def test_free_of_a_buffer_a_submitted_ring_owns_is_refused_and_the_dma_sends_its_bytes():
    board, dma = _rig()
    ring = dma.mm2s.ring(4)
    buf = board.allocate(256)
    buf[:] = np.arange(256) % 251
    ring.add_packets([buf])
    ring.submit()
    with pytest.raises(sgdma.BufferInUseError) as e:
        buf.freebuffer()
    assert f"0x{buf.physical_address:x}" in str(e.value) and "BD 0" in str(e.value)
    nxt = board.allocate(256)
    nxt[:] = 0xEE
    ring.wait()
    assert board.mm2s_sink.packets() == [bytes((np.arange(256) % 251).astype(np.uint8))]
    ring.reclaim()
    buf.freebuffer()                                     # allowed once the BD is complete and reclaimed


def test_buffer_of_another_board_refused():
    board, dma = _rig()
    other = sgdma.VirtualBoard("zcu111").allocate(64)
    with pytest.raises(sgdma.ForeignBufferError):
        dma.mm2s.ring(2).add_packets([other])
    with pytest.raises(sgdma.ForeignBufferError):
        dma.mm2s.transfer(other)


def test_freed_array_never_reads_a_later_allocation_nor_reaches_a_dma():
    board, dma = _rig()
    a = board.allocate(128)
    addr = a.physical_address
    a[:] = 7
    a.freebuffer()
    b = board.allocate(128)
    b[:] = 9
    assert b.physical_address != addr and np.all(np.asarray(a) == 7)   # a still reads its own memory
    with pytest.raises(sgdma.FreedBufferError):
        a.physical_address
    ring = dma.mm2s.ring(2)
    with pytest.raises(sgdma.FreedBufferError):
        ring.add_packets([a])
    with pytest.raises(sgdma.FreedBufferError):
        ring.fill([addr + 64], [32])                         # a raw address inside it
    with pytest.raises(sgdma.FreedBufferError):
        dma.mm2s.start_simple(addr, 64)


def test_cyclic_ring_owns_its_buffers_until_reset():
    board, dma = _rig()
    ring = dma.mm2s.ring(2)
    buf = board.allocate(64)
    ring.add_packets([buf, buf])
    ring.start_cyclic()
    board.advance(10_000)
    with pytest.raises(sgdma.BufferInUseError):
        buf.freebuffer()
    dma.reset()
    board.run_until_quiet()
    buf.freebuffer()


# -- 5. honest resets and streams ---------------------------------------------------------------------------
def test_reset_mid_packet_reports_the_packet_as_cut_and_the_next_starts_clean():
    board, dma = _rig()
    big = board.allocate(64 * 1024)
    big[:] = 1
    ring = dma.mm2s.ring(4)
    ring.add_packets([big], max_bd_bytes=16 * 1024)
    ring.submit()
    for _ in range(1000):                                 # until part of the 64 KiB packet is out (bounded)
        if board.mm2s_sink.open_bytes:
            break
        board.advance(100)
    assert 0 < board.mm2s_sink.open_bytes < big.nbytes
    dma.reset()
    board.run_until_quiet()
    t = board.mm2s_sink.timing()
    assert [p["cut"] for p in t] == [True] and t[0]["length"] < big.nbytes
    assert board.mm2s_sink.open_bytes == 0
    small = board.allocate(96)
    small[:] = np.arange(96)
    ring2 = dma.mm2s.ring(2)
    ring2.add_packets([small])
    ring2.submit()
    ring2.wait()
    assert board.mm2s_sink.packets()[-1] == bytes(np.arange(96, dtype=np.uint8))
    assert board.mm2s_sink.cut_packets == [0]


def test_reset_clears_stale_loopback_bytes():
    board = sgdma.VirtualBoard("zcu111", seed=0, loopback=True)
    dma = sgdma.AxiDma(board)
    dma.reset()
    stale = board.allocate(512)
    stale[:] = 0xAA
    tx = dma.mm2s.ring(2)
    tx.add_packets([stale])
    tx.submit()
    tx.wait()                                             # no S2MM armed: the bytes wait on the wire
    assert board.s2mm_source.pending == 512
    dma.reset()
    board.run_until_quiet()
    assert board.s2mm_source.pending == 0
    src = board.allocate(300)
    src[:] = np.arange(300) % 199
    dst = board.allocate(512)
    rx = dma.s2mm.ring(2)
    rx.add_packets([dst])
    rx.submit()
    tx = dma.mm2s.ring(2)
    tx.add_packets([src])
    tx.submit()
    tx.wait()
    rx.wait()
    assert rx.reclaim().packet_lengths().tolist() == [300]
    assert np.array_equal(np.asarray(dst)[:300], np.arange(300) % 199)


# -- 6. legal PG021 input works -------------------------------------------------------------------------------
@pytest.mark.parametrize("nbytes", [33, 31, 1, 65])
def test_lengths_off_the_stream_width_are_measured(nbytes):
    setup = ch.Setup(board="zcu111", trials=2, timing_only=True)
    (rec,) = ch.sweep(setup, [ch.Point(nbytes, 4)])
    assert rec.throughput_mbps["min"] > 0 and rec.latency_ns["min"] > 0
    # every BD is one packet of ceil(n / width) beats, the last with TKEEP: the timing engine counts them
    board = sgdma.VirtualBoard("zcu111", loopback=False)
    dma = sgdma.AxiDma(board)
    dma.reset()
    width = board.axi_dma.data_bytes
    bufs = [board.allocate(nbytes, align=64) for _ in range(4)]
    ring = dma.mm2s.ring(4)
    ring.add_packets(bufs)
    csm = board.csm
    csm.arm(4 * -(-nbytes // width))
    csm.reset()
    csm.wait_ready()
    csm.start()
    ring.submit()
    ring.wait()
    csm.wait_done()
    assert csm.counters()["beats"] == 4 * -(-nbytes // width)
    assert [p["length"] for p in board.mm2s_sink.timing()] == [nbytes] * 4


def test_plan_answers_issue_9_item_6_before_simulating(monkeypatch):
    monkeypatch.setattr(ch, "sweep", lambda *a, **k: pytest.fail("simulated"))
    p = pl.plan(2.0, 8192)
    blk = sgdma.VirtualBoard("zcu111").axi_dma
    need = 8192 / 2.0 * 1e3                                   # MB/s
    assert not p.feasible and p.reason.startswith("stream bandwidth")
    assert f"{need:.4g}" in p.reason and f"{blk.data_bytes * blk.clock_mhz:.4g}" in p.reason


def test_plan_memory_bound(monkeypatch):
    monkeypatch.setattr(ch, "sweep", lambda *a, **k: pytest.fail("simulated"))
    doc = presets.load("pg021")
    region = doc["layout"]["buffer_region_bytes"]["value"]
    width = doc["dma"]["data_width"]["value"] // 8
    gate = region // 2 + 1                                    # two BDs of one gate no longer fit the region
    assert 2 * -(-gate // width) * width > region
    p = pl.plan(1e9, gate, board="pg021")
    assert not p.feasible and p.reason.startswith("memory") and str(region) in p.reason


# -- 7. domain checks: see test_bad_input_table.py (angles, qubits, JSON, presets, allocate, seeds) --------------
def test_preset_missing_a_section_is_named(tmp_path):
    text = presets.path("zcu111").read_text()
    cut = text.split("[layout]")[0] + "[ddr.pl]" + text.split("[ddr.pl]")[1]
    import shutil
    shutil.copytree(presets.directory() / "parts", tmp_path / "parts")    # the preset's includes
    p = tmp_path / "nolayout.toml"
    p.write_text(cut)
    with pytest.raises(ValueError) as e:
        sgdma.VirtualBoard(str(p))
    assert "[layout]" in str(e.value) and "pg021.toml" in str(e.value)


# -- 8. bus errors and threads --------------------------------------------------------------------------------
def test_unmapped_read_and_write_raise_bus_error_naming_the_address():
    board = sgdma.VirtualBoard("zcu111")
    mapped = [(b, b + s) for _, b, s in board.regions] + [(board.axi_dma.base, board.axi_dma.base + 0x10000)]
    hole = 0xF000_0000
    assert not any(lo <= hole < hi for lo, hi in mapped)
    with pytest.raises(sgdma.BusError) as e:
        board.read32(hole)
    assert e.value.address == hole and "0xf0000000" in str(e.value) and not e.value.write
    with pytest.raises(sgdma.BusError) as e:
        board.cpu_write32(hole + 4, 1, 10.0)
    assert e.value.write and "0xf0000004" in str(e.value)
    assert board.bus_errors["count"] == 2


def test_a_board_refuses_a_second_thread_and_can_be_handed_over():
    board = sgdma.VirtualBoard("zcu111", loopback=True)
    dma = sgdma.AxiDma(board)
    errors, results = [], []

    def use():
        try:
            dma.mm2s.ring(2)
        except sgdma.ConcurrentUseError as e:
            errors.append(str(e))
        board.adopt()
        results.append(board.allocate(8).nbytes)

    t = threading.Thread(target=use, name="worker")
    t.start()
    t.join()
    assert errors and "worker" in errors[0] and "MainThread" in errors[0] and results == [8]
    with pytest.raises(sgdma.ConcurrentUseError):
        board.allocate(8)                                 # the main thread gave it away
    board.adopt()
    board.allocate(8)


# -- 9. exit codes --------------------------------------------------------------------------------------------
def test_exit_codes_are_documented_in_the_readme():
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    section = readme.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    for code in ("0", "1", "2", "3"):
        assert f"`{code}`" in section


def test_failure_while_running_exits_3_without_traceback(monkeypatch):
    import sgdma.experiments.plan as plan_mod

    def crash(*a, **k):
        raise RuntimeError("the model broke")

    monkeypatch.setattr(plan_mod, "plan", crash)
    res = CliRunner().invoke(main, ["plan", "--gate-time", "1us", "--bytes-per-gate", "8"])
    assert res.exit_code == 3 and "the model broke" in res.output and "Traceback" not in res.output

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(plan_mod, "plan", interrupted)
    res = CliRunner().invoke(main, ["plan", "--gate-time", "1us", "--bytes-per-gate", "8"])
    assert res.exit_code == 3 and "interrupted" in res.output
