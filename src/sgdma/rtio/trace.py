"""DMA traces in ARTIQ's byte encoding: the C encoder for bulk work and a Python mirror built from the same table.

A trace is records packed back to back (length byte 13 + 4n, 24-bit channel, 64-bit timestamp, address byte, n data
words, little-endian), then a zero length byte.  Events are columns: ``ts`` (int64 mu), ``target``
(channel << 8 | address), ``nwords`` (1..16) and ``data`` (the words of all events, concatenated).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sgdma import _core
from sgdma.rtio.layout import END_MARKER, HEADER_BYTES, MAX_WORDS, RECORD


@dataclass
class Events:
    ts: np.ndarray       # int64, mu
    target: np.ndarray   # uint32, channel << 8 | address
    nwords: np.ndarray   # uint8
    data: np.ndarray     # uint32, all words

    def __len__(self) -> int:
        return len(self.ts)

    @classmethod
    def single_word(cls, ts, target, data) -> "Events":
        ts = np.asarray(ts, np.int64)
        return cls(ts, np.asarray(target, np.uint32) * np.ones(len(ts), np.uint32),
                   np.ones(len(ts), np.uint8), np.asarray(data, np.uint32) * np.ones(len(ts), np.uint32))


def _check(ev: Events) -> None:
    bad = np.flatnonzero((ev.nwords < 1) | (ev.nwords > MAX_WORDS))
    if len(bad):
        raise ValueError(f"event {bad[0]}: {int(ev.nwords[bad[0]])} data words; an RTIO event carries 1..{MAX_WORDS} "
                         f"(512 bits) - split the payload")


def encode(ev: Events) -> bytes:
    """Trace bytes (with the end marker), encoded in C."""
    _check(ev)
    return _core.rtio_encode(np.ascontiguousarray(ev.ts, np.int64).tobytes(),
                             np.ascontiguousarray(ev.target, np.uint32).tobytes(),
                             np.ascontiguousarray(ev.nwords, np.uint8).tobytes(),
                             np.ascontiguousarray(ev.data, np.uint32).tobytes())


def decode(trace: bytes) -> Events:
    """Events of a trace (up to its end marker), decoded in C; ValueError names a malformed record."""
    ts, tg, nw, da = _core.rtio_decode(bytes(trace))
    return Events(np.frombuffer(ts, np.int64), np.frombuffer(tg, np.uint32), np.frombuffer(nw, np.uint8),
                  np.frombuffer(da, np.uint32))


# ---- the Python mirror (same table, no C): for cross-checks and tools without the extension's encoder ----

def _put(buf: bytearray, pos: int, field: str, value: int) -> None:
    off, size = RECORD[field]
    buf[pos + off:pos + off + size] = int(value).to_bytes(size, "little", signed=False)


def encode_py(ev: Events) -> bytes:
    _check(ev)
    out = bytearray()
    w = 0
    for i in range(len(ev)):
        n = int(ev.nwords[i])
        rec = bytearray(HEADER_BYTES + 4 * n)
        _put(rec, 0, "LENGTH", len(rec))
        _put(rec, 0, "CHANNEL", int(ev.target[i]) >> 8)
        _put(rec, 0, "TIMESTAMP", int(ev.ts[i]) & (2**64 - 1))
        _put(rec, 0, "ADDRESS", int(ev.target[i]) & 0xFF)
        off, size = RECORD["DATA"]
        for j in range(n):
            rec[off + size * j:off + size * (j + 1)] = int(ev.data[w + j]).to_bytes(size, "little")
        w += n
        out += rec
    out.append(END_MARKER)
    return bytes(out)


def decode_py(trace: bytes) -> Events:
    ts, tg, nw, da = [], [], [], []
    pos = 0

    def get(field):
        off, size = RECORD[field]
        return int.from_bytes(trace[pos + off:pos + off + size], "little")

    while True:
        if pos >= len(trace):
            raise ValueError("trace has no end marker (a record of length 0)")
        length = trace[pos]
        if length == END_MARKER:
            break
        n, rem = divmod(length - HEADER_BYTES, 4)
        if rem or not 1 <= n <= MAX_WORDS or pos + length > len(trace):
            raise ValueError(f"trace byte {pos}: record length {length} is not 13 + 4n (n = 1..16)")
        t = get("TIMESTAMP")
        ts.append(t - 2**64 if t >= 2**63 else t)
        tg.append(get("CHANNEL") << 8 | get("ADDRESS"))
        nw.append(n)
        off, size = RECORD["DATA"]
        da.extend(int.from_bytes(trace[pos + off + size * j:pos + off + size * (j + 1)], "little") for j in range(n))
        pos += length
    return Events(np.array(ts, np.int64), np.array(tg, np.uint32), np.array(nw, np.uint8), np.array(da, np.uint32))


def aligned(trace: bytes, align: int) -> bytes:
    """The trace zero-padded to a multiple of `align` (the runtime stores it at an aligned start)."""
    pad = (-len(trace)) % align
    return trace + bytes(pad)
