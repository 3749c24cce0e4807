"""Waveform templates rendered into stream words.

Samples are I/Q pairs of little-endian int16 (4 bytes), packed back to back into
stream words: 8 samples per 32-byte word on the ZCU111.  A pulse is padded with
zero samples to a whole word.  ``shape = "phase"`` is not a waveform but a
parameter word for the PL: a virtual Z rotation that advances the qubit's phase
accumulator (magic ``PHAS``, then the phase as an unsigned 32-bit fraction of a
turn), padded to a whole word.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

SAMPLE_BYTES = 4                     # int16 I + int16 Q
FULL_SCALE = 32767                   # int16 amplitude 1.0
PHASE_MAGIC = int.from_bytes(b"PHAS", "little")
SHAPES = ("gaussian", "flat_top", "flat", "ramp_up", "ramp_down", "zero", "phase")


@dataclass(frozen=True)
class Waveform:
    """A pulse template; ``render`` scales and phases it into words."""

    name: str
    shape: str
    samples: int = 0
    amplitude: float = 1.0       # of full scale, at scale 1
    phase_deg: float = 0.0
    sigma: float = 0.15          # gaussian: sigma as a fraction of the length
    rise: int = 0                # flat_top: samples of each cosine edge

    def __post_init__(self):
        if self.shape not in SHAPES:
            raise ValueError(f"waveform {self.name!r}: unknown shape {self.shape!r}; shapes: {', '.join(SHAPES)}")
        if self.shape != "phase" and self.samples < 1:
            raise ValueError(f"waveform {self.name!r}: samples = {self.samples}; a {self.shape} pulse needs >= 1")
        if not 0 <= abs(self.amplitude) <= 1:
            raise ValueError(f"waveform {self.name!r}: amplitude {self.amplitude} is outside [-1, 1] of full scale")
        if self.shape == "flat_top" and not 0 <= 2 * self.rise <= self.samples:
            raise ValueError(f"waveform {self.name!r}: rise {self.rise} x 2 exceeds {self.samples} samples")
        if self.shape == "gaussian" and self.sigma <= 0:
            raise ValueError(f"waveform {self.name!r}: sigma must be > 0 (a fraction of the length)")

    @classmethod
    def from_dict(cls, name: str, d: dict) -> "Waveform":
        known = {f.name for f in fields(cls)} - {"name"}
        extra = set(d) - known
        if extra:
            raise ValueError(f"waveform {name!r}: unknown keys {sorted(extra)}; known: {sorted(known)}")
        if "shape" not in d:
            raise ValueError(f"waveform {name!r} has no shape; shapes: {', '.join(SHAPES)}")
        return cls(name=name, **d)

    def replace(self, **changes) -> "Waveform":
        return Waveform.from_dict(self.name, {**{f.name: getattr(self, f.name) for f in fields(self)
                                                 if f.name != "name"}, **changes})

    def envelope(self) -> np.ndarray:
        """Unit-peak envelope, float64, one value per sample."""
        n = self.samples
        k = np.arange(n, dtype=np.float64)
        if self.shape == "gaussian":
            t = (k - (n - 1) / 2) / n
            return np.exp(-0.5 * (t / self.sigma) ** 2)
        if self.shape == "flat":
            return np.ones(n)
        if self.shape == "zero":
            return np.zeros(n)
        if self.shape == "ramp_up":
            return _cosine_edge(n)
        if self.shape == "ramp_down":
            return _cosine_edge(n)[::-1].copy()
        env = np.ones(n)                   # flat_top
        if self.rise:
            edge = _cosine_edge(self.rise)
            env[:self.rise], env[n - self.rise:] = edge, edge[::-1]
        return env

    def render(self, word_bytes: int, scale: float = 1.0, phase_rad: float = 0.0) -> np.ndarray:
        """Words (n, word_bytes) uint8: amplitude x ``scale``, phase + ``phase_rad``."""
        phase = math.radians(self.phase_deg) + phase_rad
        if self.shape == "phase":
            return phase_word(phase, word_bytes)
        amp = self.amplitude * scale
        if abs(amp) > 1 + 1e-12:
            raise ValueError(f"waveform {self.name!r} scaled by {scale:.6g} reaches amplitude {amp:.4g} "
                             f"> 1.0 of int16 full scale (its amplitude {self.amplitude:g} allows scales up to "
                             f"{1 / abs(self.amplitude):.4g})")
        env = self.envelope() * (amp * FULL_SCALE)
        return pack_iq(np.rint(env * math.cos(phase)), np.rint(env * math.sin(phase)), word_bytes)


def _cosine_edge(n: int) -> np.ndarray:
    """Half-cosine rise over n samples (no step at either end: no spectral splatter)."""
    return 0.5 * (1 - np.cos(np.pi * (np.arange(n) + 0.5) / n))


def pack_iq(i: np.ndarray, q: np.ndarray, word_bytes: int) -> np.ndarray:
    """Interleave int16 I/Q into stream words, zero-padded to a whole word."""
    per_word = max(1, word_bytes // SAMPLE_BYTES)
    n = len(i)
    padded = -(-n // per_word) * per_word
    iq = np.zeros((padded, 2), np.int16)
    iq[:n, 0] = np.clip(i, -FULL_SCALE, FULL_SCALE)
    iq[:n, 1] = np.clip(q, -FULL_SCALE, FULL_SCALE)
    return pack_words(iq.astype("<i2"), word_bytes)


def pack_words(data, word_bytes: int) -> np.ndarray:
    """Any array's bytes as (n, word_bytes) uint8, zero-padded to a whole word."""
    raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    out = np.zeros(-(-raw.size // word_bytes) * word_bytes, np.uint8)
    out[:raw.size] = raw
    return out.reshape(-1, word_bytes)


def phase_word(phase_rad: float, word_bytes: int) -> np.ndarray:
    """The PL's phase-advance parameter: magic, phase as a u32 fraction of a turn."""
    turn = (phase_rad / (2 * math.pi)) % 1.0
    return pack_words(np.array([PHASE_MAGIC, int(round(turn * 2**32)) & 0xFFFFFFFF], "<u4"), word_bytes)


def unpack_iq(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(I, Q) int16 sample arrays of waveform words (for inspection and tests)."""
    iq = np.ascontiguousarray(words).reshape(-1).view("<i2").reshape(-1, 2)
    return iq[:, 0], iq[:, 1]
