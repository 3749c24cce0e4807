"""The coherency checker (csrc/vboard/coherency.c, sgdma.coherency): silent on correct
cache maintenance, each seeded mistake caught exactly once with its kind, buffer and
offset, uncached/coherent buffers never flagged, switchable off, deterministic."""
from __future__ import annotations

import numpy as np
import pytest

import sgdma
from sgdma.board.coherency import CoherencyError, Violation

#: (preset, CPU cache line bytes): Cortex-A9 + PL310 and Cortex-A53.
BOARDS = [("zynq7000", 32), ("zcu111", 64)]
N = 4096


@pytest.fixture(params=BOARDS, ids=[p for p, _ in BOARDS])
def rig(request):
    preset, line = request.param
    board = sgdma.VirtualBoard(preset, seed=1)
    assert board.option("cpu.cache_line_bytes") == line
    dma = sgdma.AxiDma(board)
    dma.reset()
    return board, dma, line


def ring_of(channel, n: int = 16):
    """One ring per channel (a running channel keeps its ring)."""
    if getattr(channel, "_test_ring", None) is None:
        channel._test_ring = channel.ring(n)
    return channel._test_ring


def send_mm2s(dma, buf, **kw):
    ring = ring_of(dma.mm2s)
    ring.add_packets([buf], **kw)
    ring.submit()
    ring.wait()
    ring.reclaim()


