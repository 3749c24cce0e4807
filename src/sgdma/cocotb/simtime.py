"""The HDL simulator's time in whole picoseconds, the board's unit: every bridge converts at this one place."""
from __future__ import annotations

from cocotb.utils import get_sim_time


def now_ps() -> int:
    return int(round(get_sim_time("ps")))
