"""Gate sequences as scatter-gather BD rings over reusable waveform segments.

Layers inside (data flows down)::

    Sequencer        compile / free / rebuild / recalibrate / stats   (sequencer.py)
    RingHandle       a compiled circuit in the BD-ring region, with an epoch   (rings.py)
    compiler         circuit -> variants -> segment ids -> BD arrays (numpy)   (compiler.py)
    GateLibrary      gates as segment lists; Circuit; randomized benchmarking  (gates.py, circuit.py, rb.py)
    SegmentStore     named words, content-addressed, multi-BD pieces           (segments.py)
    MemoryMap        RPMsg area, BD-ring region, segment region               (memory.py)

Typical use::

    board = sgdma.VirtualBoard("zcu111")
    dma = sgdma.AxiDma(board); dma.reset()
    seq = Sequencer(board, dma)                         # bundled trapped-ion library
    ring = seq.compile(Circuit.from_file(example_circuit_path()))
    ring.play(); ring.wait()
    assert board.mm2s_sink.packets() == ring.expected_packets()
"""
from importlib import resources
from pathlib import Path

from sgdma.sequence.circuit import Circuit, GateApplication, randomized_benchmarking
from sgdma.sequence.errors import (CircuitError, LibraryError, RecalibrationRaceError, RegionExhaustedError, RingBusyError,
                     SegmentLimitError, SequenceError, StaleRingError, UnknownGateError, UnknownSegmentError,
                     WordSizeError)
from sgdma.sequence.gates import GateDef, GateLibrary, SegmentRef
from sgdma.sequence.memory import MemoryMap
from sgdma.sequence.params import parse_value
from sgdma.sequence.rings import RingHandle
from sgdma.sequence.segments import Segment, SegmentStore
from sgdma.sequence.sequencer import Sequencer
from sgdma.sequence.waveforms import Waveform, pack_iq, pack_words, unpack_iq


def data_path(name: str) -> Path:
    """A file bundled in sgdma/data (gate libraries, example circuits)."""
    return Path(str(resources.files("sgdma") / "data" / name))


def example_circuit_path() -> Path:
    return data_path("example_circuit.toml")


__all__ = [
    "Sequencer", "RingHandle", "MemoryMap", "SegmentStore", "Segment", "GateLibrary", "GateDef", "SegmentRef",
    "Circuit", "GateApplication", "Waveform", "randomized_benchmarking", "pack_iq", "pack_words", "unpack_iq",
    "parse_value", "data_path", "example_circuit_path",
    "SequenceError", "CircuitError", "LibraryError", "UnknownGateError", "UnknownSegmentError", "WordSizeError",
    "SegmentLimitError", "RegionExhaustedError", "RingBusyError", "RecalibrationRaceError", "StaleRingError",
]
