"""What the PL saw on a virtual board: the MM2S stream's beats and the CPU's
writes to the timing engine's GPIO inputs, as numpy arrays.

    trace = BeatTrace.record(board)     # start recording (forgets older records)
    ... run a characterization point or a gate sequence ...
    t = trace.take()                     # BeatTrace with the arrays filled in

Beat times are on the DMA clock's edges (``cycles()`` gives their indices,
edge 0 at the board's last reseed); a GPIO write is seen by the PL at the first
edge at or after it lands.  A reseed while recording restarts the record.  The RTL
co-simulation (sgdma.rtl) replays a trace into the gateware.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .. import _core

CTL, LEN = 0, 1                 # ctl_reg: GPIO A ch1 (control), GPIO B ch2 (length in beats)
EDGE_SLACK_PS = 2               # csrc/vboard/base/time.h vb_edge_index: integer-ps rounding of edge times


@dataclass
class BeatTrace:
    board: object = field(repr=False)
    clk_ps: float = 0.0
    data_bytes: int = 0
    origin_ps: int = 0              # PL clock edge 0 (the board's last reseed)
    beat_ps: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    beat_last: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    ctl_ps: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    ctl_value: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint32))
    ctl_reg: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint8))

    @classmethod
    def record(cls, board) -> "BeatTrace":
        """Start recording on ``board`` (a sgdma.VirtualBoard)."""
        _core.trace_enable(board._b, True)
        return cls(board, 1e6 / board.axi_dma.clock_mhz, board.axi_dma.data_bytes)

    def take(self) -> "BeatTrace":
        """Copy what was recorded so far into the arrays (recording goes on)."""
        raw = _core.trace_take(self.board._b)
        if not raw["on"]:
            raise RuntimeError("beat trace: recording is off on this board (call BeatTrace.record first)")
        self.origin_ps = int(raw["clk_origin_ps"])
        self.beat_ps = np.frombuffer(raw["beat_ps"], np.uint64).copy()
        self.beat_last = np.frombuffer(raw["beat_last"], np.uint8).astype(bool)
        self.ctl_ps = np.frombuffer(raw["ctl_ps"], np.uint64).copy()
        self.ctl_value = np.frombuffer(raw["ctl_value"], np.uint32).copy()
        self.ctl_reg = np.frombuffer(raw["ctl_reg"], np.uint8).copy()
        return self

    def stop(self) -> None:
        _core.trace_enable(self.board._b, False)

    def edges(self, t_ps: np.ndarray) -> np.ndarray:
        """Index of the first clock edge at or after each time (as the model's vb_edge_index)."""
        k = (np.asarray(t_ps, dtype=np.float64) - self.origin_ps - EDGE_SLACK_PS) / self.clk_ps
        return np.maximum(np.ceil(k), 0).astype(np.int64)

    def cycles(self) -> np.ndarray:
        """Clock index of every beat; raises if a beat is off the clock grid."""
        k = np.rint((self.beat_ps.astype(np.float64) - self.origin_ps) / self.clk_ps).astype(np.int64)
        grid = self.origin_ps + np.floor(k * self.clk_ps + 0.5).astype(np.int64)
        off = np.flatnonzero(np.abs(grid - self.beat_ps.astype(np.int64)) > EDGE_SLACK_PS)
        if off.size:
            i = int(off[0])
            raise ValueError(f"beat {i} at {int(self.beat_ps[i])} ps is not on the {self.clk_ps:.3f} ps clock grid")
        return k

    def packets(self) -> np.ndarray:
        """Number of beats of each packet (TLAST-delimited; an open packet last)."""
        ends = np.flatnonzero(self.beat_last) + 1
        if not ends.size or ends[-1] != self.beat_ps.size:
            ends = np.r_[ends, self.beat_ps.size]
        return np.diff(np.r_[0, ends]).astype(np.int64) if self.beat_ps.size else np.zeros(0, np.int64)

    @property
    def clock_mhz(self) -> float:
        return 1e6 / self.clk_ps

    def check_clock(self, clk_ps: float) -> None:
        """Refuse a trace recorded at another clock than ``clk_ps``."""
        if not math.isclose(self.clk_ps, clk_ps, rel_tol=1e-9):
            raise ValueError(f"beat trace recorded at a {self.clk_ps:.3f} ps clock ({self.clock_mhz:.3f} MHz); "
                             f"the simulation runs at {clk_ps:.3f} ps: record the trace on a board whose "
                             f"DMA clock matches, or simulate at {self.clk_ps:.3f} ps")
