"""``pynq.allocate`` and the buffers it returns, over an sgdma board (virtual or Linux)."""
from __future__ import annotations

import warnings

import numpy as np

from sgdma.board.virtual import PhysicalArray


class PynqBuffer(PhysicalArray):
    """A board buffer with PYNQ's ``PynqBuffer`` surface: ``physical_address``/``device_address``,
    ``virtual_address``, ``cacheable``/``coherent``, ``flush``/``invalidate``, ``sync_to_device``/
    ``sync_from_device``, ``freebuffer`` and use as a context manager (freed on exit)."""

    def __array_finalize__(self, obj):
        super().__array_finalize__(obj)
        self.coherent = getattr(obj, "coherent", False)

    @property
    def cacheable(self) -> bool:
        return not self.coherent

    @property
    def virtual_address(self) -> int:
        return self.__array_interface__["data"][0]

    def flush(self) -> None:
        """Clean the CPU cache lines of the buffer, unless it is coherent (as PYNQ)."""
        if not self.coherent:
            super().flush()

    def invalidate(self) -> None:
        """Invalidate the CPU cache lines of the buffer, unless it is coherent (as PYNQ)."""
        if not self.coherent:
            super().invalidate()

    def sync_to_device(self) -> None:
        self.flush()

    def sync_from_device(self) -> None:
        self.invalidate()

    def close(self) -> None:
        """Kept by PYNQ for old code: does nothing (free with ``freebuffer()`` or a ``with`` block)."""
        warnings.warn(".close no longer functional - use scopes to manage buffers", DeprecationWarning,
                      stacklevel=2)

    def __enter__(self) -> "PynqBuffer":
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        self.freebuffer()


def _board_coherent(board) -> bool:
    """Whether the board's DMA buffers need no cache maintenance: a LinuxBoard opened with
    cache='uncached', 'writecombine' or 'coherent'; the virtual board's buffers are cached."""
    info = getattr(board, "_info", None)
    buf = info.get("buffer", {}) if info else {}
    return bool(buf) and (bool(buf.get("coherent")) or not buf.get("cached", True))


def allocate(board, shape, dtype="u4", cacheable: bool = True, **kwargs) -> PynqBuffer:
    """A zeroed, physically contiguous buffer, as ``pynq.allocate`` (dtype defaults to PYNQ's 'u4').
    ``cacheable=False`` gives a buffer whose flush/invalidate do nothing: on the virtual board memory is
    coherent for data (only the timing of cache maintenance is modelled); a LinuxBoard must have been opened
    with uncached (strongly-ordered or write-combine) or coherent buffers to honour it."""
    coherent = _board_coherent(board)
    if not cacheable and not coherent and getattr(board, "_info", None) is not None:
        raise ValueError("allocate(cacheable=False): this LinuxBoard maps its buffers cached (cache='sync'); "
                         "open it with cache='uncached' or 'writecombine' (or 'coherent' on a coherent port) for "
                         "uncached buffers")
    region = kwargs.pop("region", None)
    if kwargs:
        raise TypeError(f"allocate(): unexpected arguments {', '.join(sorted(kwargs))}")
    buf = board.allocate(shape, np.dtype(dtype), region=region).view(PynqBuffer)
    buf.coherent = coherent or not cacheable
    return buf
