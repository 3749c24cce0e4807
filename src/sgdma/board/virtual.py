"""The virtual board from Python: PYNQ-shaped MMIO and allocate(), stream
endpoints, virtual time.  The model itself is C (csrc/vboard); this module only
wires it to numpy without copies.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sgdma import _core
from sgdma.hw import presets
from sgdma.hw import pg021 as P

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


class MMIO:
    """Register window shaped like ``pynq.MMIO``: offsets relative to ``base_addr``."""

    def __init__(self, board: "VirtualBoard", base_addr: int, length: int = MMIO_SPAN):
        if length <= 0 or base_addr < 0:
            raise ValueError(f"MMIO window 0x{base_addr:x}+{length}: base must be >= 0 and length > 0")
        self._board = board
        self.base_addr = base_addr
        self.length = length

    def _check(self, offset: int) -> int:
        if offset % 4:
            raise ValueError(f"MMIO offset 0x{offset:x} is not 4-byte aligned (registers are 32-bit)")
        if not 0 <= offset <= self.length - 4:
            raise IndexError(f"MMIO offset 0x{offset:x} is outside the window of {self.length} bytes at "
                             f"0x{self.base_addr:x}")
        return self.base_addr + offset

    def read(self, offset: int = 0, length: int = 4) -> int:
        if length != 4:
            raise ValueError("the virtual board's register windows are accessed 32 bits at a time (length=4)")
        return self._board._b.read32(self._check(offset))

    def write(self, offset: int, value: int) -> None:
        if not 0 <= int(value) <= 0xFFFFFFFF:
            raise ValueError(f"value {value!r} does not fit a 32-bit register")
        self._board._b.write32(self._check(offset), int(value))


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
        """Return the allocation early (it is also returned when the last view dies).
        Only the array that allocate() returned (or a view starting where it starts) frees it."""
        board = self._vb_board
        if board is not None:
            board._free_at(self.physical_address)

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


class Sink:
    """The MM2S stream endpoint: records every packet by TLAST."""

    def __init__(self, board: "VirtualBoard"):
        self._board = board

    def packets(self) -> list[bytes]:
        return self._board._b.sink_packets()

    def timing(self) -> list[dict]:
        """Per packet: length, first-beat and TLAST-beat time in ns."""
        return [{"length": n, "first_ns": a / 1000.0, "last_ns": b / 1000.0}
                for n, a, b in self._board._b.sink_info()]

    @property
    def open_bytes(self) -> int:
        """Bytes of a packet whose TLAST has not been seen yet."""
        return self._board._b.sink_open_bytes()

    def clear(self) -> None:
        self._board._b.sink_clear()


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


_RATE_UNITS = {"b/s": 1e-6, "kb/s": 1e-3, "mb/s": 1.0, "gb/s": 1e3}


def cpu_load_options(load) -> dict:
    """Preset keys of a background CPU load (see VirtualBoard); {} for none."""
    if load is None or load == 0:
        return {}
    frac = 0.5
    if isinstance(load, dict):
        unknown = set(load) - {"rate_mbps", "read_fraction"}
        if unknown or "rate_mbps" not in load:
            raise ValueError(f"cpu_load={load!r}: give {{'rate_mbps': R, 'read_fraction': F}} (F optional, 0.5 "
                             f"for a memcpy)")
        frac = float(load.get("read_fraction", 0.5))
        load = load["rate_mbps"]
    if isinstance(load, str):
        text = load.strip().lower().replace(" ", "")
        unit = next((u for u in sorted(_RATE_UNITS, key=len, reverse=True) if text.endswith(u)), None)
        try:
            rate = float(text[: -len(unit)] if unit else text) * (_RATE_UNITS[unit] if unit else 1.0)
        except ValueError:
            raise ValueError(f"cpu_load={load!r}: not a rate; write e.g. 800MB/s or 1.2GB/s") from None
    else:
        rate = float(load)
    if not rate >= 0 or rate > 1e6:
        raise ValueError(f"cpu_load={load!r}: the rate must be 0..1e6 MB/s")
    if not 0 <= frac <= 1:
        raise ValueError(f"cpu_load read_fraction={frac}: must be in [0, 1] (a memcpy is 0.5)")
    return {"cpu.load_mbps": rate, "cpu.load_read_fraction": frac}


class VirtualBoard:
    """An FPGA SoC with an AXI DMA, DDR and stream endpoints, in virtual time.

    ``VirtualBoard(preset="zcu111", seed=0, **overrides)``; overrides are the
    keys of ``OVERRIDE_KEYS`` (``include_sg``, ``addr_width``, ``length_width``,
    ``data_width``, ``max_burst``, ``dma_base``, ``loopback``, ...) or any preset
    key in dotted form passed as ``options={"dma.max_burst": 64}``.  ``timing_only=True``
    makes MM2S move no bytes (the sink records lengths and times only).

    ``cpu_load`` runs a background CPU load (a copy loop on another core) whose
    cache-line reads and write-backs compete with the DMA at the DRAM controller:
    a rate in MB/s (``800``, ``"800MB/s"``, ``"1.2GB/s"``) with a memcpy's even
    read/write mix, or ``{"rate_mbps": 800, "read_fraction": 0.5}``.
    """

    def __init__(self, preset: str | Path = "zcu111", seed: int = 0, options: dict | None = None,
                 port: str | None = None, cpu_load=None, **overrides):
        keys = self._port_options(preset, port)
        keys.update(options or {})
        keys.update(cpu_load_options(cpu_load))
        if "timing_only" in overrides:          # timing only = the MM2S sink keeps no bytes
            keys["stream.sink_record"] = 0.0 if overrides.pop("timing_only") else 1.0
        for k, v in overrides.items():
            if k not in OVERRIDE_KEYS:
                raise TypeError(f"unknown board option {k!r}; known: {', '.join(sorted(OVERRIDE_KEYS))}")
            keys[OVERRIDE_KEYS[k]] = float(v)
        self.preset = str(preset)
        self.seed = seed
        self._b = _core.Board(str(presets.path(preset)), keys, int(seed))
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

    def read32(self, addr: int) -> int:
        return self._b.read32(addr)

    def write32(self, addr: int, value: int) -> None:
        self._b.write32(addr, value)

    # -- memory -----------------------------------------------------------------
    def allocate(self, shape, dtype=np.uint8, region: str | None = None, align: int = 64,
                 physical_address: int | None = None) -> PhysicalArray:
        """A zeroed numpy array in board DDR (like ``pynq.allocate``), zero-copy.

        ``region`` names a DDR region of the preset (default: the first one);
        ``physical_address`` places the buffer at a fixed address.
        """
        dtype = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        nbytes = count * dtype.itemsize
        if align <= 0 or align & (align - 1):
            raise ValueError(f"align={align}: must be a power of two")
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
        arr = np.frombuffer(mem, dtype=dtype, count=count).reshape(shape).view(PhysicalArray)
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
        if entry is not None:
            entry[1]()                       # the allocation's own finalizer

    def _release(self, addr: int, region: str) -> None:
        entry = self._owner.get(addr)
        # a stale finalizer (its allocation freed early and the address reused) finds
        # another allocation's entry, which is still alive: leave it alone
        if entry is not None and not entry[1].alive:
            del self._owner[addr]
            self._alloc[region].release(addr)

    def physical_address_of(self, arr: np.ndarray) -> int:
        """Device address of any numpy view into board memory."""
        ptr = arr.__array_interface__["data"][0]
        for base, size, host in self._regions.values():
            if host <= ptr < host + size:
                return base + (ptr - host)
        raise ValueError("array is not in board memory")

    def region_of(self, addr: int, length: int = 1) -> str:
        for name, base, size in self.regions:
            if base <= addr and addr + length <= base + size:
                return name
        raise ValueError(f"0x{addr:x}+{length} is not inside one DDR region ("
                         + ", ".join(f"{n} 0x{b:x}-0x{b + s - 1:x}" for n, b, s in self.regions) + ")")

    def view(self, addr: int, nbytes: int) -> np.ndarray:
        """uint8 view of any board memory (no allocation bookkeeping)."""
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
        if ns < 0:
            raise ValueError("time only moves forward")
        self._b.advance_ps(int(round(ns * 1000)))

    def run_until_quiet(self, limit_ns: float = 1e12) -> float:
        """Let the DMA run until it has nothing to do (or the limit); returns now_ns."""
        return self._b.run_until_quiet(int(limit_ns * 1000)) / 1000.0

    # -- interrupts, faults, counters ----------------------------------------------
    def irq_pending(self, channel: str) -> bool:
        return self._b.irq_pending({"mm2s": 0, "s2mm": 1}[channel])

    def inject_slverr(self, addr: int, nbytes: int) -> None:
        """Make DMA accesses to [addr, addr+nbytes) answer AXI SLVERR."""
        self._b.inject_slverr(addr, nbytes)

    def clear_faults(self) -> None:
        self._b.clear_faults()

    def stats(self, channel: str) -> dict:
        return self._b.stats({"mm2s": 0, "s2mm": 1}[channel])

    def dram_stats(self) -> dict:
        """DRAM counters: requests by direction (every master), row hits/misses/conflicts, refresh stalls."""
        return self._b.dram_stats()

    def dma_registers(self) -> dict:
        """Both channels' registers, decoded (reads cost MMIO time like any read)."""
        out = {}
        for ch in ("mm2s", "s2mm"):
            base = self.axi_dma.base + P.channel_offset(ch)
            cr, sr = self._b.read32(base + P.DMACR), self._b.read32(base + P.DMASR)
            out[ch] = {"DMACR": cr, "DMASR": sr, "DMACR_decoded": P.decode("dmacr", cr),
                       "DMASR_decoded": P.decode("dmasr", sr),
                       "CURDESC": self._b.read32(base + P.CURDESC) | self._b.read32(base + P.CURDESC_MSB) << 32,
                       "TAILDESC": self._b.read32(base + P.TAILDESC) | self._b.read32(base + P.TAILDESC_MSB) << 32}
        return out

    def probe(self, channel: str) -> dict:
        """Event times (ps) of the channel's latest run: tail/LENGTH write, first SG and data addresses,
        first and last stream beats, payload bytes."""
        return self._b.probe({"mm2s": 0, "s2mm": 1}[channel])

    def reseed(self, seed: int) -> None:
        """A new trial: the generator and DRAM refresh phase are redrawn; time and memory stay."""
        self._b.reseed(int(seed))

    @property
    def bus_errors(self) -> dict:
        """CPU accesses that decoded to no device and no memory (the interconnect's DECERR)."""
        count, last = self._b.bus_decerrs()
        return {"count": count, "last_address": last}

    # -- CPU accesses with the CPU model's own cost (DDR through the DRAM model) -----------
    def cpu_read32(self, addr: int, cost_ns: float) -> int:
        return self._b.cpu_read32(int(addr), int(round(cost_ns * 1e3)))

    def cpu_write32(self, addr: int, value: int, cost_ns: float) -> None:
        self._b.cpu_write32(int(addr), int(value) & 0xFFFFFFFF, int(round(cost_ns * 1e3)))

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


class Dac:
    """The PL DAC consumer (csrc/vboard/pl/dac.c)."""

    def __init__(self, board: VirtualBoard):
        self._b = board._b

    def configure(self, word_ns: float, lead_ns: float, fifo_words: int) -> None:
        """Play one stream word every word_ns, starting lead_ns after the first, behind a FIFO of
        fifo_words; word_ns = 0 switches the DAC off."""
        self._b.dac_configure(int(round(word_ns * 1e3)), int(round(lead_ns * 1e3)), int(fifo_words))

    def report(self) -> dict:
        return self._b.dac_report()


class Adc:
    """The ADC producer on the S2MM stream input (csrc/vboard/pl/adc.c)."""

    def __init__(self, board: VirtualBoard):
        self._b = board._b

    def start(self, rate_sps: float, sample_bytes: int, fifo_bytes: int, packet_bytes: int) -> None:
        self._b.adc_start(float(rate_sps), int(sample_bytes), int(fifo_bytes), int(packet_bytes))

    def stop(self) -> None:
        self._b.adc_stop()

    def report(self) -> dict:
        return self._b.adc_report()
