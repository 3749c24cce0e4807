"""LinuxBoard: a real AXI DMA under Linux with the VirtualBoard's API
(``mmio``, ``allocate``, ``axi_dma``, ``option``), so ``sgdma.AxiDma`` runs on it."""
from __future__ import annotations

import weakref

import numpy as np

from sgdma import _core
from sgdma.board import checks
from sgdma.board.threads import Owner
from sgdma.board.virtual import MMIO, MMIO_SPAN, AxiDmaBlock, PhysicalArray, VirtualBoard, _Allocator
from sgdma.hw import pg021 as P
from sgdma.hw import presets

from .identify import check_axi_dma

#: PG021's IP defaults: what a DMA is unless the preset or the caller says otherwise.
PG021_DEFAULTS = {"addr_width": 32, "length_width": 14, "data_width": 32, "max_burst": 16, "has_dre": False,
                  "clock_mhz": 100.0}
#: Options a LinuxBoard answers without a preset.  Used only to turn a wait's
#: timeout into a bound on register reads (the wait itself is wall-clock).
DEFAULT_OPTIONS = {"cpu.mmio_read_ns": 200.0}   # assumed: one uncached AXI-Lite read through the PS (~0.2 us)


class LinuxBoard:
    """An AXI DMA on a Linux board.

    ``dma``: UIO device name (``/sys/class/uio/uioN/name``) or a physical
    address (``"0xA0000000"``: /dev/mem).  ``buffers``: u-dma-buf name or
    ``"0xADDR:SIZE"`` (a /dev/mem reserved-memory carve-out).  ``cache``:
    ``sync`` (cached, u-dma-buf syncs), ``uncached`` (strongly ordered: u-dma-buf
    sync_mode 1 or a carve-out), ``writecombine`` (u-dma-buf sync_mode 2 or 3:
    Normal non-cacheable, as dma_alloc_coherent's mapping) or ``coherent``.
    ``mm2s_irq`` / ``s2mm_irq``: UIO devices whose interrupt is that channel's
    (generic-uio serves the first interrupt of a node; without them the
    driver polls).  ``preset`` supplies the DMA's build (widths); keyword
    overrides ``addr_width``, ``length_width``, ``data_width``, ``has_dre``.
    ``registers``: an object with ``read32``/``write32`` serving the register
    window instead of the mmap (a simulation; the fake-root tests use a
    VirtualBoard).
    """

    def __init__(self, dma: str = "axi_dma_0", buffers: str | None = "udmabuf0", cache: str = "sync",
                 mm2s_irq: str | None = None, s2mm_irq: str | None = None, preset: str | None = None,
                 registers=None, **overrides):
        unknown = set(overrides) - set(PG021_DEFAULTS)
        if unknown:
            raise TypeError(f"unknown LinuxBoard option(s) {', '.join(sorted(unknown))}; "
                            f"known: {', '.join(sorted(PG021_DEFAULTS))}")
        self.preset = preset
        self._options = dict(DEFAULT_OPTIONS)
        build = dict(PG021_DEFAULTS)
        if preset is not None:
            doc = presets.load(preset)
            build.update({k: doc["dma"][k]["value"] for k in build if k in doc.get("dma", {})})
            self._options.update({f"cpu.{k}": v["value"] for k, v in doc.get("cpu", {}).items()
                                  if isinstance(v, dict) and "value" in v})
        build.update(overrides)
        checks.dma_build(build)                       # refused before any device is opened
        self._b = _core.LinuxPlatform(dma, buffers, cache, mm2s_irq, s2mm_irq, registers)
        info = self._b.info()
        self._info = info
        base = info["registers"]["addr"]
        regs = info["registers"]
        try:
            check_axi_dma(self._b.read32, base, f"dma={dma} (UIO device \"{regs['name']}\")"
                          if not str(dma).lower().startswith("0x") else f"dma={dma} (/dev/mem)")
        except ValueError:
            self._b.close()
            raise
        sr = self._b.read32(base + P.channel_offset("mm2s") + P.DMASR)
        self.axi_dma = AxiDmaBlock(base=base, include_sg=bool(sr & P.SR_SGINCLD), addr_width=int(build["addr_width"]),
                                   length_width=int(build["length_width"]), data_width=int(build["data_width"]),
                                   max_burst=int(build["max_burst"]), has_dre=bool(build["has_dre"]),
                                   clock_mhz=float(build["clock_mhz"]))
        self._alloc: dict[str, _Allocator] = {}
        self._owner: dict[int, tuple] = {}
        self._freed: dict[int, int] = {}              # freed buffers: dead until their last view dies
        self._rings = weakref.WeakSet()               # driver rings (buffer-lifetime checks)
        self._thread_owner = Owner()                  # one thread drives a board, as on the virtual one
        buf = info["buffer"]
        if buffers is not None:
            self._alloc[buf["name"]] = _Allocator(buf["name"], buf["phys"], buf["size"])
            self._host = memoryview(self._b).cast("B")
        self.default_region = buf["name"] if buffers is not None else None
        self._claimed: set[str] = set()

    # -- identity --------------------------------------------------------------------
    @property
    def name(self) -> str:
        return f"linux:{self._info['registers']['name']}"

    def option(self, key: str) -> float:
        if key not in self._options:
            raise KeyError(f"option {key!r} is not known on a LinuxBoard (give preset=...)")
        return float(self._options[key])

    @property
    def regions(self) -> list[tuple[str, int, int]]:
        return [(a.name, a.base, a.size) for a in self._alloc.values()]

    def info(self) -> dict:
        """What was opened, with the u-dma-buf sync and interrupt counters."""
        return self._b.info()

    # -- registers ---------------------------------------------------------------------
    def mmio(self, base: int, length: int = MMIO_SPAN) -> MMIO:
        return MMIO(self, base, length)

    def read32(self, addr: int) -> int:
        checks.is_open(self)
        return self._b.read32(checks.address(addr))

    def write32(self, addr: int, value: int) -> None:
        checks.is_open(self)
        self._b.write32(checks.address(addr), checks.word32(value))

    def irq_pending(self, channel: str) -> bool:
        """The channel's interrupt line as DMASR and DMACR show it (IRQ bits AND enables)."""
        base = self.axi_dma.base + P.channel_offset(channel)
        sr, cr = self._b.read32(base + P.DMASR), self._b.read32(base + P.DMACR)
        return bool(sr & P.SR_IRQ_ALL & (cr & P.CR_IRQ_ALL))

    def dma_registers(self) -> dict:
        out = {}
        for ch in ("mm2s", "s2mm"):
            base = self.axi_dma.base + P.channel_offset(ch)
            cr, sr = self._b.read32(base + P.DMACR), self._b.read32(base + P.DMASR)
            out[ch] = {"DMACR": cr, "DMASR": sr, "DMACR_decoded": P.decode("dmacr", cr),
                       "DMASR_decoded": P.decode("dmasr", sr),
                       "CURDESC": self._b.read32(base + P.CURDESC) | self._b.read32(base + P.CURDESC_MSB) << 32,
                       "TAILDESC": self._b.read32(base + P.TAILDESC) | self._b.read32(base + P.TAILDESC_MSB) << 32}
        return out

    def _claim_channel(self, direction: str) -> None:
        """Refuse a second owner of the channel (another process or board object)."""
        if direction not in self._claimed:
            self._b.lock(0 if direction == "mm2s" else 1)
            self._claimed.add(direction)

    # -- memory ------------------------------------------------------------------------
    def allocate(self, shape, dtype=np.uint8, region: str | None = None, align: int = 64,
                 physical_address: int | None = None) -> PhysicalArray:
        """A zeroed numpy array carved out of the DMA buffer (like ``pynq.allocate``)."""
        checks.is_open(self)
        if not self._alloc:
            raise ValueError("this LinuxBoard has no DMA buffer: open it with buffers=NAME (a u-dma-buf)")
        dtype = np.dtype(dtype)
        nbytes = checks.nbytes_of(shape, dtype)
        align = checks.alignment(align)
        if physical_address is not None:
            physical_address = checks.address(physical_address, "physical_address")
        region = region or self.default_region
        if region not in self._alloc:
            raise ValueError(f"unknown region {region!r}: this board has {', '.join(self._alloc)}")
        alloc = self._alloc[region]
        try:
            addr = alloc.alloc(nbytes, align, physical_address)
        except MemoryError as e:
            raise MemoryError(f"{e}. The buffer is too small: make the u-dma-buf larger (e.g. "
                              f"`modprobe u-dma-buf {region}={max(2 * alloc.size, nbytes + alloc.size)}` or its "
                              "device-tree size property)") from None
        off = addr - alloc.base
        raw = np.frombuffer(self._host[off:off + max(nbytes, 1)], dtype=np.uint8)
        raw[:] = 0                         # CMA allocations are zeroed; PYNQ's code relies on it
        # Every view of raw has raw.base (numpy's own memoryview) as its base:
        # the allocation lives as long as any view of it.
        self._owner[addr] = (region, weakref.finalize(raw.base, self._release, addr, region))
        arr = raw[:nbytes].view(dtype).reshape(shape).view(PhysicalArray)
        arr._vb_board = self
        return arr

    # Buffer lifetimes follow the virtual board's rules exactly (one implementation).
    _free_at = VirtualBoard._free_at
    _release = VirtualBoard._release
    dma_user_of = VirtualBoard.dma_user_of
    check_dma_range = VirtualBoard.check_dma_range
    own = VirtualBoard.own
    physical_address_of = VirtualBoard.physical_address_of
    adopt = VirtualBoard.adopt
    region_of = VirtualBoard.region_of

    def _address_of_ptr(self, ptr: int) -> int | None:
        host = np.frombuffer(self._host, dtype=np.uint8).ctypes.data
        alloc = self._alloc[self.default_region]
        return alloc.base + (ptr - host) if host <= ptr < host + alloc.size else None

    def view(self, addr: int, nbytes: int) -> np.ndarray:
        checks.is_open(self)
        addr, nbytes = checks.address(addr), checks.size(nbytes, "nbytes")
        alloc = self._alloc[self.region_of(addr, nbytes)]
        return np.frombuffer(self._host[addr - alloc.base:addr - alloc.base + nbytes], dtype=np.uint8)

    def bytes_free(self, region: str | None = None) -> int:
        return self._alloc[region or self.default_region].bytes_free

    def close(self) -> None:
        """Unmap everything (arrays viewing the buffer must be gone); every later call raises BoardClosed."""
        self._host = None
        self._closed = True
        self._b.close()

    def __repr__(self) -> str:
        r, b = self._info["registers"], self._info["buffer"]
        return (f"LinuxBoard(dma={r['name']!r} at 0x{r['addr']:x}, buffers={b['name']!r} "
                f"0x{b['phys']:x}+{b['size']})")
