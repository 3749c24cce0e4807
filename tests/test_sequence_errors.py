"""Bad input to the sequence layer: each refused with the values involved and a fix."""
import dataclasses
import re

import numpy as np
import pytest

import sgdma
from sgdma.hw.layout import Layout
from sgdma.sequence import (Circuit, CircuitError, LibraryError, MemoryMap, RegionExhaustedError, RingBusyError,
                            SegmentLimitError, Sequencer, SegmentStore, StaleRingError, UnknownGateError,
                            UnknownSegmentError, WordSizeError)


@pytest.fixture
def seq():
    board = sgdma.VirtualBoard("zcu111", seed=1)
    dma = sgdma.AxiDma(board)
    dma.reset()
    return Sequencer(board, dma)


def test_unknown_gate_lists_close_names(seq):
    with pytest.raises(UnknownGateError) as e:
        seq.compile(Circuit().append("rx").append("rxx").append("ms"))
    msg = str(e.value)
    assert "'rxx'" in msg and "application #1" in msg and "did you mean 'rx'" in msg
    assert "measure" in msg                                 # the whole list, for the fix


def test_unknown_segment_in_a_gate(seq):
    seq.library.add_gate("bad", ["gaus"])
    with pytest.raises(UnknownSegmentError, match=r"'gaus'.*did you mean 'gauss'"):
        seq.compile(Circuit().append("bad"))


def test_word_size_mismatch_names_the_word(seq):
    with pytest.raises(WordSizeError) as e:
        seq.add_segment("x", np.zeros(40, np.uint8))
    assert "40 bytes" in str(e.value) and "32-byte" in str(e.value) and "pad to 64" in str(e.value)
    with pytest.raises(WordSizeError, match="rows of 16 bytes.*32 bytes"):
        seq.add_segment("y", np.zeros((4, 16), np.uint8))
    with pytest.raises(WordSizeError, match="empty"):
        seq.add_segment("z", b"")


def test_segment_that_cannot_be_cut_under_the_limit_is_refused():
    board = sgdma.VirtualBoard("zcu111")
    store = SegmentStore(MemoryMap(board).segments, word_bytes=32, max_bd_bytes=31)
    with pytest.raises(SegmentLimitError) as e:
        store.add("s", np.zeros(64, np.uint8))
    assert "31 bytes" in str(e.value) and "32-byte" in str(e.value) and "length_width" in str(e.value)


def test_segment_region_exhausted_names_region_sizes_and_hole():
    board = sgdma.VirtualBoard("zcu111")
    lay = dataclasses.replace(Layout.of(board), buffer_bytes=4096)
    seq = Sequencer(board, library=None, layout=lay)
    seq.add_segment("a", np.zeros(2048, np.uint8))
    seq.add_segment("b", np.ones(1024, np.uint8))
    with pytest.raises(RegionExhaustedError) as e:
        seq.add_segment("c", np.full(2048, 2, np.uint8))
    err = e.value
    assert (err.region, err.requested, err.free, err.largest_hole) == ("segment region", 2048, 1024, 1024)
    assert "segment region: cannot allocate 2048 bytes; free 1024 bytes, largest hole 1024 bytes" in str(err)
    assert "buffer_region_bytes" in str(err)
    assert "c" not in seq.segments                          # nothing half-stored


def test_ring_region_exhausted(seq):
    n = seq.memory.max_bds + 1
    with pytest.raises(RegionExhaustedError, match=f"{n} BDs.*holds 65536"):
        seq.compile(Circuit().extend(["rz"], np.zeros(n, int), {"theta": np.zeros(n)}))
    half = Circuit().extend(["rz"], np.zeros(40_000, int), {"theta": np.zeros(40_000)})
    seq.compile(half)
    with pytest.raises(RegionExhaustedError) as e:
        seq.compile(half)
    assert e.value.region == "BD-ring region" and e.value.requested == 40_000 * 64
    assert e.value.largest_hole == (65536 - 40_000) * 64 and "Sequencer.free" in str(e.value)


