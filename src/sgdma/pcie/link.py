"""PCIe Gen1/Gen2 link arithmetic (reference zynqmp-pcie-dma.md sec. 7): upper bounds for the measured figures.

Overheads come from the contract header through the binding (``sgdma.hw.pcie``), never retyped.
"""
from __future__ import annotations

import re

from sgdma.hw import pcie as hw

GTS = {1: 2.5, 2: 5.0}
LINKS = [f"gen{g}x{w}" for g in (1, 2) for w in (1, 2, 4)]


def parse_link(text: str) -> tuple[int, int]:
    """'gen2x4' -> (2, 4); ValueError naming the rule otherwise."""
    m = re.fullmatch(r"gen([12])x([124])", text.strip().lower())
    if not m:
        raise ValueError(f"link {text!r}: use gen1x1, gen1x2, gen1x4, gen2x1, gen2x2 or gen2x4 "
                         f"(the PS-PCIe controller trains Gen1/Gen2 at x1, x2 or x4)")
    return int(m.group(1)), int(m.group(2))


def raw_mbps(gen: int, lanes: int) -> float:
    """Per direction after 8b/10b: lanes x GT/s x 8/10 / 8 bits, in MB/s."""
    return lanes * GTS[gen] * 1e3 * hw.PCIE_8B10B_NUM / hw.PCIE_8B10B_DEN / 8


def write_bound_mbps(gen: int, lanes: int, mps: int) -> float:
    """Posted writes of MPS-sized TLPs with a 3-DW header: raw x MPS / (MPS + 20)."""
    return raw_mbps(gen, lanes) * mps / (mps + hw.PCIE_TLP_OVERHEAD_3DW)


def completions(request: int, mps: int, rcb: int, addr: int = 0) -> list[int]:
    """Payload of each completion for one read request: up to MPS bytes each, every one but the last ending on an
    RCB boundary (PG194 "Completion Packets")."""
    out, a, end = [], addr, addr + request
    while a < end:
        k = end - a
        if k > mps:
            k = (a + mps) // rcb * rcb - a
        out.append(k)
        a += k
    return out


def read_bound_mbps(gen: int, lanes: int, mps: int, rcb: int, request: int = 512) -> float:
    """Reads of `request` bytes (aligned) returned as completions of up to MPS bytes with the RCB observed, each
    with a 3-DW header: raw x payload / wire bytes."""
    c = completions(request, mps, rcb)
    return raw_mbps(gen, lanes) * request / (request + len(c) * hw.PCIE_TLP_OVERHEAD_3DW)