def recv_s2mm(board, dma, buf, data, chunks: int = 1):
    ring = ring_of(dma.s2mm)
    ring.add_packets([buf])
    ring.submit()
    step = -(-len(data) // chunks)
    for i in range(0, len(data), step):
        board.s2mm_source.send(data[i:i + step], last=i + step >= len(data))
        board.advance(2000)
    ring.wait()
    done = ring.reclaim()
    assert done.total_bytes == len(data)


def payload(n: int, salt: int = 0) -> bytes:
    return bytes(((np.arange(n) * 7 + salt) & 0xFF).astype(np.uint8))


def only(board) -> Violation:
    v = board.coherency.violations()
    assert board.coherency.count == len(v) == 1, v
    return v[0]


def up(n: int, line: int) -> int:
    return -(-n // line) * line


# ---- correct code is silent ------------------------------------------------------------

def test_correct_mm2s_is_silent(rig):
    board, dma, _ = rig
    buf = board.allocate(N)
    board.coherency.register(buf, name="tx")
    for salt in range(3):
        buf[:] = np.frombuffer(payload(N, salt), np.uint8)
        board.coherency.cpu_write(buf)
        buf.flush()
        send_mm2s(dma, buf)
    assert board.mm2s_sink.packets()[-1] == payload(N, 2)
    assert board.coherency.count == 0 and board.coherency.violations() == []
    assert board.coherency.dma_checks >= 3          # the checker did look
    board.coherency.check()


@pytest.mark.parametrize("speculative", [False, True])
@pytest.mark.parametrize("before", ["nothing", "invalidate", "write+flush"])
def test_correct_s2mm_is_silent(rig, before, speculative):
    board, dma, _ = rig
    coh = board.coherency
    coh.speculative = speculative
    rx = board.allocate(N)
    coh.register(rx, name="rx")
    coh.cpu_read(rx)                          # an earlier lap: the CPU holds the lines
    for lap in range(3):
        if before == "invalidate":
            rx.invalidate()                   # optional: drop the lines before arming
        elif before == "write+flush":
            rx[:] = 0
            coh.cpu_write(rx)
            rx.flush()
        data = payload(N - 96, lap)
        recv_s2mm(board, dma, rx, data)
        rx.invalidate()                       # required: after the DMA, before the CPU reads
        coh.cpu_read(rx)
        assert bytes(rx[:len(data)]) == data
    assert coh.count == 0, coh.violations()


@pytest.mark.parametrize("preset", [p for p, _ in BOARDS])
def test_correct_simple_mode_is_silent(preset):
    board = sgdma.VirtualBoard(preset, include_sg=False)
    dma = sgdma.AxiDma(board)
    dma.reset()
    coh = board.coherency
    tx, rx = board.allocate(1024), board.allocate(1024)
    coh.register(tx, name="tx")
    coh.register(rx, name="rx")
    coh.cpu_read(rx)
    tx[:] = 5
    coh.cpu_write(tx)
    tx.flush()
    dma.mm2s.transfer(tx)
    dma.mm2s.wait()
    dma.s2mm.transfer(rx)
    board.s2mm_source.send(payload(1024))
    dma.s2mm.wait()
    rx.invalidate()
    coh.cpu_read(rx)
    assert coh.count == 0, coh.violations()


# ---- each seeded mistake: once, right kind, buffer, offset --------------------------------

@pytest.mark.parametrize("start, stop", [(1024, 1536), (100, 300)])
def test_missing_flush_before_mm2s(rig, start, stop):
    board, dma, line = rig
    buf = board.allocate(N)
    bid = board.coherency.register(buf, name="tx")
    buf[start:stop] = 0xAB
    board.coherency.cpu_write(buf[start:stop])
    t0 = board.now_ns
    send_mm2s(dma, buf)                       # no buf.flush()
    v = only(board)
    assert (v.kind, v.buffer, v.buffer_id) == ("UNCLEANED_READ", "tx", bid)
    first_line = start // line * line
    assert v.offset == first_line
    assert v.nbytes == up(stop, line) - first_line
    assert v.address == buf.physical_address + first_line
    assert "flush()" in v.missing_call and "MM2S" in v.missing_call
    assert t0 < v.time_ns <= board.now_ns
    send_mm2s(dma, buf)                       # the same stale lines again: no second report
    assert board.coherency.count == 1


def test_missing_flush_over_many_bds_is_one_report(rig):
    board, dma, _ = rig
    buf = board.allocate(N)
    board.coherency.register(buf, name="tx")
    board.coherency.cpu_write(buf)
    send_mm2s(dma, buf, max_bd_bytes=512)     # eight BDs walk through the dirty buffer
    v = only(board)
    assert (v.kind, v.offset, v.nbytes) == ("UNCLEANED_READ", 0, N)


def test_missing_invalidate_after_s2mm(rig):
    board, dma, line = rig
    coh = board.coherency
    rx = board.allocate(N)
    coh.register(rx, name="rx")
    coh.cpu_read(rx)                          # the CPU read this buffer on the previous lap
    rx.invalidate()                           # (maintenance before arming is fine, but not enough
    coh.cpu_read(rx)                          #  if the CPU touches the buffer again before the DMA)
    recv_s2mm(board, dma, rx, payload(1000))
    coh.cpu_read(rx)                          # no rx.invalidate()
    v = only(board)
    assert (v.kind, v.buffer, v.offset, v.nbytes) == ("STALE_READ", "rx", 0, up(1000, line))
    assert "invalidate()" in v.missing_call
    coh.cpu_read(rx[:100])                    # reading on through the same stale copy: same mistake
    assert coh.count == 1


def test_missing_invalidate_read_in_pieces_is_one_report(rig):
    board, dma, _ = rig
    coh = board.coherency
    rx = board.allocate(N)
    coh.register(rx, name="rx")
    coh.cpu_read(rx)
    recv_s2mm(board, dma, rx, payload(N))
    for i in range(0, N, 256):
        coh.cpu_read(rx[i:i + 256])
    v = only(board)
    assert (v.kind, v.offset, v.nbytes) == ("STALE_READ", 0, N)


def test_invalidate_before_arm_only_is_caught_when_speculative(rig):
    board, dma, _ = rig
    coh = board.coherency
    rx = board.allocate(N)
    coh.register(rx, name="rx")
    rx.invalidate()
    recv_s2mm(board, dma, rx, payload(N))
    coh.cpu_read(rx)
    assert coh.count == 0                     # the lines were not cached when the DMA wrote
    coh.speculative = True                    # Cortex-A9/A53 may prefetch them meanwhile
    rx.invalidate()
    recv_s2mm(board, dma, rx, payload(N, 1))
    coh.cpu_read(rx)
    v = only(board)
    assert (v.kind, v.offset, v.nbytes) == ("STALE_READ", 0, N)


@pytest.mark.parametrize("chunks", [1, 4])
def test_dirty_line_while_s2mm_writes(rig, chunks):
    board, dma, line = rig
    coh = board.coherency
    rx = board.allocate(N)
    coh.register(rx, name="rx")
    rx[512:1000] = 0
    coh.cpu_write(rx[512:1000])               # written, never cleaned
    recv_s2mm(board, dma, rx, payload(N), chunks=chunks)
    rx.invalidate()                           # the right call after the DMA: not a second mistake
    coh.cpu_read(rx)
    v = only(board)
    assert (v.kind, v.buffer, v.offset, v.nbytes) == ("DIRTY_OVERWRITE", "rx", 512, up(1000, line) - 512)
    assert "before arming S2MM" in v.missing_call


def test_invalidate_discards_unflushed_cpu_data(rig):
    board, _, line = rig
    coh = board.coherency
    buf = board.allocate(N)
    coh.register(buf, name="cfg")
    buf[256:300] = 1
    coh.cpu_write(buf[256:300])
    buf.invalidate()
    v = only(board)
    assert (v.kind, v.buffer, v.offset, v.nbytes) == ("DISCARDED_WRITE", "cfg", 256, up(300, line) - 256)
    assert "flush()" in v.missing_call
    coh.cpu_write(buf)                        # the correct order: flush, then invalidate
    buf.flush()
    buf.invalidate()
    assert coh.count == 1


@pytest.mark.parametrize("flushed", [2048, 2000])
def test_partial_flush_reports_first_unflushed_line(rig, flushed):
    board, dma, line = rig
    buf = board.allocate(N)
    board.coherency.register(buf, name="tx")
    board.coherency.cpu_write(buf)
    buf[:flushed].flush()                     # only the first part
    send_mm2s(dma, buf)
    v = only(board)
    first = up(flushed, line)                 # a partly covered line is cleaned whole
    assert (v.kind, v.offset, v.nbytes) == ("UNCLEANED_READ", first, N - first)


def test_right_buffer_among_many(rig):
    board, dma, _ = rig
    coh = board.coherency
    bufs = [board.allocate(1024) for _ in range(8)]
    for i, b in enumerate(bufs):
        coh.register(b, name=f"b{i}")
        coh.cpu_write(b)
        if i != 5:
            b.flush()
    ring = ring_of(dma.mm2s)
    ring.add_packets(bufs)
    ring.submit()
    ring.wait()
    v = only(board)
    assert (v.kind, v.buffer, v.offset, v.nbytes) == ("UNCLEANED_READ", "b5", 0, 1024)


# ---- policies, switch, results ------------------------------------------------------------

def all_mistakes(board, dma, tx, rx):
    coh = board.coherency
    coh.cpu_write(tx)
    send_mm2s(dma, tx)                        # missing flush
    coh.cpu_read(rx)
    coh.cpu_write(rx[:64])
    recv_s2mm(board, dma, rx, payload(N))     # dirty line under S2MM
    coh.cpu_read(rx)                          # missing invalidate
    coh.cpu_write(tx)
    tx.invalidate()                           # discards CPU data


@pytest.mark.parametrize("policy", ["uncached", "writecombine", "coherent"])
def test_uncached_and_coherent_never_flag(rig, policy):
    board, dma, _ = rig
    tx, rx = board.allocate(N), board.allocate(N)
    board.coherency.register(tx, policy=policy)
    board.coherency.register(rx, policy=policy)
    all_mistakes(board, dma, tx, rx)
    assert board.coherency.count == 0
    assert board.coherency.dma_checks == 0     # no SYNC buffer: the hooks do nothing


def test_sync_catches_all_four(rig):
    board, dma, _ = rig
    tx, rx = board.allocate(N), board.allocate(N)
    board.coherency.register(tx, name="tx")
    board.coherency.register(rx, name="rx")
    all_mistakes(board, dma, tx, rx)
    got = [(v.kind, v.buffer) for v in board.coherency.violations()]
    assert got == [("UNCLEANED_READ", "tx"), ("DIRTY_OVERWRITE", "rx"), ("STALE_READ", "rx"),
                   ("DISCARDED_WRITE", "tx")]
    with pytest.raises(CoherencyError) as e:
        board.coherency.check()
    assert e.value.count == 4 and "UNCLEANED_READ in tx at offset 0" in str(e.value)
    board.coherency.clear()
    assert board.coherency.count == 0 and board.coherency.violations() == []
    board.coherency.check()


def test_disabled_is_silent_and_does_no_work(rig):
    board, dma, _ = rig
    coh = board.coherency
    assert coh.enabled                         # on by default
    tx, rx = board.allocate(N), board.allocate(N)
    coh.register(tx)
    coh.register(rx)
    coh.enabled = False
    all_mistakes(board, dma, tx, rx)
    assert coh.count == 0 and coh.dma_checks == 0
    coh.cpu_write(tx)                          # unseen: switching on starts from clean lines
    coh.enabled = True
    send_mm2s(dma, tx)
    assert coh.count == 0 and coh.dma_checks == 1
    coh.cpu_write(tx)
    send_mm2s(dma, tx)
    assert only(board).kind == "UNCLEANED_READ"


def test_no_registered_buffer_no_work(rig):
    board, dma, _ = rig
    buf = board.allocate(N)
    board.coherency.cpu_write(buf)
    send_mm2s(dma, buf)
    assert board.coherency.count == 0 and board.coherency.dma_checks == 0


def scenario(seed: int) -> list[Violation]:
    board = sgdma.VirtualBoard("zynq7000", seed=seed)
    dma = sgdma.AxiDma(board)
    dma.reset()
    tx, rx = board.allocate(N), board.allocate(N)
    board.coherency.register(tx, name="tx")
    board.coherency.register(rx, name="rx")
    all_mistakes(board, dma, tx, rx)
    return board.coherency.violations()


def test_same_seed_same_violations():
    a, b = scenario(7), scenario(7)
    assert len(a) == 4 and a == b


def test_registration_rules(rig):
    board, dma, _ = rig
    coh = board.coherency
    buf = board.allocate(N)
    bid = coh.register(buf, name="a")
    with pytest.raises(ValueError, match="overlaps registered buffer"):
        coh.register(buf[100:200])
    with pytest.raises(ValueError, match="policy"):
        coh.register(board.allocate(64), policy="write-back")
    with pytest.raises(ValueError, match="length"):
        coh.register(buf.physical_address + N + 4096, 0)
    with pytest.raises(ValueError, match="DDR region"):
        coh.register(1 << 40, 64)
    with pytest.raises(KeyError):
        coh.unregister(bid + 100)
    assert coh.buffers[bid]["name"] == "a"
    coh.unregister(bid)
    coh.cpu_write(buf)
    send_mm2s(dma, buf)
    assert coh.count == 0
    other = coh.register(buf.physical_address, 128)      # address + nbytes form
    coh.cpu_write((buf.physical_address, 64))
    send_mm2s(dma, buf)
    v = only(board)
    assert v.buffer == f"buffer {other} @0x{buf.physical_address:x}" and v.nbytes == 64


def test_violations_are_counted_past_the_stored_cap():
    board = sgdma.VirtualBoard("zynq7000")
    buf = board.allocate(64)
    coh = board.coherency
    coh.register(buf)
    for _ in range(10_001):                   # each write-then-invalidate is a new mistake
        coh.cpu_write(buf)
        buf.invalidate()
    assert coh.count == 10_001
    assert len(coh.violations()) == 10_000


def test_capture_loop_one_forgotten_invalidate(rig):
    """A capture-like loop over 8 buffers: correct laps are silent; one forgotten
    invalidate on buffer 3 in lap 2 is reported once, for that buffer and lap."""
    board, dma, _ = rig
    coh = board.coherency
    bufs = [board.allocate(2048) for _ in range(8)]
    for i, b in enumerate(bufs):
        coh.register(b, name=f"rx{i}")
    ring = ring_of(dma.s2mm, 8)
    for lap in range(4):
        ring.add_packets(bufs)
        ring.submit()
        for i in range(8):
            board.s2mm_source.send(payload(2048, lap * 8 + i))
        ring.wait()
        ring.reclaim()
        for i, b in enumerate(bufs):
            if not (lap == 2 and i == 3):
                b.invalidate()
            coh.cpu_read(b)
            if lap != 2 or i != 3:
                assert bytes(b) == payload(2048, lap * 8 + i)
        if lap == 1:
            t_lap2 = board.now_ns
    v = only(board)
    assert (v.kind, v.buffer, v.offset, v.nbytes) == ("STALE_READ", "rx3", 0, 2048)
    assert v.time_ns > t_lap2


def test_registration_ends_with_the_allocation():
    import gc
    board = sgdma.VirtualBoard("zynq7000")
    coh = board.coherency
    buf = board.allocate(N)
    addr = buf.physical_address
    coh.register(buf[:N // 2], name="half")     # a view: tied to the whole allocation
    assert len(coh.buffers) == 1
    del buf
    gc.collect()
    assert coh.buffers == {}
    again = board.allocate(N)                   # the allocator reuses the memory
    assert again.physical_address == addr
    coh.register(again, name="again")
