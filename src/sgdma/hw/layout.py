"""Where rings and buffers live: S0's memory map (RPMsg area, BD-ring region,
buffer region) read from the board preset's [layout] section."""
from __future__ import annotations

from dataclasses import dataclass

from sgdma.hw import presets
from sgdma.hw.pg021 import BD_SIZE


@dataclass(frozen=True)
class Layout:
    region: str
    rpmsg: int          # base of the RPMsg shared memory
    rpmsg_bytes: int
    bd_base: int        # base of the BD-ring region
    bd_bytes: int
    buffer_base: int    # base of the buffer region
    buffer_bytes: int

    @classmethod
    def of(cls, board) -> "Layout":
        doc = presets.load(board.preset).get("layout")
        if doc is None:
            raise ValueError(f"board preset {board.preset!r} has no [layout] section")
        v = {k: item["value"] for k, item in doc.items()}
        bases = {name: base for name, base, _ in board.regions}
        if v["region"] not in bases:
            raise ValueError(f"[layout] region {v['region']!r} is not a DDR region of {board.preset!r}: "
                             f"{', '.join(bases)}")
        base = bases[v["region"]] + v["offset"]
        return cls(region=v["region"], rpmsg=base, rpmsg_bytes=v["rpmsg_bytes"],
                   bd_base=base + v["rpmsg_bytes"], bd_bytes=v["bd_region_bytes"],
                   buffer_base=base + v["rpmsg_bytes"] + v["bd_region_bytes"],
                   buffer_bytes=v["buffer_region_bytes"])

    @property
    def max_bds(self) -> int:
        return self.bd_bytes // BD_SIZE
