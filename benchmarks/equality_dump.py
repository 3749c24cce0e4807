#!/usr/bin/env python3
"""Dump the timed model's outputs for a fixed set of scenarios, to compare two builds bit for bit.

    PYTHONPATH=src python3 benchmarks/equality_dump.py OUT.npz            # write
    PYTHONPATH=src python3 benchmarks/equality_dump.py OUT.npz --against OLD.npz

A working tool for simulator speed work (an optimisation must not change one number), not a test: the
behavioural tests are the check of correctness; this only says "old == new".
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from sgdma.experiments import characterize as ch

POINTS = [ch.Point(8192, 16, 64), ch.Point(32, 1024), ch.Point(4096, 256), ch.Point(256, 16, 256),
          ch.Point(32, 4, 512), ch.Point(8192, 2), ch.Point(1000, 33), ch.Point(64, 8192)]
SETUPS = [
    ("zcu111", ch.Setup(trials=6, seed=3)),
    ("zcu111_random", ch.Setup(trials=4, seed=5, placement="random")),
    ("zcu111_simple", ch.Setup(trials=4, seed=1, mode="simple")),
    ("zynq7000", ch.Setup(board="zynq7000", trials=4, seed=2)),
    ("zcu102", ch.Setup(board="zcu102", trials=4, seed=2)),
    ("zc706", ch.Setup(board="zc706", trials=3, seed=9, placement="random")),
    ("zcu111_s2mm", ch.Setup(trials=3, seed=4, direction="s2mm")),
]


def scenarios():
    for tag, setup in SETUPS:
        bench = ch.Bench(setup)
        bench.warm_up()
        for p in POINTS:
            if setup.mode == "simple":
                p = ch.Point(p.bytes_per_bd, 1)
            if setup.direction == "s2mm":
                if p.cycles > 1 or p.bds > 256 or p.bytes_per_bd % 64:
                    continue
            try:
                bench.check(p)
            except ch.SweepError:
                continue
            seeds = ch.trial_seeds(setup.seed, p, setup.trials)
            if setup.direction == "mm2s":
                lat, thr, sim = ch._c_trials(bench, p, seeds)
            else:
                rows = [bench.trial(p, int(s)) for s in seeds]
                lat = np.array([r[0] for r in rows]); thr = np.array([r[1] for r in rows])
                sim = np.array([r[2] for r in rows])
            key = f"{tag}/{p.bytes_per_bd}x{p.bds}x{p.cycles}"
            yield key + "/lat", np.asarray(lat)
            yield key + "/thr", np.asarray(thr)
            yield key + "/sim", np.asarray(sim)
            ds = bench.board.dram_stats()
            yield key + "/dram", np.array([float(v) for v in ds.values() if not isinstance(v, dict)])
            for port, counts in ds.get("ports", {}).items():     # per controller port (ddrc.c)
                yield f"{key}/dram/{port}", np.array([float(v) for v in counts.values()])
    # CPU load competing for DRAM, and a capture run (S2MM, cache maintenance, IRQs)
    for load in ("800MB/s", {"rate_mbps": 1500, "read_fraction": 0.3}):
        from sgdma.board.virtual import VirtualBoard
        setup = ch.Setup(trials=3, seed=7)
        bench = ch.Bench(setup)
        bench.board = VirtualBoard("zcu111", seed=7, timing_only=True, cpu_load=load)
        from sgdma.driver.axidma import AxiDma
        bench.dma = AxiDma(bench.board); bench.channel = bench.dma.mm2s
        bench.regs = bench.board.mmio(bench.board.axi_dma.base)
        for p in POINTS[:4]:
            lat, thr, sim = ch._c_trials(bench, p, ch.trial_seeds(7, p, 3))
            yield f"load{load}/{p}/lat", np.asarray(lat)
            yield f"load{load}/{p}/sim", np.asarray(sim)
    from sgdma.capture import run_capture
    for board in ("zcu102", "zynq7000"):
        r = run_capture(board, 25e6, 4, 128 << 10, 16, api="zerocopy", cache="sync", seconds=0.02)
        for k, v in sorted(r.items()):
            if k in ("wall_s",) or "wall" in k:
                continue
            try:
                a = np.asarray(v, dtype=float)
            except (TypeError, ValueError):
                continue
            yield f"capture/{board}/{k}", a
    yield from rtio_scenarios()


def _rtio_outputs(tag, board, core, an=None):
    """What an RTIO run leaves: the output edges, the counters, the analyzer's dump, virtual time."""
    for k, v in board.rtio.edges().items():
        yield f"rtio/{tag}/edges/{k}", np.asarray(v)
    c = core.port.counters()
    yield f"rtio/{tag}/counters", np.array([float(c[k]) for k in sorted(c)])
    c = core.port.input_counters()
    yield f"rtio/{tag}/input_counters", np.array([float(c[k]) for k in sorted(c)])
    if an is not None:
        yield f"rtio/{tag}/analyzer", np.frombuffer(an.dump(), np.uint8)
    yield f"rtio/{tag}/now_ns", np.array([float(board.now_ns)])


