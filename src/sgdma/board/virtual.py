"""The virtual board from Python: PYNQ-shaped MMIO and allocate(), stream
endpoints, virtual time.  The model itself is C (csrc/vboard); this module only
wires it to numpy without copies.
"""
from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sgdma import _core
from sgdma.board import checks
from sgdma.board.fidelity import board_options
from sgdma.hw import presets
from sgdma.hw import pg021 as P
from sgdma.board.threads import ConcurrentUseError, Owner, single_threaded  # noqa: F401 (re-exported)

#: Keyword overrides accepted by VirtualBoard and the preset key each sets.
OVERRIDE_KEYS = {
    "include_sg": "dma.include_sg",
    "addr_width": "dma.addr_width",
    "length_width": "dma.length_width",
    "data_width": "dma.data_width",
    "max_burst": "dma.max_burst",
    "has_dre": "dma.has_dre",
    "dma_base": "dma.base",
    "dma_clock_mhz": "dma.clock_mhz",
    "gpio_base": "gpio.base",
    "loopback": "stream.loopback",
    "sink_record": "stream.sink_record",
    "mmio_read_ns": "cpu.mmio_read_ns",
    "mmio_write_ns": "cpu.mmio_write_ns",
    "sg_prefetch": "dma.sg_prefetch",
    "outstanding": "dma.outstanding",
    "fifo_bytes": "dma.fifo_bytes",
    "consumer_rate": "stream.consumer_rate",
    "consumer_fifo_beats": "stream.consumer_fifo_beats",
}

MMIO_SPAN = _core.constants["VB_DMA_SPAN"]      # a register window of the board


class BufferInUseError(RuntimeError):
    """freebuffer() of memory a submitted ring still hands to the DMA."""


class FreedBufferError(ValueError):
    """A freed buffer (or an address inside one) was given to the DMA or asked for its address."""


class ForeignBufferError(ValueError):
    """A buffer allocated on another board was given to this board's DMA."""


class BusError(RuntimeError):
    """A CPU access the interconnect answered with DECERR: no device and no memory at the address."""

    def __init__(self, address: int, write: bool):
        self.address, self.write = address, write
        super().__init__(f"bus error: CPU {'write to' if write else 'read of'} 0x{address:x} decodes to no device "
                         "and no memory (the interconnect answers DECERR); see `sgdma info` for the address map")


def _board_owner(obj) -> Owner:
    return obj._board._thread_owner


@single_threaded(_board_owner)
class MMIO:
    """Register window shaped like ``pynq.MMIO``: offsets relative to ``base_addr``."""

    def __init__(self, board: "VirtualBoard", base_addr: int, length: int = MMIO_SPAN):
        checks.is_open(board)
        base_addr, length = checks.address(base_addr, "MMIO base_addr"), checks.size(length, "MMIO length")
        if base_addr + length > 1 << 64:
            raise ValueError(f"MMIO window 0x{base_addr:x}+{length}: ends past the 64-bit address space")
        self._board = board
        self.base_addr = base_addr
        self.length = length

    def _check(self, offset: int) -> int:
        offset = checks._whole(offset, "MMIO offset")
        if offset % 4:
            raise ValueError(f"MMIO offset 0x{offset:x} is not 4-byte aligned (registers are 32-bit)")
        if not 0 <= offset <= self.length - 4:
            raise IndexError(f"MMIO offset 0x{offset:x} is outside the window of {self.length} bytes at "
                             f"0x{self.base_addr:x}")
        return self.base_addr + offset

    def read(self, offset: int = 0, length: int = 4) -> int:
        if length != 4:
            raise ValueError("the virtual board's register windows are accessed 32 bits at a time (length=4)")
        return self._board.read32(self._check(offset))

    def write(self, offset: int, value: int) -> None:
        self._board.write32(self._check(offset), checks.word32(value, "MMIO value"))


class PhysicalArray(np.ndarray):
    """numpy array in board DDR, shaped like the buffers ``pynq.allocate`` returns."""

    _vb_board: "VirtualBoard | None"

    def __array_finalize__(self, obj):
        self._vb_board = getattr(obj, "_vb_board", None)

    @property
    def physical_address(self) -> int:
        board = self._vb_board
        if board is None:
            raise ValueError("this array is not in board memory")
        return board.physical_address_of(self)

    device_address = physical_address

    @property
    def cacheable(self) -> bool:
        return True

    def flush(self) -> None:
        """Clean the CPU cache lines of this buffer (before the DMA reads it)."""
        self._board()._b.cache(self.physical_address, self.nbytes, False)

    def invalidate(self) -> None:
        """Invalidate the CPU cache lines of this buffer (before the CPU reads DMA data)."""
        self._board()._b.cache(self.physical_address, self.nbytes, True)

    def _board(self) -> "VirtualBoard":
        if self._vb_board is None:
            raise ValueError("this array is not in board memory (allocate it with board.allocate)")
        return self._vb_board

    def freebuffer(self) -> None:
        """Free the allocation: refused (BufferInUseError) while a submitted ring may still hand it to the DMA.
        The buffer is then dead: its address, and any DMA use of it, is refused (FreedBufferError).  Its memory
        goes back to the allocator when the last view of it dies, so a freed array can never read or write a
        later allocation.  Only the array that allocate() returned (or a view starting where it starts)
        frees it; freeing twice is harmless."""
        board = self._vb_board
        if board is not None:
            ptr = self.__array_interface__["data"][0]
            addr = board._address_of_ptr(ptr)
            if addr is not None and addr not in board._freed:
                board._free_at(addr)

    close = freebuffer

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        # Results of arithmetic are ordinary arrays in host memory.
        out = np.asarray(arr).view(np.ndarray)
        return out[()] if return_scalar else out


