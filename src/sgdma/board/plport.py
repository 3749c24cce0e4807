"""A PL AXI master on the board's PS port (csrc/vboard/api_plport.c): the co-simulation bridge's
way into the board's interconnect, DDR controller and DRAM, at the master's (the HDL's) time; and
the PL-to-PS interrupt inputs an RTL drives (IRQ_F2P)."""
from __future__ import annotations

from typing import NamedTuple

from sgdma import _core

OKAY, DECERR, SLVERR = 0, 1, 2


class PlRead(NamedTuple):
    resp: int            # OKAY, DECERR or SLVERR
    t_issue_ps: int      # the board's time the request entered (the master's, or later if the board was ahead)
    t_first_ps: int      # first data back at the port
    t_done_ps: int       # last data back
    data: bytes


class PlWrite(NamedTuple):
    resp: int
    t_issue_ps: int
    t_bresp_ps: int      # the write response


def pl_read(board, t_ps: int, addr: int, nbytes: int) -> PlRead:
    """One read burst at board time ``t_ps`` (the board runs up to it first)."""
    return PlRead(*_core.pl_read(board._b, int(t_ps), int(addr), int(nbytes)))


def pl_write(board, t_aw_ps: int, t_wlast_ps: int, addr: int, data: bytes) -> PlWrite:
    """One write burst: address at ``t_aw_ps``, its last data beat at ``t_wlast_ps``."""
    return PlWrite(*_core.pl_write(board._b, int(t_aw_ps), int(t_wlast_ps), int(addr), bytes(data)))


class PlIrqLine(NamedTuple):
    level: bool
    rose_ps: int | None  # board time of its last rise (None: never rose, or a DMA line)
    rises: int


def pl_irq_set(board, f2p: int, level: bool, t_ps: int) -> None:
    """IRQ_F2P[f2p] (2..7) at ``level`` from board time ``t_ps`` (the board runs up to it first)."""
    _core.pl_irq_set(board._b, int(f2p), bool(level), int(t_ps))


def pl_irq_line(board, f2p: int) -> PlIrqLine:
    """IRQ_F2P[f2p] now, as the board's CPU sees it ([0], [1]: the AXI DMA's lines)."""
    return PlIrqLine(*_core.pl_irq_get(board._b, int(f2p)))


class Mm2sBeat(NamedTuple):
    data: bytes          # the stream's width; bytes past nbytes are 0
    nbytes: int          # valid bytes (TKEEP)
    last: bool           # TLAST


def mm2s_beat(board) -> Mm2sBeat | None:
    """The next MM2S beat a live consumer may take (VirtualBoard.mm2s_live), None if none is queued."""
    r = _core.mm2s_beat(board._b)
    return None if r is None else Mm2sBeat(*r)


def dma_clock(board) -> tuple[int, float]:
    """The DMA clock's edge 0 (ps) and period (ps)."""
    return _core.dma_clock(board._b)
