"""Shared helpers for the register-level PG021 tests: channel register access,
raw BD chains in board memory, bounded polls and soft reset.

Everything here talks to the virtual board through MMIO and board memory only;
nothing uses the driver, so the tests check the model against PG021 directly.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

import sgdma
from sgdma.hw import pg021 as P

# the suite's hypothesis profiles, loaded before any test module builds its @settings; the hook scales examples
from hypothesis_profiles import pytest_collection_modifyitems  # noqa: E402,F401

#: Upper bound of every register poll: a poll that needs more is a hang.
POLL_LIMIT = 100_000
#: Virtual time that lets any small transfer of these tests finish (ns).
SETTLE_NS = 100_000


def make_board(preset: str = "pg021", seed: int = 0, **overrides) -> sgdma.VirtualBoard:
    return sgdma.VirtualBoard(preset, seed=seed, **overrides)


@pytest.fixture
def board() -> sgdma.VirtualBoard:
    """The PG021 IP defaults: SG, 32-bit addresses, 32-bit stream, 14-bit length."""
    return make_board()


def cr_value(*, rs: bool = True, irq: int = 0, threshold: int = 1, delay: int = 0, extra: int = 0) -> int:
    """A DMACR value: RS, IRQ enables, IRQThreshold, IRQDelay (reserved bit 1 as it reads)."""
    return (P.CR_RSVD1 | (P.CR_RS if rs else 0) | irq | extra
            | (threshold << 16) & P.CR_THRESHOLD | (delay << 24) & P.CR_DELAY)


def field_of(value: int, mask: int) -> int:
    return (value & mask) >> ((mask & -mask).bit_length() - 1)


class Chan:
    """One DMA channel's registers ("mm2s" or "s2mm")."""

    def __init__(self, board: sgdma.VirtualBoard, name: str):
        self.b, self.name = board, name
        self.base = P.channel_offset(name)
        self.m = board.mmio(board.axi_dma.base)
        self.addr64 = board.axi_dma.addr_width > 32

    def read(self, off: int) -> int:
        return self.m.read(self.base + off)

    def write(self, off: int, value: int) -> None:
        self.m.write(self.base + off, value)

    @property
    def cr(self) -> int:
        return self.read(P.DMACR)

    @property
    def sr(self) -> int:
        return self.read(P.DMASR)

    @property
    def curdesc(self) -> int:
        return self.read(P.CURDESC) | (self.read(P.CURDESC_MSB) << 32 if self.addr64 else 0)

    @property
    def taildesc(self) -> int:
        return self.read(P.TAILDESC) | (self.read(P.TAILDESC_MSB) << 32 if self.addr64 else 0)

    def set_curdesc(self, addr: int) -> None:
        self.write(P.CURDESC, addr & 0xFFFFFFFF)
        if self.addr64:
            self.write(P.CURDESC_MSB, addr >> 32)

    def set_tail(self, addr: int) -> None:
        """LSB first, then MSB (the MSB write is the trigger with > 32-bit addresses)."""
        self.write(P.TAILDESC, addr & 0xFFFFFFFF)
        if self.addr64:
            self.write(P.TAILDESC_MSB, addr >> 32)

    def run(self, **cr) -> None:
        self.write(P.DMACR, cr_value(**cr))

    def start(self, first: int, last: int, **cr) -> None:
        """PG021 SG start order: CURDESC while halted, then RS, then TAILDESC."""
        self.set_curdesc(first)
        self.run(**cr)
        self.set_tail(last)

    def simple(self, addr: int, length: int, **cr) -> None:
        """Simple-mode start: RS, SA/DA (LSB then MSB), LENGTH."""
        self.run(**cr)
        self.write(P.ADDR, addr & 0xFFFFFFFF)
        if self.addr64:
            self.write(P.ADDR_MSB, addr >> 32)
        self.write(P.LENGTH, length)

    def wait(self, mask: int, limit: int = POLL_LIMIT) -> int:
        """Poll DMASR until any bit of ``mask`` is set; bounded."""
        for _ in range(limit):
            sr = self.sr
            if sr & mask:
                return sr
        raise AssertionError(f"{self.name}: DMASR never showed 0x{mask:x} in {limit} reads; "
                             f"DMACR {P.decode('dmacr', self.cr)}; DMASR {P.decode('dmasr', self.sr)}")

    def stats(self) -> dict:
        return self.b.stats(self.name)


def channels(board: sgdma.VirtualBoard) -> tuple[Chan, Chan]:
    return Chan(board, "mm2s"), Chan(board, "s2mm")


def soft_reset(board: sgdma.VirtualBoard, via: str = "mm2s", limit: int = 1000) -> int:
    """DMACR.Reset = 1 on one channel, then poll until it self-clears; returns the polls needed."""
    ch = Chan(board, via)
    ch.write(P.DMACR, P.CR_RESET)
    for polls in range(1, limit + 1):
        if not ch.cr & P.CR_RESET:
            return polls
    raise AssertionError(f"DMACR.Reset still set after {limit} reads")


def pattern(n: int, salt: int = 0) -> np.ndarray:
    return ((np.arange(n, dtype=np.uint32) * 7 + salt * 31 + 1) & 0xFF).astype(np.uint8)


