"""Presets per part: the shared Zynq-7000 PS and DDR3 part files, the zynq7000 alias, and what the parts' numbers
do.  Expectations come from the boards' documented facts (zynq-memory-system.md sec. 3, e3xx-transport.md sec. 1) and
JEDEC arithmetic, computed here, not read back from the model."""
import json
import math
import os

import numpy as np
import pytest
from click.testing import CliRunner

import sgdma
from sgdma.cli import main
from sgdma.driver.axidma import AxiDma
from sgdma.experiments import characterize as ch
from sgdma.experiments import sweepcache
from sgdma.hw import board_summary, presets

ZYNQ7000_BOARDS = ("pynq-z2", "zedboard", "e310", "zc706")
# the boards' documented facts: DDR clock (MHz), bus width (bits), CPU clock (MHz), PL clock of the DMA (MHz)
FACTS = {"pynq-z2": (525.0, 16, 650.0, 100.0), "zedboard": (525.0, 32, 650.0, 100.0),
         "e310": (533.333, 32, 666.67, 50.0), "zc706": (533.333, 32, 800.0, 150.0)}
CITED = ("assumed", "calibrated", "derived", "UG", "PG0", "JESD", "TRM", "S0", "seed 001", "artiq-rtio",
         "zynq-memory-system.md", "e3xx-transport.md", "calibration.md", "model option", "Vivado",
         "Linux ")


def _value(doc, dotted):
    t = doc
    for k in dotted.split("."):
        t = t[k]
    return t["value"]


@pytest.mark.parametrize("part", sorted(p.name for p in (presets.directory() / "parts").glob("*.toml")))
def test_every_part_value_cites_a_source_or_says_assumed(part):
    doc = presets.load_part(presets.directory() / "parts" / part)
    rows = presets.entries(doc)
    assert rows
    for key, value, unit, source in rows:
        assert any(w in source for w in CITED), f"{part}: {key} = {value}: {source!r}"


@pytest.mark.parametrize("name", ZYNQ7000_BOARDS)
def test_zynq7000_boards_give_their_own_clocks_and_ddr(name):
    doc = presets.load(name)
    ddr_mhz, bits, cpu_mhz, pl_mhz = FACTS[name]
    assert _value(doc, "dram.tck_ns") == pytest.approx(1e3 / ddr_mhz, rel=1e-5)
    assert _value(doc, "dram.bus_bytes") * 8 == bits
    assert _value(doc, "cpu.apu.clock_mhz") == pytest.approx(cpu_mhz)
    for key in ("dma.clock_mhz", "ic.clock_mhz", "port.hp.clock_mhz", "port.acp.clock_mhz", "port.gp.clock_mhz"):
        assert _value(doc, key) == pytest.approx(pl_mhz), key
    assert _value(doc, "dram.bank_groups") == 1 and _value(doc, "dram.banks_per_group") == 8   # DDR3
    # the C reader took the same include chain (board -> device part -> speed bin; PS part at the top)
    board = sgdma.VirtualBoard(name)
    for key in ("dram.tck_ns", "dram.trfc_ns", "dram.tras_ns", "dram.cl", "dram.ctrl_latency_ns", "ic.clock_mhz"):
        assert board.option(key) == pytest.approx(_value(doc, key)), key


def test_ddr3_timing_arithmetic_against_jedec():
    for name in ZYNQ7000_BOARDS:
        doc = presets.load(name)
        tck = _value(doc, "dram.tck_ns")
        # DDR3-1066F is a 7-7-7 bin: CL, tRCD and tRP are 7 clocks at 533 MHz and stay 7 at 525 MHz
        assert _value(doc, "dram.cl") == 7 and _value(doc, "dram.cwl") == 6
        for key in ("dram.trcd_ns", "dram.trp_ns"):
            assert math.ceil(_value(doc, key) / tck - 1e-9) == 7, (name, key)
        # read-to-write spacing RL + BL/2 - WL + 2 (JESD79-3) at the bin's 1.875 ns clock
        assert _value(doc, "dram.trtw_ns") == pytest.approx((7 + 8 / 2 - 6 + 2) * 1.875)
        # peak = bus bytes x two transfers per memory clock
        ddr_mhz, bits, *_ = FACTS[name]
        assert board_summary.dram_peak_mbps(doc) == pytest.approx(bits / 8 * 2 * ddr_mhz, rel=1e-5)
    # refresh by density: 2 Gb devices 160 ns (JESD79-3), the 4 Gb devices 300 ns as Vivado programs them (E31x
    # ps7_init: 160 clocks of 1.875 ns); tREFI 7.8 us, the E310's own 4128 clocks of 1.875 ns
    assert _value(presets.load("zedboard"), "dram.trfc_ns") == 160.0
    assert _value(presets.load("zc706"), "dram.trfc_ns") == 160.0
    assert _value(presets.load("pynq-z2"), "dram.trfc_ns") == pytest.approx(160 * 1.875)
    assert _value(presets.load("e310"), "dram.trfc_ns") == pytest.approx(160 * 1.875)
    assert _value(presets.load("e310"), "dram.trefi_ns") == pytest.approx(129 * 32 * 1.875, abs=1.0)
    assert board_summary.refresh_share(presets.load("zedboard")) == pytest.approx(160 / 7800)
    # the PYNQ-Z2's one 16-bit device has half the ZedBoard's peak at the same clock
    assert (board_summary.dram_peak_mbps(presets.load("pynq-z2"))
            == pytest.approx(board_summary.dram_peak_mbps(presets.load("zedboard")) / 2))


