#!/usr/bin/env python3
"""One MM2S ring run on a zcu111 board, for callgrind: benchmarks/run.py runs this under
`valgrind --tool=callgrind --toggle-collect=vb_run_until_quiet`, so the instructions counted are the run's own
(every BD's fetch, checks, data, STATUS and the events), not the set-up.

    python3 benchmarks/functional_ir.py --fidelity functional --bytes 32 --bds 32768
"""
from __future__ import annotations

import argparse

import numpy as np

import sgdma


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fidelity", default="functional", choices=["exact", "functional"])
    ap.add_argument("--bytes", type=int, default=32)
    ap.add_argument("--bds", type=int, default=1 << 15)
    a = ap.parse_args()
    board = sgdma.VirtualBoard("zcu111", sink_record=True, fidelity=a.fidelity)
    dma = sgdma.AxiDma(board)
    dma.reset()
    ring = dma.mm2s.ring(a.bds)
    buf = board.allocate(a.bds * a.bytes, np.uint8)
    buf[:] = 7
    ring.fill(buf.physical_address + np.arange(a.bds, dtype=np.uint64) * a.bytes, np.full(a.bds, a.bytes, np.uint32))
    ring.submit()
    board.run_until_quiet()
    assert len(board.mm2s_sink.packets()) == a.bds


if __name__ == "__main__":
    main()
