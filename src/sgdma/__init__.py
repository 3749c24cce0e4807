"""sgdma: scatter-gather DMA toolkit for FPGA SoCs.

Layers, top to bottom (data flows down, never up):
``sgdma.cli`` → applications (``sgdma.selftest``) → driver API (``sgdma.driver``)
→ C driver core (csrc/driver) → platform ops → virtual board (``sgdma.board``,
csrc/vboard) with board presets (``sgdma/presets``).

The public names below are imported on first use (PEP 562), so ``import sgdma`` (and every
``import sgdma.<sub>``, which runs this file first) costs nothing: a command imports only what it uses.
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: public name -> the module that defines it
_PUBLIC = {
    **dict.fromkeys(("MMIO", "BufferInUseError", "BusError", "ConcurrentUseError", "ForeignBufferError",
                     "FreedBufferError", "PhysicalArray", "VirtualBoard"), "sgdma.board.virtual"),
    **dict.fromkeys(("AxiDma", "Channel", "Completions", "Ring"), "sgdma.driver.axidma"),
    "LinuxBoard": "sgdma.board.linux",
    **dict.fromkeys(("PcieDma", "PcieDmaError"), "sgdma.driver.pciedma"),
    **dict.fromkeys(("AddressError", "AlignmentError", "ArgumentError", "BusyError", "ConfigError", "DmaError",
                     "DmaTimeoutError", "HardwareError", "LengthError", "ModeError", "NotHaltedError",
                     "PacketOpenError", "RingEmptyError", "RingFullError", "StreamWidthError", "TailError"),
                    "sgdma.driver.errors"),
}

#: modules reachable as attributes of ``sgdma`` (the eager import of old made these available)
_MODULES = {"pg021": "sgdma.hw.pg021", "board": "sgdma.board", "driver": "sgdma.driver", "hw": "sgdma.hw"}

__all__ = [
    "VirtualBoard", "LinuxBoard", "PcieDma", "PcieDmaError", "MMIO", "PhysicalArray", "AxiDma", "Channel", "Ring", "Completions", "pg021",
    "DmaError", "ArgumentError", "AlignmentError", "LengthError", "StreamWidthError", "AddressError",
    "RingFullError", "RingEmptyError", "PacketOpenError", "NotHaltedError", "TailError", "ModeError",
    "BusyError", "DmaTimeoutError", "HardwareError", "ConfigError", "BusError", "ConcurrentUseError",
    "BufferInUseError", "FreedBufferError", "ForeignBufferError",
]


def __getattr__(name: str):
    if name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    elif name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
    else:
        raise AttributeError(f"module 'sgdma' has no attribute {name!r}")
    globals()[name] = value                    # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC) | set(_MODULES))
