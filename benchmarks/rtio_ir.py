#!/usr/bin/env python3
"""One RTIO event-DMA playback in this process, for counting its instructions under callgrind.

    valgrind --tool=callgrind --toggle-collect=vb_rtio_k_playback --toggle-collect=vb_rtio_drain \
        --callgrind-out-file=OUT python3 benchmarks/rtio_ir.py --events 100000

A pulse train at the event DMA's own rate on zc706 with the analyzer on (benchmarks/run.py rtio_playback_1e6_events
plays the same at 10^6 events); only the playback and the drain are counted.  Prints JSON: events, virtual ns.
"""
from __future__ import annotations

import argparse
import json

import numpy as np

import sgdma
from sgdma.rtio import Core, CoreDMA
from sgdma.rtio.analyzer import Analyzer
from sgdma.rtio.bench import dma_limit_ns, pulse_train


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--no-analyzer", action="store_true")
    a = ap.parse_args()
    board = sgdma.VirtualBoard("zc706")
    core = Core(board, "csr")
    interval = int(np.ceil(dma_limit_ns(board) / (core.ref_period * 1e9)))
    dma = CoreDMA(core, region_bytes=max(1 << 20, a.events * 17 + (1 << 12)))
    if not a.no_analyzer:
        Analyzer(core)
    board.rtio.set_logging(False)
    dma.store("train", pulse_train(a.events, interval), a.events * interval)
    core.break_realtime(20_000)
    t0 = board.now_ns
    dma.playback("train")
    board.rtio.drain(int(1e12))
    print(json.dumps({"events": a.events, "interval_mu": interval, "virtual_ns": board.now_ns - t0}))


if __name__ == "__main__":
    main()
