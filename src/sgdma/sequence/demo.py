"""The main job: a trapped-ion circuit compiled from a gate library into BD rings in
the board's memory map, handed from the APU to the RPU, streamed through the
virtual AXI DMA into the PL's DAC path at the gate rate, and reported."""
from __future__ import annotations

import time
from pathlib import Path

from sgdma.sequence import record
from sgdma.sequence.headroom import analyse
from sgdma.sequence.runner import play_circuit
from sgdma.sequence.playback import PlaybackConfig
from sgdma.sequence import Circuit, example_circuit_path, randomized_benchmarking

DEMO_RB_LENGTH = 200


def fidelity_fields(fidelity: str, bds: int) -> dict:
    """What a playback record says of its fidelity: a playback is one run paced by the DAC, where the fast
    estimator is not validated, so `fast` plays exact and says so."""
    from sgdma.board.fidelity import FUNCTIONAL_NOTE

    note = {"fast": "ran exact: the fast estimator is not validated for DAC pacing",
            "functional": FUNCTIONAL_NOTE}.get(fidelity, "")
    return {"fidelity": fidelity, "extrapolated": 0, "exact_bds": bds, "error_estimate": 0.0, "fidelity_note": note}


def demo_circuit() -> Circuit:
    """The bundled example (Bell pair, rotations, a short RB block, detection, played
    twice) followed by a longer randomized-benchmarking sequence on qubit 0."""
    example = Circuit.from_file(example_circuit_path())
    out = Circuit(name="bell_rb_demo", repeat=1, library=example.library)
    for _ in range(example.repeat):
        out.extend_circuit(example)
    return out.extend_circuit(randomized_benchmarking(DEMO_RB_LENGTH, seed=1, qubit=0))


def run_circuit(circuit, board: str = "zcu111", cfg: PlaybackConfig | None = None,
                out_dir: str | Path | None = "sgdma-out", seed: int = 0, title: str | None = None,
                headroom: bool = True, max_runs: int = 16, progress=None, columns: bool = True) -> dict:
    """Compile and play a circuit (a Circuit or a .toml/.json file), find its headroom (at most max_runs
    more plays) if asked, write the report and the timelines to out_dir (none if out_dir is None); return
    the record (without its per-gate columns if ``columns`` is False and nothing is written)."""
    t0 = time.perf_counter()
    if isinstance(circuit, (str, Path)):
        circuit = Circuit.from_file(Path(circuit))       # parsed once, checked before the board is built
    cfg = cfg or PlaybackConfig(seed=seed)
    result, seq, vb = play_circuit(circuit, board, cfg, seed, progress=progress)
    stats = seq.stats()
    extra = {
        "segments_unique": stats["segments_unique"],
        "segments_referenced": stats["segments_referenced"],
        "memory_bytes": stats["memory_bytes"],
        "dedup_ratio": stats.get("dedup_ratio"),
        "gate_time_ns": cfg.gate_time_ns,
        "fifo_depth": cfg.fifo_depth,
        "passes": cfg.passes,
        "seed": seed,
        "virtual_time_ns": vb.now_ns,
        **fidelity_fields(cfg.fidelity, result.bds),
    }
    head = analyse(circuit, board, cfg, result, seed, max_runs=max_runs) if headroom else None
    rec = record.build(result, board, title or f"sgdma: circuit on {board}", head, extra,
                       columns=columns or out_dir is not None)        # the report reads them
    outputs = {}
    if out_dir is not None:
        from sgdma.output import report        # the figures need matplotlib: only when they are written

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        outputs = report.write(rec, out)
        outputs["timeline_vcd"] = str(result.timeline.write_vcd(out / "timeline.vcd"))
        outputs["timeline_json"] = str(result.timeline.write_perfetto(out / "timeline.json"))
    rec["outputs"] = outputs
    rec["wall_s"] = time.perf_counter() - t0
    return rec
