"""Reading gate libraries and circuits: TOML or JSON by suffix, one error type per caller."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path


def read_document(path, error, what: str) -> dict:
    """The TOML (default) or JSON (.json) document at `path`; `error(message)` if it cannot be read."""
    path = Path(path)
    try:
        if path.suffix == ".json":
            doc = json.loads(path.read_text())
        else:
            with open(path, "rb") as f:
                doc = tomllib.load(f)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError) as e:
        raise error(f"cannot read {what} {path}: {e}") from None
    if not isinstance(doc, dict):
        raise error(f"{what} {path}: the top level is a {type(doc).__name__}; it must be a table/object "
                    f"(e.g. {{\"circuit\": {{...}}, \"gates\": [...]}})")
    return doc
