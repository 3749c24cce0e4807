"""Sequence layer: segments, dedup, multi-BD pieces, compile + play through the virtual board,
several rings, cyclic playback, epochs."""
import numpy as np
import pytest

import sgdma
from sgdma.hw import pg021 as P
from sgdma.sequence import (Circuit, GateLibrary, MemoryMap, Sequencer, StaleRingError, Waveform,
                            example_circuit_path)


def rig(preset="zcu111", library="trapped_ion", **kw):
    board = sgdma.VirtualBoard(preset, seed=3, **kw)
    dma = sgdma.AxiDma(board)
    dma.reset()
    return board, dma, Sequencer(board, dma, library=library)


def words(n_words, word, salt):
    return ((np.arange(n_words * word) * 13 + salt * 101) % 251).astype(np.uint8)


# -- memory map -----------------------------------------------------------------------------------
def test_memory_map_follows_the_preset_layout():
    board = sgdma.VirtualBoard("zcu111")
    mm = MemoryMap(board)
    lay = mm.layout
    assert (lay.rpmsg, lay.rpmsg_bytes) == (0x8000_0000, 2048)
    assert (lay.bd_base, mm.max_bds) == (0x8000_0800, 1 << 16)
    assert (lay.buffer_base, lay.buffer_bytes) == (0x8000_0800 + (4 << 20), 256 << 20)
    buf = mm.segments.allocate(100)
    assert buf.physical_address == lay.buffer_base and buf.physical_address % 64 == 0
    assert mm.usage()["segments"]["used"] == 100
    assert mm.rpmsg.physical_address == lay.rpmsg and mm.usage()["rpmsg"]["used"] == 2048
    del buf                                        # the hole returns with the last view
    assert mm.usage()["segments"]["used"] == 0


# -- segments and dedup ----------------------------------------------------------------------------
def test_equal_bytes_are_stored_once_and_names_alias():
    board, dma, seq = rig(library=None)
    data = words(4, 32, 1)
    a = seq.add_segment("a", data)
    b = seq.add_segment("b", data.copy())
    c = seq.add_segment("c", words(4, 32, 2))
    assert a.address == b.address != c.address
    assert seq.segments["a"].aliases == ("b",)
    assert seq.segments.counters() == {"unique": 2, "referenced": 3, "bytes_stored": 256, "bytes_named": 384,
                                       "bytes_saved": 128}
    assert seq.add_segment("a", data).address == a.address          # same name, same bytes: no-op
    with pytest.raises(ValueError, match="recalibrate"):
        seq.add_segment("a", words(4, 32, 9))
    assert np.array_equal(seq.segments.data("b").reshape(-1), data)


def test_segment_over_the_bd_limit_becomes_word_multiple_pieces_pg021():
    board, dma, seq = rig("pg021", library=None)          # 4-byte words, 14-bit length: 16 383 bytes
    assert (seq.word_bytes, seq.channel.max_length, seq.segments.piece_bytes) == (4, 16383, 16380)
    big = words(10_000, 4, 5)                             # 40 000 bytes
    seg = seq.add_segment("big", big)
    assert seg.n_pieces == 3
    seq.add_segment("small", words(3, 4, 6))
    seq.library.add_gate("g", ["big"])
    seq.library.add_gate("s", ["small", "big", "small"])
    ring = seq.compile(Circuit().append("g").append("s"))
    bds = ring.ring.bds
    lengths = (bds["control"] & P.BD_LEN_MASK).tolist()
    assert lengths == [16380, 16380, 7240, 12, 16380, 16380, 7240, 12]
    assert all(n % 4 == 0 for n in lengths)
    sof = (bds["control"] & P.BD_CTRL_TXSOF) != 0
    eof = (bds["control"] & P.BD_CTRL_TXEOF) != 0
    assert np.flatnonzero(sof).tolist() == [0, 3] and np.flatnonzero(eof).tolist() == [2, 7]
    assert ring.gate_bd_end.tolist() == [2, 7]
    ring.play()
    ring.wait()
    s = bytes(words(3, 4, 6))
    assert board.mm2s_sink.packets() == [bytes(big), s + bytes(big) + s]


