"""A run's timeline, written for GTKWave (VCD, via pyvcd) and for Perfetto / chrome://tracing (JSON).

Tracks are the actors of a run (APU, RPU, DMA, DAC, ...).  A span is something
an actor does from t0 to t1; an instant is a point event (an underflow).  Times
are virtual nanoseconds of the board.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Span:
    track: str
    name: str
    t0_ns: float
    t1_ns: float
    args: dict = field(default_factory=dict)


@dataclass
class Instant:
    track: str
    name: str
    t_ns: float
    args: dict = field(default_factory=dict)


@dataclass
class Timeline:
    spans: list[Span] = field(default_factory=list)
    instants: list[Instant] = field(default_factory=list)
    tracks: list[str] = field(default_factory=list)

    def _track(self, track: str) -> None:
        if track not in self.tracks:
            self.tracks.append(track)

    def span(self, track: str, name: str, t0_ns: float, t1_ns: float, **args) -> None:
        self._track(track)
        self.spans.append(Span(track, name, float(t0_ns), float(max(t0_ns, t1_ns)), args))

    def instant(self, track: str, name: str, t_ns: float, **args) -> None:
        self._track(track)
        self.instants.append(Instant(track, name, float(t_ns), args))

    # -- Perfetto / chrome://tracing -------------------------------------------------
    def perfetto(self) -> dict:
        tid = {t: i + 1 for i, t in enumerate(self.tracks)}
        events = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "sgdma virtual board"}}]
        events += [{"ph": "M", "name": "thread_name", "pid": 1, "tid": tid[t], "args": {"name": t}}
                   for t in self.tracks]
        events += [{"ph": "X", "name": s.name, "pid": 1, "tid": tid[s.track], "ts": s.t0_ns / 1e3,
                    "dur": (s.t1_ns - s.t0_ns) / 1e3, "args": s.args} for s in self.spans]
        events += [{"ph": "i", "s": "t", "name": i.name, "pid": 1, "tid": tid[i.track], "ts": i.t_ns / 1e3,
                    "args": i.args} for i in self.instants]
        return {"traceEvents": events, "displayTimeUnit": "ns",
                "otherData": {"time": "virtual time of the sgdma board (ts in microseconds)"}}

    def write_perfetto(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.perfetto()))
        return path

    # -- VCD for GTKWave ----------------------------------------------------------------
    def write_vcd(self, path: str | Path) -> Path:
        """One string signal per track (the current span's name, empty when idle), a
        busy wire per track, and a pulse wire per instant kind."""
        from vcd import VCDWriter

        path = Path(path)
        changes: list[tuple[int, int, str, object]] = []   # (ps, order, signal, value)
        for s in self.spans:
            changes.append((round(s.t0_ns * 1e3), 1, s.track, s.name))
            changes.append((round(s.t1_ns * 1e3), 0, s.track, ""))
        kinds = sorted({i.name.split()[0] for i in self.instants})
        for i in self.instants:
            t = round(i.t_ns * 1e3)
            changes.append((t, 1, "!" + i.name.split()[0], 1))
            changes.append((t + 1000, 0, "!" + i.name.split()[0], 0))
        changes.sort(key=lambda c: (c[0], c[1]))
        with open(path, "w") as f, VCDWriter(f, timescale="1 ps", date="virtual time",
                                             comment="sgdma virtual board timeline") as w:
            names = {t: w.register_var("sgdma", _ident(t), "string", init="") for t in self.tracks}
            busy = {t: w.register_var("sgdma", _ident(t) + "_busy", "wire", size=1, init=0) for t in self.tracks}
            pulses = {k: w.register_var("sgdma", _ident(k), "wire", size=1, init=0) for k in kinds}
            depth = {t: 0 for t in self.tracks}
            last_t = 0
            for t, _, sig, value in changes:
                t = max(t, last_t)
                last_t = t
                if sig.startswith("!"):
                    w.change(pulses[sig[1:]], t, value)
                    continue
                depth[sig] += 1 if value else -1
                w.change(names[sig], t, value if value else "")
                w.change(busy[sig], t, 1 if depth[sig] > 0 else 0)
        return path


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name.lower())
