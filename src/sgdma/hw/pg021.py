"""PG021 register map, bit fields and BD layout, read from the compiled C header.

Nothing here is typed by hand: every name comes from ``PG021_EXPORTS`` in
``csrc/include/sgdma/pg021.h`` through the extension module.
"""
from __future__ import annotations

import numpy as np

from sgdma import _core

_C = _core.constants
globals().update({name.removeprefix("PG021_"): value for name, value in _C.items() if name.startswith("PG021_")})

SG_BD_SOF: int = _C["SG_BD_SOF"]
SG_BD_EOF: int = _C["SG_BD_EOF"]
DEFAULT_POLL_LIMIT: int = _C["SG_DEFAULT_POLL_LIMIT"]

#: One BD as software sees it in memory (little-endian words, 64 bytes).
BD_DTYPE = np.dtype(
    {
        "names": ["nxtdesc", "nxtdesc_msb", "buffer", "buffer_msb", "control", "status", "app", "sw"],
        "formats": ["<u4", "<u4", "<u4", "<u4", "<u4", "<u4", ("<u4", (_C["PG021_BD_APP_COUNT"],)), ("<u4", (3,))],
        "offsets": [_C["PG021_BD_NXTDESC"], _C["PG021_BD_NXTDESC_MSB"], _C["PG021_BD_BUFFER"],
                    _C["PG021_BD_BUFFER_MSB"], _C["PG021_BD_CONTROL"], _C["PG021_BD_STATUS"], _C["PG021_BD_APP0"],
                    _C["PG021_BD_HW_BYTES"]],
        "itemsize": _C["PG021_BD_SIZE"],
    }
)

#: One reclaimed BD (struct sg_completion).
COMPLETION_DTYPE = np.dtype([("index", "<u4"), ("bytes", "<u4"), ("status", "<u4"), ("flags", "<u4")])
assert COMPLETION_DTYPE.itemsize == _C["SG_COMPLETION_SIZE"], "struct sg_completion layout changed"


def channel_offset(direction: str) -> int:
    """Register-block offset of a channel ("mm2s" or "s2mm")."""
    return {"mm2s": _C["PG021_MM2S_BASE"], "s2mm": _C["PG021_S2MM_BASE"]}[direction]


def decode(register: str, value: int) -> str:
    """Decoded text of a DMACR, DMASR or BD STATUS value, as the driver prints it."""
    return _core.format_reg(register, value)
