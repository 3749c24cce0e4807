"""Recalibration in place: the next pass plays the new data; lengths relink BDs; racing playback is refused."""
import numpy as np
import pytest

import sgdma
from sgdma.sequence import Circuit, RecalibrationRaceError, Sequencer, WordSizeError


def rig(preset="zcu111", library=None):
    board = sgdma.VirtualBoard(preset, seed=5)
    dma = sgdma.AxiDma(board)
    dma.reset()
    seq = Sequencer(board, dma, library=library)
    return board, dma, seq


def data(n_bytes, salt):
    return ((np.arange(n_bytes) * 7 + salt * 31 + 1) % 256).astype(np.uint8)


def one_pass(board, handle):
    board.mm2s_sink.clear()
    handle.play()
    handle.wait()
    return board.mm2s_sink.packets()


@pytest.fixture
def pulses():
    """Two gates sharing segment "p": g1 = p, g2 = head + p + p."""
    board, dma, seq = rig()
    seq.add_segment("p", data(256, 1))
    seq.add_segment("head", data(64, 2))
    seq.library.add_gate("g1", ["p"])
    seq.library.add_gate("g2", ["head", "p", "p"])
    ring = seq.compile(Circuit().append("g1").append("g2").append("g1"))
    return board, dma, seq, ring


def test_same_length_rewrites_the_buffer_in_place(pulses):
    board, dma, seq, ring = pulses
    p, head = bytes(data(256, 1)), bytes(data(64, 2))
    assert one_pass(board, ring) == [p, head + p + p, p]
    address = seq.segments["p"].address
    report = seq.recalibrate("p", data(256, 9))
    assert report == {"segments": {"p": "in-place"}, "rings": [ring.id], "bds_rewritten": 0}
    assert seq.segments["p"].address == address
    q = bytes(data(256, 9))
    assert one_pass(board, ring) == [q, head + q + q, q]


def test_changed_length_relinks_the_affected_bds(pulses):
    board, dma, seq, ring = pulses
    one_pass(board, ring)
    report = seq.recalibrate("p", data(480, 4))
    assert report["segments"] == {"p": "moved"} and report["bds_rewritten"] == 4   # the 4 BDs that play p
    q, head = bytes(data(480, 4)), bytes(data(64, 2))
    assert ring.gate_bytes.tolist() == [480, 64 + 960, 480]
    got = one_pass(board, ring)
    assert [len(x) for x in got] == [480, 1024, 480]
    assert got == [q, head + q + q, q]
    assert got == ring.expected_packets()


def test_recalibrating_an_alias_leaves_the_other_name():
    board, dma, seq = rig()
    seq.add_segment("a", data(64, 1))
    seq.add_segment("b", data(64, 1))                      # same bytes: one buffer, two names
    seq.library.add_gate("ga", ["a"])
    seq.library.add_gate("gb", ["b"])
    ring = seq.compile(Circuit().append("ga").append("gb"))
    report = seq.recalibrate("a", data(64, 2))
    assert report["segments"] == {"a": "moved"}            # shared buffer: a gets its own
    assert one_pass(board, ring) == [bytes(data(64, 2)), bytes(data(64, 1))]
    assert seq.segments.counters()["unique"] == 2
    seq.recalibrate("a", data(64, 1))                      # back to b's bytes: shared again
    assert seq.segments.counters()["unique"] == 1


def test_bd_count_change_lays_the_ring_out_again_pg021():
    board, dma, seq = rig("pg021")                         # 16 383-byte BD limit
    seq.add_segment("long", data(16000, 1))
    seq.library.add_gate("g", ["long"])
    ring = seq.compile(Circuit().append("g").append("g"))
    assert ring.n_bds == 2
    one_pass(board, ring)
    seq.recalibrate("long", data(40000, 2))                # now 3 pieces per use
    assert ring.n_bds == 6 and not ring.stale
    assert one_pass(board, ring) == [bytes(data(40000, 2))] * 2


def test_every_ring_that_plays_the_segment_follows():
    board, dma, seq = rig()
    seq.add_segment("p", data(128, 1))
    seq.library.add_gate("g", ["p"])
    a = seq.compile(Circuit().append("g"))
    b = seq.compile(Circuit(repeat=2).append("g"))
    assert seq.recalibrate("p", data(160, 3))["rings"] == [a.id, b.id]
    assert one_pass(board, a) == [bytes(data(160, 3))]
    assert one_pass(board, b) == [bytes(data(160, 3))] * 2


