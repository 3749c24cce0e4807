"""Records read back from disk are not trusted: `sgdma report`, a sweep's --cache and the RTIO analyzer read
files that a user, another program or a crash may have damaged.  This module bounds what is read (no FIFO, no
/dev/zero, no file beyond a size limit, no nesting beyond a depth) and checks each record against a schema
(kind, version, field types, finite numbers, sane ranges) before anything uses it.  A violation is a
``RecordError`` (a ValueError: exit 2 at the command line) naming the file, the field and the rule broken."""
from __future__ import annotations

import json
import math
from pathlib import Path

from sgdma.hw import files

MAX_RECORD_BYTES = 256 << 20       # a result record: a sequence of a million gates is ~100 MiB of JSON
MAX_DEPTH = 32                     # the deepest record any command writes is 4 levels


class RecordError(ValueError):
    """A record file that cannot be used: unreadable, too large, not JSON, or breaking the schema."""


def read_bounded(path: str | Path, limit: int = MAX_RECORD_BYTES, what: str = "record") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes: a FIFO, a device (/dev/zero) or a larger file
    is refused before it is read, so nothing waits on a writer or fills the memory."""
    try:
        return files.read_bounded(path, limit, what, RecordError)
    except OSError as e:
        raise RecordError(f"{path}: cannot read the {what} ({e.strerror or e})") from None


def load_json(path: str | Path, limit: int = MAX_RECORD_BYTES, what: str = "record"):
    """Parsed JSON from a bounded read; nesting deeper than MAX_DEPTH is refused."""
    data = read_bounded(path, limit, what)
    try:
        doc = json.loads(data)
    except RecursionError:
        raise RecordError(f"{path}: nested deeper than {MAX_DEPTH} levels; not a {what} any command writes") \
            from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RecordError(f"{path}: not JSON ({e})") from None
    _depth(doc, str(path))
    return doc


def _depth(doc, where: str) -> None:
    stack = [(doc, 0)]
    while stack:
        x, d = stack.pop()
        if d > MAX_DEPTH:
            raise RecordError(f"{where}: nested deeper than {MAX_DEPTH} levels; not a record any command writes")
        if isinstance(x, dict):
            stack += [(v, d + 1) for v in x.values()]
        elif isinstance(x, list):
            stack += [(v, d + 1) for v in x]


# ---- the schema --------------------------------------------------------------------------------------------
# A field spec is a checker f(value, where) raising RecordError; a schema maps field -> (spec, required).

def _sub(where: str, key: str) -> str:
    return f"{where}.{key}" if where else f"field {key}"


def _fail(where: str, rule: str, value) -> None:
    shown = repr(value)
    raise RecordError(f"{where}: {rule}, got {shown[:60] + '...' if len(shown) > 60 else shown}")


def num(lo: float | None = None, hi: float | None = None, open_lo: bool = False, integer: bool = False):
    def check(v, where):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (integer and not isinstance(v, int)):
            _fail(where, "must be " + ("an integer" if integer else "a number"), v)
        if isinstance(v, float) and not math.isfinite(v):
            _fail(where, "must be a finite number (NaN and infinity are not measurements)", v)
        if lo is not None and (v <= lo if open_lo else v < lo):
            _fail(where, f"must be {'>' if open_lo else '>='} {lo}", v)
        if hi is not None and v > hi:
            _fail(where, f"must be <= {hi}", v)
    return check


def typed(*types, name: str):
    def check(v, where):
        if isinstance(v, bool) and bool not in types or not isinstance(v, types):
            _fail(where, f"must be {name}", v)
    return check


def fields(schema: dict):
    """A JSON object holding the schema's fields (others are allowed: newer writers add facts)."""
    def check(v, where):
        if not isinstance(v, dict):
            _fail(where, "must be an object", type(v).__name__)
        for k, (spec, required) in schema.items():
            if k in v:
                spec(v[k], _sub(where, k))
            elif required:
                raise RecordError(f"{where + ': ' if where else ''}field '{k}' is missing")
    return check


def list_of(spec, min_items: int = 0):
    def check(v, where):
        if not isinstance(v, list):
            _fail(where, "must be a list", type(v).__name__)
        if len(v) < min_items:
            raise RecordError(f"{where}: needs at least {min_items} entries, has {len(v)}")
        for i, x in enumerate(v):
            spec(x, f"{where}[{i}]")
    return check


def any_value(v, where):
    pass


BOOL = typed(bool, name="true or false")
STR = typed(str, name="a string")
COUNT = num(0, integer=True)
NONNEG = num(0)
POSITIVE = num(0, open_lo=True)
STATS = fields({k: (NONNEG, True) for k in ("median", "min", "max")})


def _opt_num(v, where):
    if v is not None:
        num()(v, where)