# -- compile and play ----------------------------------------------------------------------------------
def test_example_circuit_plays_one_packet_per_gate():
    board, dma, seq = rig()
    circuit = Circuit.from_file(example_circuit_path())
    ring = seq.compile(circuit)
    assert ring.n_gates == circuit.n_applications == 2 * len(circuit)
    ring.play()
    ring.wait()
    packets = board.mm2s_sink.packets()
    assert len(packets) == ring.n_gates
    assert [len(p) for p in packets] == ring.gate_bytes.tolist()
    assert packets == ring.expected_packets()
    assert sum(map(len, packets)) == ring.bytes_total
    assert list(ring.gate_names[:3]) == ["ry", "ms", "rx"]


def test_gate_bytes_are_the_rendered_waveforms():
    board, dma, seq = rig()
    ring = seq.compile(Circuit().append("rx", 0, theta="pi/2").append("ms", (0, 1)).append("rz", 1, theta="pi/4")
                       .append("idle", n=3))
    ring.play()
    ring.wait()
    lib = seq.library
    gauss, flat = lib.waveforms["gauss"], lib.waveforms["ms_flat"]
    rx, ms, rz, idle = board.mm2s_sink.packets()
    assert rx == gauss.render(32, 0.5).tobytes()                           # half the pi-pulse amplitude
    up, down = (lib.waveforms[n].render(32).tobytes() for n in ("ms_ramp_up", "ms_ramp_down"))
    assert ms == up + flat.render(32).tobytes() * 4 + down                 # composite pulse, flat top x4
    assert rz[:8] == b"PHAS" + (1 << 29).to_bytes(4, "little") and len(rz) == 32   # pi/4 = 1/8 turn
    assert idle == bytes(3 * 256 * 4)
    assert ring.n_bds == 1 + 6 + 1 + 3                    # repeats are BDs over one stored block


def test_sof_eof_per_gate_and_irq_threshold_counts_gates():
    board, dma, seq = rig()
    dma.mm2s.set_irq(ioc=True, threshold=3)
    two = seq.compile(Circuit().append("ms").append("measure"))
    two.play()
    two.wait()
    assert not dma.mm2s.irq_pending                      # 2 gates < threshold 3, though 14 BDs completed
    three = seq.compile(Circuit().append("rx").append("ry").append("rx"))
    three.play()
    three.wait()
    assert dma.mm2s.irq_pending


def test_several_rings_resident_and_replayed():
    board, dma, seq = rig()
    a = seq.compile(Circuit("a").append("rx", theta="pi/2").append("measure"))
    b = seq.compile(Circuit("b").append("ms").append("idle", n=2))
    assert a.address != b.address and len(seq.rings) == 2
    for handle in (a, b, a, a):                           # switch rings, replay a ring twice
        handle.play()
        handle.wait()
    expected = a.expected_packets() + b.expected_packets() + a.expected_packets() * 2
    assert board.mm2s_sink.packets() == expected
    assert a.ring.check() and b.ring.check()


def test_repeat_unrolls_the_circuit():
    board, dma, seq = rig()
    c = Circuit(repeat=3).append("rx", theta="pi").append("ry", theta="pi/2")
    ring = seq.compile(c)
    assert ring.n_gates == 6 and list(ring.gate_names) == ["rx", "ry"] * 3
    ring.play()
    ring.wait()
    p = board.mm2s_sink.packets()
    assert p[:2] == p[2:4] == p[4:6] and p[0] != p[1]


def test_cyclic_playback_repeats_until_reset_and_restarts():
    board, dma, seq = rig()
    ring = seq.compile(Circuit().append("rx", theta="pi/2").append("rz", theta=1.0).append("ry"), cyclic=True)
    one_pass = ring.expected_packets()
    ring.play()
    board.advance(20_000)
    got = board.mm2s_sink.packets()
    assert len(got) >= 3 * 3 and got[:9] == one_pass * 3
    assert ring.running
    dma.reset()                                           # PG021: cyclic stops with a reset
    assert not ring.running
    board.mm2s_sink.clear()
    ring.play()                                           # a fresh driver Ring under the same handle
    board.advance(20_000)
    assert board.mm2s_sink.packets()[:6] == one_pass * 2


