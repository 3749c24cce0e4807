"""sgdma: scatter-gather DMA toolkit for FPGA SoCs.

Layers, top to bottom (data flows down, never up):
``sgdma.cli`` → applications (``sgdma.selftest``) → driver API (``sgdma.driver``)
→ C driver core (csrc/driver) → platform ops → virtual board (``sgdma.board``,
csrc/vboard) with board presets (``sgdma/presets``).
"""
from sgdma.hw import pg021
from sgdma.board.virtual import MMIO, PhysicalArray, VirtualBoard
from sgdma.driver.axidma import AxiDma, Channel, Completions, Ring
from sgdma.board.linux import LinuxBoard
from sgdma.driver.errors import (AddressError, AlignmentError, ArgumentError, BusyError, ConfigError, DmaError,
                     DmaTimeoutError, HardwareError, LengthError, ModeError, NotHaltedError, PacketOpenError,
                     RingEmptyError, RingFullError, StreamWidthError, TailError)

__version__ = "0.1.0"

__all__ = [
    "VirtualBoard", "LinuxBoard", "MMIO", "PhysicalArray", "AxiDma", "Channel", "Ring", "Completions", "pg021",
    "DmaError", "ArgumentError", "AlignmentError", "LengthError", "StreamWidthError", "AddressError",
    "RingFullError", "RingEmptyError", "PacketOpenError", "NotHaltedError", "TailError", "ModeError",
    "BusyError", "DmaTimeoutError", "HardwareError", "ConfigError",
]
