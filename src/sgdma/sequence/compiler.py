"""Circuit -> BD chain, in bulk: numpy over distinct rows, one C pass (csrc/python/compile.c) per
per-application step.

Two steps, so that recalibration can redo the second alone:

1. ``resolve``: applications -> distinct (gate, parameters, qubits) rows (one hashing pass)
   -> *variants* (distinct gate + parameter values after defaults) -> segment ids.  Python
   loops run per gate definition and per variant, never per application.
2. ``lay_out``: segment uses -> BDs, through the store's piece table (a segment over
   the BD length limit is several BDs).

Where SOF and EOF go: SOF on the first BD of every gate application and EOF on
its last, i.e. one AXI-Stream packet per gate.  Why: TLAST then marks every gate
boundary for the PL consumer (it can latch gate timing and detect a gate that
arrives late), PG021's IRQThreshold counts packets and so counts gates, reclaim
hands back whole gates, and the MM2S sink shows one packet per gate, which is
what the tests check.  One packet per circuit would hide all of that for no gain:
TLAST is a side-band bit and every gate starts a new BD anyway.  Every segment
is a whole number of stream words, so every BD of a gate satisfies PG021's
"non-last BD is a multiple of the stream width" rule.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from sgdma import _core
from sgdma.sequence.arrays import distinct
from sgdma.sequence.circuit import Columns
from sgdma.sequence.errors import CircuitError, did_you_mean
from sgdma.sequence.gates import GateLibrary, Recipe
from sgdma.sequence.segments import PieceTable


@dataclass
class Program:
    """A circuit resolved to segment ids: what a ring plays, wherever the segments are."""

    gate_names: list[str]          # vocabulary
    app_gate: np.ndarray           # int32 per application: index into gate_names
    app_variant: np.ndarray        # int64 per application
    app_qubits: np.ndarray         # int16 (n, 2)
    uses_per_app: np.ndarray       # int64 per application (>= 1)
    use_sid: np.ndarray            # int64 per segment use, in play order
    variant_sids: list[np.ndarray]  # per variant: its segment ids in order

    @property
    def n_gates(self) -> int:
        return len(self.app_gate)


@dataclass
class BdLayout:
    """The BD arrays of a program under one piece table."""

    addresses: np.ndarray          # uint64 per BD
    lengths: np.ndarray            # uint32 per BD
    flags: np.ndarray              # uint8 per BD: SG_BD_SOF / SG_BD_EOF
    bd_sid: np.ndarray             # int64 per BD: the segment it plays
    gate_bd_end: np.ndarray        # int64 per application: index of its last BD
    gate_bytes: np.ndarray         # uint64 per application

    @property
    def n_bds(self) -> int:
        return len(self.addresses)


def _factorize(col: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct values, each item's index into them), without an argsort: small non-negative
    integers by counting, a constant column at once, others by one sort of the values and a search."""
    if not len(col):
        return col[:0].copy(), np.zeros(0, np.int64)
    lo, hi = col.min(), col.max()
    if lo == hi and not np.isnan(lo):
        return col[:1].copy(), np.zeros(len(col), np.int64)
    if lo >= 0 and hi < 4 * len(col) + 1024:              # small non-negative whole numbers (gate ids, counts)
        whole = col.astype(np.int64)
        if col.dtype.kind in "iu" or (whole == col).all():
            present = np.bincount(whole) > 0
            return np.flatnonzero(present).astype(col.dtype), (np.cumsum(present) - 1)[whole]
    values = distinct(col)                                  # finite here (unique_rows checks): np.unique's values
    return values, np.searchsorted(values, col)


def _sorted_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """unique_rows by one lexicographic sort of the rows (finite values): fewer numpy calls, for few rows."""
    order = np.lexsort(keys.T[::-1])
    rows = keys[order]
    new = np.empty(len(rows), bool)
    new[:1] = True
    np.any(rows[1:] != rows[:-1], axis=1, out=new[1:])
    inverse = np.empty(len(keys), np.int64)
    inverse[order] = np.cumsum(new) - 1
    return rows[new], inverse


