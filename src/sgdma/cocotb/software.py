"""The board's own software API (AxiDma, MMIO, allocate, ring calls) as a cocotb coroutine in
step with HDL time.

A board call is synchronous C: it runs at the board's time and moves it by its cost (an MMIO
access charges the preset's [cpu] mmio_read_ns/mmio_write_ns).  ``await sw.call(fn, ...)``
first runs the board up to the simulator's time (everything due on the board happens, as a
bridge's edge does), makes the call there, then lets the HDL wait out the call's cost, so the
CPU and the RTL see the same clock: after the await, board time = HDL time + ``offset``.
"""
from __future__ import annotations

from cocotb.triggers import Timer

from sgdma.cocotb.simtime import now_ps


class Software:
    """``sw = Software(board)`` (board time = HDL time + ``sw.offset``, fixed at creation, as the
    bridges fix theirs); ``dmasr = await sw.call(mmio.read, 0x4)``."""

    def __init__(self, board, offset: int | None = None):
        self.board = board
        self.offset = board.now_ps - now_ps() if offset is None else int(offset)

    async def call(self, fn, *args, **kwargs):
        lag = now_ps() + self.offset - self.board.now_ps
        if lag > 0:
            self.board.advance(lag / 1000)
        result = fn(*args, **kwargs)
        ahead = self.board.now_ps - self.offset - now_ps()
        if ahead > 0:       # the call's cost: the HDL goes on when the CPU does
            await Timer(ahead, "ps")
        return result
