"""Gate libraries and circuits from TOML, JSON and Python; angles; randomized benchmarking."""
import json
import math

import numpy as np
import pytest

import sgdma
from sgdma.sequence import (Circuit, GateLibrary, Sequencer, example_circuit_path, parse_value,
                            randomized_benchmarking)
from sgdma.sequence import rb


def test_bundled_library_has_the_trapped_ion_gates():
    lib = GateLibrary.bundled("trapped_ion")
    assert set(lib.names) == {"rx", "ry", "r", "rz", "ms", "measure", "idle"}
    ms = lib.gate("ms")
    assert ms.qubits == 2 and [s.name for s in ms.segments] == ["ms_ramp_up", "ms_flat", "ms_ramp_down"]
    assert ms.params["theta"] == pytest.approx(math.pi / 4)
    assert lib.waveforms["rz_phase"].shape == "phase"


@pytest.mark.parametrize("text,value", [("pi", math.pi), ("-pi/2", -math.pi / 2), ("3*pi/4", 0.75 * math.pi),
                                        ("3pi/4", 0.75 * math.pi), ("90deg", math.pi / 2), ("0.25", 0.25),
                                        (2, 2.0)])
def test_angles_parse(text, value):
    assert parse_value(text) == pytest.approx(value)


def test_library_and_circuit_from_json_dict_and_python(tmp_path):
    lib_doc = {"library": {"name": "tiny"},
               "waveforms": {"blip": {"shape": "flat", "samples": 8, "amplitude": 0.25}},
               "segments": {"marker": {"u32": [0xC0FFEE, 0, 0, 0, 0, 0, 0, 0]}},
               "gates": {"pulse": {"segments": ["marker", {"waveform": "blip", "scale_by": "a", "reference": 1.0}],
                                   "params": {"a": 1.0}}}}
    (tmp_path / "tiny.json").write_text(json.dumps(lib_doc))
    (tmp_path / "c.json").write_text(json.dumps({"circuit": {"library": "tiny.json", "repeat": 2},
                                                 "gates": [{"gate": "pulse"}, {"gate": "pulse", "a": -0.5}]}))
    circuit = Circuit.from_file(tmp_path / "c.json")
    assert circuit.library == str(tmp_path / "tiny.json")             # relative to the circuit file
    from_file = GateLibrary.load(circuit.library)
    from_dict = GateLibrary.from_dict(lib_doc)
    in_python = GateLibrary("tiny")
    in_python.add_waveform("blip", shape="flat", samples=8, amplitude=0.25)
    in_python.add_raw("marker", np.array([0xC0FFEE, 0, 0, 0, 0, 0, 0, 0], "<u4"))
    in_python.add_gate("pulse", ["marker", {"waveform": "blip", "scale_by": "a", "reference": 1.0}], {"a": 1.0})
    outputs = []
    for lib in (from_file, from_dict, in_python):
        board = sgdma.VirtualBoard("zcu111", seed=0)
        dma = sgdma.AxiDma(board)
        dma.reset()
        seq = Sequencer(board, dma, library=lib)
        ring = seq.compile(circuit)
        ring.play()
        ring.wait()
        outputs.append(board.mm2s_sink.packets())
    assert outputs[0] == outputs[1] == outputs[2]
    first, second = outputs[0][:2]
    assert first[:4] == (0xC0FFEE).to_bytes(4, "little") and len(first) == 64
    iq = np.frombuffer(second[32:], "<i2").reshape(-1, 2)
    assert (iq[:, 0] == round(-0.125 * 32767)).all()                  # amplitude 0.25 x (-0.5)
    assert outputs[0][2:] == outputs[0][:2]                           # repeat = 2


def test_example_circuit_file():
    c = Circuit.from_file(example_circuit_path())
    assert c.library == "trapped_ion" and c.repeat == 2
    apps = c.applications()
    assert apps[0].gate == "ry" and apps[0].params == {"theta": pytest.approx(math.pi / 2)}
    assert apps[1].gate == "ms" and apps[1].qubits == (0, 1)
    assert apps[-1].gate == "measure" and apps[-1].qubits == (1,)
    assert {a.gate for a in apps[5:-2]} <= {"rx", "ry"}               # the rb block


def test_circuit_file_errors(tmp_path):
    from sgdma.sequence import CircuitError

    bad = tmp_path / "bad.toml"
    bad.write_text("[[gates]]\ntheta = 1.0\n")
    with pytest.raises(CircuitError, match=r"gates\[0\].*names no gate"):
        Circuit.from_file(bad)
    with pytest.raises(CircuitError, match="cannot read circuit"):
        Circuit.from_file(tmp_path / "missing.toml")


def test_clifford_group_and_rb_inversion():
    mats, table, inverse, (ptr, gate, theta) = rb.clifford_group()
    assert len(mats) == 24 and len(set(m.tobytes() for m in mats)) == 24
    assert (table[np.arange(24), inverse] == 0).all()
    for seed in range(5):
        c = randomized_benchmarking(40, seed=seed, qubit=0)
        cols = c.columns()
        total = np.eye(3, dtype=int)
        for g, t in zip(cols.gate_ids.tolist(), cols.params[:, 0].tolist()):
            total = rb._bloch(cols.gate_names[g], t) @ total
        assert (total == np.eye(3)).all()                             # the sequence undoes itself
        assert (cols.qubits[:, 0] == 0).all()
    a, b = randomized_benchmarking(30, seed=1), randomized_benchmarking(30, seed=1)
    assert np.array_equal(a.columns().gate_ids, b.columns().gate_ids)
    assert not np.array_equal(a.columns().params, randomized_benchmarking(30, seed=2).columns().params)


def test_rb_circuit_dedups_to_the_native_pulses():
    board = sgdma.VirtualBoard("zcu111", seed=0)
    dma = sgdma.AxiDma(board)
    dma.reset()
    seq = Sequencer(board, dma)
    ring = seq.compile(randomized_benchmarking(500, seed=3))
    s = seq.stats()
    assert s["segments_unique"] <= 6                                  # rx/ry at +-pi/2 and pi
    assert s["segments_referenced"] == ring.n_gates > 500
    assert s["dedup_ratio"] > 100
    ring.play()
    ring.wait()
    assert board.mm2s_sink.packets() == ring.expected_packets()
