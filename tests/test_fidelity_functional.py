"""The functional fidelity (dma.functional, csrc/vboard/dma/functional.c) against the exact model, run by run.

The reference is the exact (timed) model on the same board, the same ring and the same stream data, never the
functional engine's own verdict: the rings are random (hypothesis), with PG021's simple errors planted, and
everything software can see must be the same — memory (buffers and every BD word, STATUS included), the
stream's packets, DMASR, CURDESC and the interrupts raised. Only times may differ.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import sgdma
from sgdma.board.fidelity import board_options
from sgdma.hw import pg021 as P

BOARD = "zcu111"                 # 256-bit stream (32-byte beats), 32-bit addresses, 4 BDs prefetched
BEAT = 32
UNMAPPED = 0x7FFF_0000            # no DDR there: an access decodes to DECERR
SLOT = 3 * 4096                   # buffer room per BD (BD lengths stay below it)
IRQ_STATS = ("packets", "irq_ioc", "irq_dly", "irq_err", "bd_writebacks", "bytes_moved")

# A planted error: a BD of length 0; Cmplt already set; NXTDESC into unmapped space (SG decode error on the
# next fetch); a buffer in unmapped space (DMADecErr); a buffer answering SLVERR (DMASlvErr); a BD that is not
# a whole number of beats without EOF (MM2S: DMAIntErr).
ERRORS = ("zero_length", "cmplt_set", "next_unmapped", "buffer_unmapped", "buffer_slverr", "odd_length")


@st.composite
def runs(draw):
    n = draw(st.integers(1, 12))
    direction = draw(st.sampled_from(["mm2s", "s2mm"]))
    lengths = draw(st.lists(st.integers(1, 2 * 4096 + 100), min_size=n, max_size=n))
    eof = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    whole = draw(st.lists(st.booleans(), min_size=n, max_size=n))      # non-EOF BDs mostly whole beats
    lengths = [ln if e or not w else max(BEAT, ln // BEAT * BEAT) for ln, e, w in zip(lengths, eof, whole)]
    errors = draw(st.lists(st.tuples(st.integers(0, n - 1), st.sampled_from(ERRORS)), max_size=2))
    # the tail: the ring's last BD, an earlier one, or an address outside the ring (the engine laps the ring
    # and stops at the first BD whose Cmplt it set); a ring shorter than the prefetch depth races its own
    # write-backs in the timed model, so the lap is drawn only for rings of 4 BDs and more
    tail = draw(st.sampled_from(["last", "early"] + (["past_end"] if n >= 4 else [])))
    tail_at = draw(st.integers(0, n - 1)) if tail == "early" else n - 1
    threshold = draw(st.integers(1, 5))
    delay = draw(st.sampled_from([0, 255]))           # 255 x 125 clocks: never fires between busy packets
    # S2MM: packets on the stream (their lengths), sent before the kick or part of them later
    packets = draw(st.lists(st.integers(1, 3 * 4096), min_size=1, max_size=8))
    late = draw(st.integers(0, len(packets)))
    keyhole = draw(st.booleans())                     # DMACR.Keyhole: every beat at the buffer's first
    seed = draw(st.integers(0, 2**32 - 1))
    return dict(n=n, direction=direction, lengths=lengths, eof=eof, errors=errors, tail=tail, tail_at=tail_at,
                threshold=threshold, delay=delay, packets=packets, late=late, keyhole=keyhole, seed=seed)


def _run(fidelity: str, r: dict) -> dict:
    board = sgdma.VirtualBoard(BOARD, sink_record=True, options=board_options(fidelity))
    rng = np.random.default_rng(r["seed"])
    n, ch = r["n"], r["direction"]
    base = board.axi_dma.base + P.channel_offset(ch)
    ring = board.allocate(n * P.BD_SIZE // 4, np.uint32, align=P.BD_SIZE)
    bufs = board.allocate(n * SLOT, np.uint8, align=4096)
    bufs[:] = rng.integers(0, 256, bufs.size, dtype=np.uint8) if ch == "mm2s" else 0xEE
    words = ring.reshape(n, P.BD_SIZE // 4)
    words[:] = 0
    ra, ba = ring.physical_address, bufs.physical_address
    for i in range(n):
        w = words[i]
        w[P.BD_NXTDESC // 4] = ra + ((i + 1) % n) * P.BD_SIZE
        w[P.BD_BUFFER // 4] = ba + i * SLOT
        w[P.BD_CONTROL // 4] = r["lengths"][i] | (P.BD_CTRL_TXEOF if r["eof"][i] else 0)
    for i, kind in r["errors"]:
        w = words[i]
        if kind == "zero_length":
            w[P.BD_CONTROL // 4] &= ~np.uint32(P.BD_LEN_MASK)
        elif kind == "cmplt_set":
            w[P.BD_STATUS // 4] = P.BD_STS_CMPLT
        elif kind == "next_unmapped":
            w[P.BD_NXTDESC // 4] = UNMAPPED
        elif kind == "buffer_unmapped":
            w[P.BD_BUFFER // 4] = UNMAPPED
        elif kind == "buffer_slverr":
            board.inject_slverr(ba + i * SLOT, 64)
        else:
            w[P.BD_CONTROL // 4] = (w[P.BD_CONTROL // 4] & ~np.uint32(P.BD_CTRL_TXEOF | P.BD_LEN_MASK)) | 100
    ring.flush()
    bufs.flush()
    tail = ra + r["tail_at"] * P.BD_SIZE if r["tail"] != "past_end" else ra + n * P.BD_SIZE + 4096

    stream = rng.integers(0, 256, sum(r["packets"]), dtype=np.uint8)
    cuts = np.cumsum([0] + r["packets"])
    if ch == "s2mm":
        for k in range(r["late"]):
            board.s2mm_source.send(stream[cuts[k]:cuts[k + 1]])
    cr = P.CR_RS | P.CR_IOC_IRQEN | P.CR_ERR_IRQEN | P.CR_DLY_IRQEN | r["threshold"] << 16 | r["delay"] << 24
    cr |= P.CR_KEYHOLE if r.get("keyhole") else 0
    board.write32(base + P.CURDESC, ra)
    board.write32(base + P.DMACR, cr)
    board.write32(base + P.TAILDESC, tail)
    if ch == "s2mm":
        board.advance(3000.0)
        for k in range(r["late"], len(r["packets"])):
            board.s2mm_source.send(stream[cuts[k]:cuts[k + 1]])
    board.run_until_quiet()
    regs = board.dma_registers()[ch]
    stats = board.stats(ch)
    cols = board.mm2s_sink.columns()
    return {"ring": ring.copy(), "buffers": bufs.copy(), "DMASR": regs["DMASR"], "CURDESC": regs["CURDESC"],
            "other DMASR": board.dma_registers()["mm2s" if ch == "s2mm" else "s2mm"]["DMASR"],
            "packets": board.mm2s_sink.packets(), "lengths": cols["length"].tolist(), "cut": cols["cut"].tolist(),
            "open": board.mm2s_sink.open_bytes, "stream left": board.s2mm_source.pending,
            **{f"stats {k}": stats[k] for k in IRQ_STATS}}


def _same(r: dict) -> None:
    exact, fun = _run("exact", r), _run("functional", r)
    for key in exact:
        a, b = exact[key], fun[key]
        if isinstance(a, np.ndarray):
            diff = np.flatnonzero(a != b)
            assert diff.size == 0, f"{key} differs at {diff[:8]}: exact {a[diff[:8]]} functional {b[diff[:8]]}"
        else:
            assert a == b, f"{key}: exact {a!r}, functional {b!r}"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_functional_matches_exact_on_random_rings(r):
    _same(r)


@pytest.mark.parametrize("direction", ["mm2s", "s2mm"])
@pytest.mark.parametrize("kind", ERRORS)
def test_each_planted_error_matches_exact(direction, kind):
    """Every planted error on its own, in the middle of a ring, so it is surely drawn."""
    r = dict(n=6, direction=direction, lengths=[4096, 100, 4096, 64, 2000, 32], eof=[False, True, True, False, True,
             True], errors=[(2, kind)], tail="last", tail_at=5, threshold=2, delay=255,
             packets=[4096 + 100, 4096, 64 + 2000, 32], late=2, seed=7)
    _same(r)


def test_tail_past_the_ring_ends_on_sginterr_in_both():
    r = dict(n=5, direction="mm2s", lengths=[64] * 5, eof=[True] * 5, errors=[], tail="past_end", tail_at=4,
             threshold=1, delay=0, packets=[64], late=0, seed=1)
    exact, fun = _run("exact", r), _run("functional", r)
    assert exact["DMASR"] & P.SR_SGINTERR and fun["DMASR"] == exact["DMASR"]
    assert fun["CURDESC"] == exact["CURDESC"] and len(fun["packets"]) == 5


def test_functional_times_are_one_beat_per_clock():
    """The declared time model: the ring's beats leave back to back, one per DMA clock (two beats per 64-byte BD
    on a 256-bit stream), whatever the memory; the bytes are the buffer's."""
    board = sgdma.VirtualBoard(BOARD, sink_record=True, options=board_options("functional"))
    dma = sgdma.AxiDma(board)
    dma.reset()
    n = 512
    ring = dma.mm2s.ring(n)
    buf = board.allocate(n * 64, np.uint8)
    buf[:] = np.arange(buf.size) % 251
    ring.fill(buf.physical_address + np.arange(n, dtype=np.uint64) * 64, np.full(n, 64, np.uint32))
    ring.submit()
    board.run_until_quiet()
    t = board.mm2s_sink.columns()
    clock_ns = 1e3 / board.axi_dma.clock_mhz
    # two beats per 64-byte BD, back to back: the last beat is 2n - 1 clocks after the first
    assert t["last_ns"][-1] - t["first_ns"][0] == pytest.approx((2 * n - 1) * clock_ns, rel=1e-3)
    assert b"".join(board.mm2s_sink.packets()) == bytes(buf)


