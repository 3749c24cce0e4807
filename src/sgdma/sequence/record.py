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
    a = np.asarray(a, dtype=float)
    return [None if not np.isfinite(v) else round(float(v), nd) for v in a.ravel()]


def build(result, board_preset: str, title: str, headroom: dict | None, extra: dict | None = None) -> dict:
    from sgdma.hw import presets

    names = list(result.gate_names or [])
    uniq = sorted(set(names))
    index = {n: i for i, n in enumerate(uniq)}
    unders = [{"gate": u.gate, "gate_name": u.gate_name, "time_ns": u.time_ns, "late_ns": u.late_ns}
              for u in result.underflows]
    worst = sorted(unders, key=lambda u: -u["late_ns"])[:20]
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
        "columns": {
            "gate_name_table": uniq,
            "gate_name": [index[n] for n in names],
            "gate_beats": [int(b) for b in np.asarray(result.gate_beats)],
            "first_ns": _col(result.gate_first_ns), "last_ns": _col(result.gate_last_ns),
            "deadline_ns": _col(result.gate_deadline_ns), "play_ns": _col(result.gate_play_ns),
            "fetch_ns": _col(result.gate_fetch_ns),
            "bd_fetch_issue_ns": _col(np.asarray(result.bd_fetch_ns)[:, 0] if len(result.bd_fetch_ns) else []),
            "bd_fetch_done_ns": _col(np.asarray(result.bd_fetch_ns)[:, 1] if len(result.bd_fetch_ns) else []),
            "refresh_start_ns": _col(np.asarray(result.refresh_ns)[:, 0] if len(result.refresh_ns) else []),
            "refresh_end_ns": _col(np.asarray(result.refresh_ns)[:, 1] if len(result.refresh_ns) else []),
        },
    }
    rec.update(extra or {})
    return rec
