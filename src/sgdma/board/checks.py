"""One validation layer for the board API: VirtualBoard and LinuxBoard call these same checks, so a value one
board refuses the other refuses too, with the same words (addresses over 64 bits, words over 32, negative or
zero sizes, widths PG021 cannot build, use after close()).  The C binding checks again at its own field widths;
these run first so the message names the API's argument, not the C field."""
from __future__ import annotations

import numpy as np

from sgdma import _core


class BoardClosed(RuntimeError):
    """A board used after close()."""


def _whole(v, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what}={v!r}: must be a whole number (an int), not {type(v).__name__}")
    return int(v)


def address(v, what: str = "address") -> int:
    n = _whole(v, what)
    if not 0 <= n < 1 << 64:
        raise ValueError(f"{what}=0x{n:x}: outside the 64-bit address space (0..2^64-1)" if n >= 0 else
                         f"{what}={n}: an address is never negative")
    return n


def word32(v, what: str = "value") -> int:
    n = _whole(v, what)
    if not 0 <= n < 1 << 32:
        raise ValueError(f"{what}={n}: a register is 32 bits wide (0..0xFFFFFFFF); mask or split it")
    return n


def size(v, what: str = "size", minimum: int = 1) -> int:
    n = _whole(v, what)
    if n < minimum or n >= 1 << 64:
        raise ValueError(f"{what}={n}: must be {minimum}..2^64-1 bytes")
    return n


def nbytes_of(shape, dtype) -> int:
    """Bytes of an array of this shape and dtype: every dimension a whole number >= 0, counted in Python ints
    (no int64 wrap before the size is checked against the memory)."""
    dims = (shape,) if np.isscalar(shape) else tuple(shape)
    if any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0 for d in dims):
        raise ValueError(f"allocate(shape={shape!r}): every dimension must be a whole number >= 0")
    if np.dtype(dtype).itemsize == 0:
        raise ValueError(f"allocate(dtype={dtype!r}): a dtype of 0 bytes holds nothing")
    count = 1
    for d in dims:
        count *= int(d)
    return count * np.dtype(dtype).itemsize


def alignment(align) -> int:
    a = _whole(align, "align")
    if a <= 0 or a & (a - 1):
        raise ValueError(f"align={align}: must be a power of two")
    return a


def dma_build(build: dict) -> None:
    """The DMA's build parameters as PG021 allows them (the same rules as the virtual board's preset check)."""
    c = _core.constants
    rules = {
        "addr_width": (lambda w: 32 <= w <= 64, "32..64 bits"),
        "length_width": (lambda w: c["PG021_LENGTH_WIDTH_MIN"] <= w <= c["PG021_LENGTH_WIDTH_MAX"],
                         f"{c['PG021_LENGTH_WIDTH_MIN']}..{c['PG021_LENGTH_WIDTH_MAX']} bits"),
        "data_width": (lambda w: 8 <= w <= 1024 and not w & (w - 1), "8, 16, ... 1024 bits (powers of two)"),
        "max_burst": (lambda w: c["PG021_MAX_BURST_MIN"] <= w <= c["PG021_MAX_BURST_MAX"] and not w & (w - 1),
                      "2, 4, ... 256 beats"),
    }
    for k, (ok, allowed) in rules.items():
        if k in build:
            v = _whole(build[k], k)
            if not ok(v):
                raise ValueError(f"{k}={v}: PG021 allows {allowed}")
    if "clock_mhz" in build and not float(build["clock_mhz"]) > 0:
        raise ValueError(f"clock_mhz={build['clock_mhz']!r}: must be > 0")


def duration_ps(ns, what: str, now_ps: int = 0) -> int:
    """A span of virtual time in ns as whole ps: finite, >= 0, and ending inside the board's 64-bit ps clock."""
    if isinstance(ns, bool) or not isinstance(ns, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what}={ns!r}: a number of nanoseconds")
    if not np.isfinite(ns) or ns < 0:
        raise ValueError(f"{what}={ns!r}: time only moves forward by a finite amount (>= 0 ns)")
    ps = int(round(float(ns) * 1000))
    if ps >= (1 << 64) - 1 - now_ps:
        raise ValueError(f"{what}={ns!r} ns: from now ({now_ps} ps) it passes the board's 64-bit picosecond clock")
    return ps


def option_values(keys: dict) -> None:
    """Preset overrides are finite numbers (a NaN or an infinity would reach the model's time arithmetic)."""
    for k, v in keys.items():
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not np.isfinite(v):
            raise ValueError(f"option {k!r} = {v!r}: must be a finite number")


def is_open(board) -> None:
    if getattr(board, "_closed", False):
        raise BoardClosed(f"{type(board).__name__} used after close(): open a new board")
