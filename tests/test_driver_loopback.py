"""Driver-on-board loopback: the C driver core through the Python API on the virtual board, at the exact and
the functional fidelity (every test runs on both)."""
import numpy as np
import pytest

import sgdma
from sgdma.hw import pg021 as P

FIDELITY = "exact"


@pytest.fixture(autouse=True, params=["exact", "functional"])
def fidelity(request, monkeypatch):
    monkeypatch.setattr(f"{__name__}.FIDELITY", request.param)
    return request.param


def make(preset="zcu111", **kw):
    kw.setdefault("loopback", True)
    board = sgdma.VirtualBoard(preset, seed=1, fidelity=FIDELITY, **kw)
    dma = sgdma.AxiDma(board)
    dma.reset()
    return board, dma


def pattern(board, n, seed=0, region=None):
    buf = board.allocate(n, np.uint8, region=region)
    buf[:] = np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)
    return buf


def test_simple_mode_both_directions():
    board, dma = make(include_sg=False)
    assert not dma.mm2s.has_sg
    src = pattern(board, 5000)
    dst = board.allocate(8192, np.uint8)
    dma.s2mm.transfer(dst)
    dma.mm2s.transfer(src)
    assert dma.mm2s.wait() == 5000
    assert dma.s2mm.wait() == 5000            # S2MM actual length read back from LENGTH
    assert np.array_equal(dst[:5000], src)
    assert board.mm2s_sink.packets() == [bytes(src)]


def test_sg_multi_bd_packets_and_reclaim_lengths():
    board, dma = make()
    srcs = [pattern(board, n, seed=n) for n in (100, 4096, 33, 9000)]
    dst = board.allocate(4 * 16384, np.uint8)
    rx = dma.s2mm.ring(16)
    rx.fill(dst.physical_address + np.arange(16, dtype=np.uint64) * 4096, np.full(16, 4096, np.uint32))
    rx.submit()
    tx = dma.mm2s.ring(64)
    used = tx.add_packets(srcs, max_bd_bytes=1024)
    assert used == 1 + 4 + 1 + 9
    tx.submit()
    tx.wait()
    board.advance(20_000)                      # S2MM is armed past the data: it never idles
    with pytest.raises(sgdma.DmaTimeoutError):
        rx.wait(timeout_ns=10_000)
    done = tx.reclaim()
    assert len(done) == used
    assert done.packet_lengths().tolist() == [100, 4096, 33, 9000]
    got = rx.reclaim()
    assert got.packet_lengths().tolist() == [100, 4096, 33, 9000]
    # S2MM SOF/EOF as the hardware reported them: 9000 bytes span 3 buffers of 4096.
    last = got.packets()[-1]
    assert last.bd_bytes.tolist() == [4096, 4096, 808]
    flags = got.records["flags"]
    assert flags[got.packet_bounds()[-2]] & P.SG_BD_SOF
    assert board.mm2s_sink.packets() == [bytes(s) for s in srcs]
    assert tx.check() and rx.check()


def test_ring_wraps_over_many_rounds():
    board, dma = make()
    tx, rx = dma.mm2s.ring(8), dma.s2mm.ring(8)
    dst = board.allocate(8 * 512, np.uint8)
    for rnd in range(7):                       # 7 rounds x 5 BDs over 8-entry rings
        srcs = [pattern(board, 100 + rnd * 10 + i, seed=rnd * 10 + i) for i in range(5)]
        rx.fill(dst.physical_address + np.arange(5, dtype=np.uint64) * 512, np.full(5, 512, np.uint32))
        rx.submit()
        tx.add_packets(srcs)
        tx.submit()
        tx.wait()
        rx.wait()
        assert len(tx.reclaim()) == 5
        got = rx.reclaim()
        assert got.packet_lengths().tolist() == [len(s) for s in srcs]
        for k, s in enumerate(srcs):
            assert np.array_equal(dst[k * 512:k * 512 + len(s)], s)
        assert tx.free == 8 and rx.free == 8
        assert tx.check() and rx.check()


def test_reclaim_returns_whole_packets_only():
    board, dma = make(loopback=False)
    src = pattern(board, 4 * 1024)
    tx = dma.mm2s.ring(8)
    tx.add_packets([src], max_bd_bytes=1024)   # one packet of 4 BDs
    bds = tx.bds
    tx.submit()
    tx.wait()
    # Pretend the hardware has not finished the last BD yet: no packet is whole.
    saved = int(bds["status"][3])
    bds["status"][3] = 0
    assert len(tx.reclaim()) == 0
    bds["status"][3] = saved
    assert len(tx.reclaim()) == 4


def test_cyclic_playback_repeats_until_reset():
    board, dma = make(loopback=False)
    bufs = [pattern(board, 64, seed=i) for i in range(4)]
    ring = dma.mm2s.ring(4)
    ring.add_packets(bufs)
    ring.start_cyclic()
    board.advance(50_000)
    pkts = board.mm2s_sink.packets()
    assert len(pkts) >= 8
    assert pkts[:8] == [bytes(b) for b in bufs] * 2
    dma.reset()                                # PG021: stop cyclic = reset
    n = len(board.mm2s_sink.packets())
    board.advance(50_000)
    assert len(board.mm2s_sink.packets()) == n
    assert dma.mm2s.halted


@pytest.mark.parametrize("direction_region", ["ps_high"])
def test_64bit_addressing_above_4gib(direction_region):
    board, dma = make(addr_width=64)
    src = pattern(board, 3000, region=direction_region)
    dst = board.allocate(4096, np.uint8, region=direction_region)
    assert src.physical_address >= 1 << 32
    rx = dma.s2mm.ring(4, region=direction_region)
    tx = dma.mm2s.ring(4, region=direction_region)
    assert tx.address >= 1 << 32
    rx.add_packets([dst])
    rx.submit()
    tx.add_packets([src], max_bd_bytes=1024)
    tx.submit()
    tx.wait()
    rx.wait()
    assert rx.reclaim().packet_lengths().tolist() == [3000]
    assert np.array_equal(dst[:3000], src)
    regs = dma.mm2s.registers()
    assert regs["taildesc"] == tx.bd_address(2)   # 64-bit TAILDESC read back whole


def test_irq_threshold_through_driver():
    board, dma = make(loopback=False)
    dma.mm2s.set_irq(ioc=True, error=True, threshold=3)
    tx = dma.mm2s.ring(8)
    tx.add_packets([pattern(board, 64, seed=i) for i in range(2)])
    tx.submit()
    tx.wait()
    assert not dma.mm2s.irq_pending            # 2 packets < threshold 3
    tx.reclaim()
    tx.add_packets([pattern(board, 64, seed=9)])
    tx.submit()
    tx.wait()
    assert dma.mm2s.irq_pending
    assert dma.mm2s.irq_ack() & P.SR_IOC_IRQ
    assert not dma.mm2s.irq_pending


def test_same_seed_same_numbers():
    def run():
        board, dma = make()
        tx, rx = dma.mm2s.ring(64), dma.s2mm.ring(32)
        dst = board.allocate(32 * 2048, np.uint8)
        rx.fill(dst.physical_address + np.arange(20, dtype=np.uint64) * 2048, np.full(20, 2048, np.uint32))
        rx.submit()
        tx.add_packets([pattern(board, 1500 + i, seed=i) for i in range(20)], max_bd_bytes=512)
        tx.submit()
        tx.wait()
        rx.wait()
        return board.now_ps, board.mm2s_sink.timing(), bytes(dst)

    assert run() == run()
