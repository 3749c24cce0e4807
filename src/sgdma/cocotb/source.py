"""DmaStreamSource: the virtual AXI DMA's MM2S stream driving the DUT's AXI-Stream slave.

The board runs MM2S consumer-paced (``VirtualBoard.mm2s_live``): the data mover queues its
bursts and a beat leaves only when the DUT takes it.  On each clock edge the bridge brings the
board up to the edge's time; if the DUT took the beat on TDATA (TVALID and TREADY high) the
board is told so at that time (``mm2s_accept``), which gives the BD its stream times and frees
the DMA's FIFO for the next read burst.  The next beat is put on the bus when the model offers
it by the following edge: TDATA is the BD's bytes (the keyhole bit honoured), TKEEP its valid
bytes, TLAST the BD's EOF on its last beat - what the model's own stream emits.  So TREADY
back-pressures the DMA as PG021's stalled stream does: the FIFO fills and holds back the AXI
reads.  Time: board time = HDL time + ``offset``, fixed when the source is created (on a rising
edge of its clock) so that the HDL's edges are the DMA clock's edges at and after the board's
time then (exact when the DUT's clock period is the DMA's, a whole number of ps).  Software run
after that (a ring's tail write) moves the board ahead; the HDL reaches it.
"""
from __future__ import annotations

import logging

import cocotb
from cocotb.triggers import ClockCycles, RisingEdge
from cocotb.utils import get_sim_time
from cocotb_bus.bus import Bus

from sgdma.board.plport import dma_clock, mm2s_beat
from sgdma.cocotb.errors import AxiProtocolError
from sgdma.cocotb.simtime import now_ps

STALL_CLOCKS = 100_000      # TREADY low this long while a beat waits: the DUT is stuck (an error)


class DmaStreamSource:
    """``DmaStreamSource(dut, "s_axis", dut.clk, board)``: signals ``<prefix>_tdata``,
    ``_tvalid``, ``_tready``, ``_tlast`` and optionally ``_tkeep``.  Create it before MM2S's first
    BD (it switches the board's MM2S to the live consumer), right after a rising edge of
    ``clock``.  ``taken_ps`` lists the board time of every beat the DUT took.  ``quantum`` (clocks, default 1: exact) is temporal decoupling:
    while MM2S has no beat queued the board is asked again only every ``quantum`` clocks, so a
    beat whose data arrives in between goes on the bus up to quantum - 1 clocks late (and the
    DMA's FIFO frees that much later); queued beats are waited for exactly either way."""

    def __init__(self, dut, prefix: str, clock, board, reset=None, reset_active_level: bool = False,
                 stall_clocks: int | None = STALL_CLOCKS, quantum: int = 1):
        self.bus = Bus(dut, prefix, ["tdata", "tvalid", "tready", "tlast"], optional_signals=["tkeep"],
                       bus_separator="_")
        self.board, self.clock, self.prefix = board, clock, prefix
        self.reset, self.reset_level = reset, bool(reset_active_level)
        self.stall_clocks = stall_clocks
        if not isinstance(quantum, int) or quantum < 1:
            raise ValueError(f"quantum={quantum!r}: clocks between looks at an idle MM2S, an integer >= 1 "
                             f"(1: exact)")
        self.quantum = quantum
        width = len(self.bus.tdata)
        if width != board.axi_dma.data_width:
            raise ValueError(f"{prefix}_tdata is {width} bits; the AXI DMA's MM2S stream is "
                             f"{board.axi_dma.data_width} bits (dma.data_width): match them")
        self.bytes = width // 8
        board.mm2s_live()               # refused (with the fix) once MM2S has BDs queued
        self.origin_ps, self.period_ps = dma_clock(board)
        self.offset = self._align(now_ps())   # board time = HDL time + offset
        self.clocks = self.beats = self.packets = 0
        self.taken_ps: list[int] = []
        self._wait = 0
        self.bus.tvalid.value = 0
        self.error: AxiProtocolError | None = None
        self.log = logging.getLogger(f"sgdma.cocotb.{prefix}")
        self._task = cocotb.start_soon(self._run())

    def _fail(self, msg: str):
        self.error = AxiProtocolError(f"{self.prefix} (MM2S stream): {msg} at clock {self.clocks} "
                                      f"({get_sim_time('ns'):g} ns)")
        self.log.error("%s", self.error)
        raise self.error

    def _align(self, t_hdl: int) -> int:
        """Offset mapping this HDL edge to the DMA clock's first edge at or after the board's now."""
        k = max(0, -(-(self.board.now_ps - self.origin_ps - 2) // self.period_ps))
        edge = self.origin_ps + int(k * self.period_ps + 0.5)
        return edge - t_hdl

    def _check_phase(self, t: int):
        k = (t - self.origin_ps) / self.period_ps
        if abs(k - round(k)) * self.period_ps > 2:
            raise ValueError(f"{self.prefix}: DmaStreamSource was created between edges of its clock (its "
                             f"edges fall {abs(k - round(k)) * self.period_ps:.0f} ps off the DMA clock's): "
                             f"create it right after `await RisingEdge(clk)`")

    def _in_reset(self) -> bool:
        if self.reset is None:
            return False
        v = self.reset.value
        return v.is_resolvable and int(v) == int(self.reset_level)

    def _catch_up(self, t: int):
        ahead = t - self.board.now_ps
        if ahead > 0:
            self.board.advance(ahead / 1000.0)

    async def _run(self):
        bus, board = self.bus, self.board
        edge = RisingEdge(self.clock)
        step = int(round(self.period_ps))
        skip = 1
        while True:
            if skip > 1:
                await ClockCycles(self.clock, skip)
            else:
                await edge
            self.clocks += skip
            skip = 1
            t_hdl = now_ps()
            t = t_hdl + self.offset
            if self.clocks == 1:
                self._check_phase(t)
            if self._in_reset():
                bus.tvalid.value = 0
                continue
            valid = bus.tvalid.value.is_resolvable and int(bus.tvalid.value)
            if valid:
                rdy = bus.tready.value
                if not rdy.is_resolvable:
                    self._fail(f"TREADY is {rdy} while TVALID is high (beat {self.beats})")
                if int(rdy):
                    last = board.mm2s_accept(t)
                    self.taken_ps.append(t)
                    self.beats += 1
                    self.packets += last
                    self._wait = 0
                else:
                    self._wait += 1
                    if self.stall_clocks and self._wait > self.stall_clocks:
                        self._fail(f"TREADY low for {self._wait} clocks while beat {self.beats} waits")
                    self._catch_up(t)
                    continue         # AXI-Stream: the beat stays on the bus until taken
            else:
                self._catch_up(t)
            off = board.mm2s_offer_ps()
            if off is None or off > t + step + 2:     # 2 ps: the model's edge rounding
                bus.tvalid.value = 0
                # Nothing can be offered before the queued beat's edge (offers keep their order):
                # wake on the edge before it.  With none queued, look again after `quantum` clocks.
                skip = max(1, (off - t + 2) // step - 1) if off is not None else self.quantum
                continue
            data, n, tlast = mm2s_beat(board)
            bus.tdata.value = int.from_bytes(data, "little")
            if hasattr(bus, "tkeep"):
                bus.tkeep.value = (1 << n) - 1
            bus.tlast.value = int(tlast)
            bus.tvalid.value = 1
