"""The capture driver: the kernel side of continuous S2MM capture on the virtual board.

N buffers of ``buffer_bytes`` live in the preset layout's buffer region, one BD each in the BD
region, all armed in an S2MM SG ring with an IOC interrupt per buffer.  The interrupt handler
acks DMASR, reclaims the completed BDs and queues their buffers; the reader (the transport APIs
in ``transport.py``) takes them, and a released buffer is re-armed (STATUS cleared by
``Ring.rearm``, the tail moved by ``Ring.submit``): buffer swapping, as S2's custom driver does.

Time.  Everything the CPU does is charged to the board's virtual time while the DMA and the ADC
run on: the driver's own register and BD accesses and cache maintenance are charged by the board
(C) as they happen; the modelled software costs (system calls, the interrupt handler, wake-ups,
copies, the application's processing) are accumulated by ``CpuAccount`` and applied with
``board.advance`` before the next access to the board.  A blocked reader sleeps until the S2MM
interrupt line rises, then pays the interrupt entry, the handler and the scheduler's wake-up.
One Python iteration per delivered buffer; nothing loops per BD or per sample.

Finding the interrupt: a sleeping reader lets the board step its events (C, ``run_until_irq``)
until the S2MM line is up, so it wakes at the event that raised the interrupt, whatever the
coalescing (IRQThreshold, IRQDelay) or the simple-mode swap makes that moment.  This is simulation
machinery, not part of the modelled software's cost.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from sgdma.hw import pg021 as P
from sgdma.models.cpu import POLICIES, CpuModel, TransportCosts, check_costs, coherent_port, preset_doc, presets
from sgdma.driver.axidma import AxiDma
from sgdma.hw.layout import Layout

#: Flags of a delivered buffer (``BufferView.flags``).
SOF = P.SG_BD_SOF         #: the buffer starts a packet (each buffer is one packet; the driver's flag)
EOF = P.SG_BD_EOF         #: the buffer ends a packet (the driver's flag)
DROPPED_BEFORE = 1 << (SOF | EOF).bit_length()  #: samples were lost between the previous buffer and this one
DROPPED_WITHIN = DROPPED_BEFORE << 1             #: samples were lost between two samples of this buffer

MODES = ("continuous", "burst")
#: A blocked reader without a deadline sleeps in steps of this much virtual time (1 ms), checking
#: between them that something can still complete (nothing waits unbounded).
WAIT_CHUNK_PS = 1_000_000_000
#: DMA modes of capture: an SG ring of buffers, or direct-register (simple) mode swapping buffers
#: from the interrupt handler (seed 002's custom driver).
DMA_MODES = ("sg", "simple")
#: What the application does with each delivered buffer (each is CPU time and DRAM traffic):
#: nothing, read every byte, copy it, or write it to a file at the costs' file_write_mbps.
CONSUMERS = ("none", "touch", "copy", "file")


class CaptureError(ValueError):
    """A capture the board cannot do, refused before anything runs (the limit is named)."""


class CaptureTimeout(TimeoutError):
    """No buffer completed before the deadline."""


def _mb(n: float) -> str:
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k and n % k == 0:
            return f"{n // k} {unit}"
    return f"{n} B"


# -- placement in the preset's layout ---------------------------------------------------------
def place(board, region: str, lo: int, hi: int, nbytes: int, align: int, what: str) -> int:
    """Lowest free address in [lo, hi) of ``region`` for ``nbytes`` (the layout's BD or buffer
    region), so several captures can share a board; CaptureError names the region if full."""
    alloc = board._alloc[region]
    for start, length in alloc.free:
        addr = max(start, lo)
        addr = -(-addr // align) * align
        if addr + nbytes <= min(start + length, hi):
            return addr
    raise CaptureError(f"{what} ({_mb(nbytes)}) does not fit what is free of the {board.preset} "
                       f"layout's region 0x{lo:x}-0x{hi - 1:x} ({_mb(hi - lo)})")


def layout_of(board) -> Layout:
    """``Layout.of(board)`` from the memoised preset document (Layout.of parses the file each time)."""
    doc = preset_doc(board.preset).get("layout")
    if doc is None:
        raise CaptureError(f"board preset {board.preset!r} has no [layout] section: no buffer region for capture")
    v = {k: item["value"] for k, item in doc.items()}
    bases = {name: base for name, base, _ in board.regions}
    if v["region"] not in bases:
        raise CaptureError(f"[layout] region {v['region']!r} is not a DDR region of {board.preset!r}")
    base = bases[v["region"]] + v["offset"]
    return Layout(region=v["region"], rpmsg=base, rpmsg_bytes=v["rpmsg_bytes"], bd_base=base + v["rpmsg_bytes"],
                  bd_bytes=v["bd_region_bytes"], buffer_base=base + v["rpmsg_bytes"] + v["bd_region_bytes"],
                  buffer_bytes=v["buffer_region_bytes"])


def resolve_board(board, cache: str, seed: int = 0, cpu_load=None, cpu_costs: dict | None = None,
                  dma_mode: str = "sg"):
    """A VirtualBoard for a cache policy: a preset name builds one (on the coherent port for
    "coherent"; with the cost override ``cmo_line_ns`` as its [cpu] cache_line_ns; without the SG
    engine for ``dma_mode="simple"``); a VirtualBoard is checked to match."""
    from sgdma.board.virtual import VirtualBoard

    if cache not in POLICIES:
        raise CaptureError(f"cache policy {cache!r}: choose {', '.join(POLICIES)}")
    if dma_mode not in DMA_MODES:
        raise CaptureError(f"dma_mode {dma_mode!r}: choose {' or '.join(DMA_MODES)}")
    try:
        line_ns = check_costs(dict(cpu_costs or {}), "cpu_costs").get("cmo_line_ns")
    except ValueError as e:
        raise CaptureError(str(e)) from None
    if isinstance(board, VirtualBoard):
        if cpu_load:
            raise CaptureError("cpu_load applies to a board built from a preset name; build the VirtualBoard "
                               "with cpu_load=... instead")
        if line_ns is not None and board.option("cpu.cache_line_ns") != float(line_ns):
            raise CaptureError(f"cpu_costs cmo_line_ns = {line_ns} differs from this board's [cpu] cache_line_ns "
                               f"({board.option('cpu.cache_line_ns')}): build the VirtualBoard with "
                               f"options={{'cpu.cache_line_ns': {line_ns}}} or pass a preset name")
        if board.axi_dma.include_sg != (dma_mode == "sg"):
            raise CaptureError(f"dma_mode {dma_mode!r} needs a board built with include_sg={dma_mode == 'sg'} "
                               f"(this one has include_sg={board.axi_dma.include_sg})")
        if cache == "coherent":
            port = coherent_port(board.preset)
            if port is None:
                raise CaptureError(f"board {board.preset!r} has no coherent port (ACP/HPC): its "
                                   f"[port.*] list is {', '.join(preset_doc(board.preset).get('port', {})) or 'empty'}")
            want = {k: float(item["value"]) for k, item in preset_doc(board.preset)["port"][port].items()
                    if k in ("width_bits", "clock_mhz", "request_ns", "response_ns")}
            have = {k: board.option(f"ic.{k}") for k in want}
            if have != want:
                raise CaptureError(f"cache policy 'coherent' needs the DMA on the coherent port: build the board "
                                   f"with VirtualBoard({board.preset!r}, port={port!r})")
        return board
    try:
        presets.path(board)
    except ValueError as e:
        raise CaptureError(str(e)) from None
    port = None
    if cache == "coherent":
        port = coherent_port(board)
        if port is None:
            ports = preset_doc(board).get("port", {})
            raise CaptureError(f"board {board!r} has no coherent port (ACP/HPC) for cache policy 'coherent': "
                               f"{'its ports are ' + ', '.join(ports) if ports else 'its buffers are not in PS DDR'}")
    options = {}
    if line_ns is not None:
        options["cpu.cache_line_ns"] = float(line_ns)
    if dma_mode == "simple":
        options["dma.include_sg"] = 0.0
    try:
        return VirtualBoard(board, seed=seed, port=port, cpu_load=cpu_load, options=options or None)
    except ValueError as e:
        raise CaptureError(str(e)) from None


# -- the CPU's time ------------------------------------------------------------------------------
class CpuAccount:
    """The consumer CPU's time on the board's clock: busy (charged) and idle (asleep).

    ``charge(ns, what)`` books modelled software time; it is applied (with Linux ticks and
    stalls drawn by ``OsNoise``) by ``settle()`` before the next board access.  ``board_op(fn)``
    runs an access the board times itself (MMIO, BD reclaim, cache maintenance) and books its
    duration as busy too."""

    def __init__(self, board, model: CpuModel, costs: TransportCosts, seed: int):
        self.board = board
        self.model = model
        self.costs = costs
        self.rng = np.random.default_rng([seed, 0x5C47])
        self.noise = model.os_noise(self.rng)
        self.debt_ns = 0.0
        self.busy_ns = 0.0
        self.idle_ns = 0.0
        self.noise_ns = 0.0
        self.by_kind: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self.traffic: dict[str, dict] = {}      # DRAM bytes of the CPU's memory operations, by kind
        self._wake = np.empty(0)
        self._wake_i = 0

    def charge(self, ns: float, what: str) -> None:
        if ns > 0:
            self.debt_ns += ns
            self.by_kind[what] = self.by_kind.get(what, 0.0) + ns

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n

    def settle(self) -> None:
        d = self.debt_ns
        if d <= 0:
            return
        self.debt_ns = 0.0
        extra = self.noise.busy(self.board.now_ns, d)
        self.noise_ns += extra
        self.busy_ns += d + extra
        self.board.advance(d + extra)

    def board_op(self, what: str, fn, *args):
        self.settle()
        t0 = self.board.now_ps
        out = fn(*args)
        dt = (self.board.now_ps - t0) / 1000.0
        self.busy_ns += dt
        self.by_kind[what] = self.by_kind.get(what, 0.0) + dt
        return out

    def mem(self, what: str, ops, addr: int, nbytes: int, dst: int = 0) -> None:
        """CPU work on memory (``ops``: (kind, keywords) pairs of ``TransportCosts``): DRAM traffic on
        the CPU port, timed by the board (C), booked as busy under ``what``; the bytes each kind moves
        are counted in ``traffic``."""
        if nbytes <= 0:
            return
        self.settle()
        for kind, kw in ops:
            if kind == "memset":          # an uncached copy's destination lines, written back
                r = self.board.cpu_op(kind, dst or addr, nbytes, **kw)
            else:
                r = self.board.cpu_op(kind, addr, nbytes, dst=dst if kind == "copy" else 0, **kw)
            dt = (r["t_end_ps"] - r["t_start_ps"]) / 1000.0
            self.busy_ns += dt
            self.by_kind[what] = self.by_kind.get(what, 0.0) + dt
            t = self.traffic.setdefault(what, {"read_bytes": 0, "write_bytes": 0})
            t["read_bytes"] += r["read_bytes"]
            t["write_bytes"] += r["write_bytes"]

    def idle_since(self, t0_ps: int) -> None:
        """The board ran from ``t0_ps`` to now while the CPU slept (settled before)."""
        self.idle_ns += (self.board.now_ps - t0_ps) / 1000.0

    def sleep(self, ns: float) -> None:
        """Idle time: the CPU waits (no noise, not busy); pending busy time is applied first."""
        d = self.debt_ns
        total = 0.0
        if d > 0:
            self.debt_ns = 0.0
            extra = self.noise.busy(self.board.now_ns, d)
            self.noise_ns += extra
            self.busy_ns += d + extra
            total = d + extra
        if ns > 0:
            self.idle_ns += ns
            total += ns
        if total > 0:
            self.board.advance(total)

    def wakeup_ns(self) -> float:
        if self._wake_i >= len(self._wake):
            self._wake = self.costs.wakeups(self.rng, 1024)
            self._wake_i = 0
        w = float(self._wake[self._wake_i])
        self._wake_i += 1
        return w

    def summary(self) -> dict:
        return {"busy_ns": self.busy_ns, "idle_ns": self.idle_ns, "os_noise_ns": self.noise_ns,
                "by_kind_ns": dict(sorted(self.by_kind.items())), "counts": dict(sorted(self.counts.items())),
                "dram_bytes": {k: dict(v) for k, v in sorted(self.traffic.items())}}


# -- the sample counter ---------------------------------------------------------------------------
class CounterTrack:
    """Follows the ADC's sample counter across buffers: first/last unwrapped sample index of each
    buffer and the samples missing before and inside it (exact for samples of 4 bytes and more;
    narrower counters wrap, and a gap of a multiple of 2^(8 x bytes) samples is invisible)."""

    def __init__(self, sample_bytes: int):
        self.sb = sample_bytes
        self.k = min(sample_bytes, 8)
        self.mask = (1 << (8 * self.k)) - 1
        self.next = 0            # expected index of the next delivered sample
        self.last = -1           # index of the last delivered sample
        self.gaps = 0            # samples seen missing so far

    def follow(self, row: np.ndarray, nbytes: int) -> tuple[int, int, int, int]:
        """(first_index, last_index, missing_before, missing_within) of a buffer of nbytes."""
        n = nbytes // self.sb
        if n == 0:
            return self.next, self.next - 1, 0, 0
        k, m = self.k, self.mask
        v0 = int.from_bytes(row[:k].tobytes(), "little")
        v1 = int.from_bytes(row[(n - 1) * self.sb:(n - 1) * self.sb + k].tobytes(), "little")
        before = (v0 - self.next) & m
        first = self.next + before
        within = ((v1 - v0) - (n - 1)) & m
        last = first + n - 1 + within
        self.next, self.last = last + 1, last
        self.gaps += before + within
        return first, last, before, within


@dataclass
class Slot:
    """A completed buffer waiting for (or held by) the reader."""

    index: int              # buffer / BD index in the ring
    nbytes: int             # bytes the DMA wrote (BD STATUS length)
    flags: int
    first_sample: int = -1
    last_sample: int = -1
    t_done_ps: int = 0      # when the driver saw it complete (interrupt time, or later)


# -- the driver ---------------------------------------------------------------------------------
def app_area(board, layout: Layout) -> tuple[int, int]:
    """Where the application's own memory lies (the copy API's destination, a consumer's copy or
    page cache): two spans at the top of the layout's DDR region, above the buffer region and below
    the background load's top 2 MiB.  Only its addresses matter (banks and rows of the traffic)."""
    base, size = next((b, n) for name, b, n in board.regions if name == layout.region)
    top = base + size - (2 << 20)
    lo = layout.buffer_base + layout.buffer_bytes
    span = min(8 << 20, max(0, (top - lo) // 2) // 4096 * 4096)
    if span < 4096:
        raise CaptureError(f"the {board.preset} region {layout.region!r} has no room above the buffer region "
                           f"for the application's memory")
    return top - 2 * span, span


class CaptureDriver:
    """N armed S2MM buffers in an SG ring, IOC interrupt per buffer, buffer swapping.

    ``CaptureDriver(board, buffer_bytes, buffers, cache="sync", sample_bytes=1, seed=0)``;
    ``board``: a VirtualBoard or a preset name (built on the coherent port for "coherent").
    ``start()`` arms the ring; ``wait_ready()`` blocks (in virtual time) for a completed buffer;
    ``take()`` / ``release()`` hand buffers to the reader and back.  ``rearm=False`` (burst mode)
    keeps released buffers out of the ring.
    """

    def __init__(self, board, buffer_bytes: int, buffers: int, cache: str = "sync", sample_bytes: int = 1,
                 seed: int = 0, cpu: str = "apu", rearm: bool = True, name: str = "rx", irq_threshold: int = 1,
                 irq_delay_ns: float = 0.0, cpu_costs: dict | None = None):
        board = resolve_board(board, cache, seed, cpu_costs=cpu_costs, dma_mode=self.dma_mode)
        self.board, self.cache, self.name = board, cache, name
        self.irq_threshold, self.irq_delay_ns = int(irq_threshold), float(irq_delay_ns or 0.0)
        if self.irq_threshold > 1 and not self.irq_delay_ns:
            raise CaptureError(f"irq_threshold={irq_threshold} needs irq_delay_ns > 0: without the delay timer the "
                               f"last buffers of a run below the threshold never raise an interrupt")
        self.buffer_bytes, self.n = int(buffer_bytes), int(buffers)
        self.sample_bytes = int(sample_bytes)
        self.rearm_on_release = rearm
        try:
            self.model = CpuModel.for_board(board, cpu)
            self.costs = self.model.transport(cache, board, cpu_costs)
        except ValueError as e:
            raise CaptureError(str(e)) from None
        self.layout = layout_of(board)
        self.app_base, self.app_span = app_area(board, self.layout)
        check_geometry(board, self.layout, self.buffer_bytes, self.n, self.sample_bytes)
        self.dma = AxiDma(board)
        self.channel = self._channel()
        self.cpu = CpuAccount(board, self.model, self.costs, seed)
        lay = self.layout
        stride = -(-self.buffer_bytes // 64) * 64
        self.stride = stride
        pool_at = place(board, lay.region, lay.buffer_base, lay.buffer_base + lay.buffer_bytes,
                        stride * self.n, 64, f"{self.n} buffers of {_mb(self.buffer_bytes)}")
        self.memory = board.allocate((self.n, stride), np.uint8, physical_address=pool_at)
        self.pool = self.memory[:, :self.buffer_bytes]
        self.addresses = pool_at + np.arange(self.n, dtype=np.uint64) * np.uint64(stride)
        self.ring = self._make_ring(lay)
        self._coh = _checker(board)
        self._coh_ids: list[int] = []
        if self._coh is not None:
            for i in range(self.n):
                self._coh_ids.append(self._coh.register(self.pool[i], policy=cache, name=f"{name}[{i}]"))
        self.ready: deque[Slot] = deque()
        self.held: dict[int, Slot] = {}
        self.free_out_of_order: set[int] = set()
        self.next_rearm = 0                   # ring order of the next buffer to re-arm
        self.armed = 0
        self.completed = 0
        self.completed_bytes = 0
        self.track = CounterTrack(self.sample_bytes)
        self.irqs = 0
        self.started = False
        self.source = None                    # (t0_ps, ps_per_sample): the producer's clock, if known
        self.sleeps = 0
        self.last_sleep_ps = -1               # when the reader last had to wait for a buffer
        self._last_isr_ps = board.now_ps
        self._ack_ns = self.model.mmio_read_ns + self.model.mmio_write_ns   # DMASR read + W1C write

    dma_mode = "sg"

    def _channel(self):
        return self.dma.s2mm

    def _make_ring(self, lay: Layout):
        ring_at = place(self.board, lay.region, lay.bd_base, lay.bd_base + lay.bd_bytes, self.n * P.BD_SIZE,
                        P.BD_ALIGN, f"a ring of {self.n} BDs")
        return self.channel.ring(self.n, physical_address=ring_at)

    # -- the CPU on the data -----------------------------------------------------------------------
    def app_address(self, offset: int, which: int = 0) -> int:
        """An address of the application's memory (``which`` 0: read() destinations, 1: the
        consumer's), wrapping over its span."""
        return self.app_base + which * self.app_span + offset % self.app_span

    def copy_out(self, index: int, offset: int, nbytes: int, app_offset: int) -> None:
        """read(): the CPU copies bytes of a DMA buffer to the application (fills of the buffer's lines
        or uncached loads, write-backs of the destination)."""
        src = int(self.addresses[index]) + offset
        self.cpu.mem("copy", self.costs.copy_ops(True), src, nbytes, self.app_address(app_offset))

    # -- set-up ---------------------------------------------------------------------------------
    def start(self) -> None:
        """Invalidate the pool once (sync: no dirty line may be written back over DMA data, as
        dma_map does), fill every BD, IOC interrupt per buffer, submit."""
        if self.started:
            return
        self.started = True
        if self.channel.registers()["dmasr"] & P.SR_ERR_ALL:
            self.dma.reset()
        try:
            self.channel.set_coalescing(self.irq_threshold, self.irq_delay_ns)
        except ValueError as e:
            raise CaptureError(str(e)) from None
        if self.costs.maintenance:
            self.cpu.charge(self.costs.cmo_range_ns, "cache_maintenance")
            self.cpu.board_op("cache_maintenance", self.memory.invalidate)
        self.ring.fill(self.addresses, np.full(self.n, self.buffer_bytes, np.uint32))
        self.armed = self.n
        self.cpu.board_op("driver", self.ring.submit)

    def set_source(self, t0_ps: int, rate_sps: float) -> None:
        """The producer's sample clock (lets waits sleep straight to the next completion)."""
        self.source = (int(t0_ps), 1e12 / float(rate_sps))

    # -- interrupt handling ----------------------------------------------------------------------
    def _isr(self, busy: bool = False) -> int:
        """Interrupt handler: ack DMASR, reclaim completed BDs, queue their buffers.

        Asleep, the first completion wakes the CPU and later ones merge into that interrupt.
        Busy (``poll``), each completion since the last handler preempted the reader with an
        interrupt of its own, unless they came faster than the handler runs (then they merge):
        the interrupts are counted and charged as such, the handler's work is done once."""
        c = self.costs
        now = self.board.now_ps
        self.cpu.board_op("driver", self.channel.irq_ack)
        done = self.cpu.board_op("driver", self.ring.reclaim)
        n = len(done)
        k = 1
        if busy and n > 1:
            per = c.irq_entry_ns + c.isr_ns + self._ack_ns
            k = int(min(n, max(1, (now - self._last_isr_ps) / 1000.0 // per)))
        self._last_isr_ps = now
        self.cpu.charge(k * c.isr_ns + (k if busy else 0) * c.irq_entry_ns, "isr")
        if k > 1:
            self.cpu.charge((k - 1) * self._ack_ns, "driver")
        self.cpu.count("interrupts", k)
        self.irqs += k
        return self._queue(done)

    def _queue(self, done) -> int:
        n = len(done)
        if not n:
            return 0
        now = self.board.now_ps
        idx = done.indices
        nbytes = done.bytes
        for j in range(n):                       # one iteration per completed buffer
            i, nb = int(idx[j]), int(nbytes[j])
            first, last, before, within = self.track.follow(self.pool[i], nb)
            flags = SOF | EOF | (DROPPED_BEFORE if before else 0) | (DROPPED_WITHIN if within else 0)
            self.ready.append(Slot(i, nb, flags, first, last, now))
        self.armed -= n
        self.completed += n
        self.completed_bytes += int(nbytes.sum(dtype=np.uint64))
        return n

    def poll(self) -> int:
        """Run the interrupt handler if the S2MM line is up (the CPU took the interrupt while
        busy); returns the buffers it queued."""
        self.cpu.settle()
        if self.board.irq_pending(self.channel.direction):
            return self._isr(busy=True)
        return 0

    def drain(self) -> int:
        """Collect completions with the interrupt masked (NAPI, arm-host-path.md sec. 3.1): a reader that is
        busy has the device interrupt off, so completions raise none; its next read() acks DMASR and walks the
        ring once for every buffer completed since.  Costs: the ack's register accesses and the reclaim, timed by
        the board; no interrupt entry, handler or wake-up."""
        self.cpu.settle()
        if self.board.irq_pending(self.channel.direction):
            self.cpu.board_op("driver", self.channel.irq_ack)
        done = self.cpu.board_op("driver", self.ring.reclaim)
        return self._queue(done)

    def _data_can_arrive(self) -> bool:
        """Something can still fill an armed buffer: an active ADC, or data queued at the source."""
        adc = self.board.adc.report()
        return adc["active"] or adc["level"] > 0 or self.board.s2mm_source.pending > 0

    def _sleep_until_irq(self, deadline_ps: int | None) -> bool:
        """Idle until the S2MM interrupt line rises (or the deadline); True if it did.  The board
        steps its events until the line is up, so the CPU wakes at the event that raised it."""
        b, ch = self.board, self.channel.direction
        self.cpu.settle()
        while not b.irq_pending(ch):
            now = b.now_ps
            if deadline_ps is not None and now >= deadline_ps:
                return False
            if not self._data_can_arrive():
                regs = b.dma_registers()[ch]
                raise CaptureError(f"no buffer can complete: no ADC is producing and no stream data is queued "
                                   f"(S2MM DMASR {regs['DMASR_decoded']}); attach a source before waiting")
            limit = deadline_ps if deadline_ps is not None else now + WAIT_CHUNK_PS
            up = b.run_until_irq(ch, limit)
            self.cpu.idle_since(now)
            if up:
                return True
            if b.now_ps < limit:               # nothing happens before the limit: sleep through to it
                self.cpu.sleep((limit - b.now_ps) / 1000.0)
        return True

    def wait_ready(self, deadline_ps: int | None = None) -> bool:
        """Block until a completed buffer is queued: poll; else sleep until the interrupt, take
        it (irq_entry idle, then the handler), and pay the reader's wake-up.  False at the
        deadline.  Raises CaptureError if nothing can ever complete (no buffer armed)."""
        if self.ready:
            return True
        if self.poll():
            return True
        while not self.ready:
            if self.armed == 0 and not self.board.irq_pending(self.channel.direction):
                raise CaptureError(f"{self.name}: every buffer is held by the reader or waiting to be re-armed; "
                                   f"nothing can complete (release a buffer first)")
            if not self._sleep_until_irq(deadline_ps):
                self.last_sleep_ps = self.board.now_ps   # it waited for data up to the deadline
                return False
            self.cpu.sleep(self.costs.irq_entry_ns)
            self._isr()
            self.cpu.charge(self.cpu.wakeup_ns(), "wakeup")
            self.cpu.count("wakeups")
            self.sleeps += 1
            self.last_sleep_ps = self.board.now_ps
        return True

    def wait_all(self, count: int, deadline_ps: int | None = None) -> bool:
        """Sleep (interrupts handled, reader not woken) until ``count`` buffers are queued, then
        wake the reader once (burst mode)."""
        self.poll()
        woke = False
        while len(self.ready) < count:
            if self.armed == 0:
                break
            if not self._sleep_until_irq(deadline_ps):
                self.last_sleep_ps = self.board.now_ps   # it waited for data up to the deadline
                return False
            self.cpu.sleep(self.costs.irq_entry_ns)
            self._isr()
            woke = True
        if woke:
            self.cpu.charge(self.cpu.wakeup_ns(), "wakeup")
            self.cpu.count("wakeups")
        return len(self.ready) >= count

    # -- handing buffers over -----------------------------------------------------------------------
    def take(self) -> Slot:
        s = self.ready.popleft()
        self.held[s.index] = s
        return s

    def invalidate(self, slot: Slot) -> None:
        """Cache maintenance before the CPU reads a buffer the DMA wrote (sync policy only)."""
        if self.costs.maintenance:
            self.cpu.charge(self.costs.cmo_range_ns, "cache_maintenance")
            self.cpu.board_op("cache_maintenance", self.pool[slot.index, :slot.nbytes].invalidate)
            self.cpu.count("invalidates")

    def cpu_read(self, index: int, offset: int, nbytes: int) -> None:
        """Tell the coherency checker the CPU loads these bytes (it cannot see loads)."""
        if self._coh is not None and nbytes > 0:
            self.cpu.settle()
            self._coh.cpu_read(self.pool[index, offset:offset + nbytes])

    def release(self, index: int) -> None:
        """The reader is done with a buffer: re-arm it (and any released after it, in ring order)."""
        self.release_many([index])

    def release_many(self, indices) -> None:
        """Give several buffers back at once (one write() of the batched API): re-arm every buffer that is now
        next in ring order and move the tail once."""
        for index in indices:
            if index not in self.held:
                raise CaptureError(f"{self.name}: buffer {index} is not held by the reader")
        for index in indices:
            del self.held[index]
        if not self.rearm_on_release:
            return
        self.free_out_of_order.update(indices)
        k = 0
        while (self.next_rearm + k) % self.n in self.free_out_of_order:
            self.free_out_of_order.discard((self.next_rearm + k) % self.n)
            k += 1
        if k:
            self.next_rearm = (self.next_rearm + k) % self.n
            self.cpu.board_op("driver", self.ring.rearm, k)
            self.cpu.board_op("driver", self.ring.submit)
            self.armed += k

    # -- end ---------------------------------------------------------------------------------
    def stop(self) -> None:
        """Halt the channel (the BDs in flight stay as they are)."""
        self.cpu.settle()
        self.channel.halt()

    def close(self) -> None:
        if self._coh is not None:
            for cid in self._coh_ids:
                try:
                    self._coh.unregister(cid)
                except Exception:   # noqa: BLE001 - the checker may already be gone
                    pass
            self._coh_ids = []

    def stats(self) -> dict:
        return {"buffers": self.n, "buffer_bytes": self.buffer_bytes, "completed": self.completed,
                "completed_bytes": self.completed_bytes, "interrupts": self.irqs, "sleeps": self.sleeps,
                "armed": self.armed, "cpu": self.cpu.summary()}


def _checker(board):
    """The board's coherency checker, if this board has one and it is on."""
    coh = getattr(board, "coherency", None)
    if coh is None:
        return None
    if not getattr(coh, "enabled", True):
        return None
    return coh


def check_geometry(board, layout: Layout, buffer_bytes: int, buffers: int, sample_bytes: int) -> None:
    """Refuse what the board cannot hold or the stream cannot carry, naming the limit."""
    width = board.axi_dma.data_bytes
    if not isinstance(buffers, (int, np.integer)) or buffers < 1:
        raise CaptureError(f"buffers={buffers!r}: need at least one buffer")
    if sample_bytes < 1:
        raise CaptureError(f"sample_bytes={sample_bytes!r}: a sample is at least one byte")
    if buffer_bytes < 1:
        raise CaptureError(f"buffer size {buffer_bytes!r}: must be at least one sample")
    if buffer_bytes % sample_bytes:
        raise CaptureError(f"buffer size {buffer_bytes} B is not a multiple of the sample size ({sample_bytes} B): "
                           f"a sample would straddle two buffers")
    if buffer_bytes % width:
        raise CaptureError(f"buffer size {buffer_bytes} B is not a multiple of the {board.preset} S2MM stream width "
                           f"({width} B = {board.axi_dma.data_width} bits)")
    if buffer_bytes > board.axi_dma.max_length:
        raise CaptureError(f"buffer size {buffer_bytes} B exceeds one BD of the {board.preset} DMA "
                           f"({board.axi_dma.length_width}-bit length: at most {board.axi_dma.max_length} B)")
    if buffers > layout.max_bds:
        raise CaptureError(f"{buffers} buffers need {buffers} BDs: the {board.preset} BD region "
                           f"({_mb(layout.bd_bytes)}) holds at most {layout.max_bds}")
    stride = -(-buffer_bytes // 64) * 64
    if buffers * stride > layout.buffer_bytes:
        raise CaptureError(f"{buffers} buffers of {_mb(buffer_bytes)} ({_mb(buffers * stride)}) do not fit the "
                           f"{board.preset} buffer region ({_mb(layout.buffer_bytes)}): at most "
                           f"{layout.buffer_bytes // stride} buffers of this size")
