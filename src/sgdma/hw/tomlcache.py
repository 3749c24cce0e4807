"""TOML data files (board presets, gate libraries) parsed once per process, and the package's own files once
per content across processes, through a cache file in the user's cache directory.

A cache entry holds the exact source text it was parsed from and is used only while the file still holds that
very text, so it cannot be stale: the TOML file stays the one source of truth; the cache only skips parsing it
again (and importing the parser: ~20 ms of a short command's start).  Entries are JSON, so a damaged one is
ignored, never trusted; a cache directory that cannot be written is simply not used."""
from __future__ import annotations

import _thread
import json
import os
import sys
import zlib
from pathlib import Path

_MEMO: dict[str, tuple[bytes, dict]] = {}       # absolute path -> (source bytes, parsed document)
#: files below this directory (the package's presets and gate libraries, read by every run) get a cache file;
#: others (a user's preset or library) are parsed once per process only, so the cache holds a bounded set
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def cache_dir() -> Path | None:
    """$XDG_CACHE_HOME/sgdma/toml (default ~/.cache/sgdma/toml); None without a home directory."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sgdma" / "toml" if os.path.isabs(base) else None


def load(file: str | os.PathLike) -> dict:
    """The parsed TOML document of `file`, shared between callers: do not modify it (``copy`` gives a private
    one).  Raises OSError if the file cannot be read, ValueError (tomllib.TOMLDecodeError, UnicodeDecodeError)
    if it is not valid TOML."""
    from sgdma.hw import files

    path = os.path.abspath(file)
    src = files.read_bounded(path, what="TOML file")
    hit = _MEMO.get(path)
    if hit is not None and hit[0] == src:
        return hit[1]
    slot = _slot(path) if path.startswith(_PACKAGE) else None
    doc = _read_entry(slot, src) if slot else None
    if doc is None:
        import tomllib                          # only on a miss

        doc = tomllib.loads(src.decode())       # what tomllib.load does with the bytes
        if slot:
            _write_entry(slot, src, doc)
    _MEMO[path] = (src, doc)
    return doc


def copy(doc):
    """A private copy of a document: its tables and arrays (scalars are immutable)."""
    if type(doc) is dict:
        return {k: copy(v) for k, v in doc.items()}
    if type(doc) is list:
        return [copy(v) for v in doc]
    return doc


_FORMAT = 1     # the entry's layout ({"source", "doc"}); a change of what "doc" holds must bump it


def _slot(path: str) -> Path | None:
    """The one cache file of a source file (named by its path; its content decides whether it is used).  The
    parser is the running Python's tomllib, so the interpreter (implementation and full version) and this
    module's entry format are part of the name: another parser never serves its parse here."""
    d = cache_dir()
    v = sys.version_info
    who = f"{sys.implementation.name}{v.major}.{v.minor}.{v.micro}{v.releaselevel[0]}{v.serial}-f{_FORMAT}"
    return d / f"{Path(path).stem}-{zlib.crc32(path.encode()):08x}-{who}.json" if d else None


def _read_entry(slot: Path, src: bytes) -> dict | None:
    try:
        with open(slot, "rb") as f:
            entry = json.loads(f.read())
        if entry["source"].encode() == src and type(entry["doc"]) is dict:
            return entry["doc"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass                                    # absent, damaged or foreign: parse instead
    return None


def _write_entry(slot: Path, src: bytes, doc: dict) -> None:
    try:
        text = json.dumps({"source": src.decode(), "doc": doc})    # str, int, float (NaN, inf), bool: exact
    except TypeError:
        return                                  # a value JSON does not hold (a TOML date): not cached
    tmp = slot.with_name(f"{slot.name}.{os.getpid()}-{_thread.get_ident()}.tmp")     # this writer's own
    try:
        slot.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, slot)                   # atomic: a reader sees the old entry or the new one
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