# -- epochs ------------------------------------------------------------------------------------------
def test_freed_and_rebuilt_handles_are_stale():
    board, dma, seq = rig()
    a = seq.compile(Circuit().append("rx"))
    copy = a
    addr = a.address
    seq.free(a)
    for use in (lambda: copy.play(), lambda: copy.ring, lambda: copy.n_bds, lambda: copy.expected_packets()):
        with pytest.raises(StaleRingError, match="freed"):
            use()
    assert a.stale and "stale" in repr(a)
    b = seq.compile(Circuit().append("ry").append("rx"))
    assert b.address == addr and b.epoch > a.epoch           # same memory, new epoch
    c = seq.rebuild(b, Circuit().append("ms"))
    with pytest.raises(StaleRingError, match=f"rebuilt as ring #{c.id} epoch {c.epoch}"):
        b.play()
    c.play()
    c.wait()
    assert board.mm2s_sink.packets() == c.expected_packets()
    assert seq.memory.usage()["rings"]["allocations"] == 1


def test_stats_report_memory_and_dedup():
    board, dma, seq = rig()
    seq.compile(Circuit().extend(["rx"], np.zeros(100, int), {"theta": np.full(100, np.pi / 2)}))
    s = seq.stats()
    assert s["segments_referenced"] == 100 and s["segments_unique"] == 1
    assert s["bytes_referenced"] == 100 * 1024 and s["bytes_stored_referenced"] == 1024
    assert s["dedup_ratio"] == 100 and s["dedup_saved_bytes"] == 99 * 1024
    assert s["memory"]["rings"]["used"] == 100 * 64
    assert s["memory_bytes"] == 100 * 64 + 1024


def test_waveform_packing_is_iq_int16_in_words():
    wf = Waveform("w", "flat", samples=9, amplitude=0.5, phase_deg=90)
    w = wf.render(32)
    assert w.shape == (2, 32)                              # 9 samples -> 2 words of 8, zero padded
    iq = w.reshape(-1).view("<i2").reshape(-1, 2)
    assert (iq[:9, 0] == 0).all() and (iq[:9, 1] == 16384).all() and (iq[9:] == 0).all()
    assert GateLibrary.bundled().waveforms["gauss"].render(4).shape == (256, 4)   # 1 sample per 4-byte word


def test_cyclic_restart_when_the_ring_fills_its_region():
    import dataclasses
    from sgdma.hw.layout import Layout

    board = sgdma.VirtualBoard("zcu111", seed=3)
    dma = sgdma.AxiDma(board)
    dma.reset()
    seq = Sequencer(board, dma, layout=dataclasses.replace(Layout.of(board), bd_bytes=64 * 4))
    ring = seq.compile(Circuit().append("rx").append("ry").append("rz").append("rx", theta=1.0), cyclic=True)
    assert seq.memory.usage()["rings"]["free"] == 0
    for _ in range(2):                                    # the restart reuses the only room there is
        board.mm2s_sink.clear()
        ring.play()
        board.advance(10_000)
        assert board.mm2s_sink.packets()[:4] == ring.expected_packets()
        dma.reset()


def test_prune_forgets_rendered_variants_no_ring_plays():
    board, dma, seq = rig()
    a = seq.compile(Circuit().append("rx", theta=0.3).append("rx", theta=0.7))
    b = seq.compile(Circuit().append("rx", theta=0.3))
    stored = seq.stats()["bytes_stored"]
    seq.free(a)
    assert seq.prune() == {"segments": 1, "bytes": 1024}  # rx(0.7) went, rx(0.3) is still played by b
    assert seq.stats()["bytes_stored"] == stored - 1024
    b.play()
    b.wait()
    assert board.mm2s_sink.packets() == b.expected_packets()
    again = seq.compile(Circuit().append("rx", theta=0.7))   # rendered again on demand
    assert again.gate_bytes.tolist() == [1024]


