"""DmaStreamSink: the DUT's AXI-Stream master feeding the virtual AXI DMA's S2MM stream input.

Each beat the DUT hands over (TVALID and TREADY on a clock edge) reaches the board at that
edge's time: the board runs up to it, then the beat is queued on S2MM's stream input (the link
the software source and the loopback use, csrc/vboard/base/stream.h), so the DMA's own S2MM
timing (BD reads, AW/W/B per burst, the DRAM) follows the RTL's beats.  TREADY is the model's:
low while the bytes S2MM has not yet taken fill its stream FIFO (``fifo_bytes``, assumed as the
DMA's data-mover FIFO ``dma.fifo_bytes`` unless given) - a halted channel or one without BDs
back-pressures the RTL as PG021's S2MM does once its FIFO is full.
"""
from __future__ import annotations

import cocotb
from cocotb.triggers import RisingEdge
from cocotb_bus.bus import Bus

from sgdma.cocotb.simtime import now_ps


class DmaStreamSink:
    """``DmaStreamSink(dut, "m_axis", dut.clk, board)``: signals ``<prefix>_tdata``, ``_tvalid``,
    ``_tready``, ``_tlast`` and optionally ``_tkeep`` (bytes with TKEEP low are not sent)."""

    def __init__(self, dut, prefix: str, clock, board, reset=None, reset_active_level: bool = False,
                 fifo_bytes: int | None = None):
        self.bus = Bus(dut, prefix, ["tdata", "tvalid", "tready", "tlast"], optional_signals=["tkeep"],
                       bus_separator="_")
        self.board, self.clock = board, clock
        self.reset, self.reset_level = reset, bool(reset_active_level)
        width = len(self.bus.tdata)
        if width % 8 or width // 8 != board.axi_dma.data_width // 8:
            raise ValueError(f"{prefix}_tdata is {width} bits; the AXI DMA's S2MM stream is "
                             f"{board.axi_dma.data_width} bits (dma.data_width): match them")
        self.bytes = width // 8
        self.fifo = int(fifo_bytes if fifo_bytes is not None else board.option("dma.fifo_bytes"))
        if self.fifo < self.bytes:
            raise ValueError(f"fifo_bytes={self.fifo}: must hold at least one {self.bytes}-byte beat")
        self.offset = board.now_ps - now_ps()
        self.beats = self.packets = 0
        self.bus.tready.value = 0
        self._task = cocotb.start_soon(self._run())

    def _catch_up(self, t_ps: int):
        ahead = t_ps + self.offset - self.board.now_ps
        if ahead > 0:
            self.board.advance(ahead / 1000.0)

    async def _run(self):
        bus, src = self.bus, self.board.s2mm_source
        edge = RisingEdge(self.clock)
        while True:
            await edge
            v = bus.tvalid.value
            if self.reset is not None and self.reset.value.is_resolvable and \
                    int(self.reset.value) == int(self.reset_level):
                bus.tready.value = 0
                continue
            t = now_ps()
            if int(bus.tready.value) and v.is_resolvable and int(v):
                data = int(bus.tdata.value).to_bytes(self.bytes, "little")
                if hasattr(bus, "tkeep"):
                    keep = int(bus.tkeep.value)
                    data = bytes(b for i, b in enumerate(data) if keep >> i & 1)
                last = bool(int(bus.tlast.value))
                self._catch_up(t)
                if data or last:
                    src.send(data, last=last)
                self.beats += 1
                self.packets += last
            else:
                self._catch_up(t)
            bus.tready.value = int(src.pending + self.bytes <= self.fifo)
