"""Reading gate libraries and circuits: TOML or JSON by suffix, one error type per caller."""
from __future__ import annotations

import json
from pathlib import Path

from sgdma.hw import tomlcache
from sgdma.hw.files import read_bounded


#: Work bound checked before parsing: 8 MiB of TOML/JSON holds over 2^17 gate entries (~40 bytes each), twice
#: what the largest preset BD region (2^16 BDs) can play; parsing such a file already takes tens of seconds
#: (tomllib reads ~10^4 gate entries per second on a 2-core VM).
MAX_DOCUMENT_BYTES = 8 << 20


def read_document(path, error, what: str, cached: bool = False) -> dict:
    """The TOML (default) or JSON (.json) document at `path`; `error(message)` if it cannot be read.
    ``cached``: a TOML file is parsed through sgdma.hw.tomlcache (for data files read by every run, such as
    gate libraries; not for circuits, which are read once)."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as e:
        raise error(f"cannot read {what} {path}: {e}") from None
    if size > MAX_DOCUMENT_BYTES:
        raise error(f"{what} {path} is {size} bytes, over the limit of {MAX_DOCUMENT_BYTES} bytes (more gates than "
                    "any board's BD region can play); split it, or generate it with the Python API "
                    "(Circuit.extend takes numpy columns)")
    try:
        data = read_bounded(path, MAX_DOCUMENT_BYTES, what)   # a regular file: no FIFO, no /dev/zero
        if path.suffix == ".json":
            doc = json.loads(data)
        elif cached:
            doc = tomlcache.copy(tomlcache.load(path))
        else:
            import tomllib

            doc = tomllib.loads(data.decode())
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as e:
        raise error(f"cannot read {what} {path}: {e}") from None
    if not isinstance(doc, dict):
        raise error(f"{what} {path}: the top level is a {type(doc).__name__}; it must be a table/object "
                    f"(e.g. {{\"circuit\": {{...}}, \"gates\": [...]}})")
    return doc
