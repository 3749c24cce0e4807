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
#: The sections every preset has: those of the reference preset pg021.toml (the schema is that file).
REQUIRED_SECTIONS = ("dma", "ic", "cpu", "gpio", "stream", "layout", "ddr", "dram")


def _check_schema(doc: dict, p: Path) -> None:
    """Every section of REQUIRED_SECTIONS present and every entry a table with a ``value``; ValueError names
    the file, the section or key, and the fix."""
    missing = [s for s in REQUIRED_SECTIONS if not isinstance(doc.get(s), dict)]
    if missing:
        raise ValueError(f"board preset {str(p)!r}: missing section(s) {', '.join('[' + s + ']' for s in missing)}; "
                         f"copy them from {directory() / 'pg021.toml'}")
    for key, item in _leaves(doc):
        if not isinstance(item, dict) or "value" not in item:
            raise ValueError(f"board preset {str(p)!r}: {key} = {item!r} is not a table with a value; "
                             "write it as {{ value = ..., unit = ..., source = ... }}")


def _leaves(doc: dict, prefix: str = ""):
    for key, item in doc.items():
        full = f"{prefix}{key}"
        if isinstance(item, dict) and "value" not in item:
            yield from _leaves(item, full + ".")
        elif prefix:                            # top-level scalars (name, description) are free text
            yield full, item


def load(preset: str | Path) -> dict:
    """The preset as a TOML document (values with their sources), includes resolved.

    ``include = "NAME"`` (or ``{ value = "NAME", source = ... }``) at the top level or in a table pulls in
    the table of the same place from NAME.toml next to the file (e.g. ``parts/ddr4-2400-micron-083e``);
    it must be the table's first key; the including file's own keys win.  The C loader (csrc/vboard/bus/config.c) reads the same way.
    """
    p = path(preset)
    doc = _load(p, 0)
    _check_schema(doc, p)
    return doc


def load_part(file: str | Path) -> dict:
    """A shared part (presets/parts/*.toml): only the sections it provides, includes resolved, no schema."""
    return _load(Path(file), 0)


_PARSED: dict = {}          # (path, mtime_ns, size) -> the parsed TOML: a board parses its preset several times


def _parse(file: Path) -> dict:
    """tomllib.load of a preset file, memoised by path, modification time and size; a private copy each time
    (callers may change what they get)."""
    st = file.stat()
    key = (str(file.resolve()), st.st_mtime_ns, st.st_size)
    doc = _PARSED.get(key)
    if doc is None:
        with open(file, "rb") as f:
            doc = _PARSED[key] = tomllib.load(f)
    return _copy(doc)


def _copy(x):
    """A TOML document's private copy: its tables and arrays; scalars are immutable."""
    if type(x) is dict:
        return {k: _copy(v) for k, v in x.items()}
    if type(x) is list:
        return [_copy(v) for v in x]
    return x


def _load(file: Path, depth: int) -> dict:
    if depth > _INCLUDE_DEPTH_MAX:
        raise ValueError(f"{file}: includes nest deeper than {_INCLUDE_DEPTH_MAX} levels (a loop?)")
    try:
        doc = _parse(file)
    except FileNotFoundError:
        raise ValueError(f"preset file {file} does not exist (includes are relative to the including file)") from None
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"board preset {str(file)!r}: cannot read it: {e}") from None
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