def _columns(v, where):
    fields({"first_ns": (list_of(_opt_num), True),
            "gate_name": (list_of(COUNT), True), "gate_name_table": (list_of(STR), True),
            "gate_beats": (list_of(NONNEG), True)})(v, where)
    n = len(v["gate_name_table"])
    bad = [i for i in v["gate_name"] if i >= n]
    if bad:
        raise RecordError(f"{where}.gate_name: index {bad[0]} is outside gate_name_table ({n} names)")
    per_gate = ("gate_name", "gate_beats", "first_ns", "last_ns", "deadline_ns", "play_ns", "fetch_ns")
    for k in per_gate[4:]:
        if k in v:
            list_of(_opt_num)(v[k], f"{where}.{k}")
    lens = {k: len(v[k]) for k in per_gate if isinstance(v.get(k), list)}
    if len(set(lens.values())) > 1:
        raise RecordError(f"{where}: the per-gate columns must be equally long, got {lens}")


SCHEMAS = {
    "characterize": {"records": (list_of(fields({"board": (STR, True), "bds": (num(1, integer=True), True),
                                                 "bytes_per_bd": (num(1, integer=True), True),
                                                 "cycles": (num(1, integer=True), False),
                                                 "latency_ns": (STATS, True), "throughput_mbps": (STATS, True)})),
                                 True)},
    "capture": {"records": (list_of(fields({"board": (STR, True), "api": (STR, True), "cache": (STR, True),
                                            "buffer_bytes": (num(1, integer=True), True),
                                            "max_mbps": (NONNEG, True), "limit": (any_value, True),
                                            "throughput_mbps": (_opt_num, False)})), False),
                "sustained": (BOOL, False), "overflows": (COUNT, False), "throughput_mbps": (NONNEG, False),
                "cpu_load": (NONNEG, False), "buffers_delivered": (COUNT, False)},
    "plan": {"feasible": (BOOL, False), "required_mbps": (NONNEG, False), "achieved_mbps": (NONNEG, False),
             "margin": (NONNEG, False)},
    "sequence": {"preset": (STR, True), "columns": (_columns, True), "tail_write_ns": (NONNEG, True), "dac_word_ns": (POSITIVE, True),
                 "stream_clock_mhz": (POSITIVE, True), "gate_time_ns": (POSITIVE, True),
                 "underflows": (COUNT, True), "gates": (COUNT, True),
                 "underflow_list": (list_of(fields({"gate": (COUNT, True)})), True)},
}


def check_record(rec, where: str = "record", versions: dict | None = None) -> None:
    """The envelope (kind, version), every number finite, and the kind's own schema when it has one."""
    if not isinstance(rec, dict):
        _fail(where, "a result record is a JSON object with 'kind' and 'version'", type(rec).__name__)
    try:
        if "kind" in rec:
            STR(rec["kind"], "field kind")
        if "version" in rec:
            num(1, integer=True)(rec["version"], "field version")
        _finite(rec, "")
        kind = rec.get("kind")
        if kind in SCHEMAS and (versions is None or rec.get("version") == versions.get(kind)):
            fields(SCHEMAS[kind])(rec, "")
    except RecordError as e:
        raise RecordError(f"{where}: {e}") from None


def _finite(doc, where: str) -> None:
    stack = [(doc, where)]
    while stack:
        x, w = stack.pop()
        if isinstance(x, float) and not math.isfinite(x):
            _fail(w, "must be a finite number (NaN and infinity are not measurements)", x)
        elif isinstance(x, dict):
            stack += [(v, _sub(w, k)) for k, v in x.items()]
        elif isinstance(x, list):
            stack += [(v, f"{w}[{i}]") for i, v in enumerate(x)]


# ---- sweep cache chunks ------------------------------------------------------------------------------------

CHUNK_RANGES = {"latency_ns": (0.0, 1e18), "throughput_mbps": (0.0, 1e9), "simulated_ps": (0.0, 1.9e19)}


def check_chunk(arrays: dict, n: int, where: str) -> None:
    """A sweep chunk's columns: n finite values each inside what the model can produce; its times finite."""
    import numpy as np

    for k, (lo, hi) in CHUNK_RANGES.items():
        a = arrays.get(k)
        if a is None or a.shape != (n,) or a.dtype.kind not in "fiu":
            raise RecordError(f"{where}: column '{k}' must hold {n} numbers")
        f = a.astype(float)
        bad = ~np.isfinite(f) | (f < lo) | (f > hi)
        if bad.any():
            i = int(np.argmax(bad))
            raise RecordError(f"{where}: {k}[{i}] = {f[i]!r} is not a figure the model can produce "
                              f"(finite, {lo:g}..{hi:g})")
    for k in ("wall_s", "cpu_s"):
        v = arrays.get(k)
        if not isinstance(v, float) or not math.isfinite(v) or v < 0:
            raise RecordError(f"{where}: {k} must be a finite number of seconds >= 0, got {v!r}")


def chunk_limit(n: int, columns: int = len(CHUNK_RANGES)) -> int:
    """The most bytes a whole chunk file of n trials can take (an .npz: headers plus 8 bytes per value)."""
    return 64 * 1024 + 8 * n * (columns + 2)
