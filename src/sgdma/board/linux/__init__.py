"""sgdma on a real board under Linux: the DMA's registers through UIO (or
/dev/mem), DMA memory from u-dma-buf (or a reserved-memory carve-out),
interrupts from UIO.  Same API as the virtual board::

    board = sgdma.LinuxBoard(dma="axi_dma_0", buffers="udmabuf0")
    dma = sgdma.AxiDma(board)

Discovery, mapping, sync and interrupts are C (csrc/platform/linux, part of
libsgdma); this package wires them to numpy and the driver API.
"""
from .board import LinuxBoard
from .discovery import devices
from .spec import is_linux_spec, open_board, parse_spec

__all__ = ["LinuxBoard", "devices", "is_linux_spec", "open_board", "parse_spec"]
