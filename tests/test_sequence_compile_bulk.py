"""The bulk compiler (distinct rows, variants, one-pass layout in C) against an expectation built one gate
application at a time from the library's definitions: each application's BDs hold exactly the bytes its
gate's recipes render to, in order, cut into word-multiple pieces, SOF on its first BD and EOF on its last."""
import math

import numpy as np
import pytest

import sgdma
from sgdma.hw import pg021 as P
from sgdma.sequence import Circuit, Sequencer


def _random_circuit(rng, n: int, repeat: int) -> tuple[Circuit, list]:
    """A circuit and its applications as (gate, qubits, params) entries, with given and default parameters,
    -0.0 beside 0.0, qubits given or not, and the raw gate "big" (several BDs per segment)."""
    c = Circuit("bulk", repeat=repeat)
    apps = []
    for _ in range(n):
        kind = rng.integers(0, 7)
        if kind < 2:
            gate, params = ("rx", "ry")[kind], {"theta": float(rng.choice([math.pi / 2, -math.pi / 2, math.pi]))}
            if rng.random() < 0.2:
                params = {}                                    # the default angle (pi)
            qubits = int(rng.integers(0, 3)) if rng.random() < 0.5 else None
        elif kind == 2:
            gate, params, qubits = "rz", {"theta": float(rng.choice([0.0, -0.0, math.pi / 4]))}, None
        elif kind == 3:
            gate, params, qubits = "ms", {}, (0, 1) if rng.random() < 0.5 else None
        elif kind == 4:
            gate, params, qubits = "idle", {"n": float(rng.integers(1, 4))}, None
        elif kind == 5:
            gate, params, qubits = "measure", {}, None
        else:
            gate, params, qubits = "big", {}, None
        c.append(gate, qubits, **params)
        apps.append((gate, params))
    return c, apps


def _expected_bytes(seq: Sequencer, gate: str, params: dict) -> bytes:
    """The gate's stream bytes from its definition: every recipe rendered (or raw), repeats unrolled."""
    lib = seq.library
    gdef = lib.gate(gate)
    values = {p: params.get(p, d) for p, d in gdef.params.items()}
    out = b""
    for (name, scale, phase), repeat in gdef.resolve(values):
        data = (lib.waveforms[name].render(seq.word_bytes, scale, phase).tobytes() if name in lib.waveforms
                else lib.raw[name].tobytes())
        out += data * repeat
    return out


@pytest.mark.parametrize("seed,repeat", [(0, 1), (1, 2), (2, 1)])
def test_every_application_plays_its_gates_rendered_bytes(seed, repeat):
    rng = np.random.default_rng(seed)
    board = sgdma.VirtualBoard("pg021", seed=1)                # 4-byte words, 14-bit length: pieces of 16 380 B
    seq = Sequencer(board, sgdma.AxiDma(board))
    seq.library.add_raw("big", ((np.arange(10_001 * 4) * 7 + seed) % 253).astype(np.uint8))   # 3 BDs
    seq.library.add_gate("big", [{"segment": "big"}])
    circuit, apps = _random_circuit(rng, 300, repeat)
    ring = seq.compile(circuit)

    bds = ring.ring.bds
    lengths = (bds["control"] & P.BD_LEN_MASK).astype(np.int64)
    addresses = bds["buffer"].astype(np.uint64) | (bds["buffer_msb"].astype(np.uint64) << np.uint64(32))
    sof = (bds["control"] & P.BD_CTRL_TXSOF) != 0
    eof = (bds["control"] & P.BD_CTRL_TXEOF) != 0
    piece = seq.segments.piece_bytes
    assert piece == 16380
    at = 0
    for k, (gate, params) in enumerate(apps * repeat):          # one application at a time
        want = _expected_bytes(seq, gate, params)
        got, first = b"", at
        while not got or not eof[at - 1]:
            assert lengths[at] <= piece and (eof[at] or lengths[at] % seq.word_bytes == 0)
            got += board.view(int(addresses[at]), int(lengths[at])).tobytes()
            at += 1
        assert got == want, f"application #{k} ({gate} {params})"
        assert sof[first] and not sof[first + 1:at].any() and not eof[first:at - 1].any()
        assert ring.gate_bd_end[k] == at - 1 and ring.gate_bytes[k] == len(want)
    assert at == ring.n_bds == len(bds)


