"""One hardware contract: spec/pg021.toml is the only place its numbers are written.

The generated headers must be exactly what the spec generates (regeneration is idempotent), and the
compiled module must carry the spec's values, computed here from the spec independently of the generator.
"""
from __future__ import annotations

import ctypes
import importlib.util
import tomllib
from pathlib import Path

from sgdma import _core
from sgdma.hw import pg021 as P

ROOT = Path(__file__).resolve().parent.parent
SPEC = tomllib.loads((ROOT / "spec" / "pg021.toml").read_text())


def _generator():
    spec = importlib.util.spec_from_file_location("gen_contract", ROOT / "scripts" / "gen_contract.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_generated_headers_match_the_spec():
    gen = _generator()
    for path, text in gen.outputs().items():
        assert path.read_text() == text, f"{path.name} is stale: run scripts/gen_contract.py"
    # generating twice gives the same text
    assert gen.outputs() == gen.outputs()
    assert gen.main(["--check"]) == 0


def _value(table: dict, entry: dict) -> int:
    if "bit" in entry:
        return 1 << entry["bit"]
    if "bits" in entry:
        hi, lo = entry["bits"]
        return sum(1 << b for b in range(lo, hi + 1))
    if "union" in entry:
        v = 0
        for n in entry["union"]:
            v |= _value(table, table[n])
        return v
    if "fields" in entry:
        v = 0
        for n, x in entry["fields"].items():
            lo = table[n].get("bit", table[n].get("bits", [0, 0])[-1])
            v |= x << lo
        return v
    return entry["value"]


def test_compiled_module_carries_every_spec_value():
    checked = 0
    for name, table in SPEC.items():
        if "prefix" not in table:
            continue
        for key, entry in table.items():
            if key == "prefix":
                continue
            full = table["prefix"] + key
            assert _core.constants[full] == _value(table, entry), full
            checked += 1
    assert checked > 70


def test_status_codes_come_from_the_spec_in_order():
    table = _core.status_table()     # (number, name, rule, fix) as the C core has them
    assert [(n, name, rule, fix) for n, (name, rule, fix) in enumerate(SPEC["status"]["codes"])] == \
        [tuple(row) for row in table]


def test_bd_dtype_matches_the_spec_layout():
    words = SPEC["bd_struct"]["words"]
    for name, offset, count in words:
        if name == "rsvd":
            assert name not in P.BD_DTYPE.names
            continue
        field = P.BD_DTYPE.fields[name]
        assert field[1] == offset, name
        assert field[0].itemsize == 4 * count, name
    assert P.BD_DTYPE.itemsize == SPEC["bd"]["SIZE"]["value"] == 64


def test_completion_dtype_matches_struct_sg_completion():
    class Completion(ctypes.Structure):   # the C declaration, as driver.h writes it
        _fields_ = [("index", ctypes.c_uint32), ("bytes", ctypes.c_uint32), ("status", ctypes.c_uint32),
                    ("flags", ctypes.c_uint32)]
    assert P.COMPLETION_DTYPE.itemsize == ctypes.sizeof(Completion) == _core.constants["SG_COMPLETION_SIZE"]
    for name, _ in Completion._fields_:
        assert P.COMPLETION_DTYPE.fields[name][1] == getattr(Completion, name).offset
        assert _core.constants[f"SG_COMPLETION_OFF_{name}"] == getattr(Completion, name).offset


def test_channel_numbers_and_flags():
    assert P.CHANNELS == {"mm2s": SPEC["driver"]["MM2S"]["value"], "s2mm": SPEC["driver"]["S2MM"]["value"]}
    assert P.SG_BD_SOF == 1 << SPEC["driver"]["BD_SOF"]["bit"]
    from sgdma.capture import driver as capture
    assert (capture.SOF, capture.EOF) == (P.SG_BD_SOF, P.SG_BD_EOF)
    flags = [capture.SOF, capture.EOF, capture.DROPPED_BEFORE, capture.DROPPED_WITHIN]
    assert all(f & (f - 1) == 0 for f in flags) and len(set(flags)) == 4


def test_no_header_outside_the_generator_defines_contract_names():
    """A contract name (PG021_*, SG_BD_SOF, ...) is #defined only in the generated headers."""
    import re
    generated = {ROOT / "csrc/include/sgdma/pg021.h", ROOT / "csrc/include/sgdma/sg_contract.h"}
    pattern = re.compile(r"#\s*define\s+(PG021_\w+|SG_BD_SOF|SG_BD_EOF|SG_DEFAULT_POLL_LIMIT|SG_STATUS_LIST)\b")
    offenders = []
    for path in (ROOT / "csrc").rglob("*.[ch]"):
        if path in generated:
            continue
        offenders += [f"{path.relative_to(ROOT)}: {m.group(1)}" for m in pattern.finditer(path.read_text())]
    assert not offenders, offenders
