"""Board presets: data files in sgdma/presets, one per board, every number with its source."""
from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path


def directory() -> Path:
    return Path(str(resources.files("sgdma.hw") / "presets"))


def names() -> list[str]:
    """Board presets (the files in parts/ are pieces they include, not boards)."""
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


_INCLUDE_DEPTH_MAX = 4


def load(preset: str | Path) -> dict:
    """The preset as a TOML document (values with their sources), includes resolved.

    ``include = "NAME"`` (or ``{ value = "NAME", source = ... }``) at the top level or in a table pulls in
    the table of the same place from NAME.toml next to the file (e.g. ``parts/ddr4-2400-micron-083e``);
    it must be the table's first key; the including file's own keys win.  The C loader (csrc/vboard/bus/config.c) reads the same way.
    """
    return _load(path(preset), 0)


def _load(file: Path, depth: int) -> dict:
    if depth > _INCLUDE_DEPTH_MAX:
        raise ValueError(f"{file}: includes nest deeper than {_INCLUDE_DEPTH_MAX} levels (a loop?)")
    try:
        with open(file, "rb") as f:
            doc = tomllib.load(f)
    except FileNotFoundError:
        raise ValueError(f"preset file {file} does not exist (includes are relative to the including file)") from None
    return _resolve(doc, [], file, depth)


def _resolve(table: dict, where: list[str], file: Path, depth: int) -> dict:
    out: dict = {}
    inc = table.get("include")
    if inc is not None:
        if next(iter(table)) != "include":
            raise ValueError(f"{file}: [{'.'.join(where)}] include must be the table's first key (it is the base "
                             f"the other keys override)")
        name = inc["value"] if isinstance(inc, dict) else inc
        if not isinstance(name, str):
            raise ValueError(f"{file}: include must name a preset file, e.g. include = \"parts/NAME\"")
        other = _load(file.parent / f"{name}.toml", depth + 1)
        for key in where:
            other = other.get(key, {})
        out.update(other)
    for key, item in table.items():
        if key == "include":
            continue
        if isinstance(item, dict) and "value" not in item:
            merged = _resolve(item, where + [key], file, depth)
            base = out.get(key)
            out[key] = {**base, **merged} if isinstance(base, dict) and "value" not in base else merged
        else:
            out[key] = item
    return out


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