def test_bad_fidelity_and_option_are_refused_by_name():
    with pytest.raises(ValueError, match="fidelity='fast'.*exact.*functional"):
        sgdma.VirtualBoard(BOARD, fidelity="fast")
    with pytest.raises(Exception, match="dma.functional = 2"):
        sgdma.VirtualBoard(BOARD, options={"dma.functional": 2})



@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(1, 9000), min_size=1, max_size=6), st.sampled_from([256, 1024, 4096]),
       st.integers(2, 24), st.integers(0, 2**32 - 1))
@example(sizes=[3841, 5889, 6145], max_bd=256, rx_bds=2, seed=0)  # 65 BDs: more than a 64-BD ring held
def test_loopback_matches_exact(sizes, max_bd, rx_bds, seed):
    """MM2S into the loopback wire into S2MM, both rings functional: S2MM waits for data the MM2S batch sent
    ahead in virtual time. Same destination bytes, BD STATUS words and registers as exact."""
    def run(fidelity):
        board = sgdma.VirtualBoard(BOARD, seed=1, loopback=True, fidelity=fidelity)
        dma = sgdma.AxiDma(board)
        dma.reset()
        rng = np.random.default_rng(seed)
        srcs = []
        for n in sizes:
            b = board.allocate(n, np.uint8)
            b[:] = rng.integers(0, 256, n, dtype=np.uint8)
            srcs.append(b)
        dst = board.allocate(rx_bds * 4096, np.uint8)
        rx = dma.s2mm.ring(rx_bds)
        rx.fill(dst.physical_address + np.arange(rx_bds, dtype=np.uint64) * 4096, np.full(rx_bds, 4096, np.uint32))
        rx.submit()
        tx = dma.mm2s.ring(sum(-(-n // max_bd) for n in sizes))  # one BD per max_bd piece of each packet
        tx.add_packets(srcs, max_bd_bytes=max_bd)
        tx.submit()
        board.run_until_quiet()
        regs = board.dma_registers()
        return (bytes(dst), np.asarray(rx.bds["status"]).tolist(), np.asarray(tx.bds["status"]).tolist(),
                regs["mm2s"]["DMASR"], regs["s2mm"]["DMASR"], regs["mm2s"]["CURDESC"], regs["s2mm"]["CURDESC"],
                board.s2mm_source.pending)

    assert run("functional") == run("exact")
