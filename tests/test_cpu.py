"""CPU cost model (sgdma.cpu) and S0's BD-creation experiment (sgdma.bdcreate) against S0's published shape."""
import json

import numpy as np
import pytest

from sgdma.experiments import bdcreate as bc
from sgdma.hw import presets
from sgdma.models.cpu import CpuModel, available, bd_fields

SAMPLES = 100_000          # S0 Fig. 10: 100 000 samples


@pytest.fixture(scope="module")
def apu():
    return bc.run("zcu111", "apu", samples=SAMPLES, seed=0)


@pytest.fixture(scope="module")
def rpu():
    return bc.run("zcu111", "rpu", samples=SAMPLES, seed=0)


def by_bds(records, n):
    return next(r for r in records if r["bds"] == n)


# -- determinism ----------------------------------------------------------------------
@pytest.mark.parametrize("cpu", ["apu", "rpu"])
def test_same_seed_same_samples(cpu):
    m = CpuModel.for_board("zcu111", cpu)
    a = m.samples(16, 5000, np.random.default_rng(7))
    b = m.samples(16, 5000, np.random.default_rng(7))
    c = m.samples(16, 5000, np.random.default_rng(8))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert m.bd_create_ns(16, np.random.default_rng(7)) == m.samples(16, 1, np.random.default_rng(7))[0]


def test_run_is_deterministic():
    one = bc.run("zcu111", "apu", bds=[1, 64], samples=2000, seed=3)
    two = bc.run("zcu111", "apu", bds=[64, 1], samples=2000, seed=3)      # order does not matter
    assert json.dumps(one) == json.dumps(sorted(two, key=lambda r: r["bds"]))
    assert json.dumps(one) != json.dumps(bc.run("zcu111", "apu", bds=[1, 64], samples=2000, seed=4))


# -- S0's figures ---------------------------------------------------------------------------
def test_apu_best_case_in_s0_band(apu):
    """S0 Fig. 10: best case 0.1-0.25 us per BD (once the ring's fixed cost is amortised)."""
    for r in apu:
        if r["bds"] >= 16:
            assert bc.S0_APU_BEST_NS[0] <= r["per_bd_ns"]["min"] <= bc.S0_APU_BEST_NS[1], r["per_bd_ns"]


def test_apu_rare_stalls_reach_tens_of_us_but_median_small(apu):
    r = by_bds(apu, 1)
    s = r["per_bd_ns"]
    assert 10_000 <= s["max"] <= 32_000          # S0: stalls of up to ~30 us
    assert s["median"] < 1_000 and s["p99"] < 2_000
    edges, counts = np.array(r["histogram"]["edges_ns"]), np.array(r["histogram"]["counts"])
    slow = counts[edges[:-1] >= 5_000].sum() + r["histogram"]["above"]
    assert 0 < slow < 0.001 * SAMPLES            # rare


def _separated_peaks(counts, floor, dip=0.1):
    """Local maxima above `floor` with a bin below `dip` x the smaller one between neighbours."""
    peaks = [i for i in range(len(counts)) if counts[i] >= floor
             and counts[i] >= counts[max(i - 1, 0)] and counts[i] >= counts[min(i + 1, len(counts) - 1)]]
    kept = peaks[:1]
    for p in peaks[1:]:
        if counts[kept[-1]:p].min() < dip * min(counts[kept[-1]], counts[p]):
            kept.append(p)
        elif counts[p] > counts[kept[-1]]:
            kept[-1] = p
    return kept


def test_apu_distribution_is_multimodal_rpu_is_not(apu, rpu):
    """S0 Fig. 10: 'BD creation time was not observed to smoothly transition'."""
    a = np.array(by_bds(apu, 1)["histogram"]["counts"])
    r = np.array(by_bds(rpu, 1)["histogram"]["counts"])
    assert len(_separated_peaks(a, 0.001 * SAMPLES)) >= 2
    assert len(_separated_peaks(r, 0.001 * SAMPLES)) == 1


def test_apu_median_5_to_9x_faster_than_rpu(apu, rpu):
    rows = bc.compare(apu, rpu)
    assert [row["bds"] for row in rows] == list(bc.DEFAULT_BDS)
    for row in rows:
        assert 5.0 <= row["apu_speedup"] <= 9.0, row
        assert row["within_s0"]


def test_rpu_low_variability(apu, rpu):
    for r in rpu:
        s = r["per_bd_ns"]
        assert (s["p99"] - s["p1"]) / s["median"] < 0.05, (r["bds"], s)
        assert s["max"] < 1.1 * s["median"]
    s = by_bds(apu, 1)["per_bd_ns"]
    assert (s["p99"] - s["p1"]) / s["median"] > 0.3           # the APU's spread is the contrast


# -- measured through the board -------------------------------------------------------
@pytest.mark.parametrize("board, cpu", [("zcu111", "apu"), ("zcu111", "rpu"), ("zcu102", "rpu"),
                                        ("zynq7000", "apu")])
def test_gpio_csm_path_equals_vectorised(board, cpu):
    model = CpuModel.for_board(board, cpu)
    vb = bc.board_for(board, model)
    costs = model.samples(4, 12, np.random.default_rng(11))
    costs = np.concatenate([costs, [0.0, 0.0005, 1.5015, 3.003]])     # rounding edges
    release = []
    e2e = [bc.measure(vb, float(c), release) for c in costs]
    assert e2e == bc.setup_clocks(vb, costs, release).tolist()


