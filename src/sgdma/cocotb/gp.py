"""The CPU's side of a PL register block: GP-port MMIO to a DUT's AXI4-Lite slave, and a DUT
interrupt output waking the CPU.

An access leaves the CPU at the simulator's current time and reaches the DUT's slave at once
(cocotbext-axi's AxiLiteMaster drives it from the next edge); the CPU goes on when both the
preset's cost of that access ([cpu] mmio_read_ns / mmio_write_ns, the board's own cost of a PL
register behind M_AXI_GP0) has passed and the DUT has answered (Device memory: one access after
another).  A DUT's interrupt output is a line of the board's interrupt model (IRQ_F2P, C:
csrc/vboard/api_plport.c); the CPU's wait on it wakes [cpu.apu] irq_entry_ns after it rises.
"""
from __future__ import annotations

import logging

import cocotb
from cocotb.triggers import Edge, Event, First, RisingEdge, Timer
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiLiteBus, AxiLiteMaster

from sgdma.board.plport import pl_irq_line, pl_irq_set
from sgdma.cocotb.errors import AxiProtocolError
from sgdma.cocotb.simtime import now_ps
from sgdma.hw import presets


class GpPort:
    """``GpPort(dut, "s_axil", dut.clk, board, base=0x43C0_0000, size=0x1_0000)``: the PL window
    [base, base+size) the CPU reaches over M_AXI_GP0, answered by the DUT's AXI4-Lite slave.
    A handshake the DUT leaves waiting ``stall_clocks`` clocks, or a BVALID/RVALID with no access
    open, stops the test with AxiProtocolError naming the channel, the signal and the clock."""

    def __init__(self, dut, prefix: str, clock, board, base: int, size: int, reset=None,
                 reset_active_level: bool = False, stall_clocks: int = 100_000):
        if base % 4096 or size <= 0 or size % 4096:
            raise ValueError(f"GP window base=0x{base:x} size=0x{size:x}: both must be multiples of 4 KiB "
                             f"(the address editor's granularity)")
        self.base, self.size = base, size
        self.read_ns = board.option("cpu.mmio_read_ns")
        self.write_ns = board.option("cpu.mmio_write_ns")
        self.bus = AxiLiteBus.from_prefix(dut, prefix)
        self.master = AxiLiteMaster(self.bus, clock, reset, reset_active_level=reset_active_level)
        self.prefix, self.clock, self.stall_clocks = prefix, clock, stall_clocks
        self.open = None                  # "write"/"read" while an access is in flight
        self.error: AxiProtocolError | None = None
        self.log = logging.getLogger(f"sgdma.cocotb.{prefix}")
        cocotb.start_soon(self._unsolicited())

    def _fail(self, msg: str):
        self.error = AxiProtocolError(f"{self.prefix} (GP, AXI4-Lite): {msg} ({get_sim_time('ns'):g} ns)")
        self.log.error("%s", self.error)       # in the simulator's log even when a test expects the error
        raise self.error

    async def _unsolicited(self):
        """A response with no access open: sampled at the edge it would be taken (Edge on the
        two VALIDs, so an idle bus costs nothing)."""
        b, r = self.bus.write.b.bvalid, self.bus.read.r.rvalid
        while True:
            await First(Edge(b), Edge(r))
            await RisingEdge(self.clock)
            for sig, ch, kind in ((b, "B", "write"), (r, "R", "read")):
                if sig.value.is_resolvable and int(sig.value) and self.open != kind:
                    self._fail(f"{ch} channel: {sig._name} high with no {kind} request open "
                               f"(a response without a request) on {self.clock._name}'s edge")

    async def _bounded(self, coro, kind: str, addr: int):
        """Await the master's access; a DUT that leaves one of its handshakes waiting
        stall_clocks clocks is named (the first handshake not yet seen)."""
        if kind == "write":
            steps = [("AW", self.bus.write.aw.awvalid, self.bus.write.aw.awready),
                     ("W", self.bus.write.w.wvalid, self.bus.write.w.wready),
                     ("B", self.bus.write.b.bvalid, self.bus.write.b.bready)]
        else:
            steps = [("AR", self.bus.read.ar.arvalid, self.bus.read.ar.arready),
                     ("R", self.bus.read.r.rvalid, self.bus.read.r.rready)]
        seen = set()
        task = cocotb.start_soon(coro)
        self.open = kind
        try:
            for _ in range(self.stall_clocks):
                await First(task.join(), RisingEdge(self.clock))
                if task.done():
                    return task.result()
                for ch, valid, ready in steps:
                    if valid.value.is_resolvable and ready.value.is_resolvable and int(valid.value) \
                            and int(ready.value):
                        seen.add(ch)
            ch, valid, ready = next((s for s in steps if s[0] not in seen), steps[-1])
            sig = valid if ch in ("B", "R") else ready     # the DUT's side of the handshake
            task.kill()
            self._fail(f"{ch} channel: {sig._name} not asserted {self.stall_clocks} clocks of "
                       f"{self.clock._name} after the {kind} at 0x{addr:x} (an access never answered)")
        finally:
            self.open = None

    def _offset(self, addr: int) -> int:
        if not (self.base <= addr < self.base + self.size) or addr % 4:
            raise ValueError(f"GP access at 0x{addr:x}: outside the PL window 0x{self.base:x}.."
                             f"0x{self.base + self.size - 1:x} or not 4-byte aligned")
        return addr - self.base

    async def _costed(self, coro, cost_ns: float, kind: str, addr: int):
        t_end = get_sim_time("ps") + round(cost_ns * 1000)
        result = await self._bounded(coro, kind, addr)
        left = t_end - get_sim_time("ps")
        if left > 0:
            await Timer(round(left), "ps")
        return result

    async def write32(self, addr: int, value: int) -> None:
        await self._costed(self.master.write_dword(self._offset(addr), value & 0xFFFFFFFF), self.write_ns,
                           "write", addr)

    async def read32(self, addr: int) -> int:
        return await self._costed(self.master.read_dword(self._offset(addr)), self.read_ns, "read", addr)


