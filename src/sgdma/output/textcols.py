"""Text from numpy columns without a Python call per line: the VCD and Perfetto writers' assembler.

A text is rows of columns.  A column holds either *pieces* (ids of fixed strings registered once, -1 = nothing)
or integers written as decimal numbers (an integer count of 10^-places units, shortest fixed point).  numpy
decides what each row holds; csrc/python/textjoin.c writes the rows out in one pass.
"""
from __future__ import annotations

import numpy as np

from sgdma import _core


NONE = np.iinfo(np.int64).min      # in a number column: write nothing in this row


class Text:
    """Registered pieces and the rows that use them."""

    def __init__(self):
        self._pieces: list[bytes] = []

    def strings(self, items) -> np.ndarray:
        """Register pieces (str, UTF-8 encoded, or bytes); their ids in order."""
        start = len(self._pieces)
        self._pieces += [s.encode() if isinstance(s, str) else bytes(s) for s in items]
        return np.arange(start, len(self._pieces), dtype=np.int64)

    def string(self, item) -> int:
        return int(self.strings([item])[0])

    def rows(self, columns: list) -> bytes:
        """Each column is ``ids`` (piece ids: an array or one id for every row; -1 = nothing) or
        ``(values, places)`` (integers shown as values / 10**places: places 0 -> "42", places 3 -> 1500 -> "1.5",
        2000 -> "2.0"; NONE = nothing)."""
        kinds, cols = [], []
        if any(not isinstance(c, tuple) and np.ndim(c) and np.size(c) == 0 or isinstance(c, tuple) and
               np.ndim(c[0]) and np.size(c[0]) == 0 for c in columns):
            return b""                                      # no rows
        for c in columns:
            if isinstance(c, tuple):
                values, places = c
                kinds.append(int(places))
            else:
                values = c
                kinds.append(-1)
            cols.append(np.ascontiguousarray(np.atleast_1d(np.asarray(values, np.int64))))
        lengths = np.array([len(p) for p in self._pieces], np.int64)
        offsets = np.cumsum(lengths) - lengths
        return _core.format_rows(b"".join(self._pieces), offsets, lengths, tuple(kinds), tuple(cols))
