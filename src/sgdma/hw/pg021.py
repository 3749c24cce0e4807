"""PG021 register map, bit fields and BD layout, and the driver's side of the contract.

Nothing here is typed by hand: every value is written once in ``spec/pg021.toml``, generated into
``csrc/include/sgdma/{pg021,sg_contract}.h`` and read here from the compiled module
(``PG021_EXPORTS`` and ``SG_CONTRACT_EXPORTS``).  Struct layouts are checked field by field against C.
"""
from __future__ import annotations

import numpy as np

from sgdma import _core

_C = _core.constants
globals().update({name.removeprefix("PG021_"): value for name, value in _C.items() if name.startswith("PG021_")})

SG_BD_SOF: int = _C["SG_BD_SOF"]
SG_BD_EOF: int = _C["SG_BD_EOF"]
DEFAULT_POLL_LIMIT: int = _C["SG_DEFAULT_POLL_LIMIT"]
#: Channel numbers of the driver and the board (enum sg_dir).
CHANNELS: dict[str, int] = {"mm2s": _C["SG_MM2S"], "s2mm": _C["SG_S2MM"]}

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
_COMPLETION_FIELDS = ("index", "bytes", "status", "flags")
COMPLETION_DTYPE = np.dtype({"names": list(_COMPLETION_FIELDS), "formats": ["<u4"] * len(_COMPLETION_FIELDS),
                             "offsets": [_C[f"SG_COMPLETION_OFF_{n}"] for n in _COMPLETION_FIELDS],
                             "itemsize": _C["SG_COMPLETION_SIZE"]})


def channel_offset(direction: str) -> int:
    """Register-block offset of a channel ("mm2s" or "s2mm")."""
    return {"mm2s": _C["PG021_MM2S_BASE"], "s2mm": _C["PG021_S2MM_BASE"]}[direction]


def channel_number(direction: str) -> int:
    """Channel number ("mm2s" -> 0, "s2mm" -> 1) as the driver and the board count them."""
    try:
        return CHANNELS[direction]
    except KeyError:
        raise ValueError(f"unknown channel {direction!r}: use 'mm2s' or 's2mm'") from None


def decode(register: str, value: int) -> str:
    """Decoded text of a DMACR, DMASR or BD STATUS value, as the driver prints it."""
    return _core.format_reg(register, value)
