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


def load(preset: str | Path) -> dict:
    """The preset as a TOML document (values with their sources)."""
    with open(path(preset), "rb") as f:
        return tomllib.load(f)


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
