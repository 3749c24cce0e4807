"""One grammar for sizes, times and rates, used by every command and API entry point.

Sizes (bytes):   4096, 4K, 4KB, 4KiB, 1M, 1MiB, 1G, 1GiB, 2^12, 4096B.  K/M/G and Ki/Mi/Gi are both binary
                 (1024^n): a DMA buffer or BD length is counted in powers of two, as PG021 and PYNQ do.
Times:           1ps, 250ns, 2.5us, 2.5 µs, 3ms, 1s, or a bare number of seconds (1e-6).
Rates (1/s):     40e6, 40M, 40MHz, 40 MS/s, 40Msps, 2.5GHz, 100kHz (k/M/G are decimal: 10^3n).  The prefix's
                 case is SI's: m is milli and M mega, so 40mHz is 0.04 Hz, never 40 MHz (k and K are both kilo).
Byte rates:      100MB/s, 1.2GB/s, 800kB/s, 64MiB/s, or a bare number of bytes/s (k/M/G decimal, Ki/Mi/Gi binary;
                 the B is required with a prefix: Mb/s would be bits).

Every value is range-checked against what the virtual board can represent: times are whole picoseconds in a
uint64 clock (csrc/vboard/vboard.h vb_now_ps), so a time below 1 ps (not zero after rounding) or above
TIME_MAX_NS is refused; sizes are refused beyond SIZE_MAX_BYTES (a 48-bit physical address space, the widest
the presets map); inf and nan are refused everywhere.  Errors are ``UnitError`` (a ValueError) naming the option.
"""
from __future__ import annotations

import math
import re

