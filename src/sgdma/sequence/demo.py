"""The main job: a trapped-ion circuit compiled from a gate library into BD rings in
the board's memory map, handed from the APU to the RPU, streamed through the
virtual AXI DMA into the PL's DAC path at the gate rate, and reported."""
from __future__ import annotations

import time
from pathlib import Path

from sgdma.output import report
from sgdma.board.virtual import VirtualBoard
from sgdma.driver.axidma import AxiDma
from sgdma.sequence.playback import PlaybackConfig, play
from sgdma.sequence import Circuit, Sequencer, example_circuit_path, randomized_benchmarking

DEMO_RB_LENGTH = 200


def demo_circuit() -> Circuit:
    """The bundled example (Bell pair, rotations, a short RB block, detection, played
    twice) followed by a longer randomized-benchmarking sequence on qubit 0."""
    example = Circuit.from_file(example_circuit_path())
    out = Circuit(name="bell_rb_demo", repeat=1, library=example.library)
    for _ in range(example.repeat):
        out.extend_circuit(example)
    return out.extend_circuit(randomized_benchmarking(DEMO_RB_LENGTH, seed=1, qubit=0))


def run_circuit(circuit, board: str = "zcu111", cfg: PlaybackConfig | None = None, out_dir: str | Path = "sgdma-out",
                seed: int = 0, title: str | None = None, progress=None) -> dict:
    """Compile and play a circuit (a Circuit or a .toml/.json file); write the report; return the summary."""
    t0 = time.perf_counter()
    if isinstance(circuit, (str, Path)):
        circuit = Circuit.from_file(Path(circuit))       # parsed once, checked before the board is built
    cfg = cfg or PlaybackConfig(seed=seed)
    vb = VirtualBoard(board, seed=seed, timing_only=True)    # the report needs times, not payload bytes
    dma = AxiDma(vb)
    dma.reset()
    seq = Sequencer(vb, dma, library=_library_of(circuit))
    handle = seq.compile(circuit, cyclic=cfg.passes > 1)     # several passes: a closed ring in cyclic mode
    result = play(vb, dma, handle, cfg, progress)
    stats = seq.stats()
    extra = {
        "segments_unique": stats["segments_unique"],
        "segments_referenced": stats["segments_referenced"],
        "memory_bytes": stats["memory_bytes"],
        "dedup_ratio": stats.get("dedup_ratio"),
        "gate_time_ns": cfg.gate_time_ns,
        "fifo_depth": cfg.fifo_depth,
        "passes": cfg.passes,
        "virtual_time_ns": vb.now_ns,
    }
    data = report.write(result, out_dir, title or f"sgdma: {getattr(handle, 'name', 'circuit')} on {board}", extra)
    data["wall_s"] = time.perf_counter() - t0
    return data


def _library_of(circuit):
    if isinstance(circuit, (str, Path)):
        return Circuit.from_file(Path(circuit)).library or "trapped_ion"
    return getattr(circuit, "library", None) or "trapped_ion"
