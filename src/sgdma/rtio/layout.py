"""The RTIO contract tables (DMA record, analyzer message, constants, CSR map), read from the C header's one table.

``sgdma/rtio_layout.h`` is the single source; the binding exports it as ``sgdma._core.rtio_layout``.
"""
from __future__ import annotations

from sgdma import _core

_T = _core.rtio_layout
RECORD: dict[str, tuple[int, int]] = dict(_T["record"])      # field -> (byte offset, size), little-endian
MESSAGE: dict[str, tuple[int, int]] = dict(_T["message"])    # field -> (byte offset, size), big-endian
CONST: dict[str, int] = dict(_T["constants"])
REGS: dict[str, int] = dict(_T["regs"])

HEADER_BYTES = CONST["RECORD_HEADER_BYTES"]
MAX_WORDS = CONST["RECORD_MAX_WORDS"]
END_MARKER = CONST["END_MARKER"]
TRACE_ALIGN = CONST["TRACE_ALIGN_ZYNQ"]
MESSAGE_BYTES = CONST["MESSAGE_BYTES"]
