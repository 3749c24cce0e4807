"""Resident rings and their handles.

A ``RingSlot`` is one compiled circuit living in the BD-ring region: its program
(segment ids), its BD layout, and the driver Ring that holds the BDs.  A
``RingHandle`` is what users keep: it carries the slot's epoch at the time it was
made.  Freeing or rebuilding a slot ends that epoch, and every use of an old
handle then raises StaleRingError instead of playing whatever the memory now holds.

A slot may swap its driver Ring without ending the epoch (a recalibration that
changes a segment's BD count, or a replay after a reset left the old Ring's
bookkeeping behind): the handle stays valid and ``handle.ring`` is the new one, so
ask the handle rather than keeping ``handle.ring`` across those calls.
"""
from __future__ import annotations


import numpy as np

from sgdma.hw import pg021 as P
from sgdma.sequence.compiler import BdLayout, Program, lay_out
from sgdma.sequence.errors import RingBusyError, StaleRingError
from sgdma.sequence.memory import BD_BYTES


class RingSlot:
    """One resident ring (internal: users hold RingHandles)."""

    def __init__(self, owner, slot_id: int, epoch: int, name: str, program: Program,
                 layout: BdLayout, cyclic: bool):
        self.owner, self.id, self.epoch, self.name = owner, slot_id, epoch, name
        self.program, self.layout, self.cyclic = program, layout, cyclic
        # every variant is played (variants are the distinct rows of the circuit): its ids are the ring's
        self.sids = frozenset(np.concatenate(program.variant_sids).tolist())
        self.live, self.ended = True, ""
        self.ring = None
        self.install(layout)

    # -- memory ------------------------------------------------------------------------
    def install(self, layout: BdLayout, drop_first: bool = False) -> None:
        """Place ``layout`` in a fresh driver Ring (one bulk fill); the old Ring goes.

        By default the new Ring is made before the old one goes, so a failure (region
        full) leaves the slot as it was.  ``drop_first`` frees the old Ring first, for a
        same-size replay that must work even when the region has no second copy's room."""
        seq = self.owner
        region = seq.memory.rings
        if drop_first:
            self.ring = None                          # its memory returns now unless someone holds a view
        addr = None
        try:
            addr = region.reserve(layout.n_bds * BD_BYTES)
            ring = seq.channel.ring(layout.n_bds, physical_address=addr)
        except BaseException as e:
            if addr is not None:
                region.unreserve(addr)
            if self.ring is None:
                self.drop(f"left without BD memory ({e})")
            raise
        region.release_when_dead(ring.memory, addr)
        ring.fill(layout.addresses, layout.lengths, layout.flags)
        self.ring, self.layout = ring, layout

    def drop(self, reason: str) -> None:
        """End the slot's epoch; its memory returns when the driver Ring dies."""
        self.live, self.ended, self.ring = False, reason, None
        self.owner._slots.pop(self.id, None)

    @property
    def address(self) -> int:
        return self.ring.address

    def contains(self, bd_address: int) -> bool:
        return self.ring is not None and self.address <= bd_address < self.address + self.layout.n_bds * BD_BYTES

    # -- playback state --------------------------------------------------------------------
    def running(self) -> bool:
        """The DMA is fetching or about to fetch this ring (DMASR neither Halted nor Idle
        and CURDESC inside it)."""
        halted, idle, cur = self.owner.channel_state()
        return not halted and not idle and self.contains(cur)

    def make_startable(self) -> None:
        """Halt an idle channel so this ring can start from its first BD; refuse if busy."""
        seq = self.owner
        halted, idle, cur = seq.channel_state()
        if halted:
            return
        if not idle:
            playing = seq.slot_at(cur)
            what = f"ring #{playing.id} ({playing.name!r})" if playing else f"BDs at 0x{cur:x}"
            stop = ("it plays cyclically: stop it with dma.reset()" if playing is not None and playing.cyclic
                    else "wait for it with handle.wait() or board.run_until_quiet()")
            raise RingBusyError(f"cannot start ring #{self.id} ({self.name!r}): the {seq.channel.direction} channel "
                                f"is playing {what}", stop)
        seq.channel.halt()

    def arm(self) -> None:
        """Every BD filled and ready for a new pass."""
        if self._rearm(self.ring):
            return
        # A cyclic run stopped by reset, or a pass cut short: start from fresh bookkeeping
        # (no local reference to the old Ring here, so its memory can be reused at once).
        self.install(self.layout, drop_first=True)

    @staticmethod
    def _rearm(ring) -> bool:
        state = ring.state
        if state["n_filled"] == ring.count:
            return True
        if state["cyclic"]:
            return False
        if state["n_hw"]:
            ring.reclaim()
        if ring.state["n_free"] != ring.count:
            return False
        ring.rearm(ring.count)             # same buffers and lengths, STATUS cleared
        return True

    # -- recalibration ---------------------------------------------------------------------
    def relink(self) -> int:
        """Point the BDs at the store's current buffers; returns BDs rewritten.
        Same BD count: only the changed BDs are patched in place; otherwise the
        ring is laid out again in a new driver Ring."""
        new = lay_out(self.program, self.owner.segments.table())
        old = self.layout
        if new.n_bds != old.n_bds:
            self.install(new)
            return new.n_bds
        changed = np.flatnonzero((new.addresses != old.addresses) | (new.lengths != old.lengths))
        if len(changed):
            bds = self.ring.bds
            bds["buffer"][changed] = (new.addresses[changed] & np.uint64(0xFFFFFFFF)).astype(np.uint32)
            bds["buffer_msb"][changed] = (new.addresses[changed] >> np.uint64(32)).astype(np.uint32)
            control = bds["control"][changed]
            bds["control"][changed] = (control & np.uint32(~P.BD_LEN_MASK & 0xFFFFFFFF)) | new.lengths[changed]
            lo, hi = int(changed[0]) * BD_BYTES, (int(changed[-1]) + 1) * BD_BYTES
            self.ring.memory.reshape(-1)[lo:hi].flush()     # the engine fetches BDs from DDR
        self.layout = new
        return len(changed)


