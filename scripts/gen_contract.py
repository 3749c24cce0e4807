#!/usr/bin/env python3
"""Generate the C headers of the hardware contract from spec/pg021.toml.

    scripts/gen_contract.py            write csrc/include/sgdma/{pg021.h,sg_contract.h}
    scripts/gen_contract.py --check    exit 1 when a header differs from what the spec generates

setup.py runs it before compiling, so the C core, the firmware build and the Python module
(sgdma._core.constants) all see the one table.  Python's only dependency here is the standard library.
"""
from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec" / "pg021.toml"
OUT = ROOT / "csrc" / "include" / "sgdma"

HW_TABLES = ("map", "dmacr", "dmasr", "bd", "bd_fields", "limits", "latency")
HEX_TABLES = ("map", "bd")


def _mask(entry: dict) -> int | None:
    if "bit" in entry:
        return 1 << entry["bit"]
    if "bits" in entry:
        hi, lo = entry["bits"]
        return ((1 << (hi + 1)) - 1) & ~((1 << lo) - 1)
    return None


def _union(table: dict, entry: dict) -> int:
    value = 0
    for n in entry["union"]:
        value |= _union(table, table[n]) if "union" in table[n] else _mask(table[n])
    return value


def _pack(table: dict, values: dict) -> int:
    word = 0
    for name, v in values.items():
        mask = _mask(table[name])
        low = mask & -mask
        if v * low & ~mask:
            raise ValueError(f"{name} = {v} does not fit its field")
        word |= v * low
    return word


def entries(spec: dict, table: str):
    """(C name, C expression, numeric value, doc) of every entry of a table, in spec order."""
    t = spec[table]
    prefix = t["prefix"]
    for name, e in t.items():
        if name == "prefix" or e.get("enum"):
            continue
        full = prefix + name
        if "bit" in e:
            expr, value = f"SG_BIT({e['bit']})", _mask(e)
        elif "bits" in e:
            expr, value = f"SG_GENMASK({e['bits'][0]}, {e['bits'][1]})", _mask(e)
        elif "union" in e:
            expr = "(" + " | ".join(prefix + n for n in e["union"]) + ")"
            value = _union(t, e)
        elif "fields" in e:
            value = _pack(t, e["fields"])
            expr = f"0x{value:08X}u"
        else:
            value = e["value"]
            expr = f"0x{value:02X}u" if table in HEX_TABLES else f"{value}u"
        yield full, expr, value, e.get("doc", "")


def _define(name: str, expr: str, doc: str) -> str:
    line = f"#define {name:<26} {expr}"
    return f"{line:<48} /* {doc} */" if doc else line


def _exports(macro: str, names: list[str]) -> list[str]:
    out = [f"#define {macro}(X) \\"]
    for i in range(0, len(names), 3):
        tail = " \\" if i + 3 < len(names) else ""
        out.append("\t" + " ".join(f"X({n})" for n in names[i:i + 3]) + tail)
    return out


HEAD = """/*
 * {file} - GENERATED from spec/pg021.toml by scripts/gen_contract.py.  Do not edit:
 * change the spec and rebuild (setup.py regenerates it; tests/test_contract.py checks it).
 *
 * {what}
 *
 * Freestanding: only <stdint.h>.
 */
#ifndef {guard}
#define {guard}
"""


def pg021_h(spec: dict) -> str:
    out = [HEAD.format(file="pg021.h", guard="SGDMA_PG021_H",
                       what="The hardware contract of the Xilinx AXI DMA (LogiCORE PG021 v7.1): register offsets, bit\n"
                            " * fields, the buffer-descriptor layout, build limits and internal latencies."),
           "#include <stdint.h>", "",
           "#define SG_BIT(n)        (1u << (n))",
           "#define SG_GENMASK(h, l) (((~0u) >> (31 - (h))) & ~((1u << (l)) - 1u))",
           "#define SG_FIELD_GET(mask, reg) (((reg) & (mask)) / ((mask) & ~((mask) << 1)))",
           "#define SG_FIELD_PREP(mask, val) (((uint32_t)(val) * ((mask) & ~((mask) << 1))) & (mask))"]
    names = []
    for table in HW_TABLES:
        out += ["", f"/* ---- [{table}] ---- */"]
        for name, expr, _, doc in entries(spec, table):
            out.append(_define(name, expr, doc))
            names.append(name)
    out += ["", "/* BD in memory, little-endian words.  Laid out so a CPU can write it directly. */",
            "struct pg021_bd {"]
    offset = 0
    for name, off, count in spec["bd_struct"]["words"]:
        if off != offset:
            raise ValueError(f"bd_struct: {name} at {off:#x}, expected {offset:#x}")
        out.append(f"\tuint32_t {name}[{count}];" if count > 1 else f"\tuint32_t {name};")
        offset += 4 * count
    if offset != spec["bd"]["SIZE"]["value"]:
        raise ValueError(f"bd_struct covers {offset} bytes, bd.SIZE is {spec['bd']['SIZE']['value']}")
    out += ["};", "",
            "/* Every name a front end (Python) may need; X(name) expands to something using the macro. */"]
    out += _exports("PG021_EXPORTS", names)
    out += ["", "#endif /* SGDMA_PG021_H */", ""]
    return "\n".join(out)


def sg_contract_h(spec: dict) -> str:
    out = [HEAD.format(file="sg_contract.h", guard="SGDMA_SG_CONTRACT_H",
                       what="The driver core's side of the contract: channel numbers, fill/completion flags,\n"
                            " * the default poll bound and the status codes with their rules and fixes."),
           '#include "sgdma/pg021.h"', ""]
    d = spec["driver"]
    enum = [(d["prefix"] + n, e["value"]) for n, e in d.items() if n != "prefix" and e.get("enum")]
    out.append("enum sg_dir { " + ", ".join(f"{n} = {v}" for n, v in enum) + " };")
    names = [n for n, _ in enum]
    for name, expr, _, doc in entries(spec, "driver"):
        out.append(_define(name, expr, doc))
        names.append(name)
    out += ["", "/* Status codes: X(name, rule, fix), in enum order. */", "#define SG_STATUS_LIST(X) \\"]
    codes = spec["status"]["codes"]
    for i, (name, rule, fix) in enumerate(codes):
        tail = " \\" if i + 1 < len(codes) else ""
        out.append(f'\tX({name}, "{rule}", "{fix}"){tail}')
    out += ["", "/* Every name a front end (Python) may need. */"]
    out += _exports("SG_CONTRACT_EXPORTS", names)
    out += ["", "#endif /* SGDMA_SG_CONTRACT_H */", ""]
    return "\n".join(out)


def load(path: Path = SPEC) -> dict:
    with open(path, "rb") as f:
        return tomllib.load(f)


def outputs(spec: dict | None = None) -> dict[Path, str]:
    spec = spec or load()
    return {OUT / "pg021.h": pg021_h(spec), OUT / "sg_contract.h": sg_contract_h(spec)}


def main(argv: list[str]) -> int:
    stale = []
    for path, text in outputs().items():
        current = path.read_text() if path.exists() else None
        if current == text:
            continue
        if "--check" in argv:
            stale.append(path)
        else:
            path.write_text(text)
    for path in stale:
        print(f"{path.relative_to(ROOT)} differs from spec/pg021.toml: run scripts/gen_contract.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
