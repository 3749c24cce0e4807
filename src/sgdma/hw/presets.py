"""Board presets: data files in sgdma/presets, one per board, every number with its source."""
from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path


def directory() -> Path:
    return Path(str(resources.files("sgdma.hw") / "presets"))


def names() -> list[str]:
    return sorted(p.stem for p in directory().glob("*.toml"))


def path(preset: str | Path) -> Path:
    """File of a preset given by name (``zcu111``) or by path."""
    p = Path(preset)
    if p.suffix == ".toml" and p.exists():
        return p
    candidate = directory() / f"{preset}.toml"
    if not candidate.exists():
        raise ValueError(f"unknown board preset {preset!r}: choose one of {', '.join(names())} or give a .toml file")
    return candidate


#: The sections every preset has: those of the reference preset pg021.toml (the schema is that file).
REQUIRED_SECTIONS = ("dma", "ic", "cpu", "gpio", "stream", "layout", "ddr", "dram")


def load(preset: str | Path) -> dict:
    """The preset as a TOML document (values with their sources), checked against the schema: every
    section of REQUIRED_SECTIONS present and every entry a table with a ``value``.  ValueError names the
    file, the section or key, and the fix."""
    p = path(preset)
    try:
        with open(p, "rb") as f:
            doc = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"board preset {str(p)!r}: cannot read it: {e}") from None
    missing = [s for s in REQUIRED_SECTIONS if not isinstance(doc.get(s), dict)]
    if missing:
        raise ValueError(f"board preset {str(p)!r}: missing section(s) {', '.join('[' + s + ']' for s in missing)}; "
                         f"copy them from {directory() / 'pg021.toml'}")
    for key, item in _leaves(doc):
        if not isinstance(item, dict) or "value" not in item:
            raise ValueError(f"board preset {str(p)!r}: {key} = {item!r} is not a table with a value; "
                             "write it as {{ value = ..., unit = ..., source = ... }}")
    return doc


def _leaves(doc: dict, prefix: str = ""):
    for key, item in doc.items():
        full = f"{prefix}{key}"
        if isinstance(item, dict) and "value" not in item:
            yield from _leaves(item, full + ".")
        elif prefix:                            # top-level scalars (name, description) are free text
            yield full, item


def entries(doc: dict, prefix: str = "") -> list[tuple[str, object, str, str]]:
    """Flatten a preset into (key, value, unit, source) rows, in file order."""
    rows = []
    for key, item in doc.items():
        full = f"{prefix}{key}"
        if isinstance(item, dict) and "value" in item:
            rows.append((full, item["value"], item.get("unit", ""), item.get("source", "")))
        elif isinstance(item, dict):
            rows.extend(entries(item, full + "."))
    return rows
