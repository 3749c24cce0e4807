"""The RTIO analyzer: arm a ring in board DDR, take a dump in ARTIQ's format, decode it, write a VCD.

Dump = b'e' + little-endian header (sent_bytes u32, total_byte_count u64, overflow u8, log_channel u8,
dds_onehot_sel u8) + the ring oldest first; messages are 32 bytes, big-endian fields (layout.MESSAGE).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from sgdma.rtio.layout import CONST, MESSAGE, MESSAGE_BYTES

RING_BYTES = 512 * 1024      # the runtime's static buffer (artiq-rtio.md sec. 4.3)
_HEADER = struct.Struct("<IQBBB")
MSG_OUTPUT, MSG_INPUT, MSG_EXCEPTION, MSG_STOPPED = (CONST[k] for k in ("MSG_OUTPUT", "MSG_INPUT", "MSG_EXCEPTION",
                                                                         "MSG_STOPPED"))


class Analyzer:
    def __init__(self, core, ring_bytes: int = RING_BYTES):
        if ring_bytes < MESSAGE_BYTES or ring_bytes % MESSAGE_BYTES:
            raise ValueError(f"ring_bytes={ring_bytes}: a positive multiple of {MESSAGE_BYTES} (one message)")
        self.core = core
        self._ring = core.board.allocate(ring_bytes, align=64)
        self.base, self.size = self._ring.physical_address, ring_bytes
        self.log_channel = log_channel_of(core.board)
        self.arm()

    def arm(self) -> None:
        self.core.port.analyzer_arm(self.base, self.size)

    def state(self) -> dict:
        return self.core.port.analyzer_state()

    def dump(self, rearm: bool = True) -> bytes:
        """Disarm, wait for the writer, and return the dump as the runtime sends it on port 1382."""
        if not self.core.port.analyzer_disarm(int(1e12)):
            raise RuntimeError("analyzer writer still busy after 1 s of board time")
        st = self.state()
        total = st["byte_count_csr"]
        ring = bytes(self.core.board.view(self.base, self.size))
        if total >= self.size:
            ptr = total % self.size
            body, sent = ring[ptr:] + ring[:ptr], self.size
        else:
            body, sent = ring[:total], total
        head = b"e" + _HEADER.pack(sent, total, int(st["overflow"] or st["bus_error"]), self.log_channel, 1)
        if rearm:
            self.arm()
        return head + body


def log_channel_of(board) -> int:
    """The header's log_channel: ARTIQ's gateware appends its LogChannel after every PHY channel and sets
    RTIO_LOG_CHANNEL to that index (the last channel), so the channel number one past the preset's TTL and wide
    channels.  ARTIQ's VCD converter treats messages on it as log text, so 0 would hide TTL channel 0's edges."""
    from sgdma.hw import presets

    rtio = presets.load(board.preset)["rtio"]
    return int(rtio["ttl_channels"]["value"]) + int(rtio["wide_channels"]["value"])


@dataclass
class Dump:
    sent_bytes: int
    total_byte_count: int
    overflow: bool
    log_channel: int
    messages: np.ndarray       # structured: type, channel, timestamp, rtio_counter, address, data, exception

    @property
    def wraps(self) -> int:
        return self.total_byte_count // self.sent_bytes if self.sent_bytes else 0

    @property
    def wrapped(self) -> bool:
        return self.total_byte_count > self.sent_bytes


def _be(raw: np.ndarray, field: str) -> np.ndarray:
    off, size = MESSAGE[field]
    cols = raw[:, off:off + size].astype(np.uint64)
    v = np.zeros(len(raw), np.uint64)
    for i in range(size):
        v = (v << np.uint64(8)) | cols[:, i]
    return v


def decode_dump(data: bytes) -> Dump:
    if len(data) < CONST["DUMP_HEADER_BYTES"] or data[:1] not in (b"e", b"E"):
        raise ValueError("not an RTIO analyzer dump: it starts with the endianness byte 'e' or 'E' and a 15-byte header")
    fmt = _HEADER if data[:1] == b"e" else struct.Struct(">IQBBB")
    sent, total, overflow, log_channel, _ = fmt.unpack_from(data, 1)
    body = data[CONST["DUMP_HEADER_BYTES"]:]
    if len(body) != sent or sent % MESSAGE_BYTES:
        raise ValueError(f"analyzer dump: header says {sent} bytes of messages, {len(body)} follow "
                         f"(must match and be a multiple of {MESSAGE_BYTES})")
    raw = np.frombuffer(body, np.uint8).reshape(-1, MESSAGE_BYTES)
    tc = _be(raw, "TYPE_CHANNEL")
    msgs = np.zeros(len(raw), dtype=[("type", np.uint8), ("channel", np.uint32), ("timestamp", np.int64),
                                     ("rtio_counter", np.int64), ("address", np.uint32), ("data", np.uint64),
                                     ("exception", np.uint8)])
    msgs["type"] = tc & np.uint64(3)
    msgs["channel"] = tc >> np.uint64(2)
    msgs["timestamp"] = _be(raw, "TIMESTAMP").view(np.int64)
    msgs["rtio_counter"] = _be(raw, "RTIO_COUNTER").view(np.int64)
    msgs["address"] = _be(raw, "ADDRESS")
    msgs["data"] = _be(raw, "DATA")
    msgs["exception"] = _be(raw, "EXCEPTION_TYPE")
    return Dump(sent, total, bool(overflow), log_channel, msgs)


def summary(d: Dump) -> dict:
    m = d.messages
    return {"messages": len(m), "outputs": int((m["type"] == MSG_OUTPUT).sum()),
            "exceptions": int((m["type"] == MSG_EXCEPTION).sum()), "total_bytes": d.total_byte_count,
            "sent_bytes": d.sent_bytes, "overflow": d.overflow, "wrapped": d.wrapped, "wraps": d.wraps}


def to_vcd(d: Dump, path: str, ref_period_s: float = 1e-9, channel_names: dict[int, str] | None = None,
           wide_channels: set[int] | None = None) -> dict:
    """One signal per channel (TTL level, 'x' while OE is off; wide channels as 64-bit data), the slack trace,
    and flags for FIFO overflow and ring wrap.  Timescale = the reference period."""
    from vcd import VCDWriter

    m = d.messages
    times = np.where(np.isin(m["type"], (MSG_OUTPUT, MSG_INPUT)), m["timestamp"], m["rtio_counter"])
    order = np.argsort(times, kind="stable")
    nonzero = times[times != 0]
    origin = int(nonzero.min()) if len(nonzero) else 0
    names = channel_names or {}
    wide = wide_channels or set()
    ps = int(round(ref_period_s * 1e12))
    note = []
    if d.overflow:
        note.append("analyzer FIFO overflowed: messages were lost")
    if d.wrapped:
        note.append(f"ring buffer wrapped {d.wraps} times: the oldest messages are gone")
    with open(path, "w") as f:
        with VCDWriter(f, timescale=f"{ps} ps", date="sgdma virtual board", comment="; ".join(note) or "sgdma RTIO analyzer") as w:
            flags = {"overflow": w.register_var("analyzer", "overflow", "wire", size=1, init=int(d.overflow)),
                     "wrapped": w.register_var("analyzer", "ring_wrapped", "wire", size=1, init=int(d.wrapped))}
            slack = w.register_var("rtio", "rtio_slack", "real", init=0.0)
            sig, oe = {}, {}
            for ch in sorted(set(int(c) for c in m["channel"][m["type"] == MSG_OUTPUT])):
                name = names.get(ch, f"ch{ch}")
                sig[ch] = (w.register_var("rtio", name, "wire", size=64 if ch in wide else 1,
                                          init=None))
                oe[ch] = True
            end = 0
            for i in order:
                t = max(0, int(times[i]) - origin)
                typ = int(m["type"][i])
                end = max(end, t)
                if typ == MSG_OUTPUT:
                    ch = int(m["channel"][i])
                    addr, data = int(m["address"][i]), int(m["data"][i])
                    if ch in wide:
                        w.change(sig[ch], t, data)
                    elif addr == CONST["TTL_ADDR_OE"]:
                        oe[ch] = bool(data)
                        if not oe[ch]:
                            w.change(sig[ch], t, "x")
                    elif addr == CONST["TTL_ADDR_LEVEL"]:
                        w.change(sig[ch], t, (data & 1) if oe[ch] else "x")
                    w.change(slack, t, (int(m["timestamp"][i]) - int(m["rtio_counter"][i])) * ref_period_s)
            if end:
                w.change(flags["overflow"], end, int(d.overflow))
    return {"path": path, "origin_mu": origin, "end_mu": end, "signals": len(sig), "notes": note}
