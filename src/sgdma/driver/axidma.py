"""Driver API: Channel and Ring objects over the C driver core.

The C core (csrc/driver) does every register access, BD write and check; this
module turns numpy buffers into the arrays the core takes, without a Python
loop per BD, and turns core errors into exceptions with the decoded registers.

Typical use on the virtual board::

    board = sgdma.VirtualBoard("zcu111", loopback=True)
    dma = sgdma.AxiDma(board)
    dma.reset()
    tx = dma.mm2s.ring(64)
    buf = board.allocate(4096)
    tx.add_packets([buf])
    tx.submit()
    tx.wait()
    done = tx.reclaim()
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sgdma import _core
from sgdma.hw import pg021 as P
from sgdma.board.threads import single_threaded
from sgdma.board.virtual import PhysicalArray, VirtualBoard
from sgdma.driver.errors import ArgumentError, DmaError  # noqa: F401  (registers the exception classes)

_DIRS = P.CHANNELS


@dataclass
class Packet:
    """One reclaimed packet: the BDs it used and the bytes moved."""

    first_index: int
    bd_indices: np.ndarray
    bytes: int
    bd_bytes: np.ndarray
    status: np.ndarray


class Completions:
    """Reclaimed BDs (a numpy structured array, COMPLETION_DTYPE) grouped into packets."""

    def __init__(self, records: np.ndarray, direction: str):
        self.records = records
        self.direction = direction

    def __len__(self) -> int:
        return len(self.records)

    @property
    def indices(self) -> np.ndarray:
        return self.records["index"]

    @property
    def bytes(self) -> np.ndarray:
        return self.records["bytes"]

    @property
    def total_bytes(self) -> int:
        return int(self.records["bytes"].sum(dtype=np.uint64))

    def packet_bounds(self) -> np.ndarray:
        """Index into ``records`` one past each packet's EOF BD."""
        return np.flatnonzero(self.records["flags"] & P.SG_BD_EOF) + 1

    def packet_lengths(self) -> np.ndarray:
        ends = self.packet_bounds()
        sums = np.add.reduceat(self.records["bytes"].astype(np.uint64), np.r_[0, ends[:-1]]) if len(ends) else []
        return np.asarray(sums, dtype=np.uint64)

    def packets(self) -> list[Packet]:
        """Per-packet view (a Python loop per packet, not per BD; for inspection)."""
        out, start = [], 0
        for end in self.packet_bounds():
            r = self.records[start:end]
            out.append(Packet(int(r["index"][0]), r["index"], int(r["bytes"].sum()), r["bytes"], r["status"]))
            start = end
        return out


