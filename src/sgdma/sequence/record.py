"""The result record of `sgdma demo` / `sgdma run`: the JSON the --json flag writes and the only input
of its report (kind "sequence").  Per-gate quantities are columns (lists), not per-item objects."""
from __future__ import annotations

import numpy as np

KIND = "sequence"
VERSION = 1
UNDERFLOW_LIST_MAX = 1000        # the record keeps the first ones; the worst are kept separately
PROVENANCE_KEYS = ("dma.clock_mhz", "dma.data_width", "dma.sg_prefetch", "dma.outstanding", "ic.request_ns",
                   "ic.response_ns", "dram.trefi_ns", "dram.trfc_ns", "cpu.mmio_read_ns", "cpu.mmio_write_ns",
                   "cpu.rpu.mmio_read_ns", "cpu.rpu.mmio_write_ns", "cpu.apu.bd_instructions")


def _col(a, nd: int = 1) -> list:
    """A float column for JSON: rounded to nd decimals, None where not finite."""
    a = np.round(np.asarray(a, dtype=float).ravel(), nd)
    ok = np.isfinite(a)
    if ok.all():
        return a.tolist()
    out = a.astype(object)
    out[~ok] = None
    return out.tolist()


def build(result, board_preset: str, title: str, headroom: dict | None, extra: dict | None = None,
          columns: bool = True) -> dict:
    """The record of a playback.  ``columns=False`` leaves out the per-gate columns (None): a printed summary
    does not read them, the JSON file and the report do."""
    from sgdma.hw import presets

    u = result.underflows
    unders = [{"gate": x.gate, "gate_name": x.gate_name, "time_ns": x.time_ns, "late_ns": x.late_ns}
              for x in u[:UNDERFLOW_LIST_MAX]]
    worst_idx = np.argsort(-np.asarray(u.late_ns, float), kind="stable")[:20] if len(u) else []
    worst = [{"gate": x.gate, "gate_name": x.gate_name, "time_ns": x.time_ns, "late_ns": x.late_ns}
             for x in (u[int(i)] for i in worst_idx)]
    prov = {k: {"value": v, "unit": unit, "source": src}
            for k, v, unit, src in presets.entries(presets.load(board_preset)) if k in PROVENANCE_KEYS}
    rec = {
        "kind": KIND, "version": VERSION, "title": title,
        "board": result.board, "preset": str(board_preset),
        "gates": result.gates, "bds": result.bds, "bytes": result.bytes,
        "latency_ns": result.latency_ns, "throughput_mbps": result.throughput_mbps,
        "underflows": len(result.underflows), "deadline_misses": result.deadline_misses,
        "mailbox": result.mailbox, "mailbox_latency_ns": result.mailbox_latency_ns,
        "apu_build_ns": result.apu_build_ns, "dac_word_ns": result.dac_word_ns, "csm": result.csm,
        "fifo_depth": result.fifo_depth, "word_bytes": result.word_bytes,
        "stream_clock_mhz": result.stream_clock_mhz, "tail_write_ns": result.tail_write_ns,
        "headroom": headroom,
        "underflow_list": unders[:UNDERFLOW_LIST_MAX], "underflow_worst": worst,
        "provenance": prov,
        "columns": _columns(result) if columns else None,
    }
    rec.update(extra or {})
    return rec


def _columns(result) -> dict:
    """The per-gate and per-BD columns (JSON lists)."""
    table = list(result.gate_name_table or [])
    codes = np.asarray(result.gate_name_code if result.gate_name_code is not None else [], np.int64)
    uniq = sorted({table[c] for c in set(codes.tolist())})      # the names played, sorted
    remap = np.array([uniq.index(n) if n in uniq else -1 for n in table], np.int64)
    return {
        "gate_name_table": uniq,
        "gate_name": (remap[codes] if len(codes) else codes).tolist(),
        "gate_beats": np.asarray(result.gate_beats).astype(np.int64).tolist(),
        "first_ns": _col(result.gate_first_ns), "last_ns": _col(result.gate_last_ns),
        "deadline_ns": _col(result.gate_deadline_ns), "play_ns": _col(result.gate_play_ns),
        "fetch_ns": _col(result.gate_fetch_ns),
        "bd_fetch_issue_ns": _col(np.asarray(result.bd_fetch_ns)[:, 0] if len(result.bd_fetch_ns) else []),
        "bd_fetch_done_ns": _col(np.asarray(result.bd_fetch_ns)[:, 1] if len(result.bd_fetch_ns) else []),
        "refresh_start_ns": _col(np.asarray(result.refresh_ns)[:, 0] if len(result.refresh_ns) else []),
        "refresh_end_ns": _col(np.asarray(result.refresh_ns)[:, 1] if len(result.refresh_ns) else []),
    }