@dataclass
class Chain:
    """A raw BD ring in board memory (last NXTDESC points at the first BD)."""

    ring: np.ndarray
    bds: np.ndarray                 # structured view, dtype P.BD_DTYPE
    addrs: list[int]
    bufs: list = field(default_factory=list)

    @property
    def first(self) -> int:
        return self.addrs[0]

    @property
    def last(self) -> int:
        return self.addrs[-1]

    def status(self, i: int) -> int:
        return int(self.bds["status"][i])

    def payload(self, i: int) -> bytes:
        n = int(self.bds["control"][i]) & P.BD_LEN_MASK
        return bytes(self.bufs[i][:n])

    def set_next(self, i: int, addr: int) -> None:
        self.bds["nxtdesc"][i] = addr & 0xFFFFFFFF
        self.bds["nxtdesc_msb"][i] = addr >> 32


def bd_chain(board: sgdma.VirtualBoard, lengths, *, flags="each", region: str | None = None,
             buffers=None, buf_align: int = 64) -> Chain:
    """Build a ring of len(lengths) BDs with CONTROL = length | flags.

    ``flags``: "each" (every BD is a packet: TXSOF|TXEOF), "packet" (one packet
    over the whole chain), "none" (S2MM), or a list of CONTROL flag words.
    ``buffers``: None allocates a pattern-filled buffer per BD in ``region``;
    otherwise a list of buffer addresses.
    """
    n = len(lengths)
    sof_eof = P.BD_CTRL_TXSOF | P.BD_CTRL_TXEOF
    if flags == "each":
        flags = [sof_eof] * n
    elif flags == "packet":
        flags = [(P.BD_CTRL_TXSOF if i == 0 else 0) | (P.BD_CTRL_TXEOF if i == n - 1 else 0) for i in range(n)]
    elif flags == "none":
        flags = [0] * n
    ring = board.allocate((n, P.BD_SIZE), np.uint8, region=region, align=P.BD_ALIGN)
    bds = ring.view(P.BD_DTYPE).reshape(n)
    base = ring.physical_address
    chain = Chain(ring, bds, [base + i * P.BD_SIZE for i in range(n)])
    for i, length in enumerate(lengths):
        if buffers is None:
            buf = board.allocate(max(length & P.BD_LEN_MASK, 1), np.uint8, region=region, align=buf_align)
            buf[:] = pattern(buf.size, i)
            chain.bufs.append(buf)
            addr = buf.physical_address
        else:
            addr = buffers[i]
        chain.set_next(i, chain.addrs[(i + 1) % n])
        bds["buffer"][i] = addr & 0xFFFFFFFF
        bds["buffer_msb"][i] = addr >> 32
        bds["control"][i] = length | flags[i]
        bds["status"][i] = 0
    return chain


def reset_sr(board: sgdma.VirtualBoard) -> int:
    """DMASR right after reset: Halted, SGIncld per build, IRQThresholdSts = 1."""
    return P.SR_HALTED | (P.SR_SGINCLD if board.axi_dma.include_sg else 0) | 1 << 16


def transfer_ok(board: sgdma.VirtualBoard, ch: Chan, nbytes: int = 32, salt: int = 99) -> None:
    """Run one fresh one-BD packet on a halted SG channel and assert it completes cleanly."""
    if ch.name == "mm2s":
        chain = bd_chain(board, [nbytes])
        before = len(board.mm2s_sink.packets())
        ch.start(chain.first, chain.last)
        ch.wait(P.SR_IDLE | P.SR_ERR_ALL)
        assert board.mm2s_sink.packets()[before:] == [chain.payload(0)]
    else:
        chain = bd_chain(board, [nbytes], flags="none")
        ch.start(chain.first, chain.last)
        data = bytes(pattern(nbytes, salt))
        board.s2mm_source.send(data)
        ch.wait(P.SR_IDLE | P.SR_ERR_ALL)
        assert bytes(chain.bufs[0]) == data
    sr = ch.sr
    assert sr & P.SR_IDLE and not sr & (P.SR_ERR_ALL | P.SR_HALTED), P.decode("dmasr", sr)
    assert chain.status(0) & (P.BD_STS_CMPLT | P.BD_STS_ERR_ALL | P.BD_LEN_MASK) == P.BD_STS_CMPLT | nbytes


def drain_stream(board: sgdma.VirtualBoard) -> None:
    """Receive and drop whatever the S2MM stream still holds (the upstream keeps a packet's
    remainder while the channel is halted), then soft-reset back to a clean core."""
    pending = board.s2mm_source.pending
    if not pending:
        return
    s2mm = Chan(board, "s2mm")
    soft_reset(board)
    ring = bd_chain(board, [pending + 64] * 8, flags="none")
    s2mm.start(ring.first, ring.last)
    for _ in range(POLL_LIMIT):
        if not board.s2mm_source.pending:
            break
        s2mm.sr
    assert board.s2mm_source.pending == 0
    soft_reset(board)


def sweep_samples(records) -> list:
    """A sweep's records as comparable tuples (point, per-trial samples, simulated time): equal iff the runs agree."""
    return [(r.bytes_per_bd, r.bds, r.cycles, r.samples["latency_ns"], r.samples["throughput_mbps"],
             r.simulated_ns) for r in records]
