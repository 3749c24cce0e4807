"""Recalibration in place: new data for segments that resident rings play.

Recalibration policy — refuse while playing.  ``recalibrate`` raises
RecalibrationRaceError, naming the ring, if any ring that plays the segment is
running (DMASR neither Halted nor Idle, CURDESC inside the ring: that includes a
ring prepared and waiting for its tail write).  Why not double-buffer and swap BD
pointers under a running engine: the engine prefetches BDs (``dma.sg_prefetch``)
and its data mover reads ahead, so the CPU cannot know which BDs of the current
pass are already fetched; a swap lands in the middle of a pass, and a segment used
by several gates (or cut into several BDs) would play partly old, partly new
within one shot — a silent mixed calibration.  Between passes (one-shot ring
done, or a cyclic ring stopped with dma.reset()) the update is exact: same length
and unshared bytes rewrite the buffer in place (no BD touched); otherwise the
segment gets a new buffer and the affected BDs are patched (address, length) in
every resident ring, or the ring is laid out again if its BD count changes.
Either way the buffer and BD lines are flushed, and the next pass plays the new data.
"""
from __future__ import annotations

import numpy as np

from sgdma.sequence.errors import CircuitError, RecalibrationRaceError
from sgdma.sequence.segments import SegmentStore
from sgdma.sequence.waveforms import Waveform


def refuse_if_playing(users: list, names: list[str]) -> None:
    """RecalibrationRaceError naming every running ring among ``users``."""
    busy = [s for s in users if s.running()]
    if busy:
        raise RecalibrationRaceError(
            f"cannot recalibrate {', '.join(repr(n) for n in names)}: ring(s) "
            + ", ".join(f"#{s.id} ({s.name!r}, {'cyclic' if s.cyclic else 'one-shot'})" for s in busy)
            + " read it and are playing now; a change mid-pass would mix old and new data in one shot",
            "stop playback first (handle.wait() for a one-shot pass, dma.reset() for a cyclic ring), "
            "recalibrate, then play again: the next pass plays the new data")


def apply(store: SegmentStore, users: list, new: dict[str, np.ndarray]) -> dict:
    """Store the new words, then relink the rings that play a segment that moved.
    All or nothing: on a failure (e.g. no room for a re-laid-out ring) every name
    and BD is put back before the error propagates."""
    old = {name: store.data(name).copy() for name in new}
    how, moved = {}, False
    try:
        for name, words in new.items():
            how[name] = store.replace(name, words)
            moved |= how[name] == "moved"
        rewritten = sum(s.relink() for s in users) if moved else 0
    except BaseException:
        for name, words in old.items():
            store.replace(name, words)
        for s in users:
            s.relink()
        raise
    return {"segments": how, "rings": [s.id for s in users], "bds_rewritten": rewritten}


def rerender(store: SegmentStore, rendered: dict, template: Waveform, word_bytes: int) -> dict[str, np.ndarray]:
    """New words for every stored variant rendered from ``template``'s waveform."""
    new = {}
    for seg, (name, scale, phase) in rendered.items():          # per rendered variant
        if name == template.name:
            try:
                new[seg] = store.as_words(template.render(word_bytes, scale, phase), seg)
            except ValueError as e:
                raise CircuitError(f"recalibrating {template.name!r}: {e}", "lower the amplitude") from None
    return new
