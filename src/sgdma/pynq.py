"""What PYNQ's DMA driver (``pynq/lib/dma.py``) imports from ``pynq``, over an
sgdma board (virtual or Linux), so an unmodified PYNQ DMA notebook runs::

    import sgdma, sgdma.pynq as pynq
    board = sgdma.VirtualBoard("zcu111", loopback=True)
    desc = pynq.description(board)          # what PYNQ reads from the .hwh
    # with sys.modules["pynq"] = sgdma.pynq, pynq.lib.dma.DMA(desc) drives it

``allocate`` hands out zeroed memory, as PYNQ's CMA allocations are (its SG
channel relies on fresh descriptor memory holding no stale Cmplt bit).
"""
from __future__ import annotations

import numpy as np

_current = None


class UnsupportedConfiguration(Exception):
    """An IP configuration the driver does not support (as ``pynq.UnsupportedConfiguration``)."""


def use(board) -> None:
    """The board ``allocate``/``MMIO`` use when no ``target``/``device`` is given."""
    global _current
    _current = board


def _board(device):
    board = device if device is not None else _current
    if board is None:
        raise RuntimeError("no board: call sgdma.pynq.use(board) first, or pass target=/device=")
    return board


def allocate(shape, dtype="u8", target=None, **kwargs):
    """A zeroed, physically contiguous numpy array (``PhysicalArray``) in board memory."""
    region = kwargs.pop("region", None)
    kwargs.pop("cacheable", None)            # the board's buffers are cacheable; flush/invalidate apply
    if kwargs:
        raise TypeError(f"allocate(): unexpected arguments {', '.join(kwargs)}")
    return _board(target).allocate(shape, np.dtype(dtype), region=region)


class MMIO:
    """``pynq.MMIO(base_addr, length=4, device=None)``: 32-bit register access by offset."""

    def __init__(self, base_addr: int, length: int = 4, debug: bool = False, device=None):
        self.base_addr, self.length = base_addr, length
        self.device = _board(device)
        self._mmio = self.device.mmio(base_addr, max(length, 4))

    def read(self, offset: int = 0, length: int = 4, word_order: str = "little") -> int:
        if length == 8:
            lo, hi = self._mmio.read(offset), self._mmio.read(offset + 4)
            return (lo | hi << 32) if word_order == "little" else (hi | lo << 32)
        return self._mmio.read(offset, length)

    def write(self, offset: int, data) -> None:
        self._mmio.write(offset, int(data))


class DefaultIP:
    """``pynq.DefaultIP``: ``self.mmio`` over the description's register window."""

    def __init__(self, description: dict):
        self.description = description
        self.mmio = MMIO(description["phys_addr"], description["addr_range"], device=description.get("device"))

    def read(self, offset: int = 0) -> int:
        return self.mmio.read(offset)

    def write(self, offset: int, value: int) -> None:
        self.mmio.write(offset, value)


def description(board, name: str = "axi_dma_0") -> dict:
    """The IP description PYNQ would read from the overlay's .hwh, from the board's DMA build."""
    blk = board.axi_dma
    p = {"C_INCLUDE_SG": blk.include_sg, "C_SG_LENGTH_WIDTH": blk.length_width, "C_INCLUDE_MM2S": 1,
         "C_INCLUDE_MM2S_DRE": blk.has_dre, "C_M_AXI_MM2S_DATA_WIDTH": blk.data_width, "C_INCLUDE_S2MM": 1,
         "C_INCLUDE_S2MM_DRE": blk.has_dre, "C_M_AXI_S2MM_DATA_WIDTH": blk.data_width, "C_MICRO_DMA": 0,
         "C_MM2S_BURST_SIZE": blk.max_burst, "C_S2MM_BURST_SIZE": blk.max_burst, "C_ADDR_WIDTH": blk.addr_width}
    params = {k: str(int(v)) for k, v in p.items()}
    params.update({k.lower(): v for k, v in params.items()})   # PYNQ looks names up in lower case
    return {"fullpath": name, "type": "xilinx.com:ip:axi_dma:7.1", "phys_addr": blk.base, "addr_range": 0x10000,
            "device": board, "parameters": params, "interrupts": {}, "registers": {}, "driver": None}