def test_records_carry_the_end_to_end_samples(apu):
    model = CpuModel.for_board("zcu111", "apu")
    vb = bc.board_for("zcu111", model)
    for r in apu:
        costs = model.samples(r["bds"], SAMPLES, bc._rng(0, "apu", r["bds"]))
        e2e = r["end_to_end"]
        assert e2e["setup_clocks"] == bc.setup_clocks(vb, costs[:bc.END_TO_END], e2e["release_ps"]).tolist()
        assert r["end_to_end"]["samples"] == bc.END_TO_END


def test_gpio_writes_cost_the_creating_cpu():
    for cpu in ("apu", "rpu"):
        model = CpuModel.for_board("zcu111", cpu)
        vb = bc.board_for("zcu111", model)
        assert vb.option("cpu.mmio_write_ns") == model.mmio_write_ns


# -- mechanisms ----------------------------------------------------------------------------
def test_stores_are_counted_from_the_bd_layout():
    assert bd_fields(32) == ("nxtdesc", "buffer", "control", "status")
    assert len(bd_fields(64)) == 6 and len(bd_fields(32, app_words=5)) == 9
    plain, app = CpuModel.for_board("zcu111", "rpu"), CpuModel.for_board("zcu111", "rpu", app_words=5)
    store = plain.params["store_ns"]["value"]
    assert app.per_bd_ns - plain.per_bd_ns == pytest.approx(5 * store)
    assert plain.lines_per_bd == 2 and CpuModel.for_board("zcu111", "apu").lines_per_bd == 1   # 32 vs 64 B lines


def test_mapping_sets_the_store_cost():
    apu, rpu = CpuModel.for_board("zcu111", "apu"), CpuModel.for_board("zcu111", "rpu")
    assert (apu.mapping, rpu.mapping) == ("cached", "device")
    assert rpu.store_bd_ns > 100 * apu.store_bd_ns          # a trip over the AXI port vs an L1 hit


def test_page_walks_follow_the_ring_layout():
    m = CpuModel.for_board("zcu111", "apu")
    assert m.ring_offset % 4096 == 2048                    # S0: rings after the 2048-byte RPMsg area
    assert m.pages(1) == 1 and m.pages(32) == 1 and m.pages(33) == 2 and m.pages(4096) == 65
    assert CpuModel.for_board("zcu111", "rpu").pages(4096) == 0     # no MMU, no OS


def test_bare_metal_has_no_os_noise():
    m = CpuModel.for_board("zcu111", "rpu")
    e = m.expected(4096)
    assert e["ticks"] == e["stalls"] == e["page_walks"] == 0.0
    x = m.samples(1, 20_000, np.random.default_rng(0))
    assert abs(np.median(x) - m.base_ns(1)) < 1.0


def test_mailbox_access_costs():
    for cpu in ("apu", "rpu"):
        m = CpuModel.for_board("zcu111", cpu)
        assert m.ddr_load_ns > m.mmio_read_ns > 0 and m.ddr_store_ns > 0 and m.mmio_write_ns > 0
    board_cpu = presets.load("zcu111")["cpu"]           # the board's default CPU is S0's R5
    rpu = CpuModel.for_board("zcu111", "rpu")
    assert rpu.mmio_read_ns == board_cpu["mmio_read_ns"]["value"]
    assert rpu.mmio_write_ns == board_cpu["mmio_write_ns"]["value"]


def test_describe_gives_every_parameter_a_source():
    for board in ("zcu111", "zcu102", "zynq7000"):
        for cpu in available(board):
            d = CpuModel.for_board(board, cpu).describe()
            assert d["parameters"] and all(p["source"].strip() for p in d["parameters"].values())
            json.dumps(d)
    d = CpuModel.for_board("zcu111", "apu").describe()["parameters"]
    for key in ("bd_instructions", "stall_per_us", "stall_max_ns"):
        assert "calibrated" in d[key]["source"] and "S0" in d[key]["source"], key


# -- errors and outputs ------------------------------------------------------------------------
def test_cpu_the_board_lacks():
    assert available("zynq7000") == ["apu"] and available("pg021") == []
    with pytest.raises(ValueError, match=r"no CPU 'rpu'.*available CPUs: apu"):
        CpuModel.for_board("zynq7000", "rpu")
    with pytest.raises(ValueError, match=r"available CPUs: none"):
        CpuModel.for_board("pg021", "apu")
    with pytest.raises(ValueError, match=r"available CPUs: apu, rpu"):
        CpuModel.for_board("zcu111", "gpu")
    with pytest.raises(ValueError, match="no CPU"):
        bc.run("pg021", "apu", samples=10)


def test_bad_arguments():
    m = CpuModel.for_board("zcu111", "apu")
    with pytest.raises(ValueError):
        m.samples(0, 10, np.random.default_rng(0))
    with pytest.raises(ValueError):
        bc.run("zcu111", "apu", bds=[1 << 20], samples=10)
    with pytest.raises(ValueError):
        bc.run("zcu111", "apu", samples=0)


def test_records_are_json_and_plot(tmp_path, apu, rpu):
    records = json.loads(json.dumps(apu + rpu))
    r = records[0]
    assert set(r["per_bd_ns"]) == {"median", "min", "max", "p1", "p99"}
    assert sum(r["histogram"]["counts"]) + r["histogram"]["below"] + r["histogram"]["above"] == SAMPLES
    paths = bc.plot(records, tmp_path / "figs")
    assert [p.name for p in paths] == ["bd_create_per_bd.png", "bd_create_hist_apu.png", "bd_create_hist_rpu.png"]
    assert all(p.stat().st_size > 10_000 for p in paths)
