"""Compile a circuit on a fresh virtual board and play it once (the unit the demo and the headroom search repeat)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sgdma.board.virtual import VirtualBoard
from sgdma.driver.axidma import AxiDma
from sgdma.sequence import Circuit, Sequencer
from sgdma.sequence.playback import PlaybackConfig, PlaybackResult, play


def library_of(circuit):
    if isinstance(circuit, (str, Path)):
        return Circuit.from_file(Path(circuit)).library or "trapped_ion"
    return getattr(circuit, "library", None) or "trapped_ion"


def play_circuit(circuit, board: str, cfg: PlaybackConfig, seed: int = 0, options: dict | None = None,
                 progress=None, **overrides) -> tuple[PlaybackResult, Sequencer, VirtualBoard]:
    """One run: a board built from the preset (with `options` overriding preset keys), the circuit compiled
    into it, played with `cfg` (fields in `overrides` replaced).  The board keeps times, not payload bytes,
    so its stream sink does not grow with the run.  `progress(done, total)` is called between slices."""
    from sgdma.board.fidelity import board_options

    cfg = replace(cfg, **overrides) if overrides else cfg
    options = {**board_options(cfg.fidelity), **(options or {})}     # the fidelity's memory path, then the caller's
    vb = VirtualBoard(board, seed=seed, timing_only=True, options=options)
    dma = AxiDma(vb)
    dma.reset()
    seq = Sequencer(vb, dma, library=library_of(circuit))
    handle = seq.compile(circuit, cyclic=cfg.passes > 1)     # several passes: a closed ring in cyclic mode
    return play(vb, dma, handle, cfg, progress), seq, vb
