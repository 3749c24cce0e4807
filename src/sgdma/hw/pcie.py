"""PS-PCIe DMA contract (registers, fields, element layouts, link constants), read from the compiled C header.

Nothing is typed here: every name comes from ``PSDMA_EXPORTS`` in ``csrc/include/sgdma/pcie_dma.h``
through the extension module.
"""
from __future__ import annotations

from sgdma import _core

C: dict[str, int] = dict(_core.pcie_constants)
globals().update(C)

QUEUE_NAMES = {C["PSDMA_Q_SRC"]: "SRC", C["PSDMA_Q_DST"]: "DST", C["PSDMA_Q_STAS"]: "STAS", C["PSDMA_Q_STAD"]: "STAD"}
