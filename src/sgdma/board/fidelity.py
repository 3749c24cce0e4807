"""What a fidelity means to a board: the memory path it is built with (sgdma.experiments.fidelity has the rest).

functional: the ideal memory path, as the pg021 preset's "ideal memory": no DRAM model (banks, refresh, controller
latency), no interconnect latency or port width limit, so every beat costs one DMA clock; registers, descriptors,
data and errors stay the exact model's.
"""
from __future__ import annotations

FIDELITIES = ("exact", "fast", "functional")

#: The functional memory path, as board options (csrc/vboard/bus/config.c keys).
FUNCTIONAL_OPTIONS = {"dram.enabled": 0.0, "ic.request_ns": 0.0, "ic.response_ns": 0.0, "ic.width_bits": 0.0}

FUNCTIONAL_NOTE = ("functional: ideal memory path (no DRAM banks, refresh or controller latency, no interconnect "
                   "latency or width limit); registers, descriptors and data exact, times not the board's")


def board_options(fidelity: str) -> dict:
    """Board options of a fidelity (exact and fast: none, the preset's own timing)."""
    return dict(FUNCTIONAL_OPTIONS) if fidelity == "functional" else {}