def test_distinct_rows_match_a_python_set_over_the_rows():
    """distinct_rows against dict insertion order over row tuples (-0.0 == 0.0 in Python too; NaN by a
    stand-in, since Python's NaN is not equal to itself)."""
    from sgdma import _core

    rng = np.random.default_rng(4)
    n = 5000
    ids = rng.integers(0, 5, n).astype(np.int32)
    params = rng.choice([0.0, -0.0, np.nan, 1.5, -2.0], (n, 3))
    qubits = rng.integers(-1, 2, (n, 2)).astype(np.int16)
    first, inverse = (np.frombuffer(b, np.int64) for b in _core.distinct_rows([ids, params, qubits]))
    seen: dict = {}
    want_inv = []
    for i in range(n):
        key = (int(ids[i]),) + tuple("nan" if v != v else float(v) for v in params[i]) + tuple(qubits[i].tolist())
        want_inv.append(seen.setdefault(key, (len(seen), i))[0])
    assert first.tolist() == [i for _, i in seen.values()]
    assert inverse.tolist() == want_inv


def test_distinct_rows_refuses_mismatched_columns():
    from sgdma import _core

    with pytest.raises(ValueError, match="column 1"):
        _core.distinct_rows([np.zeros(3, np.int32), np.zeros(4)])
    with pytest.raises(ValueError, match="column 0"):
        _core.distinct_rows([np.zeros(3, np.uint8)])


def test_lay_out_bds_refuses_a_bd_count_that_wraps():
    """Four uses of one segment of 2^62 one-byte pieces make 2^64 BDs: the count must be refused, not wrap to
    0 (columns of 0 BDs, then 2^62 written into them: a crash)."""
    from sgdma import _core

    big = 1 << 62
    with pytest.raises(ValueError, match="lay_out_bds: the segment uses up to use_sid\\[0\\] make more than"):
        _core.lay_out_bds(np.zeros(4, np.int64), np.array([4], np.int64), np.zeros(1, np.uint64),
                          np.array([big], np.uint64), np.array([big], np.int64), 1)


def test_distinct_rows_of_any_width_match_a_python_set_over_the_rows():
    """Rows wider than one C pass takes (a circuit naming many parameters) against dict insertion order."""
    from sgdma import _core
    from sgdma.sequence.compiler import _distinct_rows

    rng = np.random.default_rng(9)
    n, w = 3000, 3 * _core.DISTINCT_ROWS_MAX_VALUES + 5
    ids = rng.integers(0, 3, n).astype(np.int32)
    params = rng.choice([0.0, -0.0, np.nan, 1.0], (n, w), p=[0.4, 0.1, 0.4, 0.1])
    params[:, :w - 2] = params[0, :w - 2]                       # rows differ in the last values only (and ids)
    qubits = rng.integers(-1, 1, (n, 2)).astype(np.int16)
    first, inverse = _distinct_rows([ids, params, qubits])
    seen: dict = {}
    want_inv = [seen.setdefault((int(ids[i]),) + tuple("nan" if v != v else float(v) for v in params[i])
                                + tuple(qubits[i].tolist()), (len(seen), i))[0] for i in range(n)]
    assert 1 < len(seen) < n
    assert first.tolist() == [i for _, i in seen.values()]
    assert inverse.tolist() == want_inv


def test_a_gate_with_more_parameters_than_one_pass_takes_compiles():
    """70 parameters (distinct_rows took at most 61 beside the gate id and qubits: a ValueError from _core):
    three applications, two distinct rows, one 64-byte BD each."""
    board = sgdma.VirtualBoard("pg021", seed=1)
    seq = Sequencer(board, sgdma.AxiDma(board), library=None)
    seq.add_segment("s", np.arange(64, dtype=np.uint8))
    names = [f"p{i}" for i in range(70)]
    seq.library.add_gate("wide", ["s"], params={p: 0.0 for p in names})
    c = Circuit("wide")
    for k in (0, 1, 0):
        c.append("wide", None, **{p: float(k) for p in names})
    ring = seq.compile(c)
    assert ring.n_bds == 3 and ring.gate_bytes.tolist() == [64, 64, 64]