def test_arm_then_start_by_hand_like_the_rpu():
    board, dma, seq = rig()
    ring = seq.compile(Circuit().append("ms").append("measure"))
    for _ in range(2):                                    # second pass: arm() reclaims and rearms
        board.mm2s_sink.clear()
        dma.mm2s.halt()
        ring.arm()
        tail = ring.ring.prepare()
        assert tail == ring.tail_address
        dma.mm2s.write_tail(tail)
        board.run_until_quiet()
        assert board.mm2s_sink.packets() == ring.expected_packets()


@pytest.mark.parametrize("seed,n", [(0, 2000), (1, 2000), (2, 2000), (3, 2000), (0, 300), (3, 300)])
def test_unique_rows_is_numpys_unique_over_rows(seed, n):
    """The compiler's factorization (counting small integers, constant columns, sorted values, then codes;
    one lexicographic sort for few rows) against np.unique(axis=0): same distinct rows in the same order,
    same inverse."""
    from sgdma.sequence.compiler import unique_rows

    rng = np.random.default_rng(seed)
    keys = np.stack([rng.integers(0, 7, n).astype(float),                      # gate ids
                     rng.choice([np.pi / 2, -np.pi / 2, np.pi, 0.0, -0.0], n),  # angles, +-0
                     np.full(n, 3.0),                                          # a constant column
                     rng.integers(-3, 3, n) * 1e9], axis=1)                    # negative, large
    if seed == 3:
        keys[:, 0] = rng.integers(0, 10**6, n)                                 # sparse ids: not counted
    want_u, want_inv = np.unique(keys, axis=0, return_inverse=True)
    got_u, got_inv = unique_rows(keys)
    assert np.array_equal(got_u, want_u) and np.array_equal(got_inv, want_inv.reshape(-1))


def test_plain_gate_lists_load_in_columns_exactly_as_entry_by_entry():
    """A file of plain gates takes the columnar path; entries it cannot take (text angles, qubit pairs, an
    rb block, a bad qubit) take the per-entry path; both give the same columns, and errors still name the entry."""
    from sgdma.sequence.errors import CircuitError

    rng = np.random.default_rng(0)
    gates = []
    for k in range(300):
        e = {"gate": str(rng.choice(["rx", "ry", "rz", "measure"]))}
        if e["gate"] != "measure":
            e["theta"] = float(rng.choice([np.pi / 2, -np.pi / 2, np.pi])) if k % 7 else int(k % 3)
        if k % 5:
            e["qubit"] = int(k % 2)
        if k % 11 == 0:
            e = {"gate": "ms", "qubits": [0, 1]}
        gates.append(e)
    plain = Circuit.from_dict({"circuit": {"name": "p"}, "gates": gates})
    assert plain._blocks and not plain._pending                     # the columnar path was taken
    slow = Circuit("p")
    for i, e in enumerate(gates):
        slow._append_entry(i, dict(e))
    a, b = plain.columns(), slow.columns()
    assert a.gate_names == b.gate_names and a.param_names == b.param_names
    assert np.array_equal(a.gate_ids, b.gate_ids) and np.array_equal(a.qubits, b.qubits)
    assert np.array_equal(a.params, b.params, equal_nan=True)
    for bad, match in ((dict(gates[1], qubit=-1), r"gates\[1\]: qubits -1"),
                       (dict(gates[1], theta=float("inf")), r"gates\[1\].*not finite"),
                       (dict(gates[1], theta=True), r"gates\[1\].*boolean"),
                       ({"gate": "ms", "qubits": [1, 1]}, r"gates\[1\].*distinct")):
        with pytest.raises(CircuitError, match=match):
            Circuit.from_dict({"gates": [gates[0], bad]})
    mixed = Circuit.from_dict({"gates": [gates[0], {"gate": "rx", "theta": "pi/2", "qubit": 0}]})
    assert mixed.columns().params[1, 0] == pytest.approx(np.pi / 2)