def unique_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(keys, axis=0, return_inverse=True), faster: factorize each column, then count the
    mixed-radix code of each row (row sorting is ~10x slower); the distinct rows come back from their codes."""
    if not np.isfinite(keys).all():                        # NaN never equals itself: keep numpy's own rules
        uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
        return uniq, inverse.reshape(-1)
    if len(keys) <= 1024:                                  # few rows (the distinct rows of a circuit): one sort
        return _sorted_rows(keys)
    code = np.zeros(len(keys), np.int64)
    radix = 1
    columns = []
    for j in range(keys.shape[1]):                         # per column
        values, col_code = _factorize(keys[:, j])
        radix *= len(values)
        if radix >= 1 << 62:                               # would overflow: take the slow exact path
            uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
            return uniq, inverse.reshape(-1)
        code = code * len(values) + col_code
        columns.append(values)
    distinct_codes, inverse = _factorize(code)
    uniq = np.empty((len(distinct_codes), keys.shape[1]), keys.dtype)
    rest = distinct_codes.astype(np.int64)
    for j in range(keys.shape[1] - 1, -1, -1):             # mixed-radix digits, last column first
        rest, digit = np.divmod(rest, len(columns[j]))
        uniq[:, j] = columns[j][digit]
    return uniq, inverse.reshape(-1)


def _distinct_rows(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """_core.distinct_rows over rows of any width.  One pass takes DISTINCT_ROWS_MAX_VALUES values per row; a
    wider row (a circuit naming more parameters) has its leading values replaced by the distinct-row number they
    make, until it fits: equal rows have equal numbers, so the rows, their order and first appearances stay."""
    limit = _core.DISTINCT_ROWS_MAX_VALUES
    pieces = [c[:, j:j + limit - 1] if c.ndim == 2 else c for c in columns
              for j in range(0, c.shape[1] if c.ndim == 2 else 1, limit - 1)]
    width = [p.shape[1] if p.ndim == 2 else 1 for p in pieces]
    while sum(width) > limit:                              # each round folds >= 2 values into 1
        take = 1
        while sum(width[:take + 1]) <= limit:
            take += 1
        _, inverse = _core.distinct_rows([np.ascontiguousarray(p) for p in pieces[:take]])
        pieces, width = [np.frombuffer(inverse, np.int64)] + pieces[take:], [1] + width[take:]
    first, inverse = _core.distinct_rows([np.ascontiguousarray(p) for p in pieces])
    return np.frombuffer(first, np.int64), np.frombuffer(inverse, np.int64)


def variants(cols: Columns, library: GateLibrary) -> tuple[np.ndarray, np.ndarray, list]:
    """(distinct variant keys in np.unique(axis=0)'s order, each application's index into them, gate definitions
    by vocabulary id).  The applications' distinct (gate, parameters, qubits) rows are found in one C pass;
    the rules and defaults then run over those rows only, never per application."""
    columns = [np.ascontiguousarray(c) for c in (cols.gate_ids, cols.params, cols.qubits)]
    first, row_of_app = _distinct_rows(columns)
    n_p = len(cols.param_names)
    rows = np.empty((len(first), 1 + n_p + cols.qubits.shape[1]))
    rows[:, 0] = cols.gate_ids[first]
    rows[:, 1:1 + n_p] = cols.params[first]
    rows[:, 1 + n_p:] = cols.qubits[first]
    keys, defs = variant_keys(cols, rows, library)
    uniq, variant_of_row = unique_rows(keys)
    return uniq, variant_of_row[row_of_app], defs


def variant_keys(cols: Columns, rows: np.ndarray, library: GateLibrary) -> tuple[np.ndarray, list]:
    """Key rows (gate id, parameter values with defaults filled in and unused ones zeroed) of distinct
    application ``rows`` (gate id, cols.param_names' values, qubits), checked per gate definition.  Returns
    (keys, gate definitions by vocabulary id).  Tables per gate definition, applied to whole columns; any
    violation is reported, as the user reads the file, by the per-definition check below."""
    gid = rows[:, 0].astype(np.int64)
    present = np.zeros(len(cols.gate_names), bool)
    present[gid] = True
    defs = [None if not present[g] else library.gate(name) if name in library else
            library.gate(name, f" (application #{int(np.argmax(cols.gate_ids == g))})")
            for g, name in enumerate(cols.gate_names)]
    n_p = len(cols.param_names)
    keys = np.empty((len(rows), 1 + n_p))
    keys[:, 0] = gid
    bad = np.zeros(len(rows), bool)
    for j, p in enumerate(cols.param_names):               # per parameter name, over every distinct row
        uses = np.array([d is not None and p in d.params for d in defs], bool)[gid]
        default = np.array([d.params[p] if d is not None and p in d.params else np.nan for d in defs])[gid]
        col = rows[:, 1 + j]
        given = ~np.isnan(col)
        value = np.where(given, col, default)
        bad |= (~uses & given) | (uses & np.isnan(value))
        keys[:, 1 + j] = np.where(uses, value, 0.0)        # unused: must not split variants
    required = [[p for p, v in d.params.items() if np.isnan(v) and p not in cols.param_names] if d else []
                for d in defs]
    bad |= np.array([bool(r) for r in required], bool)[gid]
    need_q = np.array([d.qubits if d is not None and d.qubits else 0 for d in defs], np.int64)[gid]
    n_qubits = (rows[:, 1 + n_p:] >= 0).sum(axis=1)
    bad |= (need_q != 0) & (n_qubits != 0) & (n_qubits != need_q)
    if bad.any():
        _check_per_definition(cols, defs)                  # raises the first error, as the user reads the file
        raise AssertionError("variant_keys: a violation the per-definition check did not name")  # pragma: no cover
    return keys, defs


def _check_per_definition(cols: Columns, defs: list) -> None:
    """The rules, per gate definition in vocabulary order: a parameter the gate does not take, a required
    parameter missing, a qubit count the gate does not act on."""
    n_qubits = (cols.qubits >= 0).sum(axis=1)
    for gid, gate in enumerate(defs):
        if gate is None:
            continue
        mask = cols.gate_ids == gid
        name = cols.gate_names[gid]
        for j, p in enumerate(cols.param_names):
            col = cols.params[mask, j]
            if p not in gate.params:
                given = ~np.isnan(col)
                if given.any():
                    at = int(np.flatnonzero(mask)[np.argmax(given)])
                    raise CircuitError(f"application #{at}: gate {name!r} has no parameter {p!r}",
                                       did_you_mean([p], [*gate.params, "qubit", "qubits", "gate"])
                                       + f"it takes {sorted(gate.params) or 'no parameters'}")
        for p, default in gate.params.items():
            if not np.isnan(default):
                continue
            first = int(np.argmax(mask))
            if p in cols.param_names:
                missing = np.isnan(cols.params[mask, cols.param_names.index(p)])
                if not missing.any():
                    continue
                first = int(np.flatnonzero(mask)[np.argmax(missing)])
            raise CircuitError(f"application #{first}: gate {name!r} needs parameter {p!r} (it has no default)",
                               f"pass {p}=VALUE")
        if gate.qubits:
            bad = mask & (n_qubits != 0) & (n_qubits != gate.qubits)
            if bad.any():
                at = int(np.argmax(bad))
                raise CircuitError(f"application #{at}: gate {name!r} acts on {gate.qubits} qubit(s), "
                                   f"given {int(n_qubits[at])}", f"give {gate.qubits} qubit indices or none")


def check_bds(needed: int, max_bds: int | None, what: str, too_many: Callable[[int, str], None] | None = None
              ) -> None:
    """Refuse, before anything is expanded, a program needing more BDs than the BD region holds (each
    segment use is at least one 64-byte BD); ``too_many(needed, what)`` raises the caller's own error."""
    if max_bds is not None and needed > max_bds:
        if too_many is not None:
            too_many(needed, what)
        raise CircuitError(f"{what} needs at least {needed} BDs; the board's BD region holds {max_bds}",
                           "shorten it, or compile one pass and replay it (cyclic=True / --passes)")


def resolve(cols: Columns, repeat: int, library: GateLibrary,
            variant_sids: Callable[[str, dict], np.ndarray], max_bds: int | None = None,
            too_many: Callable[[int, str], None] | None = None) -> Program:
    """Applications -> variants -> segment ids.  ``variant_sids(gate, values)`` gives a
    variant's segment ids in play order (the Sequencer caches and materializes them)."""
    if len(cols) == 0:
        raise CircuitError("the circuit has no gate applications", "append at least one gate")
    check_bds(len(cols) * int(repeat), max_bds, f"the circuit ({len(cols)} applications x repeat {repeat})",
              too_many)
    uniq, inverse, defs = variants(cols, library)
    sids = []
    for row in uniq:                                       # per variant
        gate = defs[int(row[0])]
        values = {p: (float(row[1 + cols.param_names.index(p)]) if p in cols.param_names else d)
                  for p, d in gate.params.items()}
        sids.append(np.asarray(variant_sids(gate.name, values), np.int64))
    v_len = np.array([len(s) for s in sids], np.int64)
    v_flat = np.concatenate(sids)
    check_bds(int(v_len[inverse].sum()) * int(repeat), max_bds, f"the circuit (x repeat {repeat})", too_many)
    app_variant = np.tile(inverse.astype(np.int64), repeat)
    uses = v_len[app_variant]
    use_sid = np.frombuffer(_core.expand_uses(app_variant, v_len, v_flat), np.int64)
    return Program(list(cols.gate_names), np.tile(cols.gate_ids, repeat), app_variant,
                   np.tile(cols.qubits, (repeat, 1)), uses, use_sid, sids)


def lay_out(program: Program, table: PieceTable) -> BdLayout:
    """Segment uses -> BDs: pieces of each segment, SOF/EOF per gate application (one pass in C)."""
    cols = _core.lay_out_bds(program.use_sid, program.uses_per_app, table.address, table.nbytes, table.n_pieces,
                             table.piece_bytes)
    if cols is None:
        raise CircuitError("a resolved segment no longer exists in the store (was it removed?)",
                           "recompile the circuit")
    addresses, lengths, flags, bd_sid, gate_bd_end, gate_bytes = (
        np.frombuffer(c, t) for c, t in zip(cols, (np.uint64, np.uint32, np.uint8, np.int64, np.int64, np.uint64)))
    return BdLayout(addresses, lengths, flags, bd_sid, gate_bd_end, gate_bytes)


def recipes_to_sids(recipes: list[tuple[Recipe, int]], materialize: Callable[[Recipe], int],
                    max_uses: int | None = None, what: str = "a gate") -> np.ndarray:
    """A variant's (recipe, repeat) steps -> segment ids with repeats expanded (the total is checked first)."""
    counts = [int(n) for _, n in recipes]
    if any(n < 0 for n in counts):
        raise CircuitError(f"{what}: a negative repeat count {min(counts)}", "repeat counts are >= 0")
    check_bds(sum(counts), max_uses, what)
    ids = np.array([materialize(r) for r, _ in recipes], np.int64)
    return np.repeat(ids, [n for _, n in recipes])
