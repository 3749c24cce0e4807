"""A directory of finished chunks, so an interrupted sweep resumes where it stopped.

The directory holds one manifest (the sweep's parameters, the sgdma version, the chunk plan) and one ``.npz`` per
finished chunk.  A cache written for other parameters or by another version is refused, never mixed in.
"""
from __future__ import annotations

import io
import json
import os
import secrets
from dataclasses import asdict
from pathlib import Path

import numpy as np

from sgdma.experiments.chunks import Chunk
from sgdma.output import records

MANIFEST = "sweep.json"
TEMP_SUFFIX = ".tmp"          # a file being written (.<name>.<pid>.<random>.tmp), renamed when whole
FIELDS = ("latency_ns", "throughput_mbps", "simulated_ps", "extrapolated", "exact_bds", "error_estimate")


class CacheMismatch(ValueError):
    """The cache directory belongs to another sweep."""


def _version() -> str:
    from sgdma import __version__

    return __version__


class SweepCache:
    def __init__(self, path: Path, identity: dict):
        self.path = path
        self.identity = identity
        self.plan = None

    def _file(self, chunk) -> Path:
        return self.path / f"{chunk.key}.npz"

    def load(self, chunk) -> dict | None:
        """The chunk's arrays, or None to run it (again): absent, cut short, damaged in any way, or holding
        figures the model cannot produce (NaN, negative, beyond the clock) -- never mixed into the results."""
        f = self._file(chunk)
        if not f.exists():
            return None
        n = chunk.last - chunk.first
        try:
            data = records.read_bounded(f, records.chunk_limit(n), "sweep chunk")
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                out = {k: z[k] for k in FIELDS}
                out["wall_s"] = float(z["wall_s"])
                out["cpu_s"] = float(z["cpu_s"])
            records.check_chunk(out, n, str(f))
        except Exception:     # noqa: BLE001 - truncated zip (BadZipFile), empty file (EOFError), junk (ValueError)
            return None
        out["key"] = chunk.key
        return out

    def _write(self, name: str, write) -> None:
        """``write(path)`` to a temporary file, then renamed to ``name``: the file is whole or absent.  The
        temporary name is this writer's own (pid and a random part): two sweeps sharing the directory never
        write into, or rename, each other's half-written file."""
        tmp = self.path / f".{name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
        try:
            write(tmp)
            os.replace(tmp, self.path / name)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def save(self, chunk, res: dict) -> None:
        self._write(self._file(chunk).name, lambda tmp: tmp.write_bytes(_npz_bytes(res)))

    def save_plan(self, chunks) -> None:
        if self.plan is None:
            doc = dict(self.identity, plan=[[c.index, c.first, c.last] for c in chunks])
            self._write(MANIFEST, lambda tmp: tmp.write_text(json.dumps(doc, indent=1)))
            self.plan = chunks


def _npz_bytes(res: dict) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **{k: res[k] for k in FIELDS}, wall_s=res["wall_s"], cpu_s=res["cpu_s"])
    return buf.getvalue()


def kept_chunks(path: str) -> int:
    """How many finished chunks the cache directory holds (whole files; temporary ones are not counted)."""
    d = Path(path)
    return sum(1 for f in d.glob("p*.npz")) if d.is_dir() else 0


def open_cache(path: str, setup, points) -> SweepCache:
    """Open or create the cache for this sweep; refuse one made for anything else (another sweep's temporary
    file, while it writes its manifest, is not something else)."""
    d = Path(path)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CacheMismatch(f"--cache {path}: cannot create the directory ({e.strerror})") from None
    if not os.access(d, os.W_OK):
        raise CacheMismatch(f"--cache {path}: the directory is not writable")
    identity = {"kind": "sgdma-characterize-cache", "version": _version(), "setup": asdict(setup),
                "points": [[p.bytes_per_bd, p.bds, p.cycles] for p in points]}
    cache = SweepCache(d, identity)
    m = d / MANIFEST
    if m.exists():
        try:
            doc = records.load_json(m, 64 << 20, "sweep manifest")
        except records.RecordError:
            doc = None
        if not isinstance(doc, dict) or doc.get("kind") != identity["kind"]:
            raise CacheMismatch(f"--cache {path}: {MANIFEST} is not a sweep manifest (damaged or another "
                                f"program's); use another directory or delete it to start over")
        theirs = {k: doc.get(k) for k in identity}
        if theirs != json.loads(json.dumps(identity)):
            diff = [k for k in identity if json.loads(json.dumps(identity[k])) != doc.get(k)]
            what = (f"was written by sgdma {doc.get('version')} (this is {identity['version']})" if diff == ["version"]
                    else f"holds another sweep ({_differences(doc, json.loads(json.dumps(identity)), diff)})")
            raise CacheMismatch(f"--cache {path} {what}; use another directory or delete it")
        cache.plan = _plan(doc.get("plan"), points, setup.trials)
        if cache.plan is None:
            raise CacheMismatch(f"--cache {path}: the chunk plan in {MANIFEST} is damaged (it must cover every "
                                f"trial of every point once); use another directory or delete it to start over")
    elif any(not (f.name.startswith(".") and f.name.endswith(TEMP_SUFFIX)) for f in d.iterdir()):
        raise CacheMismatch(f"--cache {path}: the directory is not empty and holds no sweep; use an empty one")
    return cache


def _plan(raw, points, trials: int) -> list[Chunk] | None:
    """The manifest's chunks, or None unless they cover trials [0, trials) of every point exactly once."""
    try:
        rows = [(int(i), int(lo), int(hi)) for i, lo, hi in raw]
    except (TypeError, ValueError):
        return None
    cover = {i: [] for i in range(len(points))}
    for i, lo, hi in rows:
        if i not in cover or not 0 <= lo < hi <= trials:
            return None
        cover[i].append((lo, hi))
    for spans in cover.values():
        spans.sort()
        if [lo for lo, _ in spans] != [0] + [hi for _, hi in spans[:-1]] or not spans or spans[-1][1] != trials:
            return None
    return [Chunk(i, points[i], lo, hi) for i, lo, hi in rows]


def _differences(theirs: dict, ours: dict, keys: list) -> str:
    """What differs, as the options a user sets: 'trials 2 there, 3 here; seed 0 there, 4 here'."""
    out = []
    for k in keys:
        a, b = theirs.get(k), ours.get(k)
        if k == "setup" and isinstance(a, dict):
            out += [f"{f} {a.get(f)!r} there, {b.get(f)!r} here" for f in b if a.get(f) != b.get(f)]
        elif k == "points" and isinstance(a, list):
            out.append(f"{len(a)} points there, {len(b)} here" if len(a) != len(b) else "other points")
        else:
            out.append(f"{k} {a!r} there, {b!r} here")
    return "; ".join(out)
