"""Gate libraries: gates as ordered lists of segments, loaded from TOML, JSON or Python.

File schema (TOML shown; JSON has the same shape)::

    [library]                 # name, description
    [waveforms.gauss]         # a pulse template (see waveforms.Waveform)
    shape = "gaussian"; samples = 256; amplitude = 0.8
    [segments.cfg]            # raw data: u8 / i16 / u32 = [...] or hex = "..."
    u32 = [1, 2, 3, 4, 5, 6, 7, 8]
    [gates.rx]
    params = { theta = "pi" }           # defaults ("nan" or absent default: required)
    qubits = 1
    segments = [{ waveform = "gauss", scale_by = "theta", reference = "pi" }]

A step of a gate names a segment or waveform and may say how gate parameters
shape it: ``scale_by`` (amplitude = template x wrap(param) / reference, so the
pulse area follows the rotation angle), ``phase_by`` (adds the parameter, in rad,
to the phase; for a ``phase`` waveform it is the phase word's value),
``phase_deg`` (a fixed extra phase), ``repeat`` / ``repeat_by`` (the same
segment several times: one BD each, no extra memory).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from sgdma.sequence.errors import CircuitError, LibraryError, UnknownGateError
from sgdma.sequence.files import read_document
from sgdma.sequence.params import parse_value, wrap_angle
from sgdma.sequence.waveforms import Waveform

#: (segment or waveform name, amplitude scale, extra phase in rad); (name, 1.0, 0.0) is the segment itself.
Recipe = tuple[str, float, float]
_REF_KEYS = {"waveform", "segment", "scale_by", "reference", "phase_deg", "phase_by", "repeat", "repeat_by"}
_RAW_DTYPES = {"u8": "<u1", "i16": "<i2", "u16": "<u2", "u32": "<u4", "i32": "<i4"}


@dataclass(frozen=True)
class SegmentRef:
    """One step of a gate."""

    name: str
    scale_by: str | None = None
    reference: float = math.pi
    phase_deg: float = 0.0
    phase_by: str | None = None
    repeat: int = 1
    repeat_by: str | None = None

    @classmethod
    def parse(cls, item, gate: str) -> "SegmentRef":
        if isinstance(item, str):
            return cls(item)
        if not isinstance(item, dict):
            raise LibraryError(f"gate {gate!r}: a segment step is a name or a table, not {item!r}")
        extra = set(item) - _REF_KEYS
        if extra:
            raise LibraryError(f"gate {gate!r}: unknown keys {sorted(extra)} in a segment step",
                               f"use {', '.join(sorted(_REF_KEYS))}")
        name = item.get("waveform", item.get("segment"))
        if not isinstance(name, str):
            raise LibraryError(f"gate {gate!r}: a segment step needs waveform = \"NAME\" or segment = \"NAME\"")
        try:
            return cls(name, item.get("scale_by"), parse_value(item.get("reference", math.pi), "reference"),
                       parse_value(item.get("phase_deg", 0.0), "phase_deg"), item.get("phase_by"),
                       int(item.get("repeat", 1)), item.get("repeat_by"))
        except ValueError as e:
            raise LibraryError(f"gate {gate!r}: {e}") from None

    @property
    def uses(self) -> set[str]:
        return {p for p in (self.scale_by, self.phase_by, self.repeat_by) if p}


@dataclass(frozen=True)
class GateDef:
    """A gate: segments played back to back as one stream packet."""

    name: str
    segments: tuple[SegmentRef, ...]
    params: dict[str, float] = field(default_factory=dict)   # default per parameter (nan: required)
    qubits: int = 0                                            # 0: not checked
    doc: str = ""

    def __post_init__(self):
        if not self.segments:
            raise LibraryError(f"gate {self.name!r} has no segments", "a gate plays at least one segment")
        for ref in self.segments:
            unknown = ref.uses - set(self.params)
            if unknown:
                raise LibraryError(f"gate {self.name!r}: step {ref.name!r} uses parameter(s) {sorted(unknown)} "
                                   f"the gate does not declare", f"add them to params (it has {sorted(self.params)})")
            if ref.repeat < 1:
                raise LibraryError(f"gate {self.name!r}: step {ref.name!r} repeat = {ref.repeat}", "repeat >= 1")
            if ref.scale_by and ref.reference == 0:
                raise LibraryError(f"gate {self.name!r}: step {ref.name!r} has reference 0", "reference != 0")

    def resolve(self, values: dict[str, float]) -> list[tuple[Recipe, int]]:
        """Recipes and repeat counts for concrete parameter values."""
        out = []
        for ref in self.segments:
            scale = wrap_angle(values[ref.scale_by]) / ref.reference if ref.scale_by else 1.0
            phase = math.radians(ref.phase_deg) + (values[ref.phase_by] if ref.phase_by else 0.0)
            repeat = ref.repeat
            if ref.repeat_by:
                n = values[ref.repeat_by]
                if not (n >= 1 and float(n).is_integer()):
                    raise CircuitError(f"gate {self.name!r}: {ref.repeat_by} = {n:g} must be a whole number >= 1 "
                                       f"(it repeats {ref.name!r})", f"pass {ref.repeat_by}={max(1, round(n))}")
                repeat *= int(n)
            out.append(((ref.name, float(scale), float(phase)), repeat))
        return out


class GateLibrary:
    """Waveform templates, raw segments and gates; bind it to a board with a Sequencer."""

    def __init__(self, name: str = "library", description: str = ""):
        self.name, self.description = name, description
        self.waveforms: dict[str, Waveform] = {}
        self.raw: dict[str, np.ndarray] = {}
        self.gates: dict[str, GateDef] = {}
        self.version = 0              # bumps on every change (the Sequencer's resolve cache key)

    # -- loading ------------------------------------------------------------------------
    @classmethod
    def bundled(cls, name: str = "trapped_ion") -> "GateLibrary":
        """A library shipped in sgdma/data (``trapped_ion``)."""
        path = Path(str(resources.files("sgdma") / "data" / f"{name}.toml"))
        if not path.exists():
            raise LibraryError(f"no bundled gate library {name!r}", "use 'trapped_ion' or give a file path")
        return cls.from_file(path)

    @classmethod
    def load(cls, spec) -> "GateLibrary":
        """A GateLibrary, a dict, a .toml/.json path, or the name of a bundled library."""
        if isinstance(spec, GateLibrary):
            return spec
        if isinstance(spec, dict):
            return cls.from_dict(spec)
        path = Path(spec)
        if path.suffix in (".toml", ".json"):
            return cls.from_file(path)
        return cls.bundled(str(spec))

    @classmethod
    def from_file(cls, path) -> "GateLibrary":
        path = Path(path)
        doc = read_document(path, LibraryError, "gate library", cached=True)
        doc.setdefault("library", {}).setdefault("name", path.stem)
        return cls.from_dict(doc)

    @classmethod
    def from_dict(cls, doc: dict) -> "GateLibrary":
        extra = set(doc) - {"library", "waveforms", "segments", "gates"}
        if extra:
            raise LibraryError(f"gate library: unknown sections {sorted(extra)}",
                               "use [library], [waveforms.*], [segments.*], [gates.*]")
        meta = doc.get("library", {})
        lib = cls(meta.get("name", "library"), meta.get("description", ""))
        for name, spec in doc.get("waveforms", {}).items():
            lib.add_waveform(name, **spec)
        for name, spec in doc.get("segments", {}).items():
            lib.add_raw(name, spec)
        for name, spec in doc.get("gates", {}).items():
            if not isinstance(spec, dict):
                raise LibraryError(f"gate {name!r}: expected a table, got {spec!r}")
            extra = set(spec) - {"segments", "params", "qubits", "doc"}
            if extra:
                raise LibraryError(f"gate {name!r}: unknown keys {sorted(extra)}", "use segments, params, qubits, doc")
            lib.add_gate(name, spec.get("segments", []), spec.get("params"), spec.get("qubits", 0),
                         spec.get("doc", ""))
        return lib

    # -- building -------------------------------------------------------------------------
    def add_waveform(self, name: str, **spec) -> Waveform:
        try:
            wf = Waveform.from_dict(name, {k: parse_value(v, f"waveform {name!r} {k}") if k in ("phase_deg",) else v
                                           for k, v in spec.items()})
        except (TypeError, ValueError) as e:
            raise LibraryError(str(e)) from None
        self._unique(name)
        self.waveforms[name] = wf
        self.version += 1
        return wf

    def add_raw(self, name: str, data) -> None:
        """Raw segment data: array/bytes, or a dict {u8|i16|u16|u32|i32: [...]} / {hex: "..."}."""
        if isinstance(data, dict):
            if len(data) != 1 or not set(data) <= set(_RAW_DTYPES) | {"hex"}:
                raise LibraryError(f"segment {name!r}: give exactly one of {', '.join(_RAW_DTYPES)} or hex, "
                                   f"not {sorted(data)}")
            (kind, values), = data.items()
            try:
                data = (np.frombuffer(bytes.fromhex(values), np.uint8) if kind == "hex"
                        else np.asarray(values, dtype=_RAW_DTYPES[kind]))
            except (ValueError, OverflowError, TypeError) as e:
                raise LibraryError(f"segment {name!r}: {kind} data unreadable: {e}") from None
        self._unique(name)
        self.raw[name] = np.ascontiguousarray(data).reshape(-1).view(np.uint8).copy()
        self.version += 1

    def add_gate(self, name: str, segments, params: dict | None = None, qubits: int = 0, doc: str = "") -> GateDef:
        """A gate from steps (names or dicts as in the file schema) and parameter defaults."""
        try:
            defaults = {p: (math.nan if v is None or v == "nan" else parse_value(v, f"gate {name!r} {p}"))
                        for p, v in (params or {}).items()}
        except ValueError as e:
            raise LibraryError(str(e)) from None
        gate = GateDef(name, tuple(SegmentRef.parse(s, name) for s in segments), defaults, int(qubits), doc)
        self.gates[name] = gate
        self.version += 1
        return gate

    def _unique(self, name: str) -> None:
        if name in self.waveforms or name in self.raw:
            raise LibraryError(f"segment/waveform name {name!r} is defined twice",
                               "waveforms and raw segments share one name space")

    def update_waveform(self, name: str, **changes) -> Waveform:
        """Change a template's parameters (use Sequencer.recalibrate_waveform to apply it)."""
        if name not in self.waveforms:
            raise LibraryError(f"no waveform {name!r}", f"waveforms: {', '.join(sorted(self.waveforms))}")
        try:
            wf = self.waveforms[name].replace(**changes)
        except (TypeError, ValueError) as e:
            raise LibraryError(str(e)) from None
        self.waveforms[name] = wf
        self.version += 1
        return wf

    # -- lookup -----------------------------------------------------------------------------
    def gate(self, name: str, where: str = "") -> GateDef:
        try:
            return self.gates[name]
        except KeyError:
            raise UnknownGateError(name, list(self.gates), where) from None

    def __contains__(self, name: str) -> bool:
        return name in self.gates

    @property
    def names(self) -> list[str]:
        return list(self.gates)

    def __repr__(self) -> str:
        return (f"GateLibrary({self.name!r}: {len(self.gates)} gates, {len(self.waveforms)} waveforms, "
                f"{len(self.raw)} raw segments)")
