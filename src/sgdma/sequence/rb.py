"""Single-qubit randomized benchmarking: seeded random Clifford sequences plus the
inverting Clifford, spelled in the library's native rx/ry rotations.

The 24 Cliffords are built once as exact integer Bloch-sphere rotations by a
breadth-first search over rx/ry by +-pi/2 and pi, which also gives each Clifford
a shortest native spelling (the identity is spelled with no gate).  Products use
the Cayley table, reduced pairwise in numpy: no loop over the sequence.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np


NATIVE = [("rx", math.pi / 2), ("rx", -math.pi / 2), ("ry", math.pi / 2), ("ry", -math.pi / 2),
          ("rx", math.pi), ("ry", math.pi)]
GATES = ["rx", "ry"]


def _bloch(gate: str, theta: float) -> np.ndarray:
    c, s = round(math.cos(theta)), round(math.sin(theta))
    if gate == "rx":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], np.int8)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]], np.int8)


@lru_cache(maxsize=1)
def clifford_group():
    """(matrices (24,3,3), Cayley table (24,24), inverse (24,), spelling CSR (ptr, gate, theta))."""
    native = [_bloch(g, t) for g, t in NATIVE]
    mats, words = [np.eye(3, dtype=np.int8)], [[]]
    index = {mats[0].tobytes(): 0}
    frontier = [0]
    while frontier:
        nxt = []
        for e in frontier:
            for k, g in enumerate(native):
                m = g @ mats[e]                     # apply g after element e
                key = m.astype(np.int8).tobytes()
                if key not in index:
                    index[key] = len(mats)
                    mats.append(m.astype(np.int8))
                    words.append(words[e] + [k])
                    nxt.append(index[key])
        frontier = nxt
    mats = np.array(mats)
    n = len(mats)
    table = np.array([[index[(mats[a] @ mats[b]).astype(np.int8).tobytes()] for b in range(n)] for a in range(n)])
    inverse = np.array([index[mats[a].T.copy().tobytes()] for a in range(n)])
    ptr = np.r_[0, np.cumsum([len(w) for w in words])]
    flat = [k for w in words for k in w]
    gate = np.array([GATES.index(NATIVE[k][0]) for k in flat], np.int64)
    theta = np.array([NATIVE[k][1] for k in flat])
    return mats, table, inverse, (ptr, gate, theta)


def compose(sequence: np.ndarray) -> int:
    """Clifford index of applying ``sequence`` in order (pairwise Cayley reduction)."""
    _, table, _, _ = clifford_group()
    x = np.asarray(sequence, np.int64)
    if len(x) == 0:
        return 0
    while len(x) > 1:
        if len(x) % 2:
            x = np.r_[x, 0]                        # identity pads odd lengths
        x = table[x[1::2], x[0::2]]                # later @ earlier
    return int(x[0])


def native_gates(length: int, seed: int = 0, inverse: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``length`` random Cliffords (seeded) and, if ``inverse``, the Clifford undoing them all, as native
    gates: (index into GATES, rotation angle) columns."""
    if length < 0:
        raise ValueError(f"randomized benchmarking length {length}: must be >= 0")
    _, _, inv, (ptr, gate, theta) = clifford_group()
    cliffords = np.random.default_rng(seed).integers(0, len(inv), length)
    if inverse:
        cliffords = np.r_[cliffords, inv[compose(cliffords)]]
    counts = ptr[cliffords + 1] - ptr[cliffords]
    starts = np.repeat(ptr[cliffords], counts)
    within = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    native = starts + within
    return gate[native], theta[native]
