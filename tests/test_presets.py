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
            words = ("calibrated", "assumed", "PG021", "S0", "UG", "ideal", "TRM", "artiq-rtio", "seed 001")
            assert any(w in source for w in words), f"{name}: {key}: {source!r}"


def test_large_aperture_costs_no_rss():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    boards = [sgdma.VirtualBoard("zcu111") for _ in range(4)]   # 4 x 4.5 GiB of apertures
    buf = boards[0].allocate(1 << 20, np.uint8)
    buf[:] = 1
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert (after - before) * 1024 < 256 << 20                  # KiB on Linux


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
