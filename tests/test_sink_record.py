"""The MM2S sink in functional mode (stream.sink_record): the bytes and the packet table of a run against
expectations built here from the buffers and the ring, and the byte log's memory across clears."""
from __future__ import annotations

import numpy as np

import sgdma
from sgdma.driver.axidma import AxiDma
from sgdma.hw import pg021 as P

BEAT = 32              # zcu111: 256-bit stream (preset dma.data_width)
CLOCK_NS = 1e3 / 333.0  # zcu111: 333 MHz PL clock (preset dma.clock_mhz): at most one beat per clock


def _run_packets(board, dma, packets_bds, rng):
    """Submit packets, each a list of BD lengths, on one ring; returns the bytes each packet must carry."""
    lengths = np.array([n for bds in packets_bds for n in bds], np.uint32)
    room = -(-lengths.astype(np.int64) // BEAT) * BEAT          # buffers aligned to the data width (PG021)
    offsets = np.concatenate([[0], np.cumsum(room)[:-1]])
    buf = board.allocate(int(room.sum()), np.uint8)
    data = rng.integers(0, 256, int(room.sum()), dtype=np.uint8)
    buf[:] = data
    flags = []
    for bds in packets_bds:
        f = [0] * len(bds)
        f[0] |= P.SG_BD_SOF
        f[-1] |= P.SG_BD_EOF
        flags += f
    dma.reset()                                                  # a new ring on a halted channel
    ring = dma.mm2s.ring(len(lengths))
    ring.fill(buf.physical_address + offsets.astype(np.uint64), lengths, np.array(flags, np.uint32))
    ring.submit()
    board.run_until_quiet()
    expected, i = [], 0
    for bds in packets_bds:
        expected.append(b"".join(data[offsets[j]:offsets[j] + lengths[j]].tobytes() for j in range(i, i + len(bds))))
        i += len(bds)
    return expected


def _packets_bds(rng, n):
    """n packets of 1..4 BDs: every BD but a packet's last a whole number of beats (PG021), the last any size."""
    return [[int(rng.integers(1, 40)) * BEAT for _ in range(int(rng.integers(0, 4)))] + [int(rng.integers(1, 3000))]
            for _ in range(n)]


def test_functional_run_delivers_every_packet_byte_exact_with_a_consistent_packet_table():
    rng = np.random.default_rng(2024)
    board = sgdma.VirtualBoard("zcu111", sink_record=True)
    dma = AxiDma(board)
    bds = _packets_bds(rng, 200)
    expected = _run_packets(board, dma, bds, rng)

    assert board.mm2s_sink.packets() == expected
    cols = board.mm2s_sink.columns()
    assert cols["length"].tolist() == [len(e) for e in expected]
    assert not cols["cut"].any()
    beats = np.array([-(-len(e) // BEAT) for e in expected])
    span = cols["last_ns"] - cols["first_ns"]
    # a packet's beats leave one per clock at most, and packets leave one after the other on one stream
    assert np.all(span >= (beats - 1) * CLOCK_NS - 1e-3)
    assert np.all(cols["first_ns"][1:] > cols["last_ns"][:-1])
    assert board.stats("mm2s")["bytes_moved"] == sum(len(e) for e in expected)
    assert board.mm2s_sink.overflow == {"packets": 0, "bytes": 0}


def test_sink_cleared_between_runs_keeps_only_new_packets_across_log_growth_and_release():
    """Runs of several MiB: the log grows over several read-write steps, a clear gives the pages past its
    head back, and the next run's bytes land where the first run's were, exactly."""
    rng = np.random.default_rng(7)
    board = sgdma.VirtualBoard("zcu111", sink_record=True)
    dma = AxiDma(board)
    for run in range(3):
        bds = [[64 * 1024 - BEAT * run, 1000 + run] for _ in range(40 + 20 * run)]   # 2.6 .. 5.2 MiB
        expected = _run_packets(board, dma, bds, rng)
        got = board.mm2s_sink.packets()
        assert len(got) == len(expected) and got == expected
        board.mm2s_sink.clear()
        assert board.mm2s_sink.packets() == []
    # a clear with nothing recorded since changes nothing
    board.mm2s_sink.clear()
    expected = _run_packets(board, dma, [[BEAT * 3, 5]], rng)
    assert board.mm2s_sink.packets() == expected


def test_keyhole_mm2s_sends_the_first_beat_over_and_over():
    """DMACR.Keyhole (PG021: FIXED bursts): every beat re-reads the buffer's first data-width bytes, so the
    packet is those bytes repeated to the transfer's length."""
    board = sgdma.VirtualBoard("pg021", include_sg=0, sink_record=True)
    width = board.axi_dma.data_bytes
    buf = board.allocate(4096, np.uint8)
    buf[:] = np.arange(4096) % 251
    base = board.axi_dma.base + P.MM2S_BASE
    board.write32(base + P.DMACR, P.CR_RS | P.CR_KEYHOLE)
    board.write32(base + P.ADDR, buf.physical_address & 0xFFFFFFFF)
    board.write32(base + P.LENGTH, 1000)
    board.run_until_quiet()
    (got,) = board.mm2s_sink.packets()
    assert len(got) == 1000
    beat = bytes(buf[:width])
    assert got == (beat * (1000 // width + 1))[:1000]