def test_parameters_checked_per_gate(seq):
    with pytest.raises(CircuitError, match=r"application #1: gate 'ms' has no parameter 'phi'"):
        seq.compile(Circuit().append("rx").append("ms", phi=1.0))
    with pytest.raises(CircuitError, match=r"gate 'ms' acts on 2 qubit\(s\), given 1"):
        seq.compile(Circuit().append("ms", 3))
    with pytest.raises(CircuitError, match=r"n = 2.5 must be a whole number"):
        seq.compile(Circuit().append("idle", n=2.5))
    with pytest.raises(CircuitError, match=r"ms\(theta=1.5708\).*amplitude 1 > 1.0|ms\(theta=3.14159\)"):
        seq.compile(Circuit().append("ms", theta="pi"))
    seq.library.add_gate("needs", ["gauss"], params={"k": None})
    with pytest.raises(CircuitError, match="needs parameter 'k'"):
        seq.compile(Circuit().append("needs"))
    with pytest.raises(ValueError, match="cannot read 'half pi'"):
        Circuit().append("rx", theta="half pi")


def test_stale_handle_and_busy_ring(seq):
    ring = seq.compile(Circuit().append("rx"), cyclic=True)
    ring.play()
    with pytest.raises(RingBusyError, match="playing"):
        seq.free(ring)
    other = seq.compile(Circuit().append("ry"))
    with pytest.raises(RingBusyError, match=f"playing ring #{ring.id}.*cyclically.*dma.reset"):
        other.play()
    with pytest.raises(RingBusyError, match="never goes idle"):
        ring.wait()
    seq.dma.reset()
    seq.free(ring)
    with pytest.raises(StaleRingError) as e:
        ring.play()
    assert f"#{ring.id} epoch {ring.epoch}" in str(e.value) and "Sequencer.compile()" in str(e.value)


def test_bad_library_definitions():
    from sgdma.sequence import GateLibrary

    lib = GateLibrary()
    with pytest.raises(LibraryError, match="no segments"):
        lib.add_gate("empty", [])
    with pytest.raises(LibraryError, match=r"uses parameter\(s\) \['theta'\]"):
        lib.add_gate("rx", [{"waveform": "gauss", "scale_by": "theta"}])
    with pytest.raises(LibraryError, match="unknown shape 'sine'"):
        lib.add_waveform("w", shape="sine", samples=4)
    with pytest.raises(LibraryError, match="unknown keys"):
        GateLibrary.from_dict({"gates": {"g": {"segments": ["a"], "duration": 3}}})
    with pytest.raises(LibraryError, match="defined twice"):
        GateLibrary.from_dict({"waveforms": {"a": {"shape": "zero", "samples": 8}}, "segments": {"a": {"u8": [0]}}})


def test_rebuild_with_a_bad_circuit_keeps_the_old_ring(seq):
    ring = seq.compile(Circuit().append("rx"))
    with pytest.raises(UnknownGateError):
        seq.rebuild(ring, Circuit().append("nope"))
    assert not ring.stale
    ring.play()
    ring.wait()
    assert seq.board.mm2s_sink.packets() == ring.expected_packets()


def test_playback_on_a_board_without_a_cpu_names_the_boards_that_have_one():
    """The list comes from the presets themselves: every preset file with a [cpu.apu] table, read here directly."""
    from pathlib import Path

    from click.testing import CliRunner

    from sgdma.cli import main
    from sgdma.hw import presets

    def has_apu(name):
        doc = presets.load(presets.path(name))          # includes and aliases resolved
        return isinstance(doc.get("cpu", {}).get("apu"), dict)

    expected = sorted(n for n in presets.names() if has_apu(n))
    assert {"zedboard", "pynq-z2", "e310"} <= set(expected)          # the new Zynq-7000 boards have an APU
    example = Path(sgdma.__file__).parent / "data" / "example_circuit.toml"
    r = CliRunner().invoke(main, ["run", "--board", "pg021", str(example)])
    assert r.exit_code == 2
    listed = r.output.split("boards with one:")[1].split()
    assert sorted(x.strip(",") for x in listed) == expected


