"""PCIe sweep: what binds each packet size.  Each point is replayed with one resource relaxed: the driver
(1 ns CPU register accesses), read round trips (4x the read tags in flight, no PHY/bridge latency) and the
DMA engine (4x transactions in flight).  The relaxation that lifts the throughput most binds; if none
lifts it and the throughput is within 10 % of the link's arithmetic ceiling (raw rate x payload / wire
bytes of this run's TLPs), the link binds; otherwise no single resource does ("mixed")."""
from __future__ import annotations

from sgdma.board.virtual import VirtualBoard
from sgdma.driver.pciedma import PcieDma
from sgdma.experiments.limits import LIFT
from sgdma.pcie.experiments import packets_for
from sgdma.pcie.link import parse_link

RELAX = {
    "driver work per packet": {"cpu.mmio_read_ns": 1.0, "cpu.mmio_write_ns": 1.0},
    "read round trips": {"pcie.read_tags": "x4", "pcie.phy_ns": 0.0, "pcie.rp_bridge_ns": 0.0,
                         "pcie.ep_bridge_ns": 0.0},
    "DMA engine": {"pcie.dma_outstanding": "x4"},
}
LINK_SHARE = 0.9


def ceiling_mbps(rec: dict) -> float:
    """The link's arithmetic ceiling for this run: the model's link rate x payload share of the wire bytes in the
    direction that carried the data."""
    i = max(range(len(rec["link_payload"])), key=lambda k: rec["link_payload"][k])
    wire = rec["link_wire_bytes"][i]
    return rec["link_model_mbps"] * rec["link_payload"][i] / wire if wire else rec["link_model_mbps"]


def _run(rec: dict, preset: str, seed: int, relax: dict) -> float:
    gen, lanes = parse_link(rec["link"])
    plain = VirtualBoard(preset, seed=seed, options={"pcie.gen": gen, "pcie.lanes": lanes})
    opts = {"pcie.gen": gen, "pcie.lanes": lanes}
    for k, v in relax.items():
        opts[k] = plain.option(k) * 4 if v == "x4" else v
    b = VirtualBoard(preset, seed=seed, options=opts)
    ch = PcieDma(b).channel(0, rec["direction"], endpoint_dma=rec["endpoint_dma"])
    run = ch.run(rec["packet"], packets_for(rec["packet"]), poll_us=1000.0)
    ep = run.apm_ep
    return (ep["wr_class"]["data"] + ep["rd_class"]["data"]) / run.seconds / 1e6


def analyse(records: list[dict], preset: str = "zcu102", seed: int = 0) -> list[dict]:
    out = []
    for r in records:
        lifts = {n: _run(r, preset, seed, relax) / r["ep_ddr_mbps"] for n, relax in RELAX.items()}
        top = max(lifts, key=lifts.get)
        ceil = ceiling_mbps(r)
        if lifts[top] >= LIFT:
            name = top
        elif r["ep_ddr_mbps"] >= LINK_SHARE * ceil:
            name = "link"
        else:
            name = "mixed"
        out.append({"binding": name, "lift": lifts, "link_ceiling_mbps": ceil})
    return out
