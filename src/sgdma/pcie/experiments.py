"""XAPP1289's experiments on the virtual board: throughput against packet size for every link configuration
(seen by both APMs), PS-DDR read bandwidth for C2S, root DMA vs endpoint DMA, single-packet latency."""
from __future__ import annotations

from sgdma.board.virtual import VirtualBoard
from sgdma.hw import units
from sgdma.hw import pcie as _contract
from sgdma.driver.pciedma import PcieDma
from sgdma.pcie.link import parse_link, raw_mbps

PSDMA_SD_MAX_BYTES = _contract.C["PSDMA_SD_MAX_BYTES"]     # one SRC element's 24-bit byte count


def parse_size(text, maximum: int = PSDMA_SD_MAX_BYTES) -> int:
    """A packet size in the one unit grammar (sgdma.hw.units: 64, 4K, 4KiB, 2^12), 1 .. the 24-bit byte count."""
    return units.parse_size(text, "packet size", 1, maximum)


def parse_sizes(text, maximum: int = PSDMA_SD_MAX_BYTES) -> list[int]:
    """'64..4M' -> doublings from 64 to 4 MiB; '64,4K,2^12' -> a list; each 1 .. the 24-bit byte count."""
    if isinstance(text, str) and ".." in text:
        lo, hi = (parse_size(t, maximum) for t in text.split("..", 1))
        if hi < lo:
            raise ValueError(f"packet sizes {text!r}: need 1 <= low <= high")
        out, s = [], lo
        while s <= hi:
            out.append(s)
            s *= 2
        return out
    out = [parse_size(t, maximum) for t in str(text).split(",") if t.strip()]
    if not out:
        raise ValueError(f"packet sizes {text!r}: give at least one size")
    return out


def _board(link: str, preset: str, seed: int) -> VirtualBoard:
    gen, lanes = parse_link(link)
    return VirtualBoard(preset, seed=seed, options={"pcie.gen": gen, "pcie.lanes": lanes})


def _record(link, run, gen, lanes, board) -> dict:
    s = run.seconds
    ps, ep = run.apm_ps, run.apm_ep
    return {
        "link": link, "direction": run.direction, "endpoint_dma": run.endpoint_dma, "packet": run.packet,
        "count": run.count, "seconds": s,
        "ep_ddr_mbps": (ep["wr_class"]["data"] + ep["rd_class"]["data"]) / s / 1e6,
        "ps_ddr_rd_mbps": ps["rd_bytes"] / s / 1e6, "ps_ddr_wr_mbps": ps["wr_bytes"] / s / 1e6,
        "ps_ddr_rd_elements_mbps": ps["rd_class"]["elements"] / s / 1e6,
        "ps_ddr_rd_cpu_mbps": ps["rd_class"]["cpu"] / s / 1e6,
        "ps_ddr_rd_data_mbps": ps["rd_class"]["data"] / s / 1e6,
        "link_raw_mbps": raw_mbps(gen, lanes), "link_model_mbps": run.link["rate_mbps"],
        "link_payload": list(run.link["payload"]), "link_wire_bytes": list(run.link["wire_bytes"]),
        "mps": int(board.option("pcie.mps")), "rcb_ep": int(board.option("pcie.rcb_ep")),
        "rcb_root": int(board.option("pcie.rcb_root")),
        "irqs": run.irqs,
    }


def packets_for(size: int, total_bytes: int = 8 << 20, lo: int = 16, hi: int = 1024) -> int:
    return max(lo, min(hi, total_bytes // size))


#: Work bound of one experiment, checked before anything runs: payload bytes the DMA moves, summed over every run.
#: Assumed: the model moves ~0.6 GB of payload per host second on a 2-core VM, so the limit is about a minute;
#: the default sweep with --endpoint-dma moves 4.4 GB (6.5 s measured).
MAX_WORK_BYTES = 32 << 30


def check_work(moved: int, runs: str, fewer: str) -> None:
    """Refuse an experiment that would move more than MAX_WORK_BYTES (ValueError, before any run)."""
    if moved > MAX_WORK_BYTES:
        raise ValueError(f"{runs} move {moved / 1e9:.3g} GB of payload, over the limit of "
                         f"{MAX_WORK_BYTES / 1e9:.3g} GB (about a minute of simulation); {fewer}")


def sweep(links, directions, sizes, endpoint_dma: bool = False, preset: str = "zcu102", seed: int = 0,
          total_bytes: int = 8 << 20, channel: int = 0) -> list[dict]:
    """Throughput against packet size: one fresh board per link configuration, the queue kept full."""
    engines = 2 if endpoint_dma else 1
    check_work(len(links) * len(directions) * engines * sum(s * packets_for(s, total_bytes) for s in sizes),
               f"{len(links)} link(s) x {len(directions)} direction(s) x {engines} engine(s) x {len(sizes)} "
               f"packet size(s)", "fewer --link, --direction or --packet-size")
    out = []
    for link in links:
        gen, lanes = parse_link(link)
        board = _board(link, preset, seed)
        dma = PcieDma(board)
        for engine in ([False, True] if endpoint_dma else [False]):
            for d in directions:
                ch = dma.channel(channel, d, endpoint_dma=engine)
                for size in sizes:
                    run = ch.run(size, packets_for(size, total_bytes), poll_us=1000.0)
                    out.append(_record(link, run, gen, lanes, board))
    return out


def latency(links, directions, sizes, iterations: int = 8, preset: str = "zcu102", seed: int = 0) -> list[dict]:
    """Single-packet latency, software start to completion interrupt, averaged over iterations (new seed each:
    DDR refresh phases differ), for the root DMA and the endpoint DMA."""
    check_work(len(links) * len(directions) * 2 * iterations * sum(sizes),
               f"{len(links)} link(s) x {len(directions)} direction(s) x 2 engines x {iterations} iterations of "
               f"{len(sizes)} packet size(s)", "fewer --iterations, --link, --direction or --packet-size")
    out = []
    for link in links:
        board = _board(link, preset, seed)
        dma = PcieDma(board)
        for engine in (False, True):
            for d in directions:
                ch = dma.channel(0, d, endpoint_dma=engine)
                for size in sizes:
                    lat = []
                    for i in range(iterations):
                        board.reseed(seed * 1000 + i)
                        lat.append(ch.run(size, 1).latency_ns)
                    out.append({"link": link, "direction": d, "endpoint_dma": engine, "packet": size,
                                "latency_ns": sum(lat) / len(lat), "latency_min_ns": min(lat),
                                "latency_max_ns": max(lat), "iterations": iterations})
    return out
