"""Continuous S2MM capture on a real board (``sgdma capture --board linux:``): a ring of buffers kept armed,
each completed buffer handed back and re-armed, for a wall-clock time or a number of buffers.

A real board cannot say what its PL dropped; what the driver can see is whether the ring ever ran dry (every
buffer complete, none armed: the S2MM stream was stalled and whatever feeds it had to hold or drop).  That is
the verdict: sustained when the ring never ran dry."""
from __future__ import annotations

import time

import numpy as np

from sgdma.driver.axidma import AxiDma

POLL_S = 50e-6     # assumed: the poll period while no buffer is complete (a short sleep, not a spin)


def capture(board, buffer_bytes: int, buffers: int, seconds: float, max_buffers: int | None = None,
            on_buffer=None, on_armed=None) -> dict:
    """Capture into ``buffers`` buffers of ``buffer_bytes`` until ``seconds`` of wall time have passed or
    ``max_buffers`` buffers were delivered.  ``on_buffer(view)`` sees each delivered buffer's bytes before it is
    re-armed; ``on_armed()`` runs once the ring is armed (to start what feeds the stream: the DMA is reset
    first, which drops a stream in flight).  The board's DMA must have the SG engine."""
    if not board.axi_dma.include_sg:
        raise ValueError("capture on a real board keeps a ring of buffers armed: the AXI DMA needs its SG engine "
                         "(c_include_sg = 1 in the design)")
    if buffers < 2:
        raise ValueError(f"buffers={buffers}: continuous capture needs at least 2 (one filling, one handed back)")
    if not 0 < seconds < float("inf"):
        raise ValueError(f"seconds={seconds}: give a positive, finite capture time")
    width = board.axi_dma.data_bytes
    if buffer_bytes % width or buffer_bytes > board.axi_dma.max_length:
        raise ValueError(f"buffer size {buffer_bytes} B: must be a multiple of the {width}-byte stream width and "
                         f"at most {board.axi_dma.max_length} B (the DMA's length register)")
    dma = AxiDma(board)
    dma.reset()
    mem = board.allocate((buffers, buffer_bytes), np.uint8, align=max(64, width))
    ring = dma.s2mm.ring(buffers)
    ring.fill(mem.physical_address + np.arange(buffers, dtype=np.uint64) * buffer_bytes,
              np.full(buffers, buffer_bytes, np.uint32))
    ring.submit()
    if on_armed is not None:
        on_armed()
    delivered = nbytes = dry = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    try:
        while time.perf_counter() < deadline and (max_buffers is None or delivered < max_buffers):
            done = ring.reclaim()
            if not len(done):
                dma.s2mm.check()          # DMASR: an error ends the capture with the register snapshot
                time.sleep(POLL_S)
                continue
            if len(done) >= buffers:
                dry += 1
            if on_buffer is not None:
                rows = np.asarray(mem)
                for i, n in zip(done.indices, done.bytes):
                    on_buffer(rows[int(i), :int(n)])
            delivered += len(done)
            nbytes += done.total_bytes
            ring.rearm(len(done))
            ring.submit()
        wall = time.perf_counter() - t0
    finally:
        dma.reset()       # stop the engine; the buffers go back when the ring and this array are gone
    return {"board": board.name, "buffer_bytes": buffer_bytes, "buffers": buffers, "seconds": wall,
            "buffers_delivered": delivered, "bytes": nbytes,
            "throughput_mbps": nbytes / wall / 1e6 if wall > 0 else 0.0, "ring_ran_dry": dry,
            "sustained": dry == 0 and delivered > 0}