def test_recalibration_racing_a_cyclic_ring_is_refused_then_applies_after_reset():
    board, dma, seq = rig()
    seq.add_segment("p", data(256, 1))
    seq.library.add_gate("g", ["p"])
    ring = seq.compile(Circuit().append("g"), cyclic=True)
    ring.play()
    board.advance(5_000)
    before = bytes(seq.segments.data("p"))
    with pytest.raises(RecalibrationRaceError) as e:
        seq.recalibrate("p", data(256, 7))
    msg = str(e.value)
    assert f"#{ring.id}" in msg and "cyclic" in msg and "dma.reset()" in msg
    assert bytes(seq.segments.data("p")) == before         # nothing changed
    dma.reset()
    seq.recalibrate("p", data(256, 7))
    board.mm2s_sink.clear()
    ring.play()
    board.advance(5_000)
    got = board.mm2s_sink.packets()
    assert len(got) >= 2 and set(got) == {bytes(data(256, 7))}


def test_recalibration_racing_a_one_shot_pass_is_refused():
    board, dma, seq = rig()
    seq.add_segment("p", data(8192, 1))
    seq.library.add_gate("g", ["p"])
    ring = seq.compile(Circuit(repeat=50).append("g"))
    ring.play()                                            # submitted, not waited for
    with pytest.raises(RecalibrationRaceError, match=r"one-shot"):
        seq.recalibrate("p", data(8192, 2))
    ring.wait()
    seq.recalibrate("p", data(8192, 2))                    # idle now: fine
    assert one_pass(board, ring)[0] == bytes(data(8192, 2))


def test_a_prepared_ring_counts_as_playing():
    board, dma, seq = rig()
    seq.add_segment("p", data(64, 1))
    seq.library.add_gate("g", ["p"])
    ring = seq.compile(Circuit().append("g"))
    tail = ring.prepare()                                  # RPU style: tail written later
    with pytest.raises(RecalibrationRaceError):
        seq.recalibrate("p", data(64, 2))
    dma.mm2s.write_tail(tail)
    ring.wait()
    assert board.mm2s_sink.packets() == [bytes(data(64, 1))]


def test_recalibrate_refuses_partial_words_before_touching_anything(pulses):
    board, dma, seq, ring = pulses
    with pytest.raises(WordSizeError, match="32-byte"):
        seq.recalibrate("p", data(250, 3))
    assert one_pass(board, ring)[0] == bytes(data(256, 1))


def test_recalibrate_waveform_rerenders_every_variant():
    board, dma, seq = rig(library="trapped_ion")
    ring = seq.compile(Circuit().append("rx", theta="pi/2").append("ry", theta="pi").append("rx", theta="pi/2"))
    before = one_pass(board, ring)
    report = seq.recalibrate_waveform("gauss", amplitude=0.6)
    assert len(report["segments"]) == 2                     # rx(pi/2) and ry(pi) variants
    gauss = seq.library.waveforms["gauss"]
    assert gauss.amplitude == 0.6
    after = one_pass(board, ring)
    assert after != before
    assert after[0] == gauss.render(32, 0.5).tobytes() == after[2]
    assert after[1] == gauss.render(32, 1.0, np.pi / 2).tobytes()
    # A longer template: lengths change, the BDs follow.
    seq.recalibrate_waveform("gauss", samples=512)
    assert [len(p) for p in one_pass(board, ring)] == [2048] * 3


def test_failed_relayout_puts_everything_back():
    import dataclasses
    from sgdma.hw.layout import Layout
    from sgdma.sequence import RegionExhaustedError

    board = sgdma.VirtualBoard("pg021", seed=5)
    dma = sgdma.AxiDma(board)
    dma.reset()
    seq = Sequencer(board, dma, library=None, layout=dataclasses.replace(Layout.of(board), bd_bytes=64 * 2))
    seq.add_segment("long", data(16000, 1))
    seq.library.add_gate("g", ["long"])
    ring = seq.compile(Circuit().append("g").append("g"))
    with pytest.raises(RegionExhaustedError, match="BD-ring region"):
        seq.recalibrate("long", data(40000, 2))            # 6 BDs would not fit
    assert bytes(seq.segments.data("long")) == bytes(data(16000, 1))
    assert ring.n_bds == 2
    assert one_pass(board, ring) == [bytes(data(16000, 1))] * 2
