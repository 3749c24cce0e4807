"""The coherency checker: which DMA buffer, which offset and which cache call was missing.

A model of the CPU data cache's view of registered DMA buffers lives in C
(csrc/vboard/coherency.c; the state machine is documented in coherency.h).
The DMA engine tells it what it reads (MM2S) and writes (S2MM); the board's
cache operations (``PhysicalArray.flush()`` / ``invalidate()``, the driver
core's cache ops) tell it about maintenance; software tells it about the CPU's
own loads and stores with :meth:`Coherency.cpu_read` / :meth:`Coherency.cpu_write`
(numpy touches board memory directly, the model cannot see it).

Policies: ``"sync"`` buffers are cached and need explicit maintenance (flush
before the DMA reads, invalidate before the CPU reads DMA data); ``"uncached"``
and ``"coherent"`` (ACP/HPC) buffers need none and never flag.

Violation kinds and the mistake each names:

``UNCLEANED_READ``   the DMA read lines the CPU wrote and never cleaned: missing ``flush()`` before MM2S.
``DIRTY_OVERWRITE``  S2MM wrote under a dirty CPU line that may later be evicted over the data:
                     missing ``flush()``/``invalidate()`` before arming the buffer.
``STALE_READ``       the CPU read DMA-written data through its cached copy: missing ``invalidate()``
                     after S2MM and before the CPU reads.
``DISCARDED_WRITE``  ``invalidate()`` threw away CPU writes never cleaned: missing ``flush()``.

Usage::

    board = sgdma.VirtualBoard("zynq7000")
    buf = board.allocate(4096)
    board.coherency.register(buf, name="tx")
    buf[:] = 1; board.coherency.cpu_write(buf)
    ...                                  # MM2S without buf.flush()
    board.coherency.check()              # raises CoherencyError naming tx, offset 0, flush()
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from sgdma import _core

POLICIES = {name: _core.constants[f"VB_COH_{name.upper()}"] for name in ("sync", "uncached", "coherent")}
# A write-combine (Normal non-cacheable) buffer is uncached for staleness: no line of it is ever in a
# cache, so no maintenance is missing; its posted stores are drained by the barrier the CPU model
# charges at the end of every uncached store sequence (cpuops.c).
POLICIES["writecombine"] = POLICIES["uncached"]
KINDS = ("UNCLEANED_READ", "DIRTY_OVERWRITE", "STALE_READ", "DISCARDED_WRITE")


@dataclass(frozen=True)
class Violation:
    """One coherency mistake: where, how much, what was missing, when (virtual time)."""

    kind: str            # one of KINDS
    buffer: str          # the name given at registration (default "buffer <id> @0x<addr>")
    offset: int          # bytes from the buffer start to the first offending cache line
    nbytes: int          # bytes of the access(es) that fell in offending lines
    missing_call: str    # the call that was missing, in words
    time_ns: float       # virtual time of the (first) offending access
    buffer_id: int = 0
    address: int = 0     # device address of the first offending byte reported
    what: str = ""       # what happened

    def __str__(self) -> str:
        return (f"{self.kind} in {self.buffer} at offset {self.offset} ({self.nbytes} bytes, "
                f"0x{self.address:x}) at {self.time_ns:.1f} ns: {self.what}; {self.missing_call}")


class CoherencyError(AssertionError):
    """Raised by :meth:`Coherency.check` when the checker recorded violations."""

    def __init__(self, violations: list[Violation], count: int):
        self.violations = violations
        self.count = count
        lines = [f"{count} cache-coherency violation(s):"] + [f"  {v}" for v in violations[:20]]
        if count > len(violations[:20]):
            lines.append(f"  ... and {count - len(violations[:20])} more")
        super().__init__("\n".join(lines))


def _range_of(target, nbytes: int | None) -> tuple[int, int]:
    """(device address, bytes) of a board array (any view) or of an address + nbytes."""
    if isinstance(target, tuple):
        if nbytes is not None:
            raise TypeError("give either an (address, nbytes) tuple or address and nbytes")
        addr, n = target
        return int(addr), int(n)
    if isinstance(target, np.ndarray):
        if not target.flags.c_contiguous:
            raise ValueError("the coherency checker needs a contiguous view of board memory")
        addr = getattr(target, "physical_address", None)
        if addr is None:
            raise ValueError("array is not in board memory (use board.allocate)")
        return int(addr), int(target.nbytes if nbytes is None else nbytes)
    if nbytes is None:
        raise TypeError("an address needs nbytes")
    return int(target), int(nbytes)


class Coherency:
    """``board.coherency``: register DMA buffers, tell the checker about CPU accesses, read violations.

    On by default (free while no ``"sync"`` buffer is registered); ``enabled = False``
    switches every hook off.  Switching it on again forgets all line states.
    """

    def __init__(self, core_board):
        self._b = core_board           # the C board only: no reference cycle to VirtualBoard
        self._buffers: dict[int, tuple[str, int, int, str]] = {}   # id -> (name, addr, nbytes, policy)

    # -- buffers -----------------------------------------------------------------
    def register(self, array_or_addr, nbytes: int | None = None, policy: str = "sync",
                 name: str | None = None) -> int:
        """Track a DMA buffer (a board array or an address + nbytes); returns its id.

        ``policy``: ``"sync"`` (cached, explicit maintenance: checked), ``"uncached"``,
        ``"writecombine"`` or ``"coherent"`` (ACP/HPC: never flagged).  Buffers may not overlap."""
        if policy not in POLICIES:
            raise ValueError(f"policy {policy!r}: one of {', '.join(POLICIES)}")
        addr, n = _range_of(array_or_addr, nbytes)
        bid = self._b.coh_register(addr, n, POLICIES[policy], name)
        self._buffers[bid] = (name or f"buffer {bid} @0x{addr:x}", addr, n, policy)
        if isinstance(array_or_addr, np.ndarray):
            # The registration ends with the allocation: its memory may be reused.
            root = array_or_addr
            while isinstance(root, np.ndarray) and root.base is not None:
                root = root.base
            try:
                weakref.finalize(root, self._forget, bid)
            except TypeError:
                pass
        return bid

    def unregister(self, buffer_id: int) -> None:
        """Stop tracking a buffer (arrays are unregistered when their memory is freed)."""
        self._b.coh_unregister(int(buffer_id))
        self._buffers.pop(int(buffer_id), None)

    def _forget(self, buffer_id: int) -> None:
        if self._buffers.pop(buffer_id, None) is not None:
            try:
                self._b.coh_unregister(buffer_id)
            except KeyError:
                pass

    @property
    def buffers(self) -> dict[int, dict]:
        """Registered buffers by id: name, address, nbytes, policy."""
        return {i: {"name": n, "address": a, "nbytes": s, "policy": p}
                for i, (n, a, s, p) in self._buffers.items()}

    # -- the CPU's own accesses ------------------------------------------------------
    def cpu_read(self, array_or_addr, nbytes: int | None = None) -> None:
        """The CPU loads a range (a board array or view, (addr, nbytes), or addr and nbytes)."""
        addr, n = _range_of(array_or_addr, nbytes)
        self._b.coh_cpu_access(addr, n, False)

    def cpu_write(self, array_or_addr, nbytes: int | None = None) -> None:
        """The CPU stores to a range."""
        addr, n = _range_of(array_or_addr, nbytes)
        self._b.coh_cpu_access(addr, n, True)

    # -- settings ------------------------------------------------------------------------
    @property
    def enabled(self) -> bool:
        return self._b.coh_state()["enabled"]

    @enabled.setter
    def enabled(self, on: bool) -> None:
        self._b.coh_enable(bool(on))

    @property
    def speculative(self) -> bool:
        """The CPU may prefetch any cacheable line (Cortex-A9/A53 do): every line the DMA
        writes is stale until invalidated, so invalidating only before arming is caught too."""
        return self._b.coh_state()["speculative"]

    @speculative.setter
    def speculative(self, on: bool) -> None:
        self._b.coh_speculative(bool(on))

    # -- results -------------------------------------------------------------------------
    @property
    def count(self) -> int:
        """All violations seen (the list keeps the first 10 000)."""
        return self._b.coh_state()["count"]

    @property
    def dma_checks(self) -> int:
        """DMA accesses that touched a registered sync buffer (work the checker did)."""
        return self._b.coh_state()["dma_checks"]

    def violations(self) -> list[Violation]:
        return [Violation(kind=k, buffer=name, offset=off, nbytes=n, missing_call=miss, time_ns=t / 1000.0,
                          buffer_id=bid, address=base + off, what=what)
                for k, bid, name, base, off, n, t, miss, what in self._b.coh_violations()]

    def clear(self) -> None:
        """Forget the violations recorded so far (line states stay)."""
        self._b.coh_clear()

    def check(self) -> None:
        """Raise :class:`CoherencyError` listing the violations, if any."""
        if self.count:
            raise CoherencyError(self.violations(), self.count)

    def __repr__(self) -> str:
        s = self._b.coh_state()
        return (f"Coherency(enabled={s['enabled']}, buffers={s['buffers']}, violations={s['count']})")


__all__ = ["Coherency", "CoherencyError", "Violation", "POLICIES", "KINDS"]
