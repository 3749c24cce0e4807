"""Board presets: the C reader and tomllib agree, every number has a source, memory is lazy."""
import resource

import numpy as np
import pytest

import sgdma
from sgdma.hw import presets


@pytest.mark.parametrize("name", presets.names())
def test_c_reader_matches_toml(name):
    board = sgdma.VirtualBoard(name)
    rows = presets.entries(presets.load(name))
    assert rows
    for key, value, unit, source in rows:
        assert source.strip(), f"{name}: {key} has no source"
        if key.startswith(("layout.", "port.", "cpu.apu.", "cpu.rpu.", "irq.")):   # read by the Python layers only
            continue
        if isinstance(value, str):                  # documentation (dram.standard, dram.device): C reads numbers
            continue
        assert board.option(key) == pytest.approx(float(value)), key


@pytest.mark.parametrize("name", presets.names())
def test_layout_fits_its_region(name):
    from sgdma.hw.layout import Layout

    board = sgdma.VirtualBoard(name)
    lay = Layout.of(board)
    region = dict((n, (b, sz)) for n, b, sz in board.regions)[lay.region]
    assert region[0] <= lay.rpmsg < lay.bd_base < lay.buffer_base
    assert lay.buffer_base + lay.buffer_bytes <= region[0] + region[1]


@pytest.mark.parametrize("name", presets.names())
def test_every_timing_number_says_where_it_came_from(name):
    for key, value, unit, source in presets.entries(presets.load(name)):
        if unit in ("ns", "MHz", "clock"):
            words = ("calibrated", "assumed", "PG021", "S0", "UG", "ideal", "TRM", "artiq-rtio", "seed 001", "JESD",
                     "zynq-memory-system.md", "e3xx-transport.md", "calibration.md", "derived")
            assert any(w in source for w in words), f"{name}: {key}: {source!r}"


