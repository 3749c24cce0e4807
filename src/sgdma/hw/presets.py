"""Board presets: data files in sgdma/presets, one per board, every number with its source."""
from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from sgdma.hw import tomlcache


@cache
def directory() -> Path:
    return Path(str(resources.files("sgdma.hw") / "presets"))


def names() -> list[str]:
    """Board presets and aliases (the files in parts/ are pieces they include, not boards)."""
    return sorted(p.stem for p in directory().glob("*.toml"))


def aliases() -> dict[str, str]:
    """{alias: board} for the preset files that only name another board (``alias = { value = "zc706", ... }``)."""
    out = {}
    for p in directory().glob("*.toml"):
        target = _alias_of(p)
        if target is not None:
            out[p.stem] = target
    return dict(sorted(out.items()))


def boards() -> list[str]:
    """Board presets that are not aliases."""
    al = aliases()
    return [n for n in names() if n not in al]


def _alias_of(file: Path) -> str | None:
    """The board an alias file names, or None for a preset of its own.  An alias holds nothing else (it is one
    name for another board's numbers, never a copy of them)."""
    try:
        doc = tomlcache.load(file)
    except (OSError, ValueError):
        return None                             # load() reports it with the file's name
    item = doc.get("alias")
    if item is None:
        return None
    target = item.get("value") if isinstance(item, dict) else item
    others = sorted(set(doc) - {"alias", "name", "description"})
    if not isinstance(target, str) or others:
        raise ValueError(f"board preset {str(file)!r}: an alias must be only alias = {{ value = \"BOARD\", "
                         f"source = ... }} (it has {', '.join(others) or repr(target)}); make it a preset or an alias")
    return target


def path(preset: str | Path) -> Path:
    """File of a preset given by name (``zcu111``) or by path; an alias gives the file of the board it names."""
    p = Path(preset)
    if p.suffix == ".toml" and p.exists():
        return _follow(p)
    candidate = directory() / f"{preset}.toml"
    if not candidate.exists():
        raise ValueError(f"unknown board preset {preset!r}: choose one of {', '.join(names())} "
                         "(sgdma info --board lists them) or give a .toml file")
    return _follow(candidate)


def _follow(file: Path) -> Path:
    seen = [file]
    while (target := _alias_of(file)) is not None:
        file = file.parent / f"{target}.toml"
        if not file.exists():
            raise ValueError(f"board preset alias {str(seen[-1])!r} names {target!r}, which is no preset file "
                             f"next to it")
        if file in seen:
            raise ValueError(f"board preset aliases loop: {' -> '.join(p.stem for p in seen + [file])}")
        seen.append(file)
    return file


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
    it must be the table's first key; the including file's own keys win.  The C reader (csrc/vboard/preset.c, for C
    users without Python) reads the same way; from Python the board gets :func:`board_keys` instead.
    """
    p = path(preset)
    hit = _LOADED.get(str(p))
    if hit is not None and _unchanged(hit[0]):
        return tomlcache.copy(hit[1])
    used: list = []
    doc = _load(p, 0, used)
    _check_schema(doc, p)
    _LOADED[str(p)] = (used, doc)
    return tomlcache.copy(doc)


#: preset file -> ((file, its parse) of every file it was built from, the checked document): a run loads its
#: preset several times (board, layout, CPU models, record); the files are read again, not resolved again
_LOADED: dict[str, tuple[list, dict]] = {}


def _unchanged(used: list) -> bool:
    """Every file still parses to the very document the entry was built from (tomlcache keeps one per content)."""
    try:
        return all(tomlcache.load(f) is parsed for f, parsed in used)
    except (OSError, ValueError):
        return False                            # gone or broken: _load reports it


def load_part(file: str | Path) -> dict:
    """A shared part (presets/parts/*.toml): only the sections it provides, includes resolved, no schema."""
    return _load(Path(file), 0, [])


def _load(file: Path, depth: int, used: list) -> dict:
    if depth > _INCLUDE_DEPTH_MAX:
        raise ValueError(f"{file}: includes nest deeper than {_INCLUDE_DEPTH_MAX} levels (a loop?)")
    try:
        parsed = tomlcache.load(file)
        used.append((file, parsed))
        doc = tomlcache.copy(parsed)
    except FileNotFoundError:
        raise ValueError(f"preset file {file} does not exist (includes are relative to the including file)") from None
    except (OSError, ValueError) as e:           # unreadable, not UTF-8, not TOML
        raise ValueError(f"board preset {str(file)!r}: cannot read it: {e}") from None
    return _resolve(doc, [], file, depth, used)


def _resolve(table: dict, where: list[str], file: Path, depth: int, used: list) -> dict:
    out: dict = {}
    inc = table.get("include")
    if inc is not None:
        if next(iter(table)) != "include":
            raise ValueError(f"{file}: [{'.'.join(where)}] include must be the table's first key (it is the base "
                             f"the other keys override)")
        name = inc["value"] if isinstance(inc, dict) else inc
        if not isinstance(name, str):
            raise ValueError(f"{file}: include must name a preset file, e.g. include = \"parts/NAME\"")
        other = _load(file.parent / f"{name}.toml", depth + 1, used)
        for key in where:
            other = other.get(key, {})
        out.update(other)
    for key, item in table.items():
        if key == "include":
            continue
        if isinstance(item, dict) and "value" not in item:
            merged = _resolve(item, where + [key], file, depth, used)
            base = out.get(key)
            out[key] = _merge(base, merged) if isinstance(base, dict) and "value" not in base else merged
        else:
            out[key] = item
    return out


def _merge(base: dict, over: dict) -> dict:
    """Tables merged key by key at every depth (as the C loader sets key by key): a board overriding one key of
    an included [cpu.apu] keeps the rest of it."""
    out = dict(base)
    for key, item in over.items():
        b = out.get(key)
        if isinstance(item, dict) and "value" not in item and isinstance(b, dict) and "value" not in b:
            out[key] = _merge(b, item)
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


def _c_section(section: str) -> bool:
    """A section the C board reads (the others are for the Python layers only; preset.c skips the same)."""
    return not (section.startswith(("info", "layout", "port.", "cpu.")) or section == "irq")


def board_keys(preset: str | Path) -> tuple[str, dict[str, float]]:
    """The preset's name and its numbers as the C board's keys (``"dma.max_burst" -> 16.0``), in file order.

    The preset is parsed once, here: the binding hands these to the board key by key (``vb_config_set``), so C
    never reads the file again.  A ``[pcie]`` or ``[rtio]`` table puts that subsystem on the board.
    """
    doc = load(preset)
    name = doc.get("name")
    keys: dict[str, float] = {}
    for sub in ("pcie", "rtio"):
        if isinstance(doc.get(sub), dict):
            keys[f"{sub}.present"] = 1.0
    for key, value, _unit, _source in entries(doc):
        section = key.rpartition(".")[0]
        if not section or not _c_section(section):
            continue
        if isinstance(value, bool) or isinstance(value, (int, float)):
            keys[key] = float(value)
    return (name if isinstance(name, str) else "custom"), keys