def test_zynq7000_is_an_alias_of_zc706_not_a_copy():
    assert presets.aliases() == {"zynq7000": "zc706"}
    assert "zynq7000" in presets.names() and "zynq7000" not in presets.boards()
    assert presets.path("zynq7000") == presets.path("zc706")
    assert presets.load("zynq7000") == presets.load("zc706")
    text = (presets.directory() / "zynq7000.toml").read_text()
    assert "[dram]" not in text and "clock_mhz" not in text
    a, b = sgdma.VirtualBoard("zynq7000"), sgdma.VirtualBoard("zc706")
    for key in ("dram.tck_ns", "dram.trfc_ns", "dma.clock_mhz", "ic.request_ns", "cpu.cache_line_ns"):
        assert a.option(key) == b.option(key)


def test_alias_files_are_only_aliases(tmp_path):
    bad = tmp_path / "mine.toml"
    bad.write_text('alias = { value = "zc706", source = "x" }\n[dma]\nclock_mhz = { value = 1.0, source = "x" }\n')
    with pytest.raises(ValueError, match="an alias must be only"):
        presets.path(str(bad))
    loop_a, loop_b = tmp_path / "a.toml", tmp_path / "b.toml"
    loop_a.write_text('alias = { value = "b", source = "x" }\n')
    loop_b.write_text('alias = { value = "a", source = "x" }\n')
    with pytest.raises(ValueError, match="loop"):
        presets.path(str(loop_a))


def test_an_override_of_one_nested_key_keeps_the_rest_of_the_table(tmp_path):
    """Python and C merge included tables key by key at every depth."""
    rel = os.path.relpath(presets.directory() / "zc706", tmp_path)
    mine = tmp_path / "mine.toml"
    mine.write_text(f'include = "{rel}"\nname = "mine"\n\n[cpu.apu]\nclock_mhz = {{ value = 400.0, unit = "MHz", '
                    f'source = "assumed: test"}}\n\n[dram]\ntrfc_ns = {{ value = 200.0, unit = "ns", '
                    f'source = "assumed: test" }}\n')
    doc, base = presets.load(str(mine)), presets.load("zc706")
    assert _value(doc, "cpu.apu.clock_mhz") == 400.0
    assert set(doc["cpu"]["apu"]) == set(base["cpu"]["apu"])
    assert _value(doc, "cpu.apu.core") == "Cortex-A9"
    board = sgdma.VirtualBoard(str(mine))
    assert board.option("dram.trfc_ns") == 200.0
    assert board.option("dram.tck_ns") == _value(base, "dram.tck_ns")


def _mm2s_mbps(name, options=None, n=32, size=65536):
    vb = sgdma.VirtualBoard(name, options=options or {}, timing_only=True)
    dma = AxiDma(vb)
    dma.reset()
    buf = vb.allocate(n * size)
    ring = dma.mm2s.ring(n)
    ring.fill(buf.physical_address + np.arange(n, dtype=np.uint64) * size, np.full(n, size, np.uint32))
    ring.submit()
    vb.run_until_quiet()
    pr = vb.probe("mm2s")
    return n * size / ((pr["t_last_beat"] - pr["t_first_beat"]) / 1e3) * 1e3