@single_threaded(lambda r: r.channel.board._thread_owner)
class Ring:
    """A BD ring in board memory, owned by one channel."""

    def __init__(self, channel: "Channel", n_bds: int, region: str | None = None, closed: bool = True,
                 physical_address: int | None = None):
        if n_bds < 1:
            raise ArgumentError(f"a ring needs at least one BD (got {n_bds})")
        self.channel = channel
        board = channel.board
        self.memory = board.allocate((n_bds, P.BD_SIZE), np.uint8, region=region, align=P.BD_ALIGN,
                                     physical_address=physical_address)
        self.address = self.memory.physical_address
        self._r = _core.Ring(channel._c, self.address, n_bds, closed)
        self.count = n_bds
        # Buffers handed over by add_packets stay alive until their BDs are
        # reclaimed: freeing them earlier would let the allocator reuse memory
        # the DMA has yet to read.
        self._owners = np.empty(n_bds, dtype=object)
        self._cyclic = False
        board._rings.add(self)

    def _dma_uses(self, lo: int, hi: int) -> str | None:
        """Why [lo, hi) may still reach the DMA through this ring (None: it cannot)."""
        st = self._r.state()
        busy = self.count - st["n_free"]
        cyclic = self._cyclic and self.channel._owned is self
        if not busy and not cyclic:
            return None
        idx = np.arange(self.count) if cyclic else (st["reclaim"] + np.arange(busy)) % self.count
        bds = self.bds[idx]
        live = np.ones(len(idx), bool) if cyclic else (bds["status"] & P.BD_STS_CMPLT) == 0
        if not live.any():
            return None
        if lo < self.address + self.count * P.BD_SIZE and self.address < hi:
            return f"it holds the descriptors of a ring at 0x{self.address:x} with BDs the DMA has not completed"
        start = bds["buffer"].astype(np.uint64) | (bds["buffer_msb"].astype(np.uint64) << np.uint64(32))
        end = start + (bds["control"] & P.BD_LEN_MASK).astype(np.uint64)
        hit = live & (start < np.uint64(hi)) & (end > np.uint64(lo))
        if hit.any():
            i = int(idx[np.flatnonzero(hit)[0]])
            return (f"BD {i} of the {self.channel.direction} ring at 0x{self.address:x} still hands it to the DMA"
                    + (" (cyclic mode: until a reset)" if cyclic else ""))
        return None

    # -- inspection --------------------------------------------------------------
    @property
    def bds(self) -> np.ndarray:
        """The BDs as a structured numpy view of board memory (zero copy)."""
        return self.memory.view(P.BD_DTYPE).reshape(self.count)

    def bd_address(self, index: int) -> int:
        return self.address + index * P.BD_SIZE

    @property
    def state(self) -> dict:
        return self._r.state()

    @property
    def free(self) -> int:
        return self._r.state()["n_free"]

    def check(self) -> bool:
        """The ring's bookkeeping invariants hold."""
        return self._r.check()

    # -- filling -----------------------------------------------------------------
    def fill(self, addresses, lengths, flags=None, app=None) -> None:
        """Fill BDs in bulk from arrays (validated in C before any BD is written).

        ``flags`` per BD: ``pg021.SG_BD_SOF`` / ``SG_BD_EOF``; default: each BD is
        a whole packet.  ``app``: shape (n, 5) APP words.
        """
        addresses = np.ascontiguousarray(addresses, dtype=np.uint64).reshape(-1)
        lengths = np.asarray(lengths)
        if lengths.dtype != np.uint32 and lengths.size and (lengths.min() < 0 or lengths.max() > 0xFFFFFFFF):
            bad = int(np.flatnonzero((lengths < 0) | (lengths > 0xFFFFFFFF))[0])
            raise ArgumentError(f"BD {bad}: length {int(lengths[bad])} is out of range: the channel's length "
                                f"register takes 1..{self.channel.max_length} bytes")
        lengths = np.ascontiguousarray(lengths, dtype=np.uint32).reshape(-1)
        n = len(addresses)
        if len(lengths) != n:
            raise ArgumentError(f"{n} addresses but {len(lengths)} lengths")
        if flags is None:
            flags = np.full(n, P.SG_BD_SOF | P.SG_BD_EOF, dtype=np.uint8)
        flags = np.ascontiguousarray(flags, dtype=np.uint8).reshape(-1)
        if app is not None:
            app = np.ascontiguousarray(app, dtype=np.uint32).reshape(n, P.BD_APP_COUNT)
        self.channel.board.check_dma_range(addresses, lengths)
        self._r.fill(n, addresses, lengths, flags, app)

    def plan_packets(self, buffers, max_bd_bytes: int | None = None, with_owner: bool = False):
        """BD arrays (addresses, lengths, flags) for buffers sent as one packet each,
        split into BDs of at most ``max_bd_bytes`` (rounded down to the stream width)."""
        ch = self.channel
        limit = max_bd_bytes or ch.max_length
        limit -= limit % ch.data_bytes
        if limit <= 0:
            raise ArgumentError(f"max_bd_bytes={max_bd_bytes}: must be at least the stream width "
                                f"({ch.data_bytes} bytes)")
        board = ch.board
        starts = np.array([board.own(b, f"buffers[{i}]") for i, b in enumerate(buffers)], dtype=np.uint64)
        sizes = np.array([b.nbytes for b in buffers], dtype=np.uint64)
        per = np.maximum(1, (sizes + np.uint64(limit - 1)) // np.uint64(limit)).astype(np.int64)
        owner = np.repeat(np.arange(len(buffers)), per)
        first = np.r_[0, np.cumsum(per)[:-1]]
        k = np.arange(per.sum()) - np.repeat(first, per)
        addresses = starts[owner] + k.astype(np.uint64) * np.uint64(limit)
        lengths = np.minimum(np.uint64(limit), sizes[owner] - k.astype(np.uint64) * np.uint64(limit))
        flags = np.zeros(len(owner), dtype=np.uint8)
        flags[first] |= P.SG_BD_SOF
        flags[np.cumsum(per) - 1] |= P.SG_BD_EOF
        if with_owner:
            return addresses, lengths, flags, owner
        return addresses, lengths, flags

    def add_packets(self, buffers, max_bd_bytes: int | None = None) -> int:
        """Fill BDs for each buffer as one packet; returns the number of BDs used.
        The ring keeps each buffer alive until its BDs are reclaimed."""
        if len(buffers) == 0:
            return 0
        addresses, lengths, flags, owner = self.plan_packets(buffers, max_bd_bytes, with_owner=True)
        first = self._r.state()["fill"]
        self.fill(addresses, lengths, flags)
        held = np.empty(len(buffers), dtype=object)
        for i, buf in enumerate(buffers):       # per buffer, not per BD
            held[i] = buf
        self._owners[(first + np.arange(len(owner))) % self.count] = held[owner]
        return len(addresses)

    # -- running -----------------------------------------------------------------
    def submit(self, irq_threshold: int | None = None, irq_delay_ns: float | None = None) -> None:
        """Give the filled BDs to the hardware (CURDESC if halted, RS, then the tail).

        ``irq_threshold`` (1..255): one IOC interrupt per that many completed packets
        (PG021 IRQThreshold); ``irq_delay_ns``: the delay timer that raises Dly_Irq when
        the threshold is not reached, rounded up to whole units of the delay-timer
        resolution (PG021 IRQDelay, 1..255 units; 0 = off).  Both are written to DMACR
        before the tail, through the driver core."""
        if irq_threshold is not None or irq_delay_ns is not None:
            self.channel.set_coalescing(irq_threshold, irq_delay_ns)
        self._r.submit()
        self.channel._owned = self

    def prepare(self) -> int:
        """Everything of submit() but the trigger; returns the tail address to
        write later with ``channel.write_tail`` (e.g. after a PL handshake)."""
        tail = self._r.prepare()
        self.channel._owned = self
        return tail

    def kick(self, tail_address: int) -> None:
        """Write TAILDESC = ``tail_address`` (must be a BD of this ring)."""
        self._r.kick(tail_address)

    def start_cyclic(self) -> None:
        """Start cyclic playback of the whole (filled, closed) ring."""
        self._r.start_cyclic()
        self.channel._owned = self
        self._cyclic = True

    def prepare_cyclic(self) -> int:
        """start_cyclic() without the trigger; returns the tail address (outside the
        chain) to write later with ``channel.write_tail``."""
        tail = self._r.prepare_cyclic()
        self.channel._owned = self
        self._cyclic = True
        return tail

    def wait(self, timeout_ns: float = 10e6) -> None:
        """Wait until the engine reaches the tail; raises with the register snapshot."""
        self.channel.wait_idle(timeout_ns)

    def reclaim(self, max_bds: int | None = None) -> Completions:
        """Completed BDs as whole packets, with actual lengths (S2MM) and flags."""
        raw, n = self._r.reclaim(self.count if max_bds is None else max_bds)
        done = Completions(np.frombuffer(raw, dtype=P.COMPLETION_DTYPE, count=n), self.channel.direction)
        self._owners[done.indices] = None
        return done

    def rearm(self, n: int) -> None:
        """Re-arm n free BDs with their previous buffers (capture recycling)."""
        self._r.rearm(n)


@single_threaded(lambda c: c.board._thread_owner)
class Channel:
    """One direction of an AXI DMA: control, simple transfers and rings."""

    def __init__(self, dma: "AxiDma", direction: str):
        if direction not in _DIRS:
            raise ValueError(f"direction must be 'mm2s' or 's2mm', not {direction!r}")
        self.board: VirtualBoard = dma.board    # no reference back to dma: no cycle keeps boards alive
        self.direction = direction
        blk = self.board.axi_dma
        claim = getattr(self.board, "_claim_channel", None)   # hardware boards: one owner per channel
        if claim is not None:
            claim(direction)
        self._c = _core.Chan(self.board._b, _DIRS[direction], dma.base, blk.addr_width, blk.length_width,
                             blk.data_bytes, blk.has_dre)
        self._mmio_read_ns = max(self.board.option("cpu.mmio_read_ns"), 1e-3)
        # The ring the DMA may still be reading: kept alive (BDs and buffers) until a
        # reset or recovery, so garbage collection cannot hand its memory to someone else.
        self._owned: Ring | None = None

    # -- facts ---------------------------------------------------------------------
    @property
    def has_sg(self) -> bool:
        return self._c.info()["has_sg"]

    @property
    def max_length(self) -> int:
        return self._c.info()["max_length"]

    @property
    def data_bytes(self) -> int:
        return self._c.info()["data_bytes"]

    @property
    def halted(self) -> bool:
        return self._c.halted()

    @property
    def idle(self) -> bool:
        return self._c.idle()

    def registers(self) -> dict:
        """DMACR/DMASR/CURDESC/TAILDESC with decoded bits."""
        return self._c.snapshot()

    # -- control -------------------------------------------------------------------
    def reset(self) -> None:
        """Soft reset. PG021: it resets the whole core, both channels."""
        self._c.reset()
        self._owned = None

    def halt(self) -> None:
        self._c.halt()

    def check(self) -> None:
        """Raise HardwareError if DMASR carries error bits."""
        self._c.check()

    def set_irq(self, ioc: bool = True, delay: bool = False, error: bool = True, threshold: int = 1,
                delay_count: int = 0) -> None:
        enables = (P.CR_IOC_IRQEN if ioc else 0) | (P.CR_DLY_IRQEN if delay else 0) | (P.CR_ERR_IRQEN if error else 0)
        self._c.set_irq(enables, threshold, delay_count)

    def delay_units(self, delay_ns: float) -> int:
        """IRQDelay units for a delay in ns (rounded up): one unit is dma.dly_timer_resolution
        clocks of the SG clock (PG021)."""
        unit_ns = self.board.option("dma.dly_timer_resolution") * 1e3 / self.board.option("dma.clock_mhz")
        units = -(-float(delay_ns) // unit_ns) if delay_ns > 0 else 0
        if not 0 <= units <= 255:
            raise ValueError(f"irq_delay_ns={delay_ns}: the delay timer counts 0..255 units of {unit_ns:g} ns "
                             f"(at most {255 * unit_ns:g} ns)")
        return int(units)

    def set_coalescing(self, threshold: int | None = None, delay_ns: float | None = None) -> None:
        """Interrupt coalescing (PG021 IRQThreshold / IRQDelay) with IOC and error interrupts on;
        the delay interrupt is enabled when a delay is given."""
        thr = 1 if threshold is None else int(threshold)
        if not 1 <= thr <= 255:
            raise ValueError(f"irq_threshold={threshold}: PG021's IRQThreshold is 1..255 packets")
        units = self.delay_units(delay_ns) if delay_ns else 0
        self.set_irq(ioc=True, delay=units > 0, error=True, threshold=thr, delay_count=units)

    def irq_ack(self) -> int:
        """Clear (W1C) and return the pending IRQ bits of DMASR."""
        return self._c.irq_ack()

    @property
    def irq_pending(self) -> bool:
        return self.board.irq_pending(self.direction)

    def set_cyclic(self, on: bool) -> None:
        self._c.set_cyclic(on)

    def set_curdesc(self, address: int) -> None:
        self._c.set_curdesc(address)

    def write_tail(self, address: int) -> None:
        """Raw TAILDESC write (LSB then MSB); prefer Ring.submit / Ring.kick."""
        self._c.write_tail(address)

    def _polls(self, timeout_ns: float) -> int:
        return max(1, math.ceil(timeout_ns / self._mmio_read_ns))

    def _bounded(self, timeout_ns: float, call):
        """Run one wait with its own bound; the channel's default bound comes back after."""
        self._c.set_poll_limit(self._polls(timeout_ns))
        self._c.set_irq_timeout(max(1, math.ceil(timeout_ns / 1000)))   # where the platform sleeps on an IRQ
        try:
            return call()
        finally:
            self._c.set_poll_limit(0)
            self._c.set_irq_timeout(0)

    def wait_idle(self, timeout_ns: float = 10e6) -> None:
        """Poll DMASR until Idle, bounded by ``timeout_ns`` of virtual time."""
        self._bounded(timeout_ns, self._c.wait_idle)

    def recover(self) -> dict | None:
        """Snapshot → soft reset → re-init; returns the snapshot taken before the reset.

        PG021's soft reset resets both channels; this re-inits only this channel's
        ring bookkeeping.  Use ``AxiDma.recover()`` when both channels are in use."""
        snap = self._c.recover()
        self._owned = None
        return snap

    # -- simple mode ----------------------------------------------------------------
    def transfer(self, buffer: PhysicalArray, nbytes: int | None = None) -> None:
        """Start a simple-mode transfer of ``buffer`` (S2MM: its capacity)."""
        nbytes = buffer.nbytes if nbytes is None else nbytes
        if nbytes > buffer.nbytes:
            raise ArgumentError(f"nbytes={nbytes} exceeds the buffer ({buffer.nbytes} bytes)")
        self._c.simple_start(self.board.own(buffer), nbytes)

    def start_simple(self, address: int, nbytes: int) -> None:
        self.board.check_dma_range([address], [nbytes], "address")
        self._c.simple_start(address, nbytes)

    def wait(self, timeout_ns: float = 10e6) -> int:
        """Wait for a simple transfer; returns the bytes moved (S2MM: from LENGTH)."""
        return self._bounded(timeout_ns, self._c.simple_wait)

    # -- rings ------------------------------------------------------------------------
    def ring(self, n_bds: int, region: str | None = None, closed: bool = True,
             physical_address: int | None = None) -> Ring:
        """A new BD ring in board memory for this channel."""
        return Ring(self, n_bds, region=region, closed=closed, physical_address=physical_address)


@single_threaded(lambda d: d.board._thread_owner)
class AxiDma:
    """An AXI DMA instance: ``.mm2s`` and ``.s2mm`` channels (names as in pynq.lib.dma)."""

    def __init__(self, board: VirtualBoard, base: int | None = None):   # or a LinuxBoard
        self.board = board
        self.base = board.axi_dma.base if base is None else base
        self.mm2s = Channel(self, "mm2s")
        self.s2mm = Channel(self, "s2mm")
        self.sendchannel, self.recvchannel = self.mm2s, self.s2mm

    def reset(self) -> None:
        """Soft reset of the core (both channels)."""
        self.mm2s.reset()
        self.s2mm._owned = None

    def recover(self) -> dict:
        """Snapshot both channels, soft reset, re-init both (a reset always hits both,
        so both channels' ring bookkeeping is reset).  Returns the pre-reset snapshots."""
        before = {"mm2s": self.mm2s.registers(), "s2mm": self.s2mm.registers()}
        self.mm2s.recover()
        self.s2mm.recover()          # resets again (harmless) and clears the S2MM ring's bookkeeping
        return before

    def registers(self) -> dict:
        return {"mm2s": self.mm2s.registers(), "s2mm": self.s2mm.registers()}
