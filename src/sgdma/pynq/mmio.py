"""``pynq.MMIO`` over an sgdma board, with PYNQ's rules: 1/2/4/8-byte reads at word-aligned offsets
(8 bytes in 'little' or 'big' word order), writes of an int (one 32-bit word) or of bytes (whole words),
anything else refused."""
from __future__ import annotations

import numpy as np

WORD_ORDERS = ("little", "big")


class MMIO:
    """``pynq.MMIO(base_addr, length=4, device=None)``: register access by byte offset."""

    def __init__(self, base_addr: int, length: int = 4, device=None, **kwargs):
        from sgdma.pynq import _board

        kwargs.pop("debug", None)                # deprecated in PYNQ, accepted and ignored as there
        if kwargs:
            raise TypeError(f"MMIO(): unexpected arguments {', '.join(sorted(kwargs))}")
        if base_addr < 0 or length < 0:
            raise ValueError("Base address or length cannot be negative.")
        self.base_addr, self.length = base_addr, length
        self.device = _board(device)
        self._mmio = self.device.mmio(base_addr, max(length, 4))

    @staticmethod
    def _offset(offset) -> int:
        if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
            raise TypeError(f"offset {offset!r}: must be an int")
        if offset < 0:
            raise ValueError("Offset cannot be negative.")
        if offset % 4:
            raise MemoryError("Unaligned access: offset must be multiple of 4.")
        return int(offset)

    def read(self, offset: int = 0, length: int = 4, word_order: str = "little") -> int:
        if length not in (1, 2, 4, 8):
            raise ValueError("MMIO currently only supports 1, 2, 4 and 8-byte reads.")
        offset = self._offset(offset)
        if length == 8 and word_order not in WORD_ORDERS:
            raise ValueError(f"word_order {word_order!r}: MMIO only supports 'big' and 'little'.")
        lo = self._mmio.read(offset)
        if length == 8:
            hi = self._mmio.read(offset + 4)
            return (hi << 32 | lo) if word_order == "little" else (lo << 32 | hi)
        return lo & ((1 << (8 * length)) - 1)

    def write(self, offset: int, data) -> None:
        offset = self._offset(offset)
        if isinstance(data, bool) or not isinstance(data, (int, np.integer, bytes)):
            raise ValueError(f"Data type must be int or bytes (got {type(data).__name__}).")
        if isinstance(data, bytes):
            if len(data) % 4:
                raise MemoryError("Unaligned write: data length must be multiple of 4.")
            for i, word in enumerate(np.frombuffer(data, dtype="<u4")):
                self._mmio.write(offset + 4 * i, int(word))
            return
        if not 0 <= int(data) <= 0xFFFF_FFFF:
            raise ValueError(f"MMIO.write({offset:#x}, {int(data)}): a register word is 0..0xFFFFFFFF")
        self._mmio.write(offset, int(data))

    write_mm = write_reg = write