def rtio_scenarios():
    """RTIO: DMA playback with the analyzer (sustained, underflowing, a mixed trace with sequence errors and
    collisions), each kernel initiator's pulse train, and a gated input on a loopback."""
    import sgdma
    from sgdma.rtio import Core, CoreDMA, trace as T
    from sgdma.rtio.analyzer import Analyzer
    from sgdma.rtio.bench import pulse_train

    rng = np.random.default_rng(11)
    n = 3000
    mixed = T.Events(np.sort(rng.integers(0, 60 * n, n)).astype(np.int64) + 16 - rng.integers(0, 2, n) * 16,
                     (rng.integers(0, 4, n) << 8).astype(np.uint32), rng.integers(1, 3, n).astype(np.uint8),
                     rng.integers(0, 2, 2 * n).astype(np.uint32))
    mixed = T.Events(mixed.ts, mixed.target, mixed.nwords, mixed.data[:int(mixed.nwords.sum())])
    for preset in ("zc706", "kc705_softcore"):
        for name, events, duration in (("train32", pulse_train(n, 32), 32 * n), ("train24", pulse_train(n, 24), 24 * n),
                                       ("mixed", mixed, 60 * n)):
            board = sgdma.VirtualBoard(preset)
            core = Core(board, "csr")
            dma = CoreDMA(core, region_bytes=1 << 20)
            an = Analyzer(core, ring_bytes=64 << 10)
            dma.store(name, events, duration)
            core.break_realtime(20_000)
            try:
                dma.playback(name)
            except Exception as e:                       # underflow is one of the outputs
                yield f"rtio/{preset}/{name}/raised", np.frombuffer(type(e).__name__.encode(), np.uint8)
            board.rtio.drain(int(1e12))
            yield f"rtio/{preset}/{name}/playback", np.array([float(v) for v in dma.last_playback.values()])
            yield from _rtio_outputs(f"{preset}/{name}", board, core, an)
        for init in ("csr", "acp", "acp-batch", "fifo"):
            for half in (40, 600):                      # faster than some initiators sustain, and slower
                board = sgdma.VirtualBoard(preset)
                try:
                    core = Core(board, init, batch_capacity=66)
                except Exception:                       # an initiator the preset's CPU does not have
                    continue
                an = Analyzer(core, ring_bytes=64 << 10)
                core.break_realtime(20_000)
                r = core.port.pulses(1 << 8, 1000, half, 64 if init == "acp-batch" else 0)
                board.rtio.drain(int(1e12))
                yield f"rtio/{preset}/{init}{half}/pulses", np.array([float(r[k]) for k in sorted(r)])
                yield from _rtio_outputs(f"{preset}/{init}{half}", board, core, an)
    board = sgdma.VirtualBoard("zc706")
    core = Core(board, "csr")
    an = Analyzer(core, ring_bytes=64 << 10)
    from sgdma.rtio.core import TTLInOut, TTLOut
    out, inp = TTLOut(core, 0), TTLInOut(core, 1)
    core.port.loopback(0, 1)                            # output channel 0's level drives input pin 1
    core.break_realtime(100_000)
    t0 = core.now_mu()
    core.at_mu(t0 + 1000)
    end = inp.gate_rising_mu(20_000)
    for k in range(12):
        core.at_mu(t0 + 300 + 1500 * k)
        out.pulse_mu(100)
    counted = inp.count(end)
    yield "rtio/input/count", np.array([float(counted)])
    yield from _rtio_outputs("input", board, core, an)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--against")
    a = ap.parse_args()
    d = dict(scenarios())
    np.savez(a.out, **d)
    print(f"{len(d)} arrays written to {a.out}")
    if a.against:
        old = dict(np.load(a.against))
        bad = [k for k in sorted(set(old) | set(d))
               if k not in old or k not in d or old[k].shape != d[k].shape
               or not np.array_equal(old[k], d[k], equal_nan=True)]
        for k in bad[:20]:
            print("DIFFERS:", k, old.get(k), d.get(k))
        print("IDENTICAL" if not bad else f"{len(bad)} arrays differ")
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