PS_PER_NS = 1000
TIME_MIN_NS = 1.0 / PS_PER_NS                  # the board clock's resolution: 1 ps
TIME_MAX_NS = float((1 << 63) // PS_PER_NS)    # the ps clock is uint64; keep a sign bit of headroom
SIZE_MAX_BYTES = 1 << 48                       # widest physical address space of any preset
RATE_MAX_HZ = 1e12                             # one event per ps: the finest the clock can tell apart

_SIZE_UNITS = {"": 1, "b": 1}
for _i, _p in enumerate("kmgt", start=1):
    for _suffix in (_p, _p + "b", _p + "i", _p + "ib"):
        _SIZE_UNITS[_suffix] = 1 << (10 * _i)
_TIME_UNITS = {"ps": 1e-3, "ns": 1.0, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9, "": 1e9}
_RATE_PREFIX = {"": 1.0, "m": 1e-3, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_BYTE_PREFIX = {**_RATE_PREFIX, "Ki": 1024.0, "Mi": 1024.0**2, "Gi": 1024.0**3}
_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?"
# patterns compiled on first use (re caches them): a command compiles only those of its own options
_SIZE_RE = rf"^({_NUM})\s*([a-z]*)$"
_TIME_RE = rf"^({_NUM})\s*(ps|ns|us|µs|μs|ms|s|)$"
_RATE_RE = rf"^({_NUM})\s*([mkKMGT]?)\s*((?i:hz|s/s|sps|/s)|)$"
_BANDWIDTH_RE = rf"^({_NUM})\s*(?:([mkKMGT]i?)B(?:/s|ps)|B(?:/s|ps)|)$"


class UnitError(ValueError):
    """A size, time or rate that does not parse or is out of range; ``.option`` names the option."""

    def __init__(self, message: str, option: str | None = None):
        super().__init__(f"{option}: {message}" if option else message)
        self.option = option


def _finite(x: float, value, option, what: str) -> float:
    if math.isnan(x) or math.isinf(x):
        raise UnitError(f"{value!r} is not a {what}: inf and nan are refused", option)
    return x


def parse_size(value, option: str | None = None, minimum: int = 1, maximum: int = SIZE_MAX_BYTES) -> int:
    """Bytes from 4096, "4K", "4KiB", "1G", "2^12" (K = Ki = 1024); refused outside [minimum, maximum]."""
    hint = "use e.g. 4096, 4K, 128KiB, 1MiB, 1G or 2^12"
    if isinstance(value, bool) or value is None:
        raise UnitError(f"{value!r} is not a size ({hint})", option)
    if isinstance(value, float):
        _finite(value, value, option, "size")
        if not value.is_integer():
            raise UnitError(f"{value!r} is not a whole number of bytes", option)
        n = int(value)
    elif isinstance(value, int):
        n = int(value)
    else:
        text = str(value).strip().replace(" ", "")
        if "^" in text:
            base, _, exp = text.partition("^")
            if not (base.isdigit() and exp.isdigit()) or len(base) > 20 or int(exp) > 1024:
                raise UnitError(f"{value!r} is not a size ({hint})", option)
            n = int(base) ** int(exp)
        else:
            m = re.match(_SIZE_RE, text, re.I)
            if not m or m.group(2).lower() not in _SIZE_UNITS:
                raise UnitError(f"{value!r} is not a size ({hint})", option)
            num = _finite(float(m.group(1)), value, option, "size")
            exact = num * _SIZE_UNITS[m.group(2).lower()]
            if not float(exact).is_integer():
                raise UnitError(f"{value!r} is not a whole number of bytes", option)
            n = int(exact)
    if n < minimum:
        raise UnitError(f"{value!r} is {n} bytes; the smallest size allowed is {minimum}", option)
    if n > maximum:
        raise UnitError(f"{value!r} is {n} bytes; the largest size allowed is {maximum} (2^{maximum.bit_length() - 1})"
                        if maximum & (maximum - 1) == 0 else f"{value!r} is {n} bytes; the largest size allowed is {maximum}",
                        option)
    return n


def parse_sizes(value, option: str | None = None, minimum: int = 1, maximum: int = SIZE_MAX_BYTES,
                max_items: int = 4096) -> list[int]:
    """A list of sizes: "32,64,4K", "2^5..2^13" or "32..8K" (powers of two between the ends, inclusive)."""
    items = list(value) if isinstance(value, (list, tuple)) else str(value).split(",")
    out: list[int] = []
    for item in items:
        if isinstance(item, str) and ".." in item:
            lo_t, _, hi_t = item.partition("..")
            lo, hi = (parse_size(x, option, minimum, maximum) for x in (lo_t, hi_t))
            if lo & (lo - 1) or hi & (hi - 1) or hi < lo:
                raise UnitError(f"range {item.strip()!r}: the ends must be powers of two, low to high", option)
            out += [1 << k for k in range(lo.bit_length() - 1, hi.bit_length())]
        elif not (isinstance(item, str) and not item.strip()):
            out.append(parse_size(item, option, minimum, maximum))
        if len(out) > max_items:
            raise UnitError(f"more than {max_items} values in {value!r}", option)
    if not out:
        raise UnitError(f"no sizes in {value!r}", option)
    return out


def parse_time_ns(value, option: str | None = None, minimum_ns: float = TIME_MIN_NS,
                  maximum_ns: float = TIME_MAX_NS) -> float:
    """ns from "1ps", "250ns", "2.5us", "3ms", "1s" or a bare number of seconds; whole ps, in range."""
    hint = "use e.g. 500ps, 250ns, 1us, 2ms or 1e-6 (seconds)"
    if isinstance(value, bool) or value is None:
        raise UnitError(f"{value!r} is not a time ({hint})", option)
    if isinstance(value, (int, float)):
        ns = float(value) * 1e9                      # a bare number is seconds, as on the command line
    else:
        m = re.match(_TIME_RE, str(value).strip().replace(" ", ""), re.I)
        if not m:
            raise UnitError(f"{value!r} is not a time ({hint})", option)
        ns = float(m.group(1)) * _TIME_UNITS[m.group(2).lower()]
    _finite(ns, value, option, "time")
    if ns < minimum_ns or ns > maximum_ns:
        raise UnitError(f"{value!r} is outside [{_fmt_ns(minimum_ns)}, {_fmt_ns(maximum_ns)}]"
                        + (" (the board's clock counts whole picoseconds)" if 0 <= ns < TIME_MIN_NS else ""),
                        option)
    return round(ns * PS_PER_NS) / PS_PER_NS      # the clock's resolution


def parse_rate(value, option: str | None = None, minimum: float = 1e-9, maximum: float = RATE_MAX_HZ) -> float:
    """Per second from 40e6, "40M", "40MHz", "40 MS/s", "2.5GHz"; finite and within [minimum, maximum]."""
    hint = "use e.g. 40e6, 40M, 40MHz or 40MS/s"
    if isinstance(value, bool) or value is None:
        raise UnitError(f"{value!r} is not a rate ({hint})", option)
    if isinstance(value, (int, float)):
        hz = float(value)
    else:
        m = re.match(_RATE_RE, str(value).strip().replace(" ", ""))
        if not m:
            raise UnitError(f"{value!r} is not a rate ({hint}; m is milli, M mega)", option)
        hz = float(m.group(1)) * _RATE_PREFIX[m.group(2)]
    _finite(hz, value, option, "rate")
    if hz < minimum or hz > maximum:
        raise UnitError(f"{value!r} is outside [{minimum:g}, {maximum:g}] per second", option)
    return hz


def parse_bandwidth(value, option: str | None = None, minimum: float = 1e-9, maximum: float = 1e15) -> float:
    """Bytes per second from "100MB/s", "1.2GB/s", "64MiB/s", "800kB/s" or a bare number; finite, in range."""
    hint = "use e.g. 100MB/s, 1.2GB/s, 64MiB/s or a number of bytes/s"
    if isinstance(value, bool) or value is None:
        raise UnitError(f"{value!r} is not a byte rate ({hint})", option)
    if isinstance(value, (int, float)):
        bps = float(value)
    else:
        m = re.match(_BANDWIDTH_RE, str(value).strip().replace(" ", ""))
        if not m or m.group(2) is not None and m.group(2) not in _BYTE_PREFIX:
            raise UnitError(f"{value!r} is not a byte rate ({hint}; m is milli, M mega, B bytes)", option)
        bps = float(m.group(1)) * _BYTE_PREFIX[m.group(2) or ""]
    _finite(bps, value, option, "byte rate")
    if bps < minimum or bps > maximum:
        raise UnitError(f"{value!r} is outside [{minimum:g}, {maximum:g}] bytes per second", option)
    return bps


def _fmt_ns(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3), ("ns", 1.0)):
        if ns >= scale:
            return f"{ns / scale:g} {unit}"
    return f"{ns * 1e3:g} ps"


__all__ = ["UnitError", "parse_size", "parse_sizes", "parse_time_ns", "parse_rate", "parse_bandwidth",
           "TIME_MIN_NS", "TIME_MAX_NS",
           "SIZE_MAX_BYTES", "RATE_MAX_HZ"]