@pytest.mark.parametrize("name", ["e310", "pynq-z2", "zc706"])
def test_a_saturating_mm2s_point_runs_at_the_parts_hp_port_clock(name):
    """With the preset's own PL clock, large BDs are bound by the 64-bit stream at that clock (all three DRAMs are
    faster): 400 MB/s at the E310's 50 MHz bus_clk, 800 at 100 MHz, 1200 at 150 MHz."""
    pl_mhz = FACTS[name][3]
    mbps = _mm2s_mbps(name)
    assert 0.95 * 8 * pl_mhz <= mbps <= 8 * pl_mhz * 1.0001


def test_a_16_bit_ddr3_saturates_at_half_the_32_bit_one():
    """The same PL path, faster than either DRAM (256-bit at 200 MHz, deep pipelining), on the PYNQ-Z2 (one x16
    device) and the ZedBoard (two): throughput follows the DRAM's peak less its refresh share."""
    fast = {"dma.data_width": 256, "dma.clock_mhz": 200.0, "ic.width_bits": 256, "ic.clock_mhz": 200.0,
            "dma.outstanding": 16, "dma.max_burst": 64, "dma.fifo_bytes": 65536}
    got, bound = {}, {}
    for name in ("pynq-z2", "zedboard"):
        doc = presets.load(name)
        got[name] = _mm2s_mbps(name, fast)
        bound[name] = board_summary.dram_peak_mbps(doc) * (1 - board_summary.refresh_share(doc))
        assert got[name] <= bound[name] * 1.001          # nothing beats the data bus less refresh
        assert got[name] >= 0.85 * bound[name]           # and a sequential stream comes near it (UG585: 97 %)
    assert 256 / 8 * 200 > 1.5 * bound["zedboard"]       # the PL path is not the limit
    expected = bound["pynq-z2"] / bound["zedboard"]      # 0.5 x (1 - 300/7800) / (1 - 160/7800)
    assert got["pynq-z2"] / got["zedboard"] == pytest.approx(expected, abs=0.03)


def _shared_bus_mbps(name, load, n=16, size=8192):
    """MM2S against a copy loop: (DMA MB/s, the CPU port's granted MB/s) over the transfer."""
    vb = sgdma.VirtualBoard(name, cpu_load=load, timing_only=True)
    dma = AxiDma(vb)
    dma.reset()
    buf = vb.allocate(n * size)
    ring = dma.mm2s.ring(n)
    ring.fill(buf.physical_address + np.arange(n, dtype=np.uint64) * size, np.full(n, size, np.uint32))
    ring.submit()
    vb.run_until_quiet()
    pr = vb.probe("mm2s")
    t_ns = (pr["t_last_beat"] - pr["t_kick"]) / 1e3
    return n * size / t_ns * 1e3, vb.dram_stats()["ports"]["cpu"]["bytes"] / t_ns * 1e3


def test_cpu_load_lowers_characterize_throughput_more_on_the_narrower_ddr():
    """800 MB/s of DMA plus a 1500 MB/s copy loop oversubscribe the PYNQ-Z2's 2.1 GB/s DDR3 but fit the ZC706's
    4.3 GB/s: the same load costs the PYNQ-Z2's DMA more.  Oversubscribed, the two masters cannot both have their
    rate: the DDR controller shares the bus between its ports (ddrc.c), so what the DMA keeps plus what the copy
    loop is granted stays within the bus, and one of them (with Vivado's equal priorities the CPU, whose small
    line requests wait in a bounded port FIFO while the DMA's outstanding bursts hide its wait) falls short."""
    load = 1500.0
    drop = {}
    for name in ("pynq-z2", "zc706"):
        doc = presets.load(name)
        quiet, = ch.sweep(ch.Setup(board=name, trials=2), [ch.Point(8192, 16)])
        busy, = ch.sweep(ch.Setup(board=name, trials=2, cpu_load=f"{load:g}MB/s"), [ch.Point(8192, 16)])
        assert busy.cpu_load_mbps == load and busy.cpu_load_read_fraction == 0.5 and quiet.cpu_load_mbps == 0
        assert (busy.throughput_mbps["median"] < quiet.throughput_mbps["median"]
                or busy.latency_ns["max"] > quiet.latency_ns["max"])
        drop[name] = 1 - busy.throughput_mbps["median"] / quiet.throughput_mbps["median"]
        capacity = board_summary.dram_peak_mbps(doc) * (1 - board_summary.refresh_share(doc))
        if quiet.throughput_mbps["median"] + load > capacity:
            dma, cpu = _shared_bus_mbps(name, load)
            assert dma + cpu <= capacity * 1.001
            assert dma < 0.9 * quiet.throughput_mbps["median"] or cpu < 0.9 * load
    assert drop["pynq-z2"] > drop["zc706"]


