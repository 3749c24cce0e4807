"""The CPU's side of a PL register block: GP-port MMIO to a DUT's AXI4-Lite slave, and a DUT
interrupt output waking the CPU.

An access leaves the CPU at the simulator's current time and reaches the DUT's slave at once
(cocotbext-axi's AxiLiteMaster drives it from the next edge); the CPU goes on when both the
preset's cost of that access ([cpu] mmio_read_ns / mmio_write_ns, the board's own cost of a PL
register behind M_AXI_GP0) has passed and the DUT has answered (Device memory: one access after
another).  An interrupt wakes the CPU [cpu.apu] irq_entry_ns after the line rises.
"""
from __future__ import annotations

from cocotb.triggers import First, RisingEdge, Timer
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiLiteBus, AxiLiteMaster

from sgdma.hw import presets


class GpPort:
    """``GpPort(dut, "s_axil", dut.clk, board, base=0x43C0_0000, size=0x1_0000)``: the PL window
    [base, base+size) the CPU reaches over M_AXI_GP0, answered by the DUT's AXI4-Lite slave."""

    def __init__(self, dut, prefix: str, clock, board, base: int, size: int, reset=None,
                 reset_active_level: bool = False):
        if base % 4096 or size <= 0 or size % 4096:
            raise ValueError(f"GP window base=0x{base:x} size=0x{size:x}: both must be multiples of 4 KiB "
                             f"(the address editor's granularity)")
        self.base, self.size = base, size
        self.read_ns = board.option("cpu.mmio_read_ns")
        self.write_ns = board.option("cpu.mmio_write_ns")
        self.master = AxiLiteMaster(AxiLiteBus.from_prefix(dut, prefix), clock, reset,
                                    reset_active_level=reset_active_level)

    def _offset(self, addr: int) -> int:
        if not (self.base <= addr < self.base + self.size) or addr % 4:
            raise ValueError(f"GP access at 0x{addr:x}: outside the PL window 0x{self.base:x}.."
                             f"0x{self.base + self.size - 1:x} or not 4-byte aligned")
        return addr - self.base

    async def _costed(self, coro, cost_ns: float):
        t_end = get_sim_time("ps") + round(cost_ns * 1000)
        result = await coro
        left = t_end - get_sim_time("ps")
        if left > 0:
            await Timer(round(left), "ps")
        return result

    async def write32(self, addr: int, value: int) -> None:
        await self._costed(self.master.write_dword(self._offset(addr), value & 0xFFFFFFFF), self.write_ns)

    async def read32(self, addr: int) -> int:
        return await self._costed(self.master.read_dword(self._offset(addr)), self.read_ns)


class PlInterrupt:
    """``PlInterrupt(dut.irq, board)``: a level-high interrupt output of the DUT on the board's
    GIC (IRQ_F2P).  ``await irq.wait(timeout_ns)`` returns when the CPU's handler runs."""

    def __init__(self, signal, board):
        self.signal = signal
        apu = presets.load(board.preset).get("cpu", {}).get("apu", {})
        if "irq_entry_ns" not in apu:
            raise ValueError(f"board {board.preset!r} has no [cpu.apu] irq_entry_ns: the CPU's interrupt "
                             f"entry cost is needed to wake it")
        self.entry_ns = float(apu["irq_entry_ns"]["value"])
        self.raised_ps: int | None = None

    async def wait(self, timeout_ns: float) -> float:
        """Wait (at most timeout_ns) for the line; the handler's start time in ns.  TimeoutError
        names the signal when the DUT never raises it."""
        if not (self.signal.value.is_resolvable and int(self.signal.value)):
            t0 = get_sim_time("ns")
            fired = await First(RisingEdge(self.signal), Timer(round(timeout_ns * 1000), "ps"))
            if isinstance(fired, Timer) or not int(self.signal.value):
                raise TimeoutError(f"interrupt {self.signal._name}: not raised within {timeout_ns:g} ns "
                                   f"(waited from {t0:g} ns)")
        self.raised_ps = round(get_sim_time("ps"))
        await Timer(round(self.entry_ns * 1000), "ps")
        return get_sim_time("ns")