@pytest.mark.parametrize("bad", [True, False, 1.0, 1.5, "0", [0, True], [0.0, 1]])
def test_a_qubit_must_be_a_whole_number_not_a_bool_float_or_text(bad):
    # bool is an int subclass and int() truncates floats: both used to be taken as a qubit index silently
    with pytest.raises(CircuitError, match=r"a qubit is a whole number.*qubit = 0"):
        Circuit().append("rx", bad, theta=1.0)


@pytest.mark.parametrize("text", ["qubit = true", "qubit = 1.0", "qubit = \"1\"", "qubits = [0, false]"])
def test_a_circuit_file_with_a_non_integer_qubit_is_refused_naming_the_entry(tmp_path, text):
    f = tmp_path / "c.toml"
    f.write_text(f'[[gates]]\ngate = "rx"\nqubit = 0\ntheta = 1.0\n\n[[gates]]\ngate = "rx"\n{text}\ntheta = 1.0\n')
    with pytest.raises(CircuitError, match=r"gates\[1\].*a qubit is a whole number"):
        Circuit.from_file(f)


def test_integer_qubits_of_any_integer_type_still_work():
    c = Circuit().append("rx", np.int64(2), theta=1.0).append("ms", [np.int32(1), 3])
    assert c.columns().qubits.tolist() == [[2, -1], [1, 3]]


@pytest.mark.parametrize("qubits,shown", [([1.5], "1.5"), ([True], "True"), (["0"], "'0'"), ([40000], "40000"),
                                          (np.array([40000]), "40000"), ([-5], "-5"), (np.array([0.5]), "0.5")])
def test_extend_refuses_qubits_that_are_not_whole_numbers_in_range(qubits, shown):
    """The bulk path (extend) casts to int16: 1.5 became qubit 1, True qubit 1, "0" qubit 0 and 40000 wrapped
    to -25536 (or raised numpy's OverflowError) — the same rule as append's, with a CircuitError naming it."""
    with pytest.raises(CircuitError, match=f"extend: qubit {re.escape(shown)} .*whole number"):
        Circuit("x").extend(["rx"], [0], {"theta": [1.0]}, qubits=qubits)


def test_extend_takes_integer_qubit_rows_and_none_markers():
    c = Circuit("x").extend(["rx", "ms"], [0, 1, 1], {"theta": [1.0, np.nan, np.nan]},
                            qubits=np.array([[3, -1], [0, 1], [2, 5]], np.int64))
    assert c.columns().qubits.tolist() == [[3, -1], [0, 1], [2, 5]]
    with pytest.raises(CircuitError, match="3 qubit values for 2 applications"):
        Circuit("x").extend(["rx"], [0, 0], {"theta": [1.0, 1.0]}, qubits=[0, 1, 2])
    with pytest.raises(CircuitError, match="application 1 names qubit 4 twice"):
        Circuit("x").extend(["ms"], [0, 0], qubits=[[0, 1], [4, 4]])


def test_qubits_as_a_range_a_generator_or_a_0d_array_still_work():
    """Any sequence of whole numbers names qubits, as before the whole-number rule (range(2) was refused as
    "not a bool, a float or text"); a 0-d array is one value; a dict is no list of qubits."""
    c = Circuit().append("ms", range(2)).append("ms", (q for q in (3, 1))).append("rx", np.array(4), theta=1.0)
    assert c.columns().qubits.tolist() == [[0, 1], [3, 1], [4, -1]]
    for bad in (np.array(1.5), {0: 1}):
        with pytest.raises(CircuitError, match="a qubit is a whole number"):
            Circuit().append("rx", bad, theta=1.0)