def test_cpu_load_forms_are_one_setup_and_part_of_the_cache_key(tmp_path):
    assert ch.Setup(cpu_load="800MB/s") == ch.Setup(cpu_load=800) == ch.Setup(cpu_load="0.8GB/s,read=0.5")
    assert ch.Setup(cpu_load=0) == ch.Setup() and ch.Setup().cpu_load is None
    assert ch.Setup(cpu_load="800MB/s,read=1").cpu_load.read_fraction == 1.0
    with pytest.raises(ch.SweepError, match="--cpu-load"):
        ch.Setup(cpu_load="800MB/s,read=2")
    pts = [ch.Point(64, 4)]
    sweepcache.open_cache(str(tmp_path), ch.Setup(board="zc706", cpu_load=800), pts).save_plan(
        ch.plan_chunks(ch.Setup(board="zc706"), pts, 1))
    sweepcache.open_cache(str(tmp_path), ch.Setup(board="zc706", cpu_load="800MB/s"), pts)   # the same load
    for other in (None, 900, "800MB/s,read=0.25"):
        with pytest.raises(sweepcache.CacheMismatch, match="another sweep .cpu_load .* there, .* here"):
            sweepcache.open_cache(str(tmp_path), ch.Setup(board="zc706", cpu_load=other), pts)


def test_characterize_cli_cpu_load(tmp_path):
    out = tmp_path / "r.json"
    args = ["characterize", "--board", "pynq-z2", "--bytes-per-bd", "8192", "--bds", "16", "--trials", "2",
            "--timing-only"]
    r = CliRunner().invoke(main, args + ["--cpu-load", "1500MB/s", "--json", str(out)])
    assert r.exit_code == 0, r.output
    assert "background CPU load of 1500 MB/s" in r.output
    rec = json.loads(out.read_text())
    rec = rec["records"][0] if isinstance(rec, dict) else rec[0]
    assert rec["cpu_load_mbps"] == 1500.0
    bad = CliRunner().invoke(main, args + ["--cpu-load", "lots"])
    assert bad.exit_code == 2 and "--cpu-load" in bad.output


def test_plan_cpu_load_is_recorded_and_costs_the_dma():
    """480 MB/s of gates with 1.2x margin need 576 MB/s on the PYNQ-Z2 (about 2020 MB/s of DDR3 less refresh).
    A 1500 MB/s copy loop oversubscribes the bus, but with Vivado's equal port priorities the DDR controller
    (ddrc.c) does not hand the CPU its whole rate: the aging arbiter shares grants, so the DMA is slowed (its
    requests wait behind the CPU's) without the copy loop's open-loop rate being subtracted from it."""
    from sgdma.experiments import plan as pl

    quiet = pl.plan(100.0, 48, board="pynq-z2", trials=2)
    busy = pl.plan(100.0, 48, board="pynq-z2", trials=2, cpu_load="1500MB/s")
    assert quiet.feasible and quiet.cpu_load_mbps == 0
    assert busy.cpu_load_mbps == 1500.0 and "CPU load of 1500 MB/s" in busy.reason
    assert busy.achieved_mbps < quiet.achieved_mbps


def test_info_board_lists_and_errors():
    r = CliRunner().invoke(main, ["info", "--board"])
    assert r.exit_code == 0, r.output
    for name in presets.boards():
        assert f"  {name} " in r.output
    assert "zynq7000" in r.output and "another name for zc706" in r.output
    one = CliRunner().invoke(main, ["info", "--board", "pynq-z2"])
    assert one.exit_code == 0
    assert "16-bit at 1050 MT/s = 2100 MB/s peak" in one.output and "Cortex-A9 at 650 MHz" in one.output
    assert "source:" in one.output
    # the controller row shows ps7_init's equal start priorities (0x3FF) with aging deciding
    assert "arbitrated: start priority cpu 1023/1023, pl 1023/1023" in one.output and "aging on" in one.output
    alias = CliRunner().invoke(main, ["info", "--board", "zynq7000"])
    assert alias.exit_code == 0 and "another name for zc706" in alias.output
    bad = CliRunner().invoke(main, ["info", "--board", "pynqz2"])
    assert bad.exit_code == 2
    assert "--board" in bad.output and "pynq-z2" in bad.output and "zedboard" in bad.output
