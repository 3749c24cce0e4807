"""Shared testbench helpers: clock, reset, the CSM's GPIO fields (from csm.h via sgdma._core)."""
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge
from cocotb.utils import get_sim_time

from sgdma import _core

C = _core.constants


def field_prep(mask: int, value: int) -> int:
    return (value * (mask & -mask)) & mask


def field_get(mask: int, value: int) -> int:
    return (value & mask) // (mask & -mask)


def period_fs() -> int:
    return int(os.environ.get("SGDMA_CLK_FS", "4000000"))


def cycle() -> int:
    """Index of the clock edge the simulation is at (call right after a RisingEdge)."""
    return int(get_sim_time("fs")) // period_fs()


async def start(dut, cycles_in_reset: int = 3):
    """Start the clock (SGDMA_CLK_FS, default 4 ns; edges at whole periods) and hold
    rst_n low for a few clocks."""
    period = period_fs()
    cocotb.start_soon(Clock(dut.clk, period, units="fs").start())
    dut.rst_n.value = 0
    await ClockCycles(dut.clk, cycles_in_reset)
    dut.rst_n.value = 1


async def edge(dut):
    """Next rising edge, then let the registers settle (read-only phase)."""
    await RisingEdge(dut.clk)
    await ReadOnly()


async def read_counters(dut, ctl: int) -> dict:
    """The timing engine's four counters through GPIO B (SEL in GPIO A), one per clock."""
    out = {}
    for name in ("setup", "latency", "throughput", "beats"):
        dut.gpio_ctl.value = (ctl & ~C["CSM_CTL_SEL"]) | field_prep(C["CSM_CTL_SEL"], C[f"CSM_SEL_{name.upper()}"])
        await ReadOnly()
        out[name] = int(dut.gpio_count.value)
        await RisingEdge(dut.clk)
    return out
