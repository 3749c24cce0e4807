"""Property tests of the driver's ring bookkeeping against the virtual board."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import sgdma
from sgdma.hw import pg021 as P

RING = 8
ops = st.lists(
    st.one_of(
        st.tuples(st.just("fill"), st.integers(1, RING), st.integers(1, 200)),
        st.tuples(st.just("submit")),
        st.tuples(st.just("run")),
        st.tuples(st.just("reclaim"), st.integers(1, RING)),
    ),
    min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(ops, st.integers(0, 2**32 - 1))
def test_ring_invariants_and_data_order(sequence, seed):
    board = sgdma.VirtualBoard("zcu111", seed=seed)
    dma = sgdma.AxiDma(board)
    dma.reset()
    ring = dma.mm2s.ring(RING)
    rng = np.random.default_rng(seed)
    filled, submitted, in_hw = [], [], 0     # payloads in order
    reclaimed = 0
    for op in sequence:
        st_ = ring.state
        if op[0] == "fill":
            n = min(op[1], st_["n_free"])
            if n == 0:
                continue
            bufs = []
            for _ in range(n):
                b = board.allocate(op[2], np.uint8)
                b[:] = rng.integers(0, 256, op[2], dtype=np.uint8)
                bufs.append(b)
            ring.add_packets(bufs)
            filled += [bytes(b) for b in bufs]
        elif op[0] == "submit" and st_["n_filled"]:
            ring.submit()
            submitted += filled
            in_hw += len(filled)
            filled = []
        elif op[0] == "run":
            board.advance(20_000)
        elif op[0] == "reclaim":
            done = ring.reclaim(op[1])
            assert len(done) <= op[1]
            assert np.all(done.records["status"] & P.BD_STS_CMPLT)
            assert np.all(done.records["flags"] & P.SG_BD_EOF)   # one BD per packet here
            reclaimed += len(done)
            in_hw -= len(done)
        s = ring.state
        assert ring.check()
        assert s["n_free"] + s["n_filled"] + s["n_hw"] == RING
        assert s["n_hw"] == in_hw and s["n_filled"] == len(filled)
        assert (s["fill"] - s["submit"]) % RING == s["n_filled"] % RING
    board.advance(100_000)
    assert not dma.mm2s.registers()["dmasr"] & P.SR_ERR_ALL
    assert board.mm2s_sink.packets() == submitted            # every packet once, in order
