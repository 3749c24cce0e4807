"""The sequence layer's memory map: S0's layout (RPMsg area, BD-ring region,
segment region) from the board preset's [layout], with one first-fit allocator
per region.

Allocations are made lazily in board memory at the address the region allocator
picks (``board.allocate(physical_address=...)``), so the numpy view, cache
maintenance and the board's own bookkeeping all work as for any buffer.  A hole
returns to its region when the last numpy view of it dies — the same moment the
board frees it — so memory someone still holds (e.g. ``ring.bds``) is never
handed out twice.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from sgdma.board.virtual import PhysicalArray, VirtualBoard, _Allocator
from sgdma.hw import pg021 as P
from sgdma.hw.layout import Layout
from sgdma.sequence.errors import RegionExhaustedError

BD_BYTES = P.BD_SIZE          # one BD (the contract)
CACHE_LINE = 64


def _root(arr: np.ndarray) -> object:
    """The object that owns an array's memory (what the board's finalizer watches)."""
    while isinstance(arr, np.ndarray) and arr.base is not None:
        arr = arr.base
    return arr


@dataclass(frozen=True)
class RegionUsage:
    name: str
    base: int
    size: int
    used: int
    free: int
    largest_hole: int
    allocations: int

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class Region:
    """One region of the map: a first-fit allocator that places board buffers."""

    def __init__(self, board: VirtualBoard, name: str, base: int, size: int, align: int, fix: str):
        self.board, self.name, self.align, self._fix = board, name, align, fix
        self._alloc = _Allocator(name, base, size)

    @property
    def base(self) -> int:
        return self._alloc.base

    @property
    def size(self) -> int:
        return self._alloc.size

    def reserve(self, nbytes: int) -> int:
        """An address of ``nbytes`` free bytes (the caller places its buffer there)."""
        try:
            return self._alloc.alloc(nbytes, self.align)
        except MemoryError:
            u = self.usage()
            raise RegionExhaustedError(self.name, nbytes, u.free, u.largest_hole, self._fix) from None

    def unreserve(self, addr: int) -> None:
        """Give back an address whose buffer was never created."""
        self._alloc.release(addr)

    def release_when_dead(self, arr: np.ndarray, addr: int) -> None:
        """Return ``addr`` to the region when the last view of ``arr`` dies."""
        weakref.finalize(_root(arr), self._alloc.release, addr)

    def allocate(self, nbytes: int) -> PhysicalArray:
        """A uint8 buffer of ``nbytes`` in this region."""
        addr = self.reserve(nbytes)
        try:
            arr = self.board.allocate(nbytes, np.uint8, align=self.align, physical_address=addr)
        except MemoryError as e:         # someone allocated inside the region behind the map's back
            self.unreserve(addr)
            u = self.usage()
            raise RegionExhaustedError(self.name, nbytes, u.free, u.largest_hole,
                                       f"board memory at 0x{addr:x} is taken outside the MemoryMap ({e}); "
                                       f"allocate sequence memory only through the MemoryMap") from None
        self.release_when_dead(arr, addr)
        return arr

    def usage(self) -> RegionUsage:
        a = self._alloc
        free = a.bytes_free
        return RegionUsage(self.name, a.base, a.size, a.size - free, free,
                           max((n for _, n in a.free), default=0), len(a.used))


class MemoryMap:
    """S0's memory map on one board: ``rpmsg`` area, ``rings`` region, ``segments`` region.

    ``layout`` defaults to the preset's [layout] (``Layout.of(board)``); pass a
    ``sgdma.layout.Layout`` to configure another split.
    """

    def __init__(self, board: VirtualBoard, layout: Layout | None = None):
        self.board = board
        self.layout = layout or Layout.of(board)
        lay = self.layout
        self._check(lay)
        word = board.axi_dma.data_bytes
        self.rings = Region(board, "BD-ring region", lay.bd_base, lay.bd_bytes, BD_BYTES,
                            "free rings you no longer play (Sequencer.free), compile shorter circuits, or "
                            "enlarge [layout] bd_region_bytes in the board preset")
        self.segments = Region(board, "segment region", lay.buffer_base, lay.buffer_bytes, max(CACHE_LINE, word),
                               "reuse segments (equal bytes are stored once), free unused ones, or enlarge "
                               "[layout] buffer_region_bytes in the board preset")
        self._rpmsg: PhysicalArray | None = None

    def _check(self, lay: Layout) -> None:
        if lay.bd_bytes % BD_BYTES or lay.bd_base % BD_BYTES:
            raise ValueError(f"[layout] BD region 0x{lay.bd_base:x}+{lay.bd_bytes}: base and size must be "
                             f"multiples of {BD_BYTES} bytes (one BD)")
        end = lay.buffer_base + lay.buffer_bytes
        bases = {name: (base, size) for name, base, size in self.board.regions}
        base, size = bases[lay.region]
        if lay.rpmsg < base or end > base + size:
            raise ValueError(f"[layout] 0x{lay.rpmsg:x}-0x{end - 1:x} does not fit DDR region {lay.region!r} "
                             f"0x{base:x}-0x{base + size - 1:x}: shrink the [layout] sizes or the offset")

    @property
    def max_bds(self) -> int:
        """BDs the ring region holds in total (2^16 for S0's 4 MiB)."""
        return self.layout.bd_bytes // BD_BYTES

    @property
    def rpmsg(self) -> PhysicalArray:
        """The RPMsg shared-memory area (allocated on first use)."""
        if self._rpmsg is None:
            self._rpmsg = self.board.allocate(self.layout.rpmsg_bytes, np.uint8,
                                              physical_address=self.layout.rpmsg)
        return self._rpmsg

    def usage(self) -> dict[str, dict]:
        lay = self.layout
        rpmsg_used = lay.rpmsg_bytes if self._rpmsg is not None else 0
        return {"rpmsg": RegionUsage("RPMsg area", lay.rpmsg, lay.rpmsg_bytes, rpmsg_used,
                                     lay.rpmsg_bytes - rpmsg_used, lay.rpmsg_bytes - rpmsg_used,
                                     int(rpmsg_used > 0)).as_dict(),
                "rings": self.rings.usage().as_dict(), "segments": self.segments.usage().as_dict()}