def _rss_bytes() -> int:
    """Resident set now (not the high-water mark ru_maxrss, which earlier tests may already have raised)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def test_large_aperture_costs_no_rss():
    before = _rss_bytes()
    boards = [sgdma.VirtualBoard("zcu111") for _ in range(4)]   # 4 x 4.5 GiB of apertures
    mapped = _rss_bytes()
    touched = 64 << 20
    buf = boards[0].allocate(touched, np.uint8)
    buf[:] = 1                                                  # these pages must become resident
    after = _rss_bytes()
    assert mapped - before < 64 << 20, "creating boards made their apertures resident"
    # the measurement sees memory that is really touched, so the first check can fail
    assert after - mapped >= touched * 0.9
    assert after - before < touched + (128 << 20)


def test_include_resolves_like_the_c_loader(tmp_path):
    """A hand-written preset starts from pg021 and a memory part, overriding keys; C and Python agree."""
    import shutil
    shutil.copytree(presets.directory(), tmp_path, dirs_exist_ok=True)
    (tmp_path / "parts" / "mem.toml").write_text('[dram]\ninclude = "ddr4-2400-micron-083e"\n'
                                                 'cl = { value = 11, source = "assumed" }\n')
    (tmp_path / "b.toml").write_text('include = "pg021"\nname = "b"\n[dma]\nmax_burst = { value = 64, source = "t" }\n'
                                     '[dram]\ninclude = "parts/mem"\ncwl = { value = 10, source = "t" }\n')
    doc = presets.load(tmp_path / "b.toml")
    board = sgdma.VirtualBoard(tmp_path / "b.toml")
    assert doc["dram"]["cl"]["value"] == 11 == board.option("dram.cl")
    assert doc["dram"]["cwl"]["value"] == 10 == board.option("dram.cwl")
    assert doc["dram"]["trcd_ns"]["value"] == 13.32 == board.option("dram.trcd_ns")
    assert doc["dma"]["max_burst"]["value"] == 64 == board.option("dma.max_burst")
    assert doc["dma"]["clock_mhz"]["value"] == 100.0 == board.option("dma.clock_mhz")   # from pg021
    (tmp_path / "late.toml").write_text('include = "pg021"\n[dram]\ncl = { value = 5, source = "t" }\n'
                                        'include = "parts/mem"\n')
    for load in (presets.load, sgdma.VirtualBoard):
        with pytest.raises(ValueError, match="first key"):
            load(tmp_path / "late.toml")
    (tmp_path / "loop.toml").write_text('include = "loop"\n')
    for load in (presets.load, sgdma.VirtualBoard):
        with pytest.raises(ValueError, match="levels"):
            load(tmp_path / "loop.toml")


def test_no_preset_repeats_the_ddr4_part():
    part = presets.load_part(presets.directory() / "parts" / "ddr4-2400-micron-083e.toml")["dram"]
    for name in presets.names():
        text = presets.path(name).read_text()
        own = text[text.index("[dram]"):]
        own = own[:own.find("\n[", 1)] if "\n[" in own[1:] else own         # the [dram] table only
        if "ddr4-2400-micron-083e" in own:                                     # it includes the part
            assert not any(f"\n{k} =" in own for k in part), f"{name} repeats a key of the DDR4 part"


def test_info_lists_address_map():
    from click.testing import CliRunner

    from sgdma.cli import main

    out = CliRunner().invoke(main, ["info", "--board", "zcu111"])
    assert out.exit_code == 0, out.output
    assert "0x0080000000" in out.output and "S0" in out.output and "256-bit" in out.output


@pytest.mark.parametrize("name, port", [("zynq7000", "gp"), ("zynq7000", "acp"), ("zcu102", "hpc"), ("zcu102", "acp")])
def test_ps_ports_change_the_path(name, port):
    hp = sgdma.VirtualBoard(name)
    other = sgdma.VirtualBoard(name, port=port)
    doc = presets.load(name)["port"][port]
    assert other.option("ic.width_bits") == doc["width_bits"]["value"]
    assert other.option("ic.request_ns") == doc["request_ns"]["value"]
    if port == "acp" and name == "zcu102":
        assert other.option("dma.max_burst") * other.axi_dma.data_bytes == 64    # UG1085: 64-byte transactions
    assert hp.option("ic.request_ns") != other.option("ic.request_ns")


def test_gp_port_caps_throughput():
    from sgdma.experiments import characterize as ch

    (hp,) = ch.sweep(ch.Setup(board="zynq7000", trials=3), [ch.Point(8192, 16)])
    (gp,) = ch.sweep(ch.Setup(board="zynq7000", trials=3, port="gp"), [ch.Point(8192, 16)])
    assert hp.throughput_mbps["median"] <= 1200 * 1.001                      # UG585: HP 1200 MB/s
    assert gp.throughput_mbps["median"] <= 600 * 1.001                       # UG585: GP 600 MB/s
    assert gp.throughput_mbps["median"] < hp.throughput_mbps["median"]


def test_unknown_port():
    with pytest.raises(ValueError, match="no port"):
        sgdma.VirtualBoard("zcu111", port="hp")


def test_python_parse_builds_the_board_the_c_reader_builds():
    """The board gets its preset from Python's parse (presets.board_keys); C users without Python read the file
    with csrc/vboard/preset.c.  Both must give every board the same configuration, key by key."""
    import re
    from pathlib import Path

    from sgdma import _core
    from sgdma.hw import presets
    table = (Path(__file__).resolve().parents[1] / "csrc" / "vboard" / "config.c").read_text()
    keys = re.findall(r'(?:U64|UINT|DBL)\("([^"]+)"', table)
    assert len(keys) > 100, "config.c's key table not found"
    for board in presets.boards() + list(presets.aliases()):
        name, parsed = presets.board_keys(board)
        from_file = _core.Board(str(presets.path(board)), {}, 0)
        from_python = _core.Board(None, parsed, 0, name=name)
        assert from_python.name() == from_file.name(), board
        assert from_python.regions() == from_file.regions(), board
        differ = [k for k in keys if from_python.config_get(k) != from_file.config_get(k)]
        assert not differ, f"{board}: {differ}"
