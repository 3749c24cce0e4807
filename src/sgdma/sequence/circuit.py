"""Circuits: gate applications (gate, parameters, qubits) and a repeat count.

Stored in columns — a gate-id array, a parameter matrix (NaN: the gate's default)
and a qubit matrix (-1: none) — so the compiler works on whole arrays and never
loops over applications.  File schema (TOML; JSON has the same shape)::

    [circuit]
    name = "bell"; repeat = 2; library = "trapped_ion"   # bundled name or a path
    [[gates]]
    gate = "ry"; theta = "pi/2"; qubit = 0
    [[gates]]
    gate = "ms"; qubits = [0, 1]
    [[gates]]
    rb = 20; seed = 7; qubit = 1          # a randomized-benchmarking block (rb.py)
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sgdma.sequence import rb
from sgdma.sequence.errors import CircuitError, did_you_mean
from sgdma.sequence.files import read_document
from sgdma.sequence.params import parse_value

MAX_QUBITS = 2
#: Work bound checked before a block is generated: no preset's BD region holds more than 2^16 BDs (one BD
#: per gate at least), so a randomized-benchmarking block 16x longer cannot be played and is refused
#: before its arrays are built.
MAX_RB_LENGTH = 1 << 20


@dataclass(frozen=True)
class GateApplication:
    gate: str
    params: dict
    qubits: tuple[int, ...] = ()


@dataclass(frozen=True)
class Columns:
    gate_names: list[str]          # vocabulary
    gate_ids: np.ndarray           # int32 (A,)
    param_names: list[str]
    params: np.ndarray             # float64 (A, P), NaN = the gate's default
    qubits: np.ndarray             # int16 (A, MAX_QUBITS), -1 = none

    def __len__(self) -> int:
        return len(self.gate_ids)


_ENTRY_KEYS = frozenset(("gate", "qubit", "qubits"))
_NUMBER_TYPES = frozenset((float, int))
_ABSENT = float("nan")              # this object marks a parameter an entry omits (list.count matches it by identity)
QUBIT_MAX = int(np.iinfo(np.int16).max)       # qubit indices are stored as int16
_NO_QUBITS = (-1,) * MAX_QUBITS


def _qubit_row(qubits) -> tuple[int, int]:
    if qubits is None:
        return _NO_QUBITS
    if type(qubits) is int and 0 <= qubits <= QUBIT_MAX:           # the common case of a file: one qubit
        return (qubits,) + _NO_QUBITS[1:]
    if isinstance(qubits, np.ndarray) and qubits.ndim == 0:          # a 0-d array is one value
        qubits = qubits[()]
    # one value (text included: refused below), or any sequence of values (a list, a range, a generator)
    q = [qubits] if np.isscalar(qubits) else None if isinstance(qubits, dict) else \
        list(qubits) if isinstance(qubits, Iterable) else None
    if q is None or not all(_is_index(x) for x in q):
        raise CircuitError(f"qubits {qubits!r}: a qubit is a whole number (not a bool, a float or text)",
                           f"give up to {MAX_QUBITS} qubit indices from 0 to {QUBIT_MAX}, e.g. qubit = 0 or qubits = [0, 1]")
    q = [int(x) for x in q]
    if len(q) > MAX_QUBITS or any(x < 0 or x > QUBIT_MAX for x in q):
        raise CircuitError(f"qubits {qubits!r}: give up to {MAX_QUBITS} qubit indices from 0 to {QUBIT_MAX}")
    if len(set(q)) != len(q):
        raise CircuitError(f"qubits {qubits!r}: a gate acts on distinct qubits", "name each qubit once")
    return tuple(q + [-1] * (MAX_QUBITS - len(q)))


def _is_index(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _qubit_block(qubits, n: int) -> np.ndarray:
    """extend's qubits (n values or n rows, -1 = none) as the (n, MAX_QUBITS) int16 column: whole numbers in
    range, checked before the cast (int16 would truncate 1.5, take True as 1 and wrap 40000)."""
    qa = np.asarray(qubits)
    if qa.size and (qa.dtype.kind not in "iu" or qa.min() < -1 or qa.max() > QUBIT_MAX):
        bad = (qa.reshape(-1)[0] if qa.dtype.kind not in "iu" else qa.min() if qa.min() < -1 else qa.max()).item()
        raise CircuitError(f"extend: qubit {bad!r} (qubits of dtype {qa.dtype}): a qubit is a whole number from 0 "
                           f"to {QUBIT_MAX}, or -1 for none", "give qubits as an integer array, e.g. np.int16")
    if (qa.size % n or qa.size // n > MAX_QUBITS) if n else qa.size:
        raise CircuitError(f"extend: {qa.size} qubit values for {n} applications",
                           f"give one row of up to {MAX_QUBITS} qubits per application")
    out = np.full((n, MAX_QUBITS), -1, np.int16)
    if n:
        rows = qa.astype(np.int16).reshape(n, -1)
        out[:, :rows.shape[1]] = rows
        srt = np.sort(out, axis=1)
        dup = ((srt[:, 1:] == srt[:, :-1]) & (srt[:, 1:] >= 0)).any(axis=1)
        if dup.any():
            i = int(np.argmax(dup))
            raise CircuitError(f"extend: application {i} names qubit {int(srt[i][1:][(srt[i][1:] == srt[i][:-1])][0])} "
                               "twice", "give distinct qubits per application")
    return out


def _plain_qubits(v):
    """The qubit row of a plain entry (none, one int, or a list of distinct ints in range), else None."""
    if v is None:
        return _NO_QUBITS
    if type(v) is int:
        return (v, -1) if 0 <= v <= QUBIT_MAX else None
    if type(v) is list and 1 <= len(v) <= MAX_QUBITS and all(type(x) is int and 0 <= x <= QUBIT_MAX for x in v) \
            and len(set(v)) == len(v):
        return tuple(v) + (-1,) * (MAX_QUBITS - len(v))
    return None


class Circuit:
    """A gate sequence; ``repeat`` plays it that many times back to back in one ring."""

    def __init__(self, name: str = "circuit", repeat: int = 1, library=None):
        if isinstance(repeat, bool) or not isinstance(repeat, (int, np.integer)) or int(repeat) < 1:
            raise CircuitError(f"circuit {name!r}: repeat = {repeat}", "repeat >= 1")
        self.name, self.repeat, self.library = name, int(repeat), library
        self._vocab: dict[str, int] = {}
        self._blocks: list[tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]] = []
        self._pending: list[tuple[int, dict, tuple]] = []
        self._columns: Columns | None = None

    # -- building ---------------------------------------------------------------------
    def _gate_id(self, gate: str) -> int:
        if not isinstance(gate, str) or not gate:
            raise CircuitError(f"gate name {gate!r}: expected a non-empty string")
        return self._vocab.setdefault(gate, len(self._vocab))

    def append(self, gate: str, qubits=None, **params) -> "Circuit":
        """One application: ``c.append("rx", 0, theta="pi/2")``."""
        values = {k: parse_value(v, f"{gate} {k}") for k, v in params.items()}
        self._pending.append((self._gate_id(gate), values, _qubit_row(qubits)))
        self._columns = None
        return self

    def _extend_plain(self, entries) -> bool:
        """A file's gate list in columns, when every entry is a plain gate (a dict with "gate", one integer
        "qubit" or none, finite numeric parameters); False (nothing added) otherwise: the per-entry path then
        reads it and names any problem."""
        if not isinstance(entries, list) or not entries or set(map(type, entries)) != {dict}:
            return False
        keys = set().union(*entries)
        if "gate" not in keys or "rb" in keys:
            return False
        try:
            names = [e["gate"] for e in entries]
            vocab = dict.fromkeys(names)            # distinct names, in first-use order
        except (KeyError, TypeError):               # an entry without "gate", or an unhashable name
            return False
        if not all(type(g) is str and g for g in vocab):
            return False
        q = None
        if "qubit" in keys or "qubits" in keys:
            rows = [_plain_qubits(e["qubits"] if "qubits" in e else e.get("qubit")) for e in entries]
            if None in rows:
                return False
            q = np.array(rows, np.int16)
        params = {}
        for p in sorted(keys - _ENTRY_KEYS):
            col = [e.get(p, _ABSENT) for e in entries]
            if not set(map(type, col)) <= _NUMBER_TYPES:   # text ("pi/2"), bools, null: per entry
                return False
            a = np.array(col, dtype=np.float64)
            # each entry without p adds one NaN (_ABSENT); a given value must add none (finite numbers only)
            if np.count_nonzero(~np.isfinite(a)) != col.count(_ABSENT):
                return False
            params[p] = a
        index = {g: k for k, g in enumerate(vocab)}
        self.extend(list(vocab), np.array(list(map(index.__getitem__, names)), np.int64), params, q)
        return True

    def _append_entry(self, i: int, entry: dict) -> None:
        """gates[i] of a file: ``gate``, ``qubit`` or ``qubits``, parameters (what append does, for a dict)."""
        gate = entry["gate"]
        qubits = entry["qubits"] if "qubits" in entry else entry.get("qubit")
        try:
            values = {}
            for k, v in entry.items():
                if k in _ENTRY_KEYS:
                    continue
                x = float(v) if type(v) is float or type(v) is int else math.nan
                values[k] = x if x - x == 0 else parse_value(v, f"{gate} {k}")     # finite numbers go straight
            self._pending.append((self._gate_id(gate), values, _qubit_row(qubits)))
        except ValueError as e:
            raise CircuitError(f"gates[{i}]: {e}") from None
        self._columns = None

    def extend(self, gates: list[str], gate_index: np.ndarray, params: dict[str, np.ndarray] | None = None,
               qubits: np.ndarray | None = None) -> "Circuit":
        """Many applications at once: ``gate_index`` indexes ``gates``; params are arrays."""
        ids = np.array([self._gate_id(g) for g in gates], np.int32)[np.asarray(gate_index, np.int64)]
        n = len(ids)
        cols = {k: np.broadcast_to(np.asarray(v, np.float64), (n,)).copy() for k, v in (params or {}).items()}
        q = np.full((n, MAX_QUBITS), -1, np.int16)
        if qubits is not None:
            q[:, :] = _qubit_block(qubits, n)
        self._flush()
        self._blocks.append((ids, cols, q))
        self._columns = None
        return self

    def _flush(self) -> None:
        if not self._pending:
            return
        ids = np.array([g for g, _, _ in self._pending], np.int32)
        names = {k for _, p, _ in self._pending for k in p}
        cols = {k: np.array([p.get(k, np.nan) for _, p, _ in self._pending]) for k in names}
        q = np.array([r for _, _, r in self._pending], np.int16).reshape(-1, MAX_QUBITS)
        self._blocks.append((ids, cols, q))
        self._pending = []

    def columns(self) -> Columns:
        """The circuit as arrays (cached until the next append)."""
        if self._columns is None:
            self._flush()
            names = sorted({k for _, cols, _ in self._blocks for k in cols})
            total = sum(len(ids) for ids, _, _ in self._blocks)
            params = np.full((total, len(names)), np.nan)
            at = 0
            for ids, cols, _ in self._blocks:          # per block, not per application
                for j, k in enumerate(names):
                    if k in cols:
                        params[at:at + len(ids), j] = cols[k]
                at += len(ids)
            cat = (lambda xs, empty: np.concatenate(xs) if xs else empty)
            self._columns = Columns(list(self._vocab), cat([b[0] for b in self._blocks], np.zeros(0, np.int32)),
                                    names, params,
                                    cat([b[2] for b in self._blocks], np.zeros((0, MAX_QUBITS), np.int16)))
        return self._columns

    # -- inspection -------------------------------------------------------------------------
    def __len__(self) -> int:
        """Applications in one pass (without ``repeat``)."""
        return sum(len(b[0]) for b in self._blocks) + len(self._pending)

    @property
    def n_applications(self) -> int:
        return len(self) * self.repeat

    def applications(self) -> list[GateApplication]:
        """One object per application (for inspection; the compiler uses columns())."""
        c = self.columns()
        out = []
        for gid, row, q in zip(c.gate_ids.tolist(), c.params, c.qubits.tolist()):
            out.append(GateApplication(c.gate_names[gid], {k: float(v) for k, v in zip(c.param_names, row)
                                                           if not np.isnan(v)}, tuple(x for x in q if x >= 0)))
        return out

    def __repr__(self) -> str:
        return f"Circuit({self.name!r}: {len(self)} gates x repeat {self.repeat})"

    # -- files ------------------------------------------------------------------------------
    @classmethod
    def from_file(cls, path) -> "Circuit":
        path = Path(path)
        doc = read_document(path, CircuitError, "circuit")
        meta = doc.setdefault("circuit", {})
        meta.setdefault("name", path.stem)
        lib = meta.get("library")
        if isinstance(lib, str) and Path(lib).suffix in (".toml", ".json") and not Path(lib).is_absolute():
            meta["library"] = str(path.parent / lib)      # relative to the circuit file
        return cls.from_dict(doc)

    @classmethod
    def from_dict(cls, doc: dict) -> "Circuit":
        extra = set(doc) - {"circuit", "gates"}
        if extra:
            raise CircuitError(f"circuit: unknown sections {sorted(extra)}",
                               did_you_mean(extra, ("circuit", "gates")) + "use [circuit] and [[gates]]")
        meta = doc.get("circuit", {})
        c = cls(meta.get("name", "circuit"), meta.get("repeat", 1), meta.get("library"))
        if c._extend_plain(doc.get("gates", [])):
            return c
        for i, entry in enumerate(doc.get("gates", [])):     # file loading, not the compile path
            if type(entry) is dict and "gate" in entry and "rb" not in entry:
                c._append_entry(i, entry)                 # the common case, without append's per-call work
                continue
            entry = dict(entry)
            qubits = entry.pop("qubits", entry.pop("qubit", None))
            if "rb" in entry:
                length, rb_seed = entry.pop("rb"), entry.pop("seed", 0)
                for key, v in (("rb", length), ("seed", rb_seed)):
                    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                        raise CircuitError(f"gates[{i}]: {key} = {v!r} must be a whole number >= 0")
                block = randomized_benchmarking(length, seed=rb_seed,
                                                qubit=qubits, inverse=bool(entry.pop("inverse", True)))
                if entry:
                    raise CircuitError(f"gates[{i}]: unknown rb keys {sorted(entry)}", "use rb, seed, qubit, inverse")
                c.extend_circuit(block)
                continue
            if "gate" not in entry:
                raise CircuitError(f"gates[{i}] = {entry!r} names no gate", "write gate = \"NAME\" (or rb = LENGTH)")
            try:
                c.append(entry.pop("gate"), qubits, **entry)
            except ValueError as e:
                raise CircuitError(f"gates[{i}]: {e}") from None
        return c

    def extend_circuit(self, other: "Circuit") -> "Circuit":
        """Append another circuit's applications (its repeat is not applied)."""
        oc = other.columns()
        return self.extend(oc.gate_names, oc.gate_ids, {k: oc.params[:, j] for j, k in enumerate(oc.param_names)},
                           oc.qubits)


def randomized_benchmarking(length: int, seed: int = 0, qubit=None, inverse: bool = True,
                            name: str | None = None) -> Circuit:
    """A circuit of ``length`` random Cliffords (seeded) and, if ``inverse``, the Clifford undoing them all."""
    if not 0 <= int(length) <= MAX_RB_LENGTH:
        raise CircuitError(f"rb = {length}: a randomized-benchmarking block is 0 .. {MAX_RB_LENGTH} Cliffords long",
                           "no board's BD region holds a longer one; split it into several circuits")
    if not 0 <= int(seed) < 2**64:
        raise CircuitError(f"rb seed = {seed}: must be 0 .. 2^64-1")
    gate, theta = rb.native_gates(length, seed, inverse)
    qubits = None if qubit is None else np.full(len(gate), _qubit_row(qubit)[0], np.int16)
    return Circuit(name or f"rb{length}_seed{seed}").extend(rb.GATES, gate, {"theta": theta}, qubits)
