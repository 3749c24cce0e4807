"""`sgdma characterize`: sweeps, outputs, and refusing what the board cannot do."""
import csv
import json

import pytest
from click.testing import CliRunner

from sgdma.experiments import characterize as ch
from sgdma.cli import main


def test_json_csv_and_figures(tmp_path):
    out, table = tmp_path / "r.json", tmp_path / "r.csv"
    res = CliRunner().invoke(main, ["characterize", "--bytes-per-bd", "32,4K", "--bds", "4,16,1024", "--cycles", "1",
                                    "--trials", "3", "--json", str(out), "--csv", str(table),
                                    "--plot", str(tmp_path / "fig")])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert doc["kind"] == "characterize" and doc["version"] == 1
    recs = doc["records"]
    assert len(recs) == 6
    keys = {"board", "mode", "direction", "placement", "bytes_per_bd", "bds", "cycles", "trials", "latency_ns",
            "throughput_mbps", "simulated_ns", "wall_s"}
    assert keys <= set(recs[0])
    assert set(recs[0]["latency_ns"]) == {"median", "min", "max"}
    assert all(r["throughput_mbps"]["min"] <= r["throughput_mbps"]["median"] <= r["throughput_mbps"]["max"]
               for r in recs)
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == 6 and "throughput_mbps_median" in rows[0]
    for name in ("fig5_latency.png", "fig6_throughput_bands.png", "fig7_median_throughput.png"):
        assert (tmp_path / "fig" / name).stat().st_size > 10_000


@pytest.mark.parametrize("args, message", [
    (["--bytes-per-bd", "2^27"], "length width"),
    (["--board", "pg021", "--bytes-per-bd", "16384"], "at most 16383"),
    (["--bds", "70000"], "BD region"),
    (["--bytes-per-bd", "1MiB", "--bds", "512"], "buffer region"),
    (["--mode", "simple", "--bds", "4"], "simple mode has no BD ring"),
    (["--direction", "s2mm", "--cycles", "4"], "cyclic mode"),
    (["--bytes-per-bd", "3..9"], "powers of two"),
])
def test_refused_up_front(args, message):
    res = CliRunner().invoke(main, ["characterize", "--trials", "1"] + args)
    assert res.exit_code != 0
    assert message in res.output


def test_random_placement_and_s2mm_and_simple_run():
    for setup, pts in ((ch.Setup(placement="random", trials=3), [ch.Point(256, 64)]),
                       (ch.Setup(direction="s2mm", trials=2), [ch.Point(4096, 8)]),
                       (ch.Setup(mode="simple", trials=2), [ch.Point(8192, 1)]),
                       (ch.Setup(board="zynq7000", trials=2), [ch.Point(4096, 16)])):
        (rec,) = ch.sweep(setup, pts)
        assert rec.latency_ns["min"] > 0 and rec.throughput_mbps["median"] > 0


def test_random_placement_does_not_degrade_throughput():
    """S0: buffers at discontiguous addresses do not degrade throughput."""
    seq, rnd = (next(iter(ch.sweep(ch.Setup(placement=pl, trials=20), [ch.Point(4096, 256)])))
                for pl in ("sequential", "random"))
    assert rnd.throughput_mbps["median"] >= 0.97 * seq.throughput_mbps["median"]


def test_parse_list():
    assert ch.parse_list("2^5..2^7") == [32, 64, 128]
    assert ch.parse_list("32..128,4K") == [32, 64, 128, 4096]
    with pytest.raises(ValueError):
        ch.parse_list("abc")


def test_consumer_back_pressure_sets_the_stream_rate():
    """A consumer taking one beat every other clock halves the stream rate."""
    import numpy as np

    import sgdma

    def rate(**kw):
        b = sgdma.VirtualBoard("zcu111", seed=0, timing_only=True, **kw)
        dma = sgdma.AxiDma(b)
        dma.reset()
        ring = dma.mm2s.ring(8)
        buf = b.allocate(8 * 8192)
        ring.fill(buf.physical_address + np.arange(8, dtype=np.uint64) * 8192, np.full(8, 8192, np.uint32),
                  np.r_[np.full(7, 0), 2].astype(np.uint8) | np.r_[1, np.zeros(7)].astype(np.uint8))
        ring.submit()
        b.run_until_quiet()
        (pkt,) = b.mm2s_sink.timing()
        return 8 * 8192 / (pkt["last_ns"] - pkt["first_ns"] + 1e3 / b.axi_dma.clock_mhz) * 1e3

    full = rate()
    half = rate(consumer_rate=0.5)
    assert full == pytest.approx(32 * 333.0, rel=0.01)
    assert half == pytest.approx(full / 2, rel=0.02)
    # a deeper consumer FIFO lets its first beats leave at full rate, then the consumer sets the pace
    deep = rate(consumer_rate=0.5, consumer_fifo_beats=64)
    assert half < deep < half * (1 + 2 * 64 / (8 * 8192 / 32))


def test_bd_create_command(tmp_path):
    out = tmp_path / "bd.json"
    res = CliRunner().invoke(main, ["characterize", "bd-create", "--samples", "2000", "--bds", "1,256",
                                    "--json", str(out), "--plot", str(tmp_path / "p")])
    assert res.exit_code == 0, res.output
    recs = json.loads(out.read_text())
    assert {r["cpu"] for r in recs} == {"apu", "rpu"} and len(recs) == 4
    assert "faster than the RPU" in res.output
    assert (tmp_path / "p" / "bd_create_hist_apu.png").exists()
    bad = CliRunner().invoke(main, ["characterize", "bd-create", "--board", "zynq7000", "--cpu", "rpu"])
    assert bad.exit_code != 0 and "no CPU 'rpu'" in bad.output
