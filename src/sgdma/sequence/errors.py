"""Exceptions of the sequence layer: each names the values involved and a fix.

Every class carries ``fix`` (what to do about it); the message ends with it too,
so a traceback alone tells the user what went wrong and how to proceed.
"""
from __future__ import annotations


class SequenceError(Exception):
    """Base class of every sequence-layer error."""

    fix: str = ""

    def __init__(self, message: str, fix: str = ""):
        self.fix = fix
        super().__init__(f"{message}; fix: {fix}" if fix else message)


def did_you_mean(words, known) -> str:
    """'did you mean 'qubit'? ' for the closest known names to any of ``words`` ('' when none is close)."""
    import difflib

    close = []
    for w in words:
        close += [c for c in difflib.get_close_matches(str(w), sorted(known), n=2, cutoff=0.6) if c not in close]
    return f"did you mean {', '.join(repr(c) for c in close)}? " if close else ""


class LibraryError(SequenceError, ValueError):
    """A gate library (file, dict or Python call) is malformed."""


class CircuitError(SequenceError, ValueError):
    """A circuit is malformed or asks a gate for something it cannot do."""


class UnknownGateError(SequenceError, LookupError):
    """A circuit names a gate the library does not define."""

    def __init__(self, name: str, known: list[str], where: str = ""):
        import difflib

        self.name, self.known = name, sorted(known)
        close = difflib.get_close_matches(name, self.known, n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(repr(c) for c in close)}? " if close else ""
        super().__init__(f"unknown gate {name!r}{where}",
                         f"{hint}the library defines: {', '.join(self.known) or '(none)'}")


class UnknownSegmentError(SequenceError, LookupError):
    """A name is neither a stored segment nor a waveform of the library."""

    def __init__(self, name: str, known: list[str], where: str = ""):
        import difflib

        self.name = name
        close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(repr(c) for c in close)}? " if close else ""
        super().__init__(f"unknown segment {name!r}{where}",
                         f"{hint}add it with Sequencer.add_segment() or define it under [waveforms] / [segments]")


class WordSizeError(SequenceError, ValueError):
    """Segment data is not a whole number of stream words."""


class SegmentLimitError(SequenceError, ValueError):
    """A segment cannot be cut into legal BDs under the board's BD length limit."""


class RegionExhaustedError(SequenceError, MemoryError):
    """A memory-map region has no hole large enough."""

    def __init__(self, region: str, requested: int, free: int, largest_hole: int, fix: str):
        self.region, self.requested, self.free, self.largest_hole = region, requested, free, largest_hole
        super().__init__(f"{region}: cannot allocate {requested} bytes; free {free} bytes, "
                         f"largest hole {largest_hole} bytes", fix)


class RingBusyError(SequenceError, RuntimeError):
    """The operation needs the ring stopped, but the DMA is playing it."""


class RecalibrationRaceError(RingBusyError):
    """A segment was recalibrated while a ring that reads it is playing."""


class StaleRingError(SequenceError, RuntimeError):
    """A ring handle whose ring was freed or rebuilt was used."""
