"""`sgdma plan`: decided by short runs of the timed model."""
import json

from click.testing import CliRunner

from sgdma.experiments import plan
from sgdma.cli import main


def test_s0_requirement_is_feasible_with_margin(tmp_path):
    out = tmp_path / "plan.json"
    res = CliRunner().invoke(main, ["plan", "--gate-time", "1us", "--bytes-per-gate", "32", "--json", str(out)])
    assert res.exit_code == 0, res.output
    p = json.loads(out.read_text())
    for key in ("feasible", "margin", "recommended_bytes_per_bd", "recommended_ring_bds", "reason"):
        assert key in p
    assert p["feasible"] is True and p["margin"] > 1.2       # S0: 32 MB/s needed, SG-DMA is "much better"
    assert p["recommended_bytes_per_bd"] == 32 and p["tried"]


def test_many_channels_need_bigger_bds():
    p = plan.plan(1000.0, 32, channels=8)
    assert p.feasible and p.recommended_gates_per_bd > 1
    assert p.achieved_mbps >= 1.2 * p.required_mbps


def test_impossible_demand_is_refused_with_the_reason():
    p = plan.plan(10.0, 64, channels=16)
    assert not p.feasible and p.margin < 1 and "MB/s" in p.reason
    # 16 x 64 B per 10 ns = 102 400 MB/s; the 256-bit stream at 333 MHz moves 32 B x 333 MHz = 10 656 MB/s
    assert p.reason.startswith("stream bandwidth") and p.tried == []          # decided before simulating
    res = CliRunner().invoke(main, ["plan", "--gate-time", "10ns", "--bytes-per-gate", "64", "--channels", "16"])
    assert res.exit_code == 1 and "NOT FEASIBLE" in res.output                 # a negative verdict
