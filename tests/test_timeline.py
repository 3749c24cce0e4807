"""The timeline writers: the VCD is byte for byte what pyvcd's VCDWriter writes for the same changes (the
reference below is the per-change writer sgdma used before the columnar one), and the Perfetto trace holds the
same events as json.dumps of per-span dicts."""
import io
import json

import numpy as np
import pytest

from sgdma.output.timeline import Timeline, _ident


def pyvcd_reference(tl: Timeline) -> str:
    """Per change, through pyvcd: one string signal per track, a busy wire per track, a 1 ns pulse per
    instant kind; ends before starts at one time."""
    from vcd import VCDWriter

    changes = []
    for s in tl.spans:
        changes.append((round(s.t0_ns * 1e3), 1, s.track, s.name))
        changes.append((round(s.t1_ns * 1e3), 0, s.track, ""))
    kinds = sorted({i.name.split()[0] for i in tl.instants})
    for i in tl.instants:
        t = round(i.t_ns * 1e3)
        changes.append((t, 1, "!" + i.name.split()[0], 1))
        changes.append((t + 1000, 0, "!" + i.name.split()[0], 0))
    changes.sort(key=lambda c: (c[0], c[1]))
    f = io.StringIO()
    with VCDWriter(f, timescale="1 ps", date="virtual time", comment="sgdma virtual board timeline") as w:
        names = {t: w.register_var("sgdma", _ident(t), "string", init="") for t in tl.tracks}
        busy = {t: w.register_var("sgdma", _ident(t) + "_busy", "wire", size=1, init=0) for t in tl.tracks}
        pulses = {k: w.register_var("sgdma", _ident(k), "wire", size=1, init=0) for k in kinds}
        depth = {t: 0 for t in tl.tracks}
        for t, _, sig, value in changes:
            if sig.startswith("!"):
                w.change(pulses[sig[1:]], t, value)
                continue
            depth[sig] += 1 if value else -1
            w.change(names[sig], t, value if value else "")
            w.change(busy[sig], t, 1 if depth[sig] > 0 else 0)
    return f.getvalue()


def random_timeline(seed: int, n: int = 300, zero: bool = False) -> Timeline:
    """Scalar spans and column blocks on a few tracks, overlapping, with equal times, names with spaces and a
    backslash, instants of two kinds."""
    rng = np.random.default_rng(seed)
    tl = Timeline()
    t = 0.0 if zero else 5.0
    tl.span("APU", "build ring: 4 BDs", t, t + 10)
    tl.span("RPU", "tail\\write (x)", t + 3, t + 3)                  # zero length
    table = ["rx", "ry", "ms", "x y"]
    for track in ("stream", "DAC"):
        t0 = np.round(rng.uniform(0, 400, n), rng.integers(0, 4))     # ties and sub-ps values
        if zero:
            t0[:3] = 0.0
        dur = rng.choice([0.0, 0.5, 1.0, 2.0, 7.25], n)
        tl.span_columns(track, table, t0, t0 + dur, codes=rng.integers(0, 4, n), gate=np.arange(n),
                        late_ns=rng.uniform(0, 50, n))
    tl.span("DMA", "MM2S", 20, 300)
    ti = np.round(rng.uniform(0, 400, 40), 1)
    tl.instant_columns("DAC", [f"underflow gate {k}" for k in range(40)], ti, codes=np.arange(40),
                       gate=np.arange(40))
    tl.instant("DAC", "miss gate 3", 17.0)
    tl.instant("DAC", "underflow gate 9", ti[0] + 0.5)                 # overlaps another pulse of its kind
    return tl


@pytest.mark.parametrize("seed", range(6))
def test_vcd_is_what_pyvcd_writes(seed):
    tl = random_timeline(seed, zero=seed % 3 == 0)
    assert tl.vcd_bytes().decode() == pyvcd_reference(tl)


def test_vcd_of_an_empty_and_a_tiny_timeline():
    assert Timeline().vcd_bytes().decode() == pyvcd_reference(Timeline())
    tl = Timeline()
    tl.span("APU", "only", 1.0, 2.0)
    assert tl.vcd_bytes().decode() == pyvcd_reference(tl)


def test_vcd_reads_back_with_pyvcd(tmp_path):
    from vcd.reader import TokenKind, tokenize

    tl = random_timeline(1)
    path = tl.write_vcd(tmp_path / "t.vcd")
    with open(path, "rb") as f:
        kinds = [tok.kind for tok in tokenize(f)]
    assert TokenKind.CHANGE_TIME in kinds and TokenKind.CHANGE_STRING in kinds and TokenKind.CHANGE_SCALAR in kinds


def test_perfetto_holds_every_span_and_instant():
    tl = random_timeline(2)
    trace = json.loads(tl.perfetto_bytes())
    events = trace["traceEvents"]
    tid = {e["args"]["name"]: e["tid"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    spans = [e for e in events if e["ph"] == "X"]
    assert len(spans) == len(tl.spans)
    for e, s in zip(spans, tl.spans):             # in the order added; times exact to the picosecond
        assert e["name"] == s.name and e["tid"] == tid[s.track]
        assert e["ts"] == pytest.approx(round(s.t0_ns * 1e3) / 1e6, abs=1e-9)
        assert e["dur"] == pytest.approx((round(s.t1_ns * 1e3) - round(s.t0_ns * 1e3)) / 1e6, abs=1e-9)
        assert set(e["args"]) == set(s.args)
        for k, v in s.args.items():
            assert e["args"][k] == (v if isinstance(v, int) else pytest.approx(round(v * 1e3) / 1e3, abs=1e-9))
    instants = [e for e in events if e["ph"] == "i"]
    assert [e["name"] for e in instants] == [i.name for i in tl.instants]
    assert all(e["s"] == "t" for e in instants)


def test_lazy_views_and_bad_columns():
    tl = random_timeline(3, n=10)
    spans = tl.spans
    assert len(spans) == 2 + 2 * 10 + 1 and spans[-1].name == "MM2S" and spans[2].args["gate"] == 0
    assert [s.name for s in spans[:2]] == ["build ring: 4 BDs", "tail\\write (x)"]
    with pytest.raises(ValueError, match="name code"):
        tl.span_columns("x", ["a"], [1.0], [2.0], codes=[3])
    with pytest.raises(ValueError, match="numeric column"):
        tl.span_columns("x", "a", [1.0, 2.0], [2.0, 3.0], gate=["p", "q"])
