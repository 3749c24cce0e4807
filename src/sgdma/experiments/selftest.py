"""Loopback self-test: MM2S → S2MM through the virtual board with the driver.

Random packet sizes, random MM2S BD splits (every non-last BD a multiple of the
stream width), random S2MM buffer sizes, several rounds over the same rings so
they wrap; every byte and every length is checked.  A second phase runs simple
(direct-register) mode on a board built without the SG engine.

``run_on(board)`` does the same on a board that is given, a real one included (``--board linux:``): its AXI
DMA must have MM2S looped back to S2MM in the design; it runs the SG rounds when the DMA has the SG engine and
the simple-mode transfers when it has not, and measures nothing in virtual time.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from sgdma.hw import pg021 as P
from sgdma.board.virtual import VirtualBoard
from sgdma.driver.axidma import AxiDma


@dataclass
class SelftestResult:
    board: str
    seed: int
    packets: int = 0
    bytes: int = 0
    mm2s_bds: int = 0
    s2mm_bds: int = 0
    simple_transfers: int = 0
    mismatches: list[str] = field(default_factory=list)
    virtual_ns: float | None = 0.0
    first_word_latency_ns: float | None = 0.0     # None: not measured (a real board has no virtual time)
    stream_throughput_mbps: float | None = 0.0
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.mismatches and (self.packets > 0 or self.simple_transfers > 0)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["ok"] = self.ok
        return d


def _split(rng: np.random.Generator, size: int, width: int, max_bd: int) -> list[int]:
    """Random BD lengths for one packet: non-last pieces are whole beats."""
    pieces, left = [], size
    while left > 0:
        beats_left = max(1, min(left, max_bd) // width)
        piece = int(rng.integers(1, beats_left + 1)) * width
        if piece >= left or rng.random() < 0.3:
            piece = left if left <= max_bd else (max_bd // width) * width
        pieces.append(piece)
        left -= piece
    return pieces


def _sg_round(board, dma, tx, rx, rng, res: SelftestResult, n_packets: int, max_packet: int) -> None:
    width = board.axi_dma.data_bytes
    max_bd = min(board.axi_dma.max_length, 4 * max_packet)
    sizes = rng.integers(1, max_packet + 1, n_packets)
    stride = -(-sizes // width) * width
    # Every draw comes in the order it always has (same seed, same round); the board memory is taken only once
    # the buffers' sizes are known and checked to fit.
    payload = rng.integers(0, 256, int(stride.sum()), dtype=np.uint8)
    offsets = np.r_[0, np.cumsum(stride)[:-1]]

    # MM2S: each packet split at random beat boundaries (per packet, not per BD); offsets into the source.
    addr, lens, flags = [], [], []
    for off, size in zip(offsets, sizes):
        pieces = _split(rng, int(size), width, max_bd)
        f = np.zeros(len(pieces), np.uint8)
        f[0] |= P.SG_BD_SOF
        f[-1] |= P.SG_BD_EOF
        addr.append(int(off) + np.r_[0, np.cumsum(pieces)[:-1]]), lens.append(pieces), flags.append(f)
    addr, lens, flags = np.concatenate(addr), np.concatenate(lens), np.concatenate(flags)

    # S2MM: buffers of one random capacity (whole beats); a packet may span several.
    cap = int(rng.integers(1, max(2, max_packet // width) + 1)) * width
    need = int((-(-sizes // cap)).sum())
    align = max(width, 64)
    check_buffers(board, n_packets, max_packet, payload.nbytes, need * cap, align)
    src = board.allocate(payload.nbytes, np.uint8, align=align)
    src[:] = payload
    del payload
    addr = addr + src.physical_address
    dst = board.allocate(need * cap, np.uint8, align=align)
    dst[:] = 0
    rx_addr = dst.physical_address + np.arange(need, dtype=np.uint64) * cap
    if need > rx.free or len(addr) > tx.free:
        raise RuntimeError("selftest rings too small for this round")

    rx.fill(rx_addr, np.full(need, cap, np.uint32))
    rx.submit()
    tx.fill(addr, lens, flags)
    tx.submit()
    tx.wait(timeout_ns=1e9)
    rx.wait(timeout_ns=1e9)

    done_tx = tx.reclaim()
    done_rx = rx.reclaim()
    res.mm2s_bds += len(done_tx)
    res.s2mm_bds += len(done_rx)
    got_lengths = done_rx.packet_lengths()
    if len(done_tx) != len(addr):
        res.mismatches.append(f"mm2s reclaimed {len(done_tx)} BDs, submitted {len(addr)}")
    if len(got_lengths) != n_packets or not np.array_equal(got_lengths, sizes.astype(np.uint64)):
        res.mismatches.append(f"s2mm packet lengths differ: sent {sizes.tolist()[:8]}..., "
                              f"got {got_lengths.tolist()[:8]}...")
    else:
        # Compare payloads: packet k starts at the first BD after packet k-1 ended.
        bufs_per_packet = -(-sizes // cap)
        first_buf = np.r_[0, np.cumsum(bufs_per_packet)[:-1]]
        view = np.asarray(dst).reshape(need, cap)
        for k, (off, size) in enumerate(zip(offsets, sizes)):
            flat = view[first_buf[k]:first_buf[k] + bufs_per_packet[k]].reshape(-1)[:size]
            if not np.array_equal(flat, np.asarray(src)[off:off + size]):
                bad = int(np.flatnonzero(flat != np.asarray(src)[off:off + size])[0])
                res.mismatches.append(f"packet {k}: byte {bad} differs")
                break
    sink = getattr(board, "mm2s_sink", None)          # the virtual board's view of the stream
    if sink is not None:
        if [len(p) for p in sink.packets()] != sizes.tolist():
            res.mismatches.append("mm2s sink saw different packet boundaries")
        sink.clear()
    res.packets += n_packets
    res.bytes += int(sizes.sum())
    src.freebuffer()
    dst.freebuffer()


def _simple_phase(board, rng, res: SelftestResult, transfers: int) -> None:
    dma = AxiDma(board)
    dma.reset()
    width = board.axi_dma.data_bytes
    limit = min(board.axi_dma.max_length, 1 << 16)
    for _ in range(transfers):
        size = int(rng.integers(1, limit + 1))
        src = board.allocate(size, np.uint8, align=max(width, 64))
        src[:] = rng.integers(0, 256, size, dtype=np.uint8)
        dst = board.allocate(-(-size // width) * width, np.uint8, align=max(width, 64))
        dma.s2mm.transfer(dst)
        dma.mm2s.transfer(src)
        dma.mm2s.wait(timeout_ns=1e9)
        got = dma.s2mm.wait(timeout_ns=1e9)
        if got != size or not np.array_equal(np.asarray(dst)[:size], np.asarray(src)):
            res.mismatches.append(f"simple mode: sent {size} bytes, S2MM LENGTH {got} or data differ")
        res.simple_transfers += 1
        res.bytes += size
        src.freebuffer()
        dst.freebuffer()


#: Work bounds of one self-test, checked before it runs.  Assumed from runs on a 2-core VM: ~30 us of host time
#: per packet (a Python step per packet splits it into BDs) and ~0.2 GB/s of payload, so each is about a minute.
MAX_PACKETS = 2_000_000
MAX_PAYLOAD_BYTES = 32 << 30


def check_request(board, rounds: int, packets: int, max_packet: int) -> None:
    """Refuse (ValueError, in the command's option names) a self-test over the work bounds or one whose BD rings
    cannot fit the board's memory.  The buffers are checked per round from the sizes drawn (check_buffers): a
    worst case for them (every packet at --max-packet) refuses requests that run."""
    if rounds * packets > MAX_PACKETS:
        raise ValueError(f"--rounds {rounds} x --packets {packets} is {rounds * packets} packets, over the limit of "
                         f"{MAX_PACKETS} (about a minute); fewer --rounds or --packets")
    if rounds * packets * max_packet > MAX_PAYLOAD_BYTES:
        raise ValueError(f"--rounds {rounds} x --packets {packets} x --max-packet {max_packet} is up to "
                         f"{rounds * packets * max_packet / 1e9:.3g} GB of payload, over the limit of "
                         f"{MAX_PAYLOAD_BYTES / 1e9:.3g} GB (about a minute); fewer --rounds or --packets, or a "
                         f"smaller --max-packet")
    rings = 2 * worst_bds(board, packets, max_packet) * P.BD_SIZE
    free = board.bytes_free()
    if rings > free:
        raise ValueError(f"--packets {packets} x --max-packet {max_packet}: the two BD rings, sized for every packet "
                         f"split at every beat, take {rings} bytes, and board {board.name!r} has {free} free in its "
                         f"DDR region; fewer --packets or a smaller --max-packet")


def worst_bds(board, packets: int, max_packet: int) -> int:
    """BDs one ring needs for a round: every packet split at every beat (plus one for a partial beat)."""
    return packets * (-(-max_packet // board.axi_dma.data_bytes) + 1)


def check_buffers(board, packets: int, max_packet: int, src_bytes: int, dst_bytes: int, align: int) -> None:
    """Refuse (ValueError, in the command's option names) a round whose source and S2MM buffers, at the sizes
    drawn, do not fit what the rings left free; checked before the round takes memory or starts the DMA."""
    need = src_bytes + dst_bytes + 2 * align           # each allocation may skip up to one alignment
    free = board.bytes_free()
    if need > free:
        raise ValueError(f"--packets {packets} x --max-packet {max_packet}: a round's source ({src_bytes} bytes) "
                         f"and S2MM buffers ({dst_bytes} bytes) need {need} bytes with alignment, and board "
                         f"{board.name!r} has {free} free in its DDR region after the BD rings; fewer --packets "
                         f"or a smaller --max-packet")


def run(preset: str = "zcu111", seed: int = 0, rounds: int = 4, packets: int = 32, max_packet: int = 3000,
        simple_transfers: int = 8) -> SelftestResult:
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    board = VirtualBoard(preset, seed=seed, loopback=True)
    check_request(board, rounds, packets, max_packet)
    res = SelftestResult(board=board.name, seed=seed)
    dma = AxiDma(board)
    dma.reset()
    bds = worst_bds(board, packets, max_packet)
    tx, rx = dma.mm2s.ring(bds), dma.s2mm.ring(bds)
    for _ in range(rounds):
        _sg_round(board, dma, tx, rx, rng, res, packets, max_packet)
        if not tx.check() or not rx.check():
            res.mismatches.append("ring bookkeeping invariants broken")
    res.virtual_ns = board.now_ns
    _simple_phase(VirtualBoard(preset, seed=seed, include_sg=False, loopback=True), rng, res, simple_transfers)
    res.wall_s = time.perf_counter() - t0
    # One timed single-packet run for a readable latency/throughput figure.
    lat, thr = measure_stream(preset, seed)
    res.first_word_latency_ns, res.stream_throughput_mbps = lat, thr
    return res


def run_on(board, seed: int = 0, rounds: int = 4, packets: int = 32, max_packet: int = 3000,
           simple_transfers: int = 8) -> SelftestResult:
    """The self-test on a board that is given (a LinuxBoard): SG rounds if its DMA has the SG engine, else
    simple transfers.  Latency and throughput are not measured (no virtual time); wall time is."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    res = SelftestResult(board=board.name, seed=seed)
    if board.axi_dma.include_sg:
        dma = AxiDma(board)
        dma.reset()
        bds = worst_bds(board, packets, max_packet)
        tx, rx = dma.mm2s.ring(bds), dma.s2mm.ring(bds)
        for _ in range(rounds):
            _sg_round(board, dma, tx, rx, rng, res, packets, max_packet)
            if not tx.check() or not rx.check():
                res.mismatches.append("ring bookkeeping invariants broken")
    else:
        _simple_phase(board, rng, res, simple_transfers)
    res.first_word_latency_ns = res.stream_throughput_mbps = res.virtual_ns = None
    res.wall_s = time.perf_counter() - t0
    return res


def measure_stream(preset: str, seed: int, bds: int = 64, bytes_per_bd: int = 4096) -> tuple[float, float]:
    """Tail write → first stream beat, and payload / (last beat − first beat), for one SG run."""
    board = VirtualBoard(preset, seed=seed)
    dma = AxiDma(board)
    dma.reset()
    buf = board.allocate(bds * bytes_per_bd, np.uint8)
    ring = dma.mm2s.ring(bds)
    addrs = buf.physical_address + np.arange(bds, dtype=np.uint64) * bytes_per_bd
    flags = np.zeros(bds, np.uint8)
    flags[0], flags[-1] = P.SG_BD_SOF, P.SG_BD_EOF
    ring.fill(addrs, np.full(bds, bytes_per_bd, np.uint32), flags)
    ring.submit()
    t_tail = board.now_ns        # the tail write is the last access of submit()
    ring.wait(timeout_ns=1e9)
    (pkt,) = board.mm2s_sink.timing()
    span = pkt["last_ns"] - pkt["first_ns"]
    return pkt["first_ns"] - t_tail, (bds * bytes_per_bd) / span * 1e3 if span > 0 else float("inf")
