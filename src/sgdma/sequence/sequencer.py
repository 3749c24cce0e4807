"""The Sequencer ties the sequence layer to one board and DMA channel: memory map,
segment store, gate library, compiled rings, recalibration (policy: recalibration.py).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from sgdma.hw import pg021 as P
from sgdma.board.virtual import VirtualBoard
from sgdma.driver.axidma import AxiDma
from sgdma.sequence.circuit import Circuit
from sgdma.sequence.compiler import lay_out, recipes_to_sids, resolve
from sgdma.sequence import recalibration
from sgdma.sequence.errors import CircuitError, LibraryError, RegionExhaustedError, RingBusyError, UnknownSegmentError
from sgdma.sequence.gates import GateLibrary, Recipe
from sgdma.sequence.memory import BD_BYTES, MemoryMap
from sgdma.sequence.rings import RingHandle, RingSlot
from sgdma.sequence.segments import Segment, SegmentStore


class Sequencer:
    """Gate sequences as BD rings on one DMA channel (MM2S by default).

    ``library``: a GateLibrary, a file path, a dict, a bundled name (default
    ``"trapped_ion"``) or None for an empty library.  ``layout`` overrides the
    preset's [layout] (``sgdma.layout.Layout``).
    """

    def __init__(self, board: VirtualBoard, dma: AxiDma | None = None, library="trapped_ion",
                 channel: str = "mm2s", layout=None):
        self.board = board
        self.dma = dma if dma is not None else AxiDma(board)
        self.channel = getattr(self.dma, channel)
        self.memory = MemoryMap(board, layout)
        self.word_bytes = self.channel.data_bytes
        self.segments = SegmentStore(self.memory.segments, self.word_bytes, self.channel.max_length)
        self.library = GateLibrary() if library is None else GateLibrary.load(library)
        self._regs = self.dma.base + P.channel_offset(self.channel.direction)
        self._addr64 = board.axi_dma.addr_width > 32
        self._slots: dict[int, RingSlot] = {}
        self._next_id = self._epoch = 0
        self._variants: dict[tuple, np.ndarray] = {}
        self._rendered: dict[str, Recipe] = {}      # segment name -> the waveform recipe it was rendered from

    # -- segments -------------------------------------------------------------------------
    def add_segment(self, name: str, data) -> Segment:
        """Store named words (deduplicated by content)."""
        return self.segments.add(name, data)

    def remove_segment(self, name: str) -> None:
        sid = self.segments.sid(name)
        users = self._users({sid})
        if users:
            raise RingBusyError(f"segment {name!r} is played by ring(s) " + ", ".join(f"#{s.id}" for s in users),
                                "free those rings first")
        self.segments.remove(name)
        self._variants.clear()
        self._rendered.pop(name, None)

    def prune(self) -> dict:
        """Forget rendered variants (scaled/phased waveforms) no resident ring plays;
        their bytes go unless another name shares them.  Returns what was freed."""
        in_use = set().union(*(s.sids for s in self._slots.values())) if self._slots else set()
        before = self.segments.counters()["bytes_stored"]
        gone = [n for n in self._rendered if self.segments.sid(n) not in in_use]
        for name in gone:                                  # per segment
            self.segments.remove(name)
            del self._rendered[name]
        if gone:
            self._variants.clear()
        return {"segments": len(gone), "bytes": before - self.segments.counters()["bytes_stored"]}

    def _materialize(self, recipe: Recipe, gate: str) -> int:
        """Segment id of a recipe, rendering and storing it on first use."""
        name, scale, phase = recipe
        plain = scale == 1.0 and phase == 0.0
        seg_name = name if plain else f"{name}@scale={scale!r},phase={phase!r}"
        if seg_name in self.segments:
            return self.segments.sid(seg_name)
        lib = self.library
        if plain and name in lib.raw:
            return self.segments.add(name, lib.raw[name]).sid
        if name not in lib.waveforms:
            if name in lib.raw:
                raise CircuitError(f"{gate} scales or phases segment {name!r}, which is raw data, "
                                   f"not a waveform", f"define {name!r} under [waveforms] to render it")
            raise UnknownSegmentError(name, self.segments.names + list(lib.waveforms) + list(lib.raw),
                                      f" (used by {gate})")
        try:
            words = lib.waveforms[name].render(self.word_bytes, scale, phase)
        except ValueError as e:
            raise CircuitError(f"{gate}: {e}", "use a smaller angle or lower the template amplitude") from None
        sid = self.segments.add(seg_name, words).sid
        self._rendered[seg_name] = recipe
        return sid

    def _variant_sids(self, gate: str, values: dict) -> np.ndarray:
        key = (gate, tuple(sorted(values.items())), self.library.version)
        sids = self._variants.get(key)
        if sids is None:
            recipes = self.library.gate(gate).resolve(values)
            call = f"{gate}({', '.join(f'{k}={v:.6g}' for k, v in values.items())})"
            sids = recipes_to_sids(recipes, lambda r: self._materialize(r, call), self.memory.max_bds, call)
            self._variants[key] = sids
        return sids

    # -- compiling --------------------------------------------------------------------------
    def compile(self, circuit, cyclic: bool = False, name: str | None = None) -> RingHandle:
        """A resident ring playing ``circuit`` (a Circuit, dict or file): one BD chain,
        one stream packet per gate application, filled with one Ring.fill call."""
        return self._install(*self._lay_out(circuit), cyclic, name)

    def _lay_out(self, circuit):
        circuit = circuit if isinstance(circuit, Circuit) else (
            Circuit.from_dict(circuit) if isinstance(circuit, dict) else Circuit.from_file(Path(circuit)))
        program = resolve(circuit.columns(), circuit.repeat, self.library, self._variant_sids, self.memory.max_bds,
                          self._too_many_bds)
        layout = lay_out(program, self.segments.table())
        if layout.n_bds > self.memory.max_bds:
            self._too_many_bds(layout.n_bds, "the circuit")
        return circuit, program, layout

    def _too_many_bds(self, n_bds: int, what: str) -> None:
        u = self.memory.rings.usage()
        raise RegionExhaustedError(u.name, n_bds * BD_BYTES, u.free, u.largest_hole,
                                   f"{what} needs {n_bds} BDs, the region holds {self.memory.max_bds} "
                                   f"in all: compile one pass and replay it (repeat=1, play() again or "
                                   f"cyclic=True), or enlarge [layout] bd_region_bytes")

    def _install(self, circuit, program, layout, cyclic: bool, name: str | None) -> RingHandle:
        self._next_id += 1
        self._epoch += 1
        slot = RingSlot(self, self._next_id, self._epoch, name or circuit.name, program, layout, cyclic)
        self._slots[slot.id] = slot
        return RingHandle(slot)

    def free(self, handle: RingHandle) -> None:
        """Release a ring's BD memory; the handle (and copies of it) become stale."""
        slot = handle._live()
        if slot.running():
            raise RingBusyError(f"ring #{slot.id} ({slot.name!r}) is playing; freeing it would let the DMA "
                                f"read reused memory", "stop it first (handle.wait(), or dma.reset() if cyclic)")
        slot.drop("freed by Sequencer.free()")

    def rebuild(self, handle: RingHandle, circuit, cyclic: bool | None = None) -> RingHandle:
        """Replace a ring with a new circuit; the old handle becomes stale.  The new
        circuit is checked before the old ring goes, so a bad circuit leaves it playable."""
        old = handle._live()
        laid_out = self._lay_out(circuit)
        self.free(handle)
        new = self._install(*laid_out, old.cyclic if cyclic is None else cyclic, None)
        old.ended = f"rebuilt as ring #{new.id} epoch {new.epoch}"
        return new

    @property
    def rings(self) -> list[RingHandle]:
        """Handles of every resident ring."""
        return [RingHandle(s) for s in self._slots.values()]

    # -- the channel --------------------------------------------------------------------------
    def channel_state(self) -> tuple[bool, bool, int]:
        """(halted, idle, CURDESC) of the channel, read like a driver would (timed MMIO)."""
        sr = self.board.read32(self._regs + P.DMASR)
        halted, idle = bool(sr & P.SR_HALTED), bool(sr & P.SR_IDLE)
        if halted or idle:
            return halted, idle, 0
        cur = self.board.read32(self._regs + P.CURDESC)
        if self._addr64:
            cur |= self.board.read32(self._regs + P.CURDESC_MSB) << 32
        return halted, idle, cur

    def slot_at(self, bd_address: int) -> RingSlot | None:
        return next((s for s in self._slots.values() if s.contains(bd_address)), None)

    def _users(self, sids: set[int]) -> list[RingSlot]:
        return [s for s in self._slots.values() if s.sids & sids]

    # -- recalibration ---------------------------------------------------------------------------
    def recalibrate(self, segment: str, words) -> dict:
        """New data for a segment; every ring that plays it plays the new data on its next
        pass.  Refused (RecalibrationRaceError) while such a ring is running."""
        return self._recalibrate({segment: self.segments.as_words(words, segment)})

    def recalibrate_waveform(self, waveform: str, **changes) -> dict:
        """New template parameters (e.g. ``amplitude=0.93``): re-render the waveform and
        every scaled/phased variant of it in use, then recalibrate them together."""
        if waveform not in self.library.waveforms:
            raise UnknownSegmentError(waveform, list(self.library.waveforms), " (not a waveform of the library)")
        try:
            template = self.library.waveforms[waveform].replace(**changes)
        except (TypeError, ValueError) as e:
            raise LibraryError(str(e)) from None
        new = recalibration.rerender(self.segments, self._rendered, template, self.word_bytes)
        report = self._recalibrate(new)
        self.library.waveforms[waveform] = template      # same names, same variants: no cache flush
        return report

    def _recalibrate(self, new: dict[str, np.ndarray]) -> dict:
        users = self._users({self.segments.sid(name) for name in new})
        recalibration.refuse_if_playing(users, list(new))
        return recalibration.apply(self.segments, users, new)

    # -- figures ------------------------------------------------------------------------------------
    def stats(self) -> dict:
        """Memory per region, dedup counters, resident rings.

        ``segments_unique``: buffers stored; ``segments_named``: names pointing at them;
        ``segments_referenced``: segment uses by resident rings (what a copy-per-use
        upload would store); ``bytes_referenced`` / ``bytes_stored_referenced``: bytes
        one pass of every resident ring streams / bytes stored for them
        (``dedup_ratio`` is their quotient)."""
        mem = self.memory.usage()
        seg = self.segments.counters()
        slots = list(self._slots.values())
        used = np.concatenate([s.program.use_sid for s in slots]) if slots else np.zeros(0, np.int64)
        referenced = sum(int(s.layout.gate_bytes.sum()) for s in slots)
        stored_ref = self.segments.blob_bytes(used) if len(used) else 0
        return {
            "memory": mem,
            "memory_bytes": mem["rings"]["used"] + mem["segments"]["used"] + mem["rpmsg"]["used"],
            "segments_unique": seg["unique"], "segments_named": seg["referenced"],
            "segments_referenced": int(len(used)),
            "bytes_stored": seg["bytes_stored"], "bytes_named": seg["bytes_named"],
            "bytes_saved_by_names": seg["bytes_saved"],
            "bytes_referenced": referenced, "bytes_stored_referenced": stored_ref,
            "dedup_saved_bytes": referenced - stored_ref,
            "dedup_ratio": referenced / stored_ref if stored_ref else math.nan,
            "rings": len(slots), "bds": sum(s.layout.n_bds for s in slots),
            "gates": sum(s.program.n_gates for s in slots),
        }