class RingHandle:
    """A compiled circuit in the BD-ring region, valid for one epoch of its slot."""

    def __init__(self, slot: RingSlot):
        self._slot = slot
        self.id = slot.id
        self.epoch = slot.epoch

    def _live(self) -> RingSlot:
        s = self._slot
        if not s.live or s.epoch != self.epoch:
            raise StaleRingError(f"ring handle #{self.id} epoch {self.epoch} ({s.name!r}) is stale: the ring was "
                                 f"{s.ended or 'rebuilt'}; its memory may hold other BDs now",
                                 "use the handle returned by Sequencer.compile() or rebuild()")
        return s

    @property
    def stale(self) -> bool:
        return not self._slot.live or self._slot.epoch != self.epoch

    # -- what it plays ---------------------------------------------------------------------
    @property
    def ring(self):
        """The driver Ring (sgdma.driver.Ring) holding the BDs."""
        return self._live().ring

    @property
    def name(self) -> str:
        return self._live().name

    @property
    def cyclic(self) -> bool:
        return self._live().cyclic

    @property
    def address(self) -> int:
        """Device address of the first BD (CURDESC for a start)."""
        return self._live().address

    @property
    def tail_address(self) -> int:
        """Device address of the last BD (TAILDESC of a one-shot pass)."""
        s = self._live()
        return s.address + (s.layout.n_bds - 1) * BD_BYTES

    @property
    def n_bds(self) -> int:
        return self._live().layout.n_bds

    @property
    def n_gates(self) -> int:
        return self._live().program.n_gates

    @property
    def gate_names(self) -> np.ndarray:
        """Gate name per application (object array)."""
        p = self._live().program
        return np.array(p.gate_names, dtype=object)[p.app_gate]

    @property
    def gate_vocabulary(self) -> list[str]:
        """The distinct gate names; ``gate_codes`` indexes it."""
        return list(self._live().program.gate_names)

    @property
    def gate_codes(self) -> np.ndarray:
        """Gate name per application as an index into ``gate_vocabulary`` (int32)."""
        return self._live().program.app_gate

    @property
    def gate_qubits(self) -> np.ndarray:
        """(n_gates, 2) int16, -1 = none."""
        return self._live().program.app_qubits

    @property
    def gate_bd_end(self) -> np.ndarray:
        """Index of each gate's last BD (its EOF BD)."""
        return self._live().layout.gate_bd_end

    @property
    def gate_bytes(self) -> np.ndarray:
        return self._live().layout.gate_bytes

    @property
    def bytes_total(self) -> int:
        """Bytes one pass streams."""
        return int(self._live().layout.gate_bytes.sum())

    @property
    def segment_ids(self) -> np.ndarray:
        """Segment id of every BD."""
        return self._live().layout.bd_sid

    def expected_packets(self) -> list[bytes]:
        """The stream packets one pass must produce (one per gate), from the stored
        segments (for checks and tests: a Python loop per variant and per gate)."""
        s = self._live()
        store = s.owner.segments
        per_variant = [b"".join(store.data(store.name_of(int(i))).tobytes() for i in sids)
                       for sids in s.program.variant_sids]
        return [per_variant[v] for v in s.program.app_variant.tolist()]

    # -- playback ---------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._live().running()

    def arm(self) -> None:
        """Make every BD ready for a new pass without touching a register (reclaim +
        rearm, or fresh bookkeeping after a reset) — for callers that start the ring
        themselves with ``handle.ring.prepare()`` / CURDESC + TAILDESC on a halted channel."""
        self._live().arm()

    def play(self) -> None:
        """Start one pass (or cyclic playback if compiled with cyclic=True)."""
        if self.cyclic:
            self.start_cyclic()
            return
        s = self._live()
        s.make_startable()
        s.arm()
        s.ring.submit()

    def prepare(self) -> int:
        """Everything of play() but the trigger; returns the TAILDESC value to write
        later with ``channel.write_tail`` (e.g. by the RPU after a PL handshake)."""
        s = self._live()
        s.make_startable()
        s.arm()
        return s.ring.prepare_cyclic() if s.cyclic else s.ring.prepare()

    def start_cyclic(self) -> None:
        """Play the ring over and over until dma.reset() (PG021 cyclic mode)."""
        s = self._live()
        s.make_startable()
        s.arm()
        s.ring.start_cyclic()

    def wait(self, timeout_ns: float = 10e6) -> None:
        """Wait (virtual time) until a one-shot pass is done."""
        s = self._live()
        if s.cyclic or s.ring.state["cyclic"]:
            raise RingBusyError(f"ring #{self.id} plays cyclically and never goes idle",
                                "advance time with board.advance(ns); stop it with dma.reset()")
        s.ring.wait(timeout_ns)

    def __repr__(self) -> str:
        s = self._slot
        state = "stale" if self.stale else f"{s.layout.n_bds} BDs at 0x{s.address:x}"
        return f"RingHandle(#{self.id} epoch {self.epoch} {s.name!r}: {s.program.n_gates} gates, {state})"
