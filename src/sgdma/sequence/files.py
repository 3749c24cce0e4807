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
            return json.loads(path.read_text())
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, ValueError) as e:
        raise error(f"cannot read {what} {path}: {e}") from None
