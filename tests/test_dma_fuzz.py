"""Register fuzzing of the virtual AXI DMA: random guest reads and writes in the DMA window.

Whatever the guest does: nothing crashes or hangs (every run is bounded), DMASR stays a state PG021 allows
(checked against the bit meanings of PG021 v7.1, not the model's own code), illegal accesses are logged and
counted, and a soft reset always brings both channels back to PG021's reset state, ready to move data.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import sgdma
from sgdma import AxiDma

# PG021 v7.1 DMASR: bits 0 Halted, 1 Idle, 3 SGIncld, 4-6 and 8-10 errors, 12-14 IRQs, 23:16 and 31:24 counters.
HALTED, IDLE, SGINCLD = 1 << 0, 1 << 1, 1 << 3
ERRORS = (1 << 4) | (1 << 5) | (1 << 6) | (1 << 8) | (1 << 9) | (1 << 10)
ERR_IRQ = 1 << 14
RESERVED_SR = (1 << 2) | (1 << 7) | (1 << 11) | (1 << 15)
DMACR_RS, DMACR_RESERVED_ONE, DMACR_RESET = 1 << 0, 1 << 1, 1 << 2
RESET_DMACR = DMACR_RESERVED_ONE | (1 << 16)             # PG021: after reset IRQThreshold = 1, the rest 0
REG_SPAN, S2MM = 0x60, 0x30

offsets = st.one_of(st.sampled_from([0x00, 0x04, 0x08, 0x0C, 0x10, 0x14, 0x18, 0x1C, 0x28, 0x2C]).flatmap(
    lambda o: st.sampled_from([o, o + S2MM])), st.integers(0, 0xFF))
values = st.one_of(st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 0x10001, 0x10003, 0x7004, 0x1000, 0x40]))
ops = st.lists(st.one_of(
    st.tuples(st.just("w"), offsets, values),
    st.tuples(st.just("r"), offsets),
    st.tuples(st.just("run"), st.integers(0, 200_000)),
), min_size=1, max_size=40)


def check_status(sr: int, include_sg: bool, quiet: bool) -> None:
    assert sr & RESERVED_SR == 0, f"reserved DMASR bits set: {sr:#010x}"
    assert bool(sr & SGINCLD) == include_sg, f"SGIncld must show the build: {sr:#010x}"
    if sr & ERR_IRQ:
        assert sr & ERRORS, f"Err_Irq without an error bit: {sr:#010x}"
    if quiet and sr & ERRORS:
        assert sr & HALTED, f"an error halts the channel: {sr:#010x}"


@settings(max_examples=120, deadline=None)
@given(ops, st.booleans(), st.booleans(), st.integers(0, 2**32 - 1))
def test_random_register_traffic_keeps_dmasr_legal_and_reset_recovers(sequence, include_sg, wide, seed):
    board = sgdma.VirtualBoard("pg021", seed=seed, include_sg=int(include_sg), addr_width=64 if wide else 32)
    base = board.axi_dma.base
    for op in sequence:
        if op[0] == "w":
            board.write32(base + (op[1] & ~3), op[2]) if op[1] & 3 == 0 else board._b.write32(base + op[1], op[2])
        elif op[0] == "r":
            board._b.read32(base + op[1])
        else:
            board.advance(op[1] / 1000)
        for ch in (0, S2MM):
            check_status(board.read32(base + ch + 4), include_sg, quiet=False)
    board.run_until_quiet()                                   # bounded: returns even if the engine is stuck
    for ch in (0, S2MM):
        check_status(board.read32(base + ch + 4), include_sg, quiet=True)

    # a soft reset always recovers: PG021's reset state on both channels ...
    board.write32(base, DMACR_RESET)
    board.run_until_quiet()
    for ch in (0, S2MM):
        assert board.read32(base + ch) == RESET_DMACR
        assert board.read32(base + ch + 4) & 0xFFFF == HALTED | (SGINCLD if include_sg else 0)
    # ... and the DMA moves data again
    dma = AxiDma(board)
    data = np.arange(64, dtype=np.uint8)
    buf = board.allocate(64, np.uint8)
    buf[:] = data
    board.mm2s_sink.clear()
    if include_sg:
        ring = dma.mm2s.ring(2)
        ring.add_packets([buf])
        ring.submit()
        ring.wait()
    else:
        dma.mm2s.transfer(buf)
        dma.mm2s.wait()
    assert [bytes(p) for p in board.mm2s_sink.packets()] == [data.tobytes()]


def test_illegal_accesses_are_counted_once_logged(capfd):
    board = sgdma.VirtualBoard("pg021")
    base = board.axi_dma.base
    board._b.read32(base + 0x20)                             # no register at 0x20 (reserved)
    board._b.read32(base + 0x20)
    board._b.read32(base + 0x06)                             # misaligned
    board.write32(base + 0x04, ERRORS)                        # DMASR error bits are read-only
    board.write32(base + 0x18, 0x1000)                        # SA does not exist in an SG build
    assert board.read32(base + 0x04) & ERRORS == 0            # the read-only bits did not change
    g = board.dma_registers()["mm2s"]["guest_errors"]
    assert g["reserved offset"] == {"count": 3, "last_offset": 0x18}
    assert g["misaligned access"] == {"count": 1, "last_offset": 0x06}
    assert g["write to a read-only field"] == {"count": 1, "last_offset": 0x04}
    err = capfd.readouterr().err
    assert err.count("guest error") == 3                      # one line per kind, not per access


def test_a_driver_run_makes_no_guest_error():
    board = sgdma.VirtualBoard("zcu111")
    dma = AxiDma(board)
    dma.reset()
    ring = dma.mm2s.ring(8)
    ring.add_packets([board.allocate(256) for _ in range(8)])
    ring.submit()
    ring.wait()
    ring.reclaim()
    dma.mm2s.set_irq(ioc=True, error=True, threshold=4) if hasattr(dma.mm2s, "set_irq") else None
    board.dma_registers()
    assert all(v["count"] == 0 for v in board.dma_guest_errors.values()), board.dma_guest_errors
