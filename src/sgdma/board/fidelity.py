"""What a fidelity means to a board (the memory path it is built with) and its options' rules; light, so a
command's start-up imports it without the experiments (sgdma.experiments.fidelity has the rest).

functional: SG rings walked untimed (dma.functional: csrc/vboard/dma/functional.c), one beat per DMA clock, over
the ideal memory path of the pg021 preset's "ideal memory" (no DRAM banks, refresh or controller latency, no
interconnect latency or port width limit) for what still runs timed (simple mode, cyclic rings, paced streams);
memory, BD STATUS, stream data, registers, interrupts and errors stay the exact model's.
"""
from __future__ import annotations

import numbers

FIDELITIES = ("exact", "fast", "functional")
DEFAULT_PERIODS = 8           # issue 27: a window of 8 whole refresh periods
MAX_PERIODS_FACTOR = 4        # the window grows a period at a time up to 4R, then doubles until the trial ends
DEFAULT_TOLERANCE = 0.02      # 2 %: the window is extended while the estimate exceeds half of it

#: The functional fidelity, as board options (csrc/vboard/config.c keys).
FUNCTIONAL_OPTIONS = {"dma.functional": 1.0, "dram.enabled": 0.0, "ic.request_ns": 0.0, "ic.response_ns": 0.0,
                      "ic.width_bits": 0.0}

FUNCTIONAL_NOTE = ("functional: SG rings walked untimed at one beat per clock over an ideal memory path (no DRAM "
                   "banks, refresh or controller latency, no interconnect latency or width limit); registers, "
                   "descriptors and data exact, times not the board's")


def board_options(fidelity: str) -> dict:
    """Board options of a fidelity (exact and fast: none, the preset's own timing)."""
    return dict(FUNCTIONAL_OPTIONS) if fidelity == "functional" else {}


class FidelityError(ValueError):
    """A fidelity option out of range; raised before anything runs."""


def check(fidelity: str, periods: int, tolerance: float) -> None:
    if fidelity not in FIDELITIES:
        raise FidelityError(f"--fidelity {fidelity!r}: choose {', '.join(FIDELITIES)}")
    if isinstance(periods, bool) or not isinstance(periods, numbers.Integral) or not 2 <= periods <= 1024 \
            or periods % 2:
        raise FidelityError(f"--fast-periods {periods!r}: an even number of refresh periods from 2 to 1024 "
                            f"(the error estimate compares the window's parts)")
    if not 0 < tolerance < 1:
        raise FidelityError(f"--tolerance {tolerance!r}: a relative error above 0 and below 1 (e.g. 2%)")


def parse_tolerance(text) -> float:
    """'2%', '0.02' or 0.02 -> 0.02."""
    s = str(text).strip()
    try:
        v = float(s[:-1]) / 100 if s.endswith("%") else float(s)
    except ValueError:
        raise FidelityError(f"--tolerance {text!r}: a relative error such as 2% or 0.02") from None
    check("exact", DEFAULT_PERIODS, v)
    return v
