"""A run's timeline, written for GTKWave (VCD) and for Perfetto / chrome://tracing (JSON).

Tracks are the actors of a run (APU, RPU, DMA, DAC, ...).  A span is something an actor does from t0 to t1; an
instant is a point event (an underflow).  Times are virtual nanoseconds of the board.

A few spans are added one at a time (`span`, `instant`); the per-gate ones arrive as columns (`spans`, `instants`
with arrays), and both writers work on columns: the text is assembled by sgdma.output.textcols, not per event.
The VCD is what pyvcd's VCDWriter writes for the same changes, byte for byte (tests/test_timeline.py compares).
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sgdma.output.textcols import NONE, Text

PULSE_PS = 1000                    # an instant is a 1 ns pulse on its kind's wire


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
class Columns:
    """Many spans (t1 given) or instants (t1 None) of one track: names as codes into a table; numeric args
    as columns (integer columns are written as integers, float columns as nanoseconds to the picosecond)."""

    track: str
    table: list[str]
    code: np.ndarray
    t0_ns: np.ndarray
    t1_ns: np.ndarray | None
    args: dict[str, np.ndarray]

    def __len__(self) -> int:
        return len(self.t0_ns)

    def item(self, i: int):
        args = {k: v[i].item() for k, v in self.args.items()}
        name = self.table[int(self.code[i])]
        if self.t1_ns is None:
            return Instant(self.track, name, float(self.t0_ns[i]), args)
        return Span(self.track, name, float(self.t0_ns[i]), float(self.t1_ns[i]), args)


class _View(Sequence):
    """Spans or instants as objects, made on access from the entries (single objects and column blocks)."""

    def __init__(self, entries: list):
        self._entries = entries

    def __len__(self) -> int:
        return sum(len(e) if isinstance(e, Columns) else 1 for e in self._entries)

    def __iter__(self):
        for e in self._entries:
            if isinstance(e, Columns):
                yield from (e.item(i) for i in range(len(e)))
            else:
                yield e

    def __getitem__(self, i):
        if isinstance(i, slice):
            return list(self)[i]
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        i %= n
        for e in self._entries:
            k = len(e) if isinstance(e, Columns) else 1
            if i < k:
                return e.item(i) if isinstance(e, Columns) else e
            i -= k
        raise IndexError(i)       # pragma: no cover

    def __eq__(self, other) -> bool:
        return list(self) == list(other)


def _names(table, code, n, what: str) -> tuple[list[str], np.ndarray]:
    if isinstance(table, str):
        return [table], np.zeros(n, np.int64)
    table = [str(t) for t in table]
    code = np.zeros(n, np.int64) if code is None else np.asarray(code, np.int64).reshape(-1)
    if len(code) != n:
        raise ValueError(f"{what}: {len(code)} name codes for {n} times")
    if n and (code.min() < 0 or code.max() >= len(table)):
        raise ValueError(f"{what}: a name code outside the table of {len(table)} names")
    return table, code


def _args(args: dict, n: int, what: str) -> dict[str, np.ndarray]:
    out = {}
    for k, v in args.items():
        a = np.asarray(v).reshape(-1)
        if len(a) != n or a.dtype.kind not in "iuf":
            raise ValueError(f"{what}: arg {k!r} must be a numeric column of {n} values")
        out[k] = a
    return out


class Timeline:
    def __init__(self):
        self.tracks: list[str] = []
        self._spans: list = []          # Span | Columns, in the order added
        self._instants: list = []       # Instant | Columns

    @property
    def spans(self) -> _View:
        return _View(self._spans)

    @property
    def instants(self) -> _View:
        return _View(self._instants)

    def _track(self, track: str) -> None:
        if track not in self.tracks:
            self.tracks.append(track)

    def span(self, track: str, name: str, t0_ns: float, t1_ns: float, **args) -> None:
        self._track(track)
        self._spans.append(Span(track, name, float(t0_ns), float(max(t0_ns, t1_ns)), args))

    def instant(self, track: str, name: str, t_ns: float, **args) -> None:
        self._track(track)
        self._instants.append(Instant(track, name, float(t_ns), args))

    def span_columns(self, track: str, names, t0_ns, t1_ns, codes=None, **args) -> None:
        """Spans of one track from columns: ``names`` is one name for all, or a table indexed by ``codes``."""
        t0 = np.asarray(t0_ns, float).reshape(-1)
        t1 = np.maximum(t0, np.asarray(t1_ns, float).reshape(-1))
        if len(t1) != len(t0):
            raise ValueError(f"track {track!r}: {len(t0)} start times, {len(t1)} end times")
        table, code = _names(names, codes, len(t0), f"track {track!r}")
        self._track(track)
        self._spans.append(Columns(track, table, code, t0, t1, _args(args, len(t0), f"track {track!r}")))

    def instant_columns(self, track: str, names, t_ns, codes=None, **args) -> None:
        t = np.asarray(t_ns, float).reshape(-1)
        table, code = _names(names, codes, len(t), f"track {track!r}")
        self._track(track)
        self._instants.append(Columns(track, table, code, t, None, _args(args, len(t), f"track {track!r}")))

    # -- columns of everything -------------------------------------------------------------
    def _flat(self, entries):
        """(track index, global name index, t0 ps, t1 ps or None) over all entries, and the name table."""
        names: dict[str, int] = {}
        tid = {t: i for i, t in enumerate(self.tracks)}
        tracks, codes, t0, t1 = [], [], [], []
        for e in entries:
            if isinstance(e, Columns):
                remap = np.array([names.setdefault(n, len(names)) for n in e.table], np.int64)
                tracks.append(np.full(len(e), tid[e.track], np.int64))
                codes.append(remap[e.code])
                t0.append(e.t0_ns)
                t1.append(e.t1_ns if e.t1_ns is not None else e.t0_ns)
            else:
                tracks.append(np.array([tid[e.track]], np.int64))
                codes.append(np.array([names.setdefault(e.name, len(names))], np.int64))
                t0.append(np.array([e.t0_ns if isinstance(e, Span) else e.t_ns]))
                t1.append(np.array([e.t1_ns if isinstance(e, Span) else e.t_ns]))
        cat = lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt)  # noqa: E731
        return (cat(tracks, np.int64), cat(codes, np.int64), _ps(cat(t0, float)), _ps(cat(t1, float)),
                list(names))

    # -- Perfetto / chrome://tracing -------------------------------------------------
    def perfetto_bytes(self) -> bytes:
        return b"".join(self._perfetto_chunks())

    def _perfetto_chunks(self):
        tid = {t: i + 1 for i, t in enumerate(self.tracks)}
        head = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "sgdma virtual board"}}]
        head += [{"ph": "M", "name": "thread_name", "pid": 1, "tid": tid[t], "args": {"name": t}}
                 for t in self.tracks]
        chunks = [(json.dumps(e) + ", ").encode() for e in head]
        for e in self._spans:
            if isinstance(e, Columns):
                chunks.append(_json_block(e, tid[e.track], "X"))
            else:
                chunks.append((json.dumps({"ph": "X", "name": e.name, "pid": 1, "tid": tid[e.track],
                                           "ts": e.t0_ns / 1e3, "dur": (e.t1_ns - e.t0_ns) / 1e3,
                                           "args": e.args}) + ", ").encode())
        for e in self._instants:
            if isinstance(e, Columns):
                chunks.append(_json_block(e, tid[e.track], "i"))
            else:
                chunks.append((json.dumps({"ph": "i", "s": "t", "name": e.name, "pid": 1, "tid": tid[e.track],
                                           "ts": e.t_ns / 1e3, "args": e.args}) + ", ").encode())
        chunks = [c for c in chunks if c]
        other = json.dumps({"time": "virtual time of the sgdma board (ts in microseconds)"}).encode()
        yield b'{"traceEvents": ['
        yield from chunks[:-1]
        if chunks:
            yield memoryview(chunks[-1])[:-2]           # every event ends with ", "
        yield b'], "displayTimeUnit": "ns", "otherData": ' + other + b"}"

    def perfetto(self) -> dict:
        return json.loads(self.perfetto_bytes())

    def write_perfetto(self, path: str | Path) -> Path:
        path = Path(path)
        with open(path, "wb") as f:
            for chunk in self._perfetto_chunks():
                f.write(chunk)
        return path

    # -- VCD for GTKWave ----------------------------------------------------------------
    def vcd_bytes(self) -> bytes:
        """One string signal per track (the current span's name, empty when idle), a busy wire per track, and
        a pulse wire per instant kind (the instant name's first word).  A span's start sets the name and its
        end clears it; at one time ends come before starts."""
        s_track, s_name, s0, s1, names = self._flat(self._spans)
        i_track, i_name, i_t, _, i_names = self._flat(self._instants)
        kind_of_name = [n.split()[0] for n in i_names]
        kinds = sorted(set(kind_of_name))
        i_kind = np.array([kinds.index(k) for k in kind_of_name], np.int64)[i_name] if len(i_name) else i_name
        n_tracks = len(self.tracks)
        if not names or "" not in names:
            names = names + [""]
        empty = names.index("")
        idents = [_ident(t) for t in self.tracks] + [_ident(t) + "_busy" for t in self.tracks] + \
                 [_ident(k) for k in kinds]
        if len(set(idents)) != len(idents):
            raise ValueError(f"timeline: two signals would share a VCD name ({sorted(idents)}); rename a track")
        codes = [_code(i + 1) for i in range(len(idents))]

        # every change, in the order the spans and instants were added: start, end of each
        n_s, n_i = len(s0), len(i_t)
        t = np.empty(2 * (n_s + n_i), np.int64)
        order = np.empty_like(t)
        sig = np.empty_like(t)          # 0..T-1: a track's name signal; T + k: pulse k
        val = np.empty_like(t)          # name index, or the pulse level
        delta = np.zeros_like(t)        # busy depth change
        t[0:2 * n_s:2], t[1:2 * n_s:2] = s0, s1
        order[0:2 * n_s:2], order[1:2 * n_s:2] = 1, 0
        sig[0:2 * n_s:2] = sig[1:2 * n_s:2] = s_track
        val[0:2 * n_s:2], val[1:2 * n_s:2] = s_name, empty
        delta[0:2 * n_s:2], delta[1:2 * n_s:2] = 1, -1
        t[2 * n_s::2], t[2 * n_s + 1::2] = i_t, i_t + PULSE_PS
        order[2 * n_s::2], order[2 * n_s + 1::2] = 1, 0
        sig[2 * n_s::2] = sig[2 * n_s + 1::2] = n_tracks + i_kind
        val[2 * n_s::2], val[2 * n_s + 1::2] = 1, 0
        srt = np.argsort(t * 2 + order, kind="stable")
        t, sig, val, delta = t[srt], sig[srt], val[srt], delta[srt]
        t = np.maximum.accumulate(t) if len(t) else t
        is_pulse = sig >= n_tracks

        # per signal, in time order: the value before each change (pyvcd writes a change only if it differs)
        by_sig = np.argsort(sig, kind="stable")
        ssig, sval = sig[by_sig], val[by_sig]
        first = np.r_[True, ssig[1:] != ssig[:-1]] if len(ssig) else np.zeros(0, bool)
        init = np.where(ssig >= n_tracks, 0, empty)
        prev = np.where(first, init, np.r_[0, sval[:-1]])
        depth = np.cumsum(delta[by_sig])
        start_of_group = np.maximum.accumulate(np.where(first, np.arange(len(ssig)), 0)) if len(ssig) else ssig
        base = (depth - delta[by_sig])[start_of_group]          # depth before the group's first change
        busy = (depth - base) > 0
        prev_busy = np.where(first, False, np.r_[False, busy[:-1]])
        written = np.empty(len(t), bool)
        written[by_sig] = sval != prev
        busy_now = np.empty(len(t), bool)
        busy_now[by_sig] = busy
        busy_written = np.empty(len(t), bool)
        busy_written[by_sig] = (busy != prev_busy) & (ssig < n_tracks)

        # changes at time 0 come before the header is finished: they set the $dumpvars values instead
        values0 = [""] * n_tracks + [0] * n_tracks + [0] * len(kinds)
        z = np.flatnonzero(t == 0)
        for k in z:
            s = int(sig[k])
            if s < n_tracks:
                values0[s] = names[int(val[k])]
                values0[n_tracks + s] = int(busy_now[k])
            else:
                values0[n_tracks + s] = int(val[k])
        written &= t > 0
        busy_written &= t > 0

        header = ["$comment sgdma virtual board timeline $end", "$date virtual time $end", "$timescale 1 ps $end"]
        if idents:
            header.append("$scope module sgdma $end")
            kinds_of = ["string"] * n_tracks + ["wire"] * (n_tracks + len(kinds))
            header += [f"$var {k} 1 {c} {i} $end" for k, c, i in zip(kinds_of, codes, idents)]
            header.append("$upscope $end")
        header.append("$enddefinitions $end")
        text = "\n".join(header) + "\n"
        if idents:
            dump = [f"s{_escape(v)} {c}" for v, c in zip(values0[:n_tracks], codes)]
            dump += [f"{v}{c}" for v, c in zip(values0[n_tracks:], codes[n_tracks:])]
            text += "#0\n$dumpvars\n" + "\n".join(dump) + "\n$end\n"
        return text.encode() + _vcd_body(t, sig, val, written, busy_now, busy_written, names, codes, n_tracks)

    def write_vcd(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_bytes(self.vcd_bytes())
        return path


def _ps(t_ns: np.ndarray) -> np.ndarray:
    """Nanoseconds -> integer picoseconds, rounding half to even (as Python's round)."""
    return np.rint(np.asarray(t_ns, float) * 1e3).astype(np.int64)


def _vcd_body(t, sig, val, written, busy_now, busy_written, names, codes, n_tracks) -> bytes:
    """The value-change lines: per change its value line, then (a span's change) its busy line; a '#time' line
    before the first line of each new time."""
    x = Text()
    value_piece = x.strings([f"s{_escape(n)} " for n in names])
    level_piece = x.strings(["0", "1"])
    code_piece = x.strings([c + "\n" for c in codes])
    hash_, nl = x.string("#"), x.string("\n")
    n = len(t)
    keep = np.empty(2 * n, bool)                      # two line slots per change: [value, busy]
    keep[0::2], keep[1::2] = written, busy_written
    line_t = np.repeat(t, 2)[keep]
    if not len(line_t):
        return b""
    is_pulse = sig >= n_tracks
    value = np.empty(2 * n, np.int64)
    code = np.empty(2 * n, np.int64)
    value[0::2] = np.where(is_pulse, level_piece[np.clip(val, 0, 1)], value_piece[np.where(is_pulse, 0, val)])
    value[1::2] = level_piece[busy_now.astype(np.int64)]
    code[0::2] = code_piece[np.where(is_pulse, sig + n_tracks, sig)]     # pulse k is variable 2T + k
    code[1::2] = code_piece[np.where(is_pulse, 0, sig + n_tracks)]
    value, code = value[keep], code[keep]
    new_t = np.r_[True, line_t[1:] != line_t[:-1]]
    return x.rows([np.where(new_t, hash_, -1), (np.where(new_t, line_t, NONE), 0), np.where(new_t, nl, -1), value,
                   code])


def _json_block(e: Columns, tid: int, ph: str) -> bytes:
    """Trace events of a column block as json.dumps writes them, each followed by ", " (numbers aside: times in
    exact decimal microseconds, float args as nanoseconds to the picosecond)."""
    n = len(e)
    if not n:
        return b""
    x = Text()
    lead = '{"ph": "X", "name": ' if ph == "X" else '{"ph": "i", "s": "t", "name": '
    head = x.strings([lead + json.dumps(s) + f', "pid": 1, "tid": {tid}, "ts": ' for s in e.table])
    t0 = _ps(e.t0_ns)
    cols = [head[e.code], (t0, 6)]
    if e.t1_ns is not None:
        cols += [x.string(', "dur": '), (_ps(e.t1_ns) - t0, 6)]
    for j, (k, v) in enumerate(e.args.items()):
        cols.append(x.string((', "args": {' if j == 0 else ", ") + json.dumps(k) + ": "))
        if v.dtype.kind == "f":
            finite = np.isfinite(v)
            cols.append((_ps(np.where(finite, v, 0.0)), 3))
            if not finite.all():
                raise ValueError(f"timeline track {e.track!r}: arg {k!r} has a value that is not finite")
        else:
            cols.append((v, 0))
    cols.append(x.string("}}, " if e.args else ', "args": {}}, '))
    return x.rows(cols)


def _escape(s: str) -> str:
    """A VCD string value as pyvcd writes it (whitespace and backslash escaped)."""
    return s.translate({9: "\\t", 10: "\\n", 13: "\\r", 32: "\\x20", 92: "\\\\"})


def _code(v: int) -> str:
    """The VCD identifier code of the v-th variable (v >= 1): base-94 digits from '!', least significant first."""
    out = ""
    while v:
        v -= 1
        out += chr(v % 94 + 33)
        v //= 94
    return out


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name.lower())