class _Allocator:
    """First-fit allocator over one DDR region (allocations are few and large)."""

    def __init__(self, name: str, base: int, size: int):
        self.name, self.base, self.size = name, base, size
        self.free = [(base, size)]           # sorted, coalesced holes
        self.used: dict[int, int] = {}

    def alloc(self, nbytes: int, align: int, at: int | None = None) -> int:
        nbytes = max(nbytes, 1)
        for i, (start, length) in enumerate(self.free):
            addr = at if at is not None else -(-start // align) * align
            if addr < start or addr + nbytes > start + length:
                continue
            pieces = []
            if addr > start:
                pieces.append((start, addr - start))
            if addr + nbytes < start + length:
                pieces.append((addr + nbytes, start + length - addr - nbytes))
            self.free[i:i + 1] = pieces
            self.used[addr] = nbytes
            return addr
        largest = max((l for _, l in self.free), default=0)
        where = f" at 0x{at:x}" if at is not None else ""
        raise MemoryError(f"region {self.name}: cannot allocate {nbytes} bytes{where} (align {align}); "
                          f"free {sum(l for _, l in self.free)} bytes, largest hole {largest} bytes")

    def release(self, addr: int) -> None:
        nbytes = self.used.pop(addr, None)
        if nbytes is None:
            return
        self.free.append((addr, nbytes))
        self.free.sort()
        merged = []
        for start, length in self.free:
            if merged and merged[-1][0] + merged[-1][1] == start:
                merged[-1] = (merged[-1][0], merged[-1][1] + length)
            else:
                merged.append((start, length))
        self.free = merged

    @property
    def bytes_free(self) -> int:
        return sum(l for _, l in self.free)


@single_threaded(_board_owner)
class Sink:
    """The MM2S stream endpoint: records every packet by TLAST."""

    def __init__(self, board: "VirtualBoard"):
        self._board = board

    def packets(self) -> list[bytes]:
        return self._board._b.sink_packets()

    def timing(self) -> list[dict]:
        """Per packet: length, first-beat and TLAST-beat time in ns, and ``cut``: True for a packet a DMA
        reset ended before its TLAST (incomplete; csrc/vboard/dma/stream.c vb_stream_reset)."""
        return [{"length": n, "first_ns": a / 1000.0, "last_ns": b / 1000.0, "cut": bool(cut)}
                for n, a, b, cut in self._board._b.sink_info()]

    def columns(self) -> dict:
        """The same per packet, as numpy columns: ``length`` (uint64), ``first_ns`` and ``last_ns`` (float64),
        ``cut`` (bool)."""
        raw = _core.sink_columns(self._board._b)
        return {"length": np.frombuffer(raw["length"], np.uint64),
                "first_ns": np.frombuffer(raw["first_ps"], np.uint64) / 1000.0,
                "last_ns": np.frombuffer(raw["last_ps"], np.uint64) / 1000.0,
                "cut": np.frombuffer(raw["cut"], np.uint8).astype(bool)}

    @property
    def cut_packets(self) -> list[int]:
        """Indices (into packets()) of the packets cut by a DMA reset."""
        return [i for i, (_, _, _, cut) in enumerate(self._board._b.sink_info()) if cut]

    @property
    def open_bytes(self) -> int:
        """Bytes of a packet whose TLAST has not been seen yet."""
        return self._board._b.sink_open_bytes()

    @property
    def overflow(self) -> dict:
        """Packets (and bytes) the sink counted but did not keep: it holds at most ``stream.sink_max_bytes``
        (default 1 GiB) and 2^24 packets; clear it to make room."""
        packets, nbytes = self._board._b.sink_overflow()
        return {"packets": packets, "bytes": nbytes}

    def clear(self) -> None:
        self._board._b.sink_clear()


@single_threaded(_board_owner)
class Source:
    """The S2MM stream endpoint: software-fed packets (TLAST on the last byte)."""

    def __init__(self, board: "VirtualBoard"):
        self._board = board

    def send(self, data, last: bool = True) -> None:
        buf = memoryview(np.ascontiguousarray(data).view(np.uint8).reshape(-1)) if not isinstance(
            data, (bytes, bytearray)) else data
        self._board._b.source_send(buf, last)

    @property
    def pending(self) -> int:
        """Bytes queued and not yet taken by S2MM."""
        return self._board._b.source_pending()


class TimingEngine:
    """S0's PL timing state machine (the CSM), reached through its two AXI GPIO blocks.

    The RPU's side of S0's handshake: ``reset()``, ``arm(beats)``, ``wait_ready()``,
    ``start()`` — then the tail write — then ``wait_done()`` and ``counters()``.
    Counters are PL clocks; every access is a timed MMIO access.
    """

    def __init__(self, board: "VirtualBoard"):
        c = _core.constants
        self._c = c
        self._a = board.mmio(board.gpio_base)
        self._b = board.mmio(board.gpio_base + c["CSM_GPIO_SPAN"])
        self._clock_mhz = board.axi_dma.clock_mhz
        self._ctl = 0

    def _write_ctl(self, value: int) -> None:
        self._ctl = value
        self._a.write(self._c["CSM_GPIO_DATA"], value)

    def status(self) -> int:
        return self._a.read(self._c["CSM_GPIO2_DATA"])

    def reset(self) -> None:
        """Pulse RESET: the setup counter starts when it is released."""
        self._write_ctl(self._c["CSM_CTL_RESET"])
        self._write_ctl(0)

    def arm(self, beats: int) -> None:
        """Payload length in stream beats (0: stop at the first TLAST)."""
        self._b.write(self._c["CSM_GPIO2_DATA"], beats)

    def _poll(self, bit: int, max_polls: int, what: str) -> None:
        for _ in range(max_polls):
            if self.status() & bit:
                return
        raise TimeoutError(f"timing engine: {what} not seen after {max_polls} GPIO reads "
                           f"(status 0x{self.status():08x})")

    def wait_ready(self, max_polls: int = 1000) -> None:
        self._poll(self._c["CSM_STS_READY"], max_polls, "READY")

    def start(self) -> None:
        self._write_ctl(self._ctl | self._c["CSM_CTL_START"])

    def wait_done(self, max_polls: int = 1_000_000) -> None:
        self._poll(self._c["CSM_STS_DONE"], max_polls, "DONE")

    @property
    def done(self) -> bool:
        return bool(self.status() & self._c["CSM_STS_DONE"])

    def counters(self) -> dict:
        """setup, latency, throughput (PL clocks) and beats, read through GPIO B, then ACK."""
        c, out = self._c, {}
        base = self._ctl & ~c["CSM_CTL_SEL"]
        for name in ("setup", "latency", "throughput", "beats"):
            sel = c[f"CSM_SEL_{name.upper()}"]
            self._write_ctl(base | (sel * (c["CSM_CTL_SEL"] & -c["CSM_CTL_SEL"])))   # FIELD_PREP
            out[name] = self._b.read(c["CSM_GPIO_DATA"])
        self._write_ctl(base | c["CSM_CTL_ACK"])
        self._write_ctl(0)
        ns = 1e3 / self._clock_mhz
        out.update({f"{k}_ns": out[k] * ns for k in ("setup", "latency", "throughput")})
        return out


@dataclass(frozen=True)
class AxiDmaBlock:
    """The AXI DMA instance on the board: where it is and how it was built."""

    base: int
    include_sg: bool
    addr_width: int
    length_width: int
    data_width: int
    max_burst: int
    has_dre: bool
    clock_mhz: float

    @property
    def data_bytes(self) -> int:
        return self.data_width // 8

    @property
    def max_length(self) -> int:
        return (1 << self.length_width) - 1


def cpu_load_options(load) -> dict:
    """Preset keys of a background CPU load (see VirtualBoard); {} for none."""
    if load is None or load == 0:
        return {}
    frac = 0.5
    if hasattr(load, "rate_mbps"):             # a CpuLoad (experiments) or any object with the two fields
        load = {"rate_mbps": load.rate_mbps, "read_fraction": getattr(load, "read_fraction", 0.5)}
    if isinstance(load, str) and "," in load:  # "800MB/s,read=0.7": a rate and the share of it that is reads
        text, _, mix = load.partition(",")
        key, _, val = mix.strip().partition("=")
        if key.strip().lower() != "read":
            raise ValueError(f"cpu_load={load!r}: after the rate give the read share as ',read=F' "
                             f"(e.g. 800MB/s,read=0.5, a memcpy's mix)")
        try:
            frac = float(val)
        except ValueError:
            raise ValueError(f"cpu_load={load!r}: read={val!r} is not a number in [0, 1]") from None
        load = text
    if isinstance(load, dict):
        unknown = set(load) - {"rate_mbps", "read_fraction"}
        if unknown or "rate_mbps" not in load:
            raise ValueError(f"cpu_load={load!r}: give {{'rate_mbps': R, 'read_fraction': F}} (F optional, 0.5 "
                             f"for a memcpy)")
        frac = float(load.get("read_fraction", 0.5))
        load = load["rate_mbps"]
    if isinstance(load, str):
        from sgdma.hw import units

        text = load.strip()
        try:     # a bare number is MB/s here (the preset key's unit); with a unit, the one byte-rate grammar
            rate = float(text) if re.fullmatch(r"[+-]?[\d.]+(e[+-]?\d+)?", text, re.I) else \
                units.parse_bandwidth(text, minimum=0.0, maximum=float("inf")) / 1e6  # range checked below
        except (ValueError, units.UnitError):
            raise ValueError(f"cpu_load={load!r}: not a rate; write e.g. 800MB/s or 1.2GB/s") from None
    else:
        rate = float(load)
    if not rate >= 0 or rate > 1e6:
        raise ValueError(f"cpu_load={load!r}: the rate must be 0..1e6 MB/s")
    if not 0 <= frac <= 1:
        raise ValueError(f"cpu_load read_fraction={frac}: must be in [0, 1] (a memcpy is 0.5)")
    return {"cpu.load_mbps": rate, "cpu.load_read_fraction": frac}


@single_threaded(lambda b: b._thread_owner)
class VirtualBoard:
    """An FPGA SoC with an AXI DMA, DDR and stream endpoints, in virtual time.

    ``VirtualBoard(preset="zcu111", seed=0, **overrides)``; overrides are the
    keys of ``OVERRIDE_KEYS`` (``include_sg``, ``addr_width``, ``length_width``,
    ``data_width``, ``max_burst``, ``dma_base``, ``loopback``, ...) or any preset
    key in dotted form passed as ``options={"dma.max_burst": 64}``.  ``timing_only=True``
    makes MM2S move no bytes (the sink records lengths and times only).

    ``fidelity="functional"`` runs SG rings untimed (sgdma.board.fidelity): the same memory, BD STATUS words,
    stream packets, DMASR, CURDESC and interrupts as the default ``"exact"``, at a memcpy's speed, with times
    that are not the board's (for driver tests, not for figures).

    ``cpu_load`` runs a background CPU load (a copy loop on another core) whose
    cache-line reads and write-backs compete with the DMA at the DRAM controller:
    a rate in MB/s (``800``, ``"800MB/s"``, ``"1.2GB/s"``) with a memcpy's even
    read/write mix, ``"800MB/s,read=0.7"``, or ``{"rate_mbps": 800, "read_fraction": 0.5}``.
    """

    def __init__(self, preset: str | Path = "zcu111", seed: int = 0, options: dict | None = None,
                 port: str | None = None, cpu_load=None, fidelity: str = "exact", **overrides):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
            raise ValueError(f"seed={seed!r}: must be a whole number from 0 to 2^64-1 (the generator's seed)")
        presets.load(preset)                   # the schema check: a malformed preset is refused by name
        self._thread_owner = Owner()           # one thread drives a board (board/threads.py)
        if fidelity not in ("exact", "functional"):
            raise ValueError(f"fidelity={fidelity!r}: a board runs 'exact' or 'functional' ('fast' is a sweep's "
                             f"fidelity: characterize, plan and run take it)")
        keys = self._port_options(preset, port)
        keys.update(board_options(fidelity))
        keys.update(options or {})
        keys.update(cpu_load_options(cpu_load))
        if "timing_only" in overrides:          # timing only = the MM2S sink keeps no bytes
            keys["stream.sink_record"] = 0.0 if overrides.pop("timing_only") else 1.0
        checks.option_values(keys)
        for k, v in overrides.items():
            if k not in OVERRIDE_KEYS:
                raise TypeError(f"unknown board option {k!r}; known: {', '.join(sorted(OVERRIDE_KEYS))}")
            keys[OVERRIDE_KEYS[k]] = float(v)
        self.preset = str(preset)
        self.seed = seed
        name, board_keys = presets.board_keys(preset)   # parsed once, in Python; C gets the numbers
        self._b = _core.Board(None, {**board_keys, **keys}, int(seed), name=name)
        g = self._b.config_get
        self.axi_dma = AxiDmaBlock(
            base=int(g("dma.base")), include_sg=bool(g("dma.include_sg")), addr_width=int(g("dma.addr_width")),
            length_width=int(g("dma.length_width")), data_width=int(g("dma.data_width")),
            max_burst=int(g("dma.max_burst")), has_dre=bool(g("dma.has_dre")), clock_mhz=g("dma.clock_mhz"))
        self.gpio_base = int(g("gpio.base"))
        self.mm2s_sink = Sink(self)
        self.s2mm_source = Source(self)
        self.csm = TimingEngine(self)
        self._regions: dict[str, tuple[int, int, int]] = {}   # name -> (base, size, host pointer)
        self._alloc: dict[str, _Allocator] = {}
        for name, base, size in self._b.regions():
            self._alloc[name] = _Allocator(name, base, size)
        self.default_region = next(iter(self._alloc))
        self._owner: dict[int, str] = {}
        self._freed: dict[int, int] = {}          # freed, not yet returned (a view is alive): address -> bytes
        self._rings = weakref.WeakSet()           # driver rings on this board (for buffer-lifetime checks)

    @staticmethod
    def _port_options(preset, port: str | None) -> dict:
        """Preset keys for a PS port of the preset's [port.*] list (None: the [ic] default)."""
        if port is None:
            return {}
        ports = presets.load(preset).get("port", {})
        if port not in ports:
            raise ValueError(f"board {preset!r} has no port {port!r}: "
                             f"{', '.join(ports) or 'it lists none (a PL memory)'}")
        v = {k: item["value"] for k, item in ports[port].items()}
        keys = {f"ic.{k}": float(v[k]) for k in ("width_bits", "clock_mhz", "request_ns", "response_ns")}
        if "max_burst_bytes" in v:
            width = presets.load(preset)["dma"]["data_width"]["value"] // 8
            keys["dma.max_burst"] = float(max(2, v["max_burst_bytes"] // width))
        if "outstanding" in v:
            keys["dma.outstanding"] = float(v["outstanding"])
        return keys

    # -- identity and options ---------------------------------------------------
    @property
    def name(self) -> str:
        return self._b.name()

    def option(self, key: str) -> float:
        """Effective value of a preset key, e.g. ``board.option("cpu.mmio_read_ns")``."""
        return self._b.config_get(key)

    @property
    def regions(self) -> list[tuple[str, int, int]]:
        return self._b.regions()

    # -- CPU side ---------------------------------------------------------------
    def mmio(self, base: int, length: int = MMIO_SPAN) -> MMIO:
        return MMIO(self, base, length)

    def adopt(self) -> None:
        """Hand the board to the calling thread (the old owner must have stopped using it)."""
        self._thread_owner.adopt()

    def _bus(self, addr: int, write: bool, access):
        """One CPU access; a DECERR (the C bus counts it) raises BusError naming the address."""
        before = self._b.bus_decerrs()[0]
        out = access()
        if self._b.bus_decerrs()[0] != before:
            raise BusError(int(addr), write)
        return out

    def read32(self, addr: int) -> int:
        checks.is_open(self)
        addr = checks.address(addr)
        return self._bus(addr, False, lambda: self._b.read32(addr))

    def write32(self, addr: int, value: int) -> None:
        checks.is_open(self)
        addr, value = checks.address(addr), checks.word32(value)
        self._bus(addr, True, lambda: self._b.write32(addr, value))

    def close(self) -> None:
        """End the board's use: every later call raises BoardClosed (as a closed LinuxBoard does)."""
        self._closed = True

    # -- memory -----------------------------------------------------------------
    def allocate(self, shape, dtype=np.uint8, region: str | None = None, align: int = 64,
                 physical_address: int | None = None) -> PhysicalArray:
        """A zeroed numpy array in board DDR (like ``pynq.allocate``), zero-copy.

        ``region`` names a DDR region of the preset (default: the first one);
        ``physical_address`` places the buffer at a fixed address.
        """
        checks.is_open(self)
        dtype = np.dtype(dtype)
        nbytes = checks.nbytes_of(shape, dtype)
        align = checks.alignment(align)
        if physical_address is not None:
            physical_address = checks.address(physical_address, "physical_address")
        if physical_address is not None and region is None:
            region = self.region_of(physical_address, max(nbytes, 1))
        region = region or self.default_region
        if region not in self._alloc:
            raise ValueError(f"unknown region {region!r}: this board has {', '.join(self._alloc)}")
        alloc = self._alloc[region]
        addr = alloc.alloc(nbytes, align, physical_address)
        # Zeroed, as the kernel's CMA allocations behind pynq.allocate are: code written
        # for PYNQ relies on it (fresh BD memory must not hold a stale Cmplt bit).
        _core.vb_zero(self._b, addr, max(nbytes, 1))
        mem = _core.Region(self._b, addr, max(nbytes, 1))
        # One finalizer per allocation: freebuffer() runs it early, and a finalizer
        # runs at most once, so a dead array can never free a later allocation.
        self._owner[addr] = (region, weakref.finalize(mem, self._release, addr, region))
        arr = np.frombuffer(mem, dtype=dtype, count=nbytes // dtype.itemsize).reshape(shape).view(PhysicalArray)
        arr._vb_board = self
        self._remember_host(region)
        return arr

    def _remember_host(self, region: str) -> None:
        if region not in self._regions:
            base, size = self._alloc[region].base, self._alloc[region].size
            host = np.frombuffer(_core.Region(self._b, base, size), dtype=np.uint8)
            self._regions[region] = (base, size, host.ctypes.data)

    def _free_at(self, addr: int) -> None:
        entry = self._owner.get(addr)
        if entry is None:
            return
        region = entry[0]
        nbytes = self._alloc[region].used[addr]
        user = self.dma_user_of(addr, nbytes)
        if user:
            raise BufferInUseError(f"freebuffer of 0x{addr:x}+{nbytes}: {user}; wait for the ring and reclaim() "
                                   "its BDs (or reset the DMA) first")
        self._freed[addr] = nbytes           # dead now; the memory returns when the last view dies

    def _release(self, addr: int, region: str) -> None:
        # the allocation's memory object died (every view of it is gone): only now can the address be reused
        self._owner.pop(addr, None)
        self._freed.pop(addr, None)
        self._alloc[region].release(addr)

    def dma_user_of(self, addr: int, nbytes: int) -> str | None:
        """Which ring still hands [addr, addr+nbytes) to the DMA (None: none).  A BD counts while it is filled
        and not completed (Cmplt clear), and every BD of a ring playing in cyclic mode counts until a reset;
        a ring's own descriptor memory counts while it has such BDs.  Reads board memory, not registers:
        costs no virtual time."""
        for ring in list(self._rings):
            why = ring._dma_uses(addr, addr + nbytes)
            if why:
                return why
        return None

    def check_dma_range(self, addresses, lengths, what: str = "BD") -> None:
        """Refuse DMA addresses inside a freed buffer (FreedBufferError), naming the first offender."""
        if not self._freed:
            return
        a = np.asarray(addresses, dtype=np.uint64).reshape(-1)
        n = np.asarray(lengths, dtype=np.uint64).reshape(-1)
        for base, size in self._freed.items():
            hit = (a < np.uint64(base + size)) & (a + np.maximum(n, 1) > np.uint64(base))
            if hit.any():
                i = int(np.flatnonzero(hit)[0])
                raise FreedBufferError(f"{what} {i}: 0x{int(a[i]):x}+{int(n[i])} lies in the freed buffer "
                                       f"0x{base:x}+{size}: a freed buffer never reaches the DMA; allocate a new one")

    def _address_of_ptr(self, ptr: int) -> int | None:
        for base, size, host in self._regions.values():
            if host <= ptr < host + size:
                return base + (ptr - host)
        return None

    def physical_address_of(self, arr: np.ndarray) -> int:
        """Device address of any numpy view into board memory (refused for a freed buffer)."""
        addr = self._address_of_ptr(arr.__array_interface__["data"][0])
        if addr is None:
            raise ValueError("array is not in board memory")
        for base, size in self._freed.items():
            if base <= addr < base + max(size, 1):
                raise FreedBufferError(f"buffer 0x{base:x}+{size} was freed (freebuffer): it has no address any "
                                       "more and can never reach the DMA; allocate a new one")
        return addr

    def own(self, arr, what: str = "buffer") -> int:
        """The device address of ``arr`` if it is a live buffer of THIS board; refused otherwise."""
        other = getattr(arr, "_vb_board", None)
        if other is None:
            raise ValueError(f"{what}: not in board memory (allocate it with board.allocate)")
        if other is not self:
            raise ForeignBufferError(f"{what}: allocated on another board ({other!r}); this board's DMA cannot "
                                     "reach it: allocate it on this board")
        return self.physical_address_of(arr)

    def region_of(self, addr: int, length: int = 1) -> str:
        for name, base, size in self.regions:
            if base <= addr and addr + length <= base + size:
                return name
        raise ValueError(f"0x{addr:x}+{length} is not inside one DDR region ("
                         + ", ".join(f"{n} 0x{b:x}-0x{b + s - 1:x}" for n, b, s in self.regions) + ")")

    def view(self, addr: int, nbytes: int) -> np.ndarray:
        """uint8 view of any board memory (no allocation bookkeeping)."""
        checks.is_open(self)
        addr, nbytes = checks.address(addr), checks.size(nbytes, "nbytes")
        return np.frombuffer(_core.Region(self._b, addr, nbytes), dtype=np.uint8)

    def bytes_free(self, region: str | None = None) -> int:
        return self._alloc[region or self.default_region].bytes_free

    @property
    def coherency(self):
        """The cache-coherency checker of DMA buffers (:class:`sgdma.coherency.Coherency`)."""
        if getattr(self, "_coherency", None) is None:
            from sgdma.board.coherency import Coherency
            self._coherency = Coherency(self._b)
        return self._coherency

    # -- time ---------------------------------------------------------------------
    @property
    def now_ps(self) -> int:
        return self._b.now_ps()

    @property
    def now_ns(self) -> float:
        return self._b.now_ps() / 1000.0

    def advance(self, ns: float) -> None:
        self._b.advance_ps(checks.duration_ps(ns, "advance(ns)", self.now_ps))

    def run_until_quiet(self, limit_ns: float = 1e12) -> float:
        """Let the DMA run until it has nothing to do (or the limit); returns now_ns."""
        return self._b.run_until_quiet(checks.duration_ps(limit_ns, "run_until_quiet(limit_ns)", self.now_ps)) / 1000.0

    # -- a live consumer of MM2S's stream (co-simulation: a DUT's TREADY) ------------
    def mm2s_live(self, on: bool = True) -> None:
        """While on, MM2S's beats leave only when ``mm2s_accept`` takes them: the DMA's FIFO
        fills and holds back its bursts (csrc/vboard/dma/mm2s.c).  Switch before the first BD."""
        self._b.mm2s_live(bool(on))

    def mm2s_offer_ps(self) -> int | None:
        """The clock edge (ps) from which the next MM2S beat can be taken; None if none is ready."""
        return self._b.mm2s_offer()

    def mm2s_accept(self, t_ps: int) -> bool:
        """The consumer took the next beat on the edge at ``t_ps`` (the board runs up to it);
        returns its TLAST."""
        return self._b.mm2s_accept(int(t_ps))

    # -- interrupts, faults, counters ----------------------------------------------
    def irq_pending(self, channel: str) -> bool:
        return self._b.irq_pending(P.channel_number(channel))

    def run_until_irq(self, channel: str, limit_ps: int) -> bool:
        """Step the board until the channel's interrupt line is up (True; now is the event that raised
        it) or no event is left before ``limit_ps`` (absolute; False, now at the last event)."""
        return _core.run_until_irq(self._b, P.channel_number(channel), int(limit_ps))

    def inject_slverr(self, addr: int, nbytes: int) -> None:
        """Make DMA accesses to [addr, addr+nbytes) answer AXI SLVERR."""
        self._b.inject_slverr(addr, nbytes)

    def clear_faults(self) -> None:
        self._b.clear_faults()

    def stats(self, channel: str) -> dict:
        return self._b.stats(P.channel_number(channel))

    @property
    def dma_guest_errors(self) -> dict:
        """Illegal accesses the DMA saw (reserved offset, write to a read-only field, misaligned), each
        logged once and counted: ``{kind: {"count": n, "last_offset": off}}``."""
        return {k: {"count": n, "last_offset": off} for k, (n, off) in self._b.dma_guest_errors().items()}

    #: CPU memory operations (``cpu_op``): the C model's kinds.
    CPU_OPS = ("read", "copy", "memset", "clean", "invalidate", "flush", "uncached_read", "uncached_write")

    def cpu_op(self, kind: str, addr: int, nbytes: int, *, dst: int = 0, ns_per_line: float = 0.0,
               ns_per_word: float = 0.0, word_bytes: int = 8, fixed_ns: float = 0.0, outstanding: int = 1) -> dict:
        """One CPU operation on memory as DRAM traffic on the controller's CPU port, interleaved in
        time with the DMA (csrc/vboard/cpu/cpuops.c); the board's clock moves to its end.

        ``kind``: read (line fills), copy (fills of [addr, +nbytes), write-backs at ``dst``; 0: the
        board's CPU scratch area), memset (write-backs), clean / flush (write-backs of the lines the
        coherency checker knows dirty), invalidate, uncached_read (``word_bytes`` loads, at most
        ``outstanding`` in flight: 1 = each waits for its data, as strongly-ordered memory does),
        uncached_write (posted stores of ``word_bytes``, a merged burst for write-combine, then a
        barrier).  ``ns_per_line``: the CPU's own time per cache line; ``ns_per_word``: per uncached
        access beyond the DRAM's; ``fixed_ns``: once.  Timing only: no byte changes.  Returns
        t_start_ps, t_end_ps, lines, requests, read_bytes, write_bytes."""
        if kind not in self.CPU_OPS:
            raise ValueError(f"cpu op {kind!r}: choose {', '.join(self.CPU_OPS)}")
        return _core.cpu_op(self._b, kind, int(addr), int(nbytes), int(dst), float(ns_per_line),
                            float(ns_per_word), int(word_bytes), float(fixed_ns), int(outstanding))

    @property
    def cpu_traffic(self) -> dict:
        """Totals of the CPU's memory operations: ops, requests, read_bytes, write_bytes, busy_ps."""
        return _core.cpu_op_stats(self._b)

    def dram_stats(self) -> dict:
        """DRAM counters: requests by direction (every master), row hits/misses/conflicts, refresh stalls; and
        ``ports``: the DDR controller's per-port counters (``cpu``, ``pl``: reads, writes, bytes, wait_ps /
        max_wait_ps from arrival to grant, read_latency_ps / max_read_latency_ps to first data,
        write_latency_ps to the write done, overtaken: grants of the other port ahead of an earlier request)."""
        return self._b.dram_stats()

    def dma_registers(self) -> dict:
        """Both channels' registers, decoded (reads cost MMIO time like any read), and the guest-error
        counts of the register file (the same dict under each channel)."""
        out = {}
        guest = self.dma_guest_errors
        for ch in ("mm2s", "s2mm"):
            base = self.axi_dma.base + P.channel_offset(ch)
            cr, sr = self._b.read32(base + P.DMACR), self._b.read32(base + P.DMASR)
            out[ch] = {"DMACR": cr, "DMASR": sr, "DMACR_decoded": P.decode("dmacr", cr),
                       "DMASR_decoded": P.decode("dmasr", sr),
                       "CURDESC": self._b.read32(base + P.CURDESC) | self._b.read32(base + P.CURDESC_MSB) << 32,
                       "TAILDESC": self._b.read32(base + P.TAILDESC) | self._b.read32(base + P.TAILDESC_MSB) << 32,
                       "guest_errors": guest}
        return out

    def probe(self, channel: str) -> dict:
        """Event times (ps) of the channel's latest run: tail/LENGTH write, first SG and data addresses,
        first and last stream beats, payload bytes."""
        return self._b.probe(P.channel_number(channel))

    def bd_fetches(self, channel: str = "mm2s") -> np.ndarray:
        """The channel's BD fetches since the last clear: an (n, 2) array of (issue, data back) in ns."""
        from sgdma import _core

        raw, _dropped = _core.fetch_log(self._b, {"mm2s": 0, "s2mm": 1}[channel])
        return np.frombuffer(raw, dtype=np.uint64).reshape(-1, 2) / 1e3

    def clear_bd_fetches(self, channel: str = "mm2s") -> None:
        from sgdma import _core

        _core.fetch_log_clear(self._b, {"mm2s": 0, "s2mm": 1}[channel])

    def refresh_windows(self, t0_ns: float, t1_ns: float, limit: int = 100_000) -> np.ndarray:
        """DRAM all-bank refresh windows (start, end) in ns overlapping [t0_ns, t1_ns]; empty if refresh is off.
        At most `limit` windows.  Windows start every tREFI from the seeded phase (csrc/vboard/mem/dram.c
        vb_dram_next_refresh), so the first two starts give them all."""
        trfc = self.option("dram.trfc_ns")
        first = self._b.next_refresh(int(max(0.0, t0_ns - trfc) * 1e3))
        if first >= (1 << 63) or first / 1e3 > t1_ns:
            return np.zeros((0, 2))
        period = self._b.next_refresh(first + 1) - first
        n = min(limit, int((t1_ns * 1e3 - first) // period) + 1)
        start = (first + np.arange(n, dtype=np.int64) * period) / 1e3
        return np.stack([start, start + trfc], axis=1)

    def reseed(self, seed: int) -> None:
        """A new trial: the generator and DRAM refresh phase are redrawn; time and memory stay."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
            raise ValueError(f"seed={seed!r}: must be a whole number from 0 to 2^64-1 (the generator's seed)")
        self._b.reseed(int(seed))

    @property
    def bus_errors(self) -> dict:
        """CPU accesses that decoded to no device and no memory (the interconnect's DECERR)."""
        count, last = self._b.bus_decerrs()
        return {"count": count, "last_address": last}

    # -- CPU accesses with the CPU model's own cost (DDR through the DRAM model) -----------
    def cpu_read32(self, addr: int, cost_ns: float) -> int:
        return self._bus(addr, False, lambda: self._b.cpu_read32(int(addr), int(round(cost_ns * 1e3))))

    def cpu_write32(self, addr: int, value: int, cost_ns: float) -> None:
        self._bus(addr, True, lambda: self._b.cpu_write32(int(addr), int(value) & 0xFFFFFFFF,
                                                           int(round(cost_ns * 1e3))))

    # -- PL devices ----------------------------------------------------------------------
    @property
    def dac(self) -> "Dac":
        """The PL DAC consumer of gate sequences (words at the gate rate behind a FIFO)."""
        return Dac(self)

    @property
    def adc(self) -> "Adc":
        """The ADC producer on the S2MM input (samples at a rate into a PL FIFO)."""
        return Adc(self)

    def run_until_csm_done(self, limit_ns: float) -> bool:
        """The CPU waits (no bus traffic) until the timing engine is DONE or limit_ns passed."""
        return bool(self._b.run_until_csm_done(int(limit_ns * 1e3)))

    @property
    def rtio(self):
        """The RTIO core of a preset with an [rtio] section (:class:`sgdma.board.rtio.RtioPort`)."""
        if getattr(self, "_rtio", None) is None:
            from sgdma.board.rtio import RtioPort
            self._rtio = RtioPort(self)
        return self._rtio

    def __repr__(self) -> str:
        return f"VirtualBoard(preset={self.preset!r}, seed={self.seed}, now_ns={self.now_ns:.1f})"


@single_threaded(_board_owner)
class Dac:
    """The PL DAC consumer (csrc/vboard/pl/dac.c)."""

    def __init__(self, board: VirtualBoard):
        self._b, self._board = board._b, board

    def configure(self, word_ns: float, lead_ns: float, fifo_words: int) -> None:
        """Play one stream word every word_ns, starting lead_ns after the first, behind a FIFO of
        fifo_words; word_ns = 0 switches the DAC off."""
        for name, ns in (("word_ns", word_ns), ("lead_ns", lead_ns)):
            if not (np.isfinite(ns) and 0 <= ns * 1e3 < 2**63):
                raise ValueError(f"DAC {name}={ns!r}: must be a finite time from 0 to {2**63 / 1e3:.3g} ns "
                                 "(the board clock counts picoseconds in 64 bits)")
        if not 1 <= int(fifo_words) < 2**31:
            raise ValueError(f"DAC fifo_words={fifo_words!r}: must be 1 .. 2^31-1")
        self._b.dac_configure(int(round(word_ns * 1e3)), int(round(lead_ns * 1e3)), int(fifo_words))

    def report(self) -> dict:
        return self._b.dac_report()

    def columns(self) -> dict:
        """The report's events as columns: ``underflows`` and ``deadline_misses`` as (n, 4) uint64 rows (gate,
        beat, due ps, actual ps), with ``t0_nominal_ps``, ``beat_ps`` and ``beats`` (no per-event objects)."""
        raw = _core.dac_columns(self._b)
        return {"underflows": np.frombuffer(raw["underflows"], np.uint64).reshape(-1, 4),
                "deadline_misses": np.frombuffer(raw["misses"], np.uint64).reshape(-1, 4),
                "t0_nominal_ps": raw["t0_nominal_ps"], "beat_ps": raw["beat_ps"], "beats": raw["beats"]}


@single_threaded(_board_owner)
class Adc:
    """The ADC producer on the S2MM stream input (csrc/vboard/pl/adc.c)."""

    def __init__(self, board: VirtualBoard):
        self._b, self._board = board._b, board

    def start(self, rate_sps: float, sample_bytes: int, fifo_bytes: int, packet_bytes: int) -> None:
        self._b.adc_start(float(rate_sps), int(sample_bytes), int(fifo_bytes), int(packet_bytes))

    def stop(self) -> None:
        self._b.adc_stop()

    def report(self) -> dict:
        return self._b.adc_report()
