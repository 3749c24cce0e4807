"""Array helpers the sequence modules share."""
from __future__ import annotations

import numpy as np


def distinct(a: np.ndarray) -> np.ndarray:
    """np.unique(a) of a 1-D array, without np.unique's masked-array check (it imports numpy.ma, ~30 ms of a
    short run's start)."""
    s = np.sort(np.asarray(a).reshape(-1))
    return s[np.r_[True, s[1:] != s[:-1]]] if len(s) else s
