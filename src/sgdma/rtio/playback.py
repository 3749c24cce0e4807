"""Long event-DMA playbacks at a declared fidelity (issue 27 sec. 4), with the record characterize's runs carry.

exact       the reference: every record read over the timed memory path, every event through the SED lanes.
functional  the same board with the ideal memory path (sgdma.board.fidelity): the DMA's reads and the analyzer's
            writes cost no memory time.  Output edges (time, channel, address, data), their order, collisions and
            sequence errors depend only on the trace's timestamps and order, so they equal exact's whenever exact
            does not underflow.  Underflows caused by memory time are not seen (the DMA's own 4 cycles a record
            still bind), and the engine's start/end times are not the board's.  The analyzer is refused: each
            message carries the RTIO counter at its CRI write, which follows the memory timing dropped here.
fast        refused: its estimator (an exact window extrapolated over whole refresh periods) is validated for
            DMA BD completions only; a trace underflows on any one event's slack, which no steady-state rate bounds.
"""
from __future__ import annotations

import time

import numpy as np

from sgdma.board.fidelity import FIDELITIES, FUNCTIONAL_NOTE, FidelityError, board_options
from sgdma.rtio import trace as T
from sgdma.rtio.layout import HEADER_BYTES

FUNCTIONAL_RULE = ("edges equal exact's whenever exact does not underflow; underflows from memory time are not seen, "
                   "engine start/end times are not the board's")


def check_fidelity(fidelity: str, analyzer: bool) -> None:
    """Refuse what a fidelity cannot answer, before anything runs."""
    if fidelity not in FIDELITIES:
        raise FidelityError(f"--fidelity {fidelity!r}: choose {', '.join(FIDELITIES)}")
    if fidelity == "fast":
        raise FidelityError("--fidelity fast: an RTIO playback has no validated fast estimator (fast extrapolates "
                            "an exact window of DMA BD completions; a trace underflows on any one event's slack, "
                            "which no steady-state rate bounds); use --fidelity functional (the same edges as "
                            "exact whenever exact does not underflow) or exact")
    if fidelity == "functional" and analyzer:
        raise FidelityError("--fidelity functional with --analyzer: each analyzer message carries the RTIO counter "
                            "at its CRI write, which follows the memory timing functional drops; drop --analyzer "
                            "or use --fidelity exact")


def fidelity_fields(fidelity: str, events: int) -> dict:
    """What the record says of its fidelity (the fields characterize's records carry; every event is simulated,
    none extrapolated)."""
    note = f"{FUNCTIONAL_NOTE}; {FUNCTIONAL_RULE}" if fidelity == "functional" else ""
    return {"fidelity": fidelity, "extrapolated": 0, "exact_events": events, "error_estimate": 0.0,
            "fidelity_note": note}


def play(board_name: str, events: T.Events, duration_mu: int, fidelity: str = "exact", analyzer: bool = False,
         slack_mu: int = 20_000, limit_s: float = 10.0) -> tuple[dict, dict]:
    """Store `events` in DDR, play them with CoreDMA `slack_mu` ahead of the counter, drain the core.

    Returns (record, edges): the record has the playback's outcome, virtual and CPU time and the fidelity fields;
    edges are the output columns (t_mu, channel, address, data)."""
    import sgdma
    from sgdma.rtio import Core, CoreDMA
    from sgdma.rtio.analyzer import Analyzer
    from sgdma.rtio.errors import RTIOError

    check_fidelity(fidelity, analyzer)
    board = sgdma.VirtualBoard(board_name, options=board_options(fidelity) or None)
    core = Core(board, "csr")
    n = len(events)
    trace_bytes = int(np.sum(HEADER_BYTES + 4 * np.asarray(events.nwords, np.int64))) + 1
    dma = CoreDMA(core, region_bytes=max(1 << 20, trace_bytes + (1 << 12)))
    an = Analyzer(core) if analyzer else None
    board.rtio.set_logging(True)
    dma.store("playback", events, duration_mu)
    core.break_realtime(slack_mu)
    t_sim0 = board.now_ns
    c0, w0 = time.process_time(), time.perf_counter()
    raised = ""
    try:
        dma.playback("playback", limit_s=limit_s)
    except RTIOError as e:                 # an underflow is an outcome of the trace, recorded below
        raised = str(e)
    # drain past the train's last timestamp (plus a second): a fixed wait missed the late events of a sparse train
    end_ns = t_sim0 + (slack_mu + duration_mu) * core.ref_period * 1e9
    if not board.rtio.drain(int(max(0.0, end_ns - board.now_ns) * 1e3) + int(1e12)) and not raised:
        raised = f"the RTIO core was still busy a second after the train's last timestamp ({end_ns * 1e-9:.4g} s)"
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    sim_s = (board.now_ns - t_sim0) * 1e-9
    res, c = dma.last_playback, core.port.counters()
    edges = board.rtio.edges()
    rec = {"kind": "rtio_playback", "board": board_name, "events": n, "analyzer": bool(analyzer),
           "records": res["records"], "dropped": res["dropped"], "dma_error": res["error"],
           "error_channel": res["channel"], "error_timestamp": res["timestamp"], "raised": raised,
           "edges": int(len(edges["t_mu"])), "underflows": c["underflows"], "collisions": c["collisions"],
           "sequence_errors": c["sequence_errors"], "dma_busy_ns": (res["t_end_ps"] - res["t_start_ps"]) / 1e3,
           "simulated_s": sim_s, "cpu_s": cpu, "wall_s": wall, "sim_over_cpu": sim_s / cpu if cpu > 0 else float("inf"),
           **fidelity_fields(fidelity, n)}
    if an is not None:
        st = an.state()
        rec.update(analyzer_messages=st["messages"], analyzer_lost=st["lost"], analyzer_overflow=bool(st["overflow"]))
    return rec, {k: np.asarray(v) for k, v in edges.items()}