F2P_LINES = 8   # IRQ_F2P[7:0] (UG585 Table 7-4) / pl_ps_irq0[7:0] (UG1085 Table 13-1): consecutive GIC IDs


def pl_irq_gic_id(preset: dict, name: str, f2p: int) -> int:
    """The GIC ID of PL-to-PS interrupt input ``f2p``.  The preset's [irq] gives the AXI DMA's
    two lines, IRQ_F2P[0] (mm2s) and [1] (s2mm); the eight inputs have consecutive IDs."""
    irq = preset.get("irq", {})
    if "mm2s" not in irq or "s2mm" not in irq:
        raise ValueError(f"board {name!r} has no [irq] mm2s/s2mm (the GIC IDs of the DMA's lines, "
                         f"IRQ_F2P[0] and [1]): add them to place a PL interrupt beside them")
    base = int(irq["mm2s"]["value"])
    taken = {0: "the AXI DMA's mm2s_introut", int(irq["s2mm"]["value"]) - base: "the AXI DMA's s2mm_introut"}
    if not isinstance(f2p, int) or not 0 <= f2p < F2P_LINES:
        raise ValueError(f"f2p={f2p!r}: the PL-to-PS interrupt input must be 0..{F2P_LINES - 1} (IRQ_F2P[7:0])")
    if f2p in taken:
        raise ValueError(f"f2p={f2p}: IRQ_F2P[{f2p}] (GIC ID {base + f2p}) is {taken[f2p]} on {name!r}; "
                         f"wire the DUT's interrupt to a free input (f2p=2..{F2P_LINES - 1})")
    return base + f2p


class PlInterrupt:
    """``PlInterrupt(dut.irq, board, f2p=2)``: a level-high interrupt output of the DUT as the
    board's IRQ_F2P[f2p] line (``gic_id``: the preset's DMA lines take [0] and [1]).  Every change
    of the pin sets the line in the board's interrupt model at that time (board time = HDL time
    + ``offset``), where software sees it (``sgdma.board.plport.pl_irq_line``).
    ``await irq.wait(timeout_ns)`` is the CPU's bounded wait on that line: it returns when the
    handler runs, ``[cpu.apu] irq_entry_ns`` after the line rose."""

    def __init__(self, signal, board, f2p: int = 2):
        self.signal, self.board, self.f2p = signal, board, f2p
        spec = presets.load(board.preset)
        self.gic_id = pl_irq_gic_id(spec, board.preset, f2p)
        apu = spec.get("cpu", {}).get("apu", {})
        if "irq_entry_ns" not in apu:
            raise ValueError(f"board {board.preset!r} has no [cpu.apu] irq_entry_ns: the CPU's interrupt "
                             f"entry cost is needed to wake it")
        self.entry_ns = float(apu["irq_entry_ns"]["value"])
        self.offset = board.now_ps - now_ps()
        self.raised_ps: int | None = None
        self._changed = Event()
        self._task = cocotb.start_soon(self._watch())

    async def _watch(self):
        level = None
        while True:
            v = self.signal.value
            now = bool(v.is_resolvable and int(v))     # X/Z (as in reset): low
            if now != level:
                pl_irq_set(self.board, self.f2p, now, now_ps() + self.offset)
                level = now
                self._changed.set()
            await Edge(self.signal)

    def line(self):
        """The board's IRQ_F2P[f2p] now: (level, rose_ps in board time or None, rises)."""
        return pl_irq_line(self.board, self.f2p)

    async def wait(self, timeout_ns: float) -> float:
        """Wait (at most timeout_ns of HDL time) until the board's line is high; the handler's start
        time in ns (HDL).  TimeoutError names the signal and the line when it never rises."""
        t0 = now_ps()
        deadline = t0 + round(timeout_ns * 1000)
        while not (ln := self.line()).level:
            left = deadline - now_ps()
            if left <= 0:
                raise TimeoutError(f"interrupt {self.signal._name} (IRQ_F2P[{self.f2p}], GIC ID {self.gic_id}): "
                                   f"not raised within {timeout_ns:g} ns (waited from {t0 / 1000:g} ns)")
            self._changed.clear()
            await First(self._changed.wait(), Timer(left, "ps"))
        self.raised_ps = ln.rose_ps - self.offset
        left = self.raised_ps + round(self.entry_ns * 1000) - now_ps()
        if left > 0:
            await Timer(left, "ps")
        t = now_ps() + self.offset
        if t > self.board.now_ps:          # the CPU runs its handler at that time
            self.board.advance((t - self.board.now_ps) / 1000.0)
        return get_sim_time("ns")
