"""Boards the driver runs on: the virtual board (PYNQ-shaped MMIO and allocate) and its coherency checker."""
from sgdma.board.virtual import MMIO, PhysicalArray, VirtualBoard  # noqa: F401
