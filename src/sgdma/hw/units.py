"""The one parser of quantities users type: sizes, times and rates.

    parse_size("128KiB") -> 131072      K, KB, KiB = 2^10; M, MB, MiB = 2^20; G, GB, GiB = 2^30; "2^12"; B optional
    parse_sizes("64..32KiB") -> [64, 128, ..., 32768]   comma list; "lo..hi" = the powers of two between
    parse_time_ns("2.5 us") -> 2500.0   ps, ns, us (µs), ms, s; a bare number is seconds
    parse_rate("40 MS/s") -> 40e6       Hz, kHz, MHz, GHz, S/s, sps, /s, or a bare k/M/G suffix (10^3, 10^6, 10^9)

Numbers (int/float) pass through.  Every error is a UnitError (a ValueError) naming the text and the grammar.
"""
from __future__ import annotations

import math
import re


class UnitError(ValueError):
    """Text that is not a size, time or rate."""


_SIZE_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
               "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30}
_TIME_UNITS = {"ps": 1e-3, "ns": 1.0, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}
_RATE_PREFIX = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9}
_NUMBER = r"([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)"
_SIZE = re.compile(rf"^{_NUMBER}([a-z]*)$", re.I)
_TIME = re.compile(rf"^{_NUMBER}([a-zµμ]*)$", re.I)
_RATE = re.compile(rf"^{_NUMBER}([kmg]?)(hz|s/s|sps|/s)?$", re.I)

SIZE_GRAMMAR = "use 4096, 4K, 128KiB, 1MiB, 2GiB or 2^12"
SIZES_GRAMMAR = "use a comma list (64,128,1KiB) or a range of powers of two (64..32KiB, 2^5..2^13)"
TIME_GRAMMAR = "use e.g. 250ps, 2ns, 1.5us, 2ms or 1e-6 (seconds)"
RATE_GRAMMAR = "use e.g. 40e6, 40M, 40 MS/s, 250MHz or 1.2GHz"


def _compact(text) -> str:
    return str(text).strip().replace(" ", "").replace("_", "")


def parse_size(text) -> int:
    """Bytes from 4096, "4096", "4K", "4KiB", "1MiB", "2GiB", "2^12" (K, KB and KiB all mean 1024)."""
    if isinstance(text, bool):
        raise UnitError(f"not a size: {text!r} ({SIZE_GRAMMAR})")
    if isinstance(text, int):
        return text
    if isinstance(text, float):
        if text.is_integer():
            return int(text)
        raise UnitError(f"not a whole number of bytes: {text!r}")
    t = _compact(text)
    if "^" in t:
        base, _, exp = t.partition("^")
        if not (base.isdigit() and exp.isdigit()):
            raise UnitError(f"not a size: {text!r} ({SIZE_GRAMMAR})")
        return int(base) ** int(exp)
    m = _SIZE.match(t)
    if not m or m.group(2).lower() not in _SIZE_UNITS:
        raise UnitError(f"not a size: {text!r} ({SIZE_GRAMMAR})")
    value = float(m.group(1)) * _SIZE_UNITS[m.group(2).lower()]
    if not value.is_integer():
        raise UnitError(f"not a whole number of bytes: {text!r}")
    if "." not in m.group(1) and "e" not in m.group(1).lower():
        return int(m.group(1)) * _SIZE_UNITS[m.group(2).lower()]   # exact for any integer
    return int(value)


def parse_sizes(text) -> list[int]:
    """A list of sizes: [64, "1KiB"], "64,128,256", "64..32768", "2^5..2^13" (powers of two between the ends)."""
    if isinstance(text, (list, tuple)):
        out = [parse_size(v) for v in text]
    else:
        out = []
        for item in str(text).split(","):
            item = item.strip()
            if not item:
                continue
            if ".." in item:
                lo, hi = (parse_size(x) for x in item.split("..", 1))
                if lo <= 0 or lo & (lo - 1) or hi & (hi - 1) or hi < lo:
                    raise UnitError(f"range {item!r}: the ends must be powers of two, low to high ({SIZES_GRAMMAR})")
                out += [1 << k for k in range(lo.bit_length() - 1, hi.bit_length())]
            else:
                out.append(parse_size(item))
    if not out:
        raise UnitError(f"no sizes in {text!r} ({SIZES_GRAMMAR})")
    return out


def parse_time_ns(text) -> float:
    """Nanoseconds from "250ps", "2ns", "1.5 us", "2ms", "1s"; a bare number (or float) is seconds."""
    if isinstance(text, bool):
        raise UnitError(f"not a time: {text!r} ({TIME_GRAMMAR})")
    if isinstance(text, (int, float)):
        return float(text) * 1e9
    m = _TIME.match(_compact(text).lower())
    unit = m and m.group(2)
    if not m or (unit and unit not in _TIME_UNITS):
        raise UnitError(f"not a time: {text!r} ({TIME_GRAMMAR})")
    value = float(m.group(1)) * (_TIME_UNITS[unit] if unit else 1e9)
    if not math.isfinite(value):
        raise UnitError(f"not a finite time: {text!r}")
    return value


def parse_rate(text) -> float:
    """Per second from 40e6, "40e6", "40M", "2.5 MS/s", "250MHz", "1.2 GHz" (k, M, G = 10^3, 10^6, 10^9)."""
    if isinstance(text, bool):
        raise UnitError(f"not a rate: {text!r} ({RATE_GRAMMAR})")
    if isinstance(text, (int, float)):
        return float(text)
    m = _RATE.match(_compact(text).lower())
    if not m:
        raise UnitError(f"not a rate: {text!r} ({RATE_GRAMMAR})")
    value = float(m.group(1)) * _RATE_PREFIX[m.group(2)]
    if not math.isfinite(value):
        raise UnitError(f"not a finite rate: {text!r}")
    return value
