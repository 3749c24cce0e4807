"""CoreDMA: record event traces, store them in board DDR in ARTIQ's encoding, play them back through the event DMA.

Shaped like ARTIQ's ``artiq.coredevice.dma``: ``with core_dma.record(name): ...`` (the cursor starts at 0 inside and
is restored after), ``erase``, ``playback``, ``get_handle`` -> (epoch, duration, ptr, uses_ddma), ``playback_handle``.
Every record and erase bumps ``epoch``, so an older handle raises.  Traces live in a DMA region of board DDR, each at
a 128-byte aligned start (the Zynq runtime's alignment).
"""
from __future__ import annotations

import numpy as np

from sgdma.rtio import trace as T
from sgdma.rtio.errors import DMAError, RTIODestinationUnreachable, RTIOUnderflow
from sgdma.rtio.layout import CONST, TRACE_ALIGN

DEFAULT_REGION_BYTES = 16 << 20


class _Recorder:
    def __init__(self):
        self.now = 0
        self.ts: list[int] = []
        self.target: list[int] = []
        self.nwords: list[int] = []
        self.data: list[int] = []

    def append(self, target: int, words: list[int]) -> None:
        self.ts.append(self.now)
        self.target.append(target)
        self.nwords.append(len(words))
        self.data.extend(words)

    def events(self) -> T.Events:
        return T.Events(np.array(self.ts, np.int64), np.array(self.target, np.uint32),
                        np.array(self.nwords, np.uint8), np.array(self.data, np.uint32))


class _Recording:
    def __init__(self, dma: "CoreDMA", name: str):
        self.dma, self.name = dma, name

    def __enter__(self):
        core = self.dma.core
        if core._recorder is not None:
            raise DMAError(f"DMA is already recording (record({self.name!r}) inside another record block): "
                           f"close the outer block first")
        self.dma.epoch += 1
        self.saved = core.now_mu()
        core._recorder = _Recorder()
        return self

    def __exit__(self, exc_type, exc, tb):
        core = self.dma.core
        rec, core._recorder = core._recorder, None
        core.at_mu(self.saved)
        if exc_type is None:
            self.dma._store(self.name, rec.events(), rec.now)
        return False


class CoreDMA:
    def __init__(self, core, region_bytes: int = DEFAULT_REGION_BYTES):
        self.core = core
        self.epoch = 0
        self._region = core.board.allocate(region_bytes, align=TRACE_ALIGN)
        self.region_base = self._region.physical_address
        self.region_bytes = region_bytes
        self._traces: dict[str, tuple[int, int, int]] = {}   # name -> (ptr, length, duration)
        self.last_playback: dict | None = None

    # -- recording -------------------------------------------------------------------
    def record(self, name: str) -> _Recording:
        return _Recording(self, name)

    def store(self, name: str, events: T.Events, duration: int) -> None:
        """Store already-built events as a trace (what a recording ends with); bumps the epoch."""
        self.epoch += 1
        self._store(name, events, duration)

    def _store(self, name: str, events: T.Events, duration: int) -> None:
        data = T.aligned(T.encode(events), TRACE_ALIGN)
        self._traces.pop(name, None)          # a trace with the same name is replaced
        ptr = self._place(len(data))
        if ptr is None:
            raise DMAError(f"trace {name!r} is {len(data)} bytes ({len(events)} events) and does not fit the DMA "
                           f"region of {self.region_bytes} bytes ({self._free_bytes()} free): erase traces or "
                           f"give CoreDMA a larger region_bytes")
        self.core.board.view(ptr, len(data))[:] = np.frombuffer(data, np.uint8)
        self._traces[name] = (ptr, len(data), int(duration))

    def _free_bytes(self) -> int:
        return self.region_bytes - sum(n for _, n, _ in self._traces.values())

    def _place(self, n: int) -> int | None:
        """First fit among the gaps between stored traces."""
        spans = sorted((p, p + ln) for p, ln, _ in self._traces.values())
        cur = self.region_base
        for start, end in spans:
            if start - cur >= n:
                return cur
            cur = max(cur, end)
        return cur if self.region_base + self.region_bytes - cur >= n else None

    def erase(self, name: str) -> None:
        if name not in self._traces:
            raise DMAError(f"no DMA trace named {name!r} to erase (stored: {', '.join(self._traces) or 'none'})")
        del self._traces[name]
        self.epoch += 1

    def trace_bytes(self, name: str) -> bytes:
        ptr, n, _ = self._lookup(name)
        return bytes(self.core.board.view(ptr, n))

    # -- playback ----------------------------------------------------------------------
    def _lookup(self, name: str):
        if name not in self._traces:
            raise DMAError(f"no DMA trace named {name!r} (erased or never recorded; stored: "
                           f"{', '.join(self._traces) or 'none'})")
        return self._traces[name]

    def get_handle(self, name: str) -> tuple[int, int, int, bool]:
        ptr, _, duration = self._lookup(name)
        return (self.epoch, duration, ptr, False)

    def playback(self, name: str, limit_s: float = 10.0) -> None:
        ptr, _, duration = self._lookup(name)
        self._play(ptr, limit_s)
        self.core.delay_mu(duration)

    def playback_handle(self, handle, limit_s: float = 10.0) -> None:
        epoch, duration, ptr, _ = handle
        if epoch != self.epoch:
            raise DMAError(f"Invalid handle: taken at epoch {epoch}, now {self.epoch} (a record or erase since "
                           f"then may have moved the trace); call get_handle again")
        self._play(ptr, limit_s)
        self.core.delay_mu(duration)

    def _play(self, ptr: int, limit_s: float) -> None:
        if self.core._recorder is not None:
            raise DMAError("playback inside a record block is not supported: record the events directly")
        res = self.core.port.playback(ptr, int(limit_s * 1e12))
        self.last_playback = res
        if res["timeout"]:
            raise DMAError(f"DMA playback of 0x{ptr:x} still running after {limit_s} s of board time")
        if res["bus_error"]:
            raise DMAError(f"DMA playback of 0x{ptr:x}: the trace runs off readable memory or has a malformed "
                           f"record (see the log)")
        if res["error"] & CONST["DMA_ERROR_UNDERFLOW"]:
            raise RTIOUnderflow(res["channel"], res["timestamp"], dropped=res["dropped"] + 1, during="DMA playback")
        if res["error"] & CONST["DMA_ERROR_LINK"]:
            raise RTIODestinationUnreachable(f"DMA playback: channel {res['channel']} unreachable at "
                                             f"{res['timestamp']} mu")
