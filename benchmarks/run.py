#!/usr/bin/env python3
"""sgdma benchmarks: every figure is {value, unit, baseline, ratio}, measured side by side in one run.

    python3 benchmarks/run.py [--json FILE] [--only NAME] [--baseline TREE] [--plot DIR]

--baseline TREE: a source tree with its extension built in place (for example wave 1, commit 9973daa:
`git archive 9973daa | tar -x -C /tmp/w1 && (cd /tmp/w1 && python3 setup.py -q build_ext --inplace)`);
s0_points_vs_baseline then times S0 points on it and on this tree side by side.

Not tests: nothing here asserts a speed.  Wall-clock figures depend on the machine;
compare ratios, which are measured against a baseline in the same process.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # idle BLAS threads spin and steal a small machine's cores

import numpy as np

import sgdma
from sgdma.hw import pg021 as P

BENCHMARKS: dict[str, Callable[[], dict]] = {}


def benchmark(fn: Callable[[], dict]) -> Callable[[], dict]:
    BENCHMARKS[fn.__name__] = fn
    return fn


def best_of(fn: Callable[[], object], repeat: int = 5) -> float:
    """Fastest of `repeat` runs, in seconds (the least disturbed by other load)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def figure(value: float, unit: str, baseline: float, baseline_name: str, note: str = "") -> dict:
    return {"value": value, "unit": unit, "baseline": baseline, "baseline_name": baseline_name,
            "ratio": value / baseline if baseline else float("nan"), "note": note}


@benchmark
def ring_build_65536() -> dict:
    """Build a 2^16-BD ring (validate + write every BD in C) vs a memset of the same 4 MiB.  Each fill goes into
    a ring made just before it (its creation zeroes and links the BDs), so the fill and the memset find the
    ring's memory in the same cache state (4 MiB: inside an 8 MiB L3, not inside L2)."""
    n = 1 << 16
    board = sgdma.VirtualBoard("zcu111")
    dma = sgdma.AxiDma(board)
    buf = board.allocate(n * 64, np.uint8)
    addrs = buf.physical_address + np.arange(n, dtype=np.uint64) * 64
    lens = np.full(n, 64, np.uint32)
    flags = np.full(n, P.SG_BD_SOF | P.SG_BD_EOF, np.uint8)
    fill_s = memset_s = float("inf")
    for _ in range(5):
        for timed in ("fill", "memset"):
            ring = dma.mm2s.ring(n)                   # a fresh ring per timed fill or memset
            target = np.asarray(ring.memory).reshape(-1)
            t0 = time.perf_counter()
            if timed == "fill":
                ring.fill(addrs, lens, flags)
                fill_s = min(fill_s, time.perf_counter() - t0)
            else:
                target.fill(0x5A)
                memset_s = min(memset_s, time.perf_counter() - t0)
            del ring, target
            gc.collect()
    return {"ring_build_ns_per_bd": figure(fill_s / n * 1e9, "ns/BD", memset_s / n * 1e9,
                                           "memset of 64 B per BD", "C fill: validate all, then write")}


def _functional_run(bytes_per_bd: int, n_bds: int, options: dict | None = None) -> tuple[float, int, float]:
    """Wall seconds, bytes and CPU seconds of one MM2S run of n_bds BDs moving real bytes (the run only)."""
    board = sgdma.VirtualBoard("zcu111", sink_record=True, options=options)
    dma = sgdma.AxiDma(board)
    dma.reset()
    ring = dma.mm2s.ring(n_bds)
    buf = board.allocate(n_bds * bytes_per_bd, np.uint8)
    buf[:] = 7
    addrs = buf.physical_address + np.arange(n_bds, dtype=np.uint64) * bytes_per_bd
    ring.fill(addrs, np.full(n_bds, bytes_per_bd, np.uint32))
    gc.collect()
    t0, c0 = time.perf_counter(), time.thread_time()
    ring.submit()
    board.run_until_quiet()
    wall, cpu = time.perf_counter() - t0, time.thread_time() - c0
    assert len(board.mm2s_sink.packets()) == n_bds
    return wall, n_bds * bytes_per_bd, cpu


@benchmark
def functional_throughput() -> dict:
    """Virtual-board MM2S moving real bytes (sink recording) vs memcpy of the same bytes."""
    out = {}
    for bpb, n in ((32, 1 << 15), (8192, 1 << 12)):
        total = bpb * n
        src = np.ones(total, np.uint8)
        dst = np.empty_like(src)
        np.copyto(dst, src)
        wall = memcpy_s = float("inf")
        for _ in range(5):      # alternating rounds: both sides see the same moments of a shared machine
            wall = min(wall, _functional_run(bpb, n)[0])
            memcpy_s = min(memcpy_s, best_of(lambda: np.copyto(dst, src), 3))
        out[f"functional_{bpb}B_per_bd_bytes_per_s"] = figure(total / wall, "B/s", total / memcpy_s,
                                                              "memcpy (numpy copyto)")
        out[f"functional_{bpb}B_per_bd_bds_per_s"] = figure(n / wall, "BD/s", total / memcpy_s / bpb,
                                                            "memcpy of one BD's bytes per second")
    return out


def _functional_ir(fidelity: str, bytes_per_bd: int, n_bds: int) -> float:
    """Callgrind instructions per BD of one MM2S ring run (benchmarks/functional_ir.py), counted inside
    vb_run_until_quiet only: the run's own work, not the interpreter or the set-up."""
    script = Path(__file__).with_name("functional_ir.py")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    out = Path(f"/tmp/sgdma-callgrind-{os.getpid()}-functional-{fidelity}")
    subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=vb_run_until_quiet",
                    f"--callgrind-out-file={out}", sys.executable, str(script), "--fidelity", fidelity,
                    "--bytes", str(bytes_per_bd), "--bds", str(n_bds)], env=env, capture_output=True, check=True)
    total = next(int(line.split()[1]) for line in out.read_text().splitlines() if line.startswith("totals:"))
    out.unlink()
    return total / n_bds


def _memcpy_cpu_s(nbytes: int, warm: bool) -> float:
    """CPU seconds of one copy of nbytes with numpy: warm = into a destination written before; else the mean of
    5 copies into a newly allocated destination, the first of which touches its pages (issue 27's baseline)."""
    src = np.ones(nbytes, np.uint8)
    dst = np.empty_like(src)
    if warm:
        np.copyto(dst, src)
    c0 = time.thread_time()
    for _ in range(1 if warm else 5):
        np.copyto(dst, src)
    return (time.thread_time() - c0) / (1 if warm else 5)


@benchmark
def fidelity_functional() -> dict:
    """The functional fidelity (dma.functional: rings walked untimed) beside exact in the same run: callgrind
    instructions per 32-byte BD and BDs per CPU second, and at 8 KiB per BD the throughput against a memcpy of
    the same bytes (issue 27's functional goals).  The sink records the bytes into memory it maps as it grows,
    which the kernel zeroes on first touch, so two memcpy baselines: issue 27's (the mean of 5 copies into a new
    destination, the first touching its pages once) and a copy into warm memory."""
    import shutil

    from sgdma.board.fidelity import board_options

    out, load = {}, lambda: f"load average {os.getloadavg()[0]:.2f}"
    n32, n8k = 1 << 15, 1 << 12
    if shutil.which("valgrind"):
        ir = {f: _functional_ir(f, 32, n32) for f in ("functional", "exact")}
        out["functional_32B_instructions_per_bd"] = figure(ir["functional"], "Ir/BD", ir["exact"],
                                                           "exact, same run", f"goal <= 400; {load()}")
    else:
        out["functional_32B_instructions_per_bd"] = figure(float("nan"), "", 1.0, "", "skipped: no valgrind")
    cpu = {f: min(_functional_run(32, n32, board_options(f))[2] for _ in range(5)) for f in ("exact", "functional")}
    out["functional_32B_bds_per_cpu_s"] = figure(n32 / cpu["functional"], "BD/s", n32 / cpu["exact"],
                                                 "exact, same run", f"goal >= 10 M; {load()}")
    cpu8 = {"functional": float("inf"), "issue": float("inf"), "warm": float("inf")}
    for _ in range(5):          # alternating rounds: every side sees the same moments of a shared machine
        cpu8["functional"] = min(cpu8["functional"], _functional_run(8192, n8k, board_options("functional"))[2])
        cpu8["issue"] = min(cpu8["issue"], _memcpy_cpu_s(8192 * n8k, False))
        cpu8["warm"] = min(cpu8["warm"], _memcpy_cpu_s(8192 * n8k, True))
    for key, base, name in (("memcpy", "issue", "memcpy, issue 27's baseline"),
                            ("warm_memcpy", "warm", "memcpy into warm memory")):
        out[f"functional_8KiB_throughput_per_{key}"] = figure(
            cpu8[base] / cpu8["functional"], "x memcpy", 1.0, f"{name}, same run", f"goal >= 0.7; {load()}")
    return out


def _timed_sweep(executor, trials: int = 100) -> tuple[float, list]:
    from sgdma.experiments import characterize as ch

    gc.collect()
    t0 = time.perf_counter()
    recs = list(ch.sweep(ch.Setup(trials=trials), ch.s0_points(), executor=executor))
    return time.perf_counter() - t0, recs


@benchmark
def s0_sweep_timing_only() -> dict:
    """S0's whole sweep (169 points x 100 trials, timing only): one worker against the virtual time it
    simulates (overall and the slowest point), then the scaling efficiency time(1) / (N * time(N)) with N = 2
    local processes and N = 2 Dask workers (a LocalCluster), all in this run, in two rounds of opposite order."""
    from sgdma.executor import LocalExecutor, make_executor

    # Two rounds in opposite orders (1, processes, Dask; then Dask, processes, 1), each figure from its faster
    # run: a shared machine's speed drifts over minutes, and one pass in one order would hand the drift to
    # whichever executor ran last.
    try:
        dask_ex, dask_skip = make_executor("dask", jobs=2), ""
    except Exception as e:                     # the optional extra is not installed
        dask_ex, dask_skip = None, f"skipped: {e}"
    runs: dict[str, list] = {"1": [], "processes": [], "dask": []}
    try:
        if dask_ex is not None:
            _timed_sweep(dask_ex, trials=2)    # the workers' first imports and boards are not the sweep
        for order in (("1", "processes", "dask"), ("dask", "processes", "1")):
            for kind in order:
                if kind == "dask" and dask_ex is None:
                    continue
                ex = {"1": lambda: LocalExecutor(1), "processes": lambda: LocalExecutor(2, "processes"),
                      "dask": lambda: dask_ex}[kind]()
                runs[kind].append(_timed_sweep(ex))
                if kind != "dask":
                    ex.close()
    finally:
        if dask_ex is not None:
            dask_ex.close()
    wall1, recs = min(runs["1"], key=lambda r: r[0])
    sim = sum(r.simulated_ns for r in recs) / 1e9
    cpu = sum(r.cpu_s for r in recs)
    worst = min(recs, key=lambda r: r.simulated_ns / 1e9 / r.wall_s)
    worst_cpu = min(recs, key=lambda r: r.simulated_ns / 1e9 / max(r.cpu_s, 1e-9))

    def name(r) -> str:
        return f"{r.bytes_per_bd} B/BD x {r.bds} BDs x {r.cycles} cycles"

    def walls(kind: str) -> str:
        return " and ".join(f"{w:.1f} s" for w, _ in runs[kind])

    out = {
        "s0_sweep_1_worker_sim_per_wall": figure(sim / wall1, "sim s / wall s", 1.0, "real time",
                                                 f"{len(recs)} points x 100 trials in {walls('1')} (faster "
                                                 "taken); goal >= 5"),
        "s0_point_min_sim_per_wall": figure(worst.simulated_ns / 1e9 / worst.wall_s, "sim s / wall s", 1.0,
                                            "real time (goal >= 3)", f"one worker; slowest point: {name(worst)}"),
        # CPU time of the worker: the model's own speed, whatever else the machine runs
        "s0_sweep_1_worker_sim_per_cpu": figure(sim / cpu, "sim s / CPU s", 1.0, "real time",
                                                f"{cpu:.1f} CPU s in the worker; goal >= 5"),
        "s0_point_min_sim_per_cpu": figure(worst_cpu.simulated_ns / 1e9 / worst_cpu.cpu_s, "sim s / CPU s", 1.0,
                                           "real time (goal >= 3)", f"slowest point: {name(worst_cpu)}"),
    }
    wall2 = min(w for w, _ in runs["processes"])
    out["s0_scaling_efficiency_2_processes"] = figure(wall1 / (2 * wall2), "time(1)/(2 time(2))", 1.0,
                                                      "perfect scaling (goal >= 0.8)",
                                                      f"{walls('processes')} with 2 processes (faster taken)")
    if not runs["dask"]:
        out["s0_scaling_efficiency_2_dask"] = figure(float("nan"), "", 1.0, "", dask_skip)
        return out
    walld = min(w for w, _ in runs["dask"])
    out["s0_scaling_efficiency_2_dask"] = figure(wall1 / (2 * walld), "time(1)/(2 time(2))", 1.0,
                                                 "perfect scaling (goal >= 0.8)",
                                                 f"{walls('dask')} on a 2-worker Dask LocalCluster (faster taken)")
    return out


BASELINE_TREE: Path | None = None      # --baseline


def _callgrind_ir(fidelity: str, trials: int) -> tuple[float, dict, float]:
    """Instructions of the S0 sweep at `fidelity` (callgrind, this tree): a run with the sweep less the same
    start-up without it; the sweep's JSON (virtual ns); and the host's instructions per CPU second on the same
    two runs outside callgrind (their CPU seconds' difference), which puts the instruction figures in seconds."""
    import resource

    script = Path(__file__).with_name("fidelity_ir.py")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    totals, cpu, doc = [], [], {}
    for n in (trials, 0):
        out = Path(f"/tmp/sgdma-callgrind-{os.getpid()}-{fidelity}-{n}")
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                            str(script), "--fidelity", fidelity, "--trials", str(n)],
                           env=env, capture_output=True, text=True, check=True)
        if n:
            doc = json.loads(r.stdout.strip().splitlines()[-1])
        totals.append(next(int(line.split()[1]) for line in out.read_text().splitlines()
                           if line.startswith("totals:")))
        out.unlink()
        best = float("inf")
        for _ in range(2):          # the less disturbed of two native runs
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([sys.executable, str(script), "--fidelity", fidelity, "--trials", str(n)], env=env,
                           capture_output=True, check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            best = min(best, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        cpu.append(best)
    ir = float(totals[0] - totals[1])
    return ir, doc, ir / max(cpu[0] - cpu[1], 1e-9)


@benchmark
def fidelity_s0() -> dict:
    """The fidelities on S0's sweep (issue 27's goals): callgrind instructions per virtual ns, exact and fast
    (2 and 10 trials per point), and CPU seconds of the 100-trial sweep in one worker, with the host's
    instructions per CPU second and load average beside them (a shared machine: instructions are the figure,
    CPU seconds context)."""
    import shutil

    from sgdma.executor import LocalExecutor
    from sgdma.experiments import characterize as ch

    out = {}
    load = f"load average {os.getloadavg()[0]:.2f}"
    if shutil.which("valgrind"):
        ir_exact, d_exact, ips_exact = _callgrind_ir("exact", 2)
        ir_fast, d_fast, ips_fast = _callgrind_ir("fast", 10)
        per_exact, per_fast = ir_exact / d_exact["virtual_ns"], ir_fast / d_fast["virtual_ns"]
        out["s0_exact_instructions_per_virtual_ns"] = figure(
            per_exact, "Ir/ns", 9.85, "issue 27's 'now'",
            f"2 trials per point; goal <= 7.0; host {ips_exact / 1e9:.2f} G instructions per CPU s; {load}")
        out["s0_fast_instructions_per_virtual_ns"] = figure(
            per_fast, "Ir/ns", per_exact, "exact, same run",
            f"10 trials per point, {d_fast['extrapolated']} of {d_fast['trials']} extrapolated; goal <= 0.25 "
            f"(>= 40x fewer than exact); host {ips_fast / 1e9:.2f} G instructions per CPU s; {load}")
    else:
        out["s0_fast_instructions_per_virtual_ns"] = figure(float("nan"), "", 1.0, "", "skipped: no valgrind")
    cpu = {}
    for fidelity in ("fast", "exact"):
        ex = LocalExecutor(1)
        recs = list(ch.sweep(ch.Setup(trials=100, fidelity=fidelity), ch.s0_points(), executor=ex))
        ex.close()
        cpu[fidelity] = sum(r.cpu_s for r in recs)
    out["s0_fast_100_trials_cpu_s"] = figure(cpu["fast"], "CPU s", cpu["exact"], "exact, same run",
                                             f"one worker; goal <= 3 s; load average {os.getloadavg()[0]:.2f}")
    return out


def _s0_points(tree: Path, trials: int) -> dict:
    """benchmarks/s0_points.py in a fresh interpreter on `tree`'s sgdma (src/ layout, extension built in place)."""
    script = Path(__file__).with_name("s0_points.py")
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    r = subprocess.run([sys.executable, str(script), "--trials", str(trials)], env=env, capture_output=True,
                       text=True, timeout=3600)
    if r.returncode:
        raise RuntimeError(f"s0_points.py on {tree} failed: {r.stderr.strip()[-500:]}")
    return json.loads(r.stdout)


@benchmark
def s0_points_vs_baseline() -> dict:
    """Four S0 points (timing only, one process): simulated time per CPU second on this tree over the same on
    --baseline TREE (an older build, e.g. wave 1), in alternating rounds, fastest round of each; > 1 means this
    tree simulates more per CPU second.  Skipped without --baseline."""
    if BASELINE_TREE is None:
        return {"s0_points_vs_baseline": figure(float("nan"), "", 1.0, "", "skipped: give --baseline TREE")}
    here = Path(__file__).resolve().parent.parent
    best: dict[str, dict[str, float]] = {"new": {}, "old": {}}
    for _ in range(3):
        for tag, tree in (("new", here), ("old", BASELINE_TREE)):
            for pt, v in _s0_points(tree, 100).items():
                best[tag][pt] = max(best[tag].get(pt, 0.0), v["sim_s"] / v["cpu_s"])
    out = {}
    for pt in best["new"]:
        out[f"s0_point_{pt}_sim_per_cpu"] = figure(best["new"][pt], "sim s / CPU s", best["old"][pt],
                                                   f"the same on {BASELINE_TREE}", "best of 3 rounds, 100 trials")
    return out


@benchmark
def cpu_model_samples() -> dict:
    """100 000 APU BD-creation samples (sgdma.cpu, 16-BD rings) vs numpy drawing 100 000 normals."""
    from sgdma.models.cpu import CpuModel

    model = CpuModel.for_board("zcu111", "apu")
    n = 100_000
    model_s = best_of(lambda: model.samples(16, n, np.random.default_rng(0)))
    normal_s = best_of(lambda: np.random.default_rng(0).standard_normal(n))
    return {"cpu_model_100k_apu_samples_s": figure(model_s, "s", normal_s, "numpy: 100 000 normal samples",
                                                   "vectorised: page walks, stalls and ticks drawn per sample")}


def _trapped_ion_circuit(n: int, seed: int = 0):
    """n applications of the bundled trapped-ion gates: 70 % rx/ry at +-pi/2 or pi, 10 % rz at one of
    8 angles, 10 % ms, 5 % measure, 5 % idle of 1..4 blocks."""
    from sgdma.sequence import Circuit

    rng = np.random.default_rng(seed)
    names = ["rx", "ry", "rz", "ms", "measure", "idle"]
    gate = rng.choice(len(names), n, p=[0.35, 0.35, 0.10, 0.10, 0.05, 0.05])
    theta = np.where(gate < 2, rng.choice([np.pi / 2, -np.pi / 2, np.pi], n), np.nan)
    theta = np.where(gate == 2, rng.integers(0, 8, n) * np.pi / 4, theta)
    blocks = np.where(gate == 5, rng.integers(1, 5, n), np.nan)
    return Circuit(f"mixed{n}").extend(names, gate, {"theta": theta, "n": blocks})


@benchmark
def sequence_compile_10000_gates() -> dict:
    """Compile a 10 000-gate trapped-ion circuit into a ring (resolve, lay out, one Ring.fill), segments
    already stored, vs writing the same ring bytes with a numpy fill."""
    from sgdma.sequence import Sequencer

    board = sgdma.VirtualBoard("zcu111")
    dma = sgdma.AxiDma(board)
    seq = Sequencer(board, dma)
    circuit = _trapped_ion_circuit(10_000)
    t0 = time.perf_counter()
    ring = seq.compile(circuit)                     # first compile renders and stores the waveforms
    cold = time.perf_counter() - t0
    n_bds = ring.n_bds
    seq.free(ring)
    del ring
    gc.collect()

    def compile_and_free():
        seq.free(seq.compile(circuit))

    warm = best_of(compile_and_free, repeat=20)
    target = board.allocate(n_bds * 64, np.uint8)
    memset = best_of(lambda: target.fill(0x5A), repeat=20)
    return {"sequence_compile_10000_gates_ms": figure(
        warm * 1e3, "ms", memset * 1e3, f"numpy fill of the same {n_bds * 64} ring bytes",
        f"{n_bds} BDs, {len(seq.segments)} segments; first compile (renders waveforms) {cold * 1e3:.1f} ms; "
        f"goal <= 5 ms")}


@benchmark
def playback_output_33000_gates() -> dict:
    """Playback of a 33 000-gate circuit: building the per-gate result, the VCD and the Perfetto trace, side by
    side with the C playback (the simulation) they describe; best of 3 runs each."""
    import tempfile
    from pathlib import Path

    from sgdma.sequence.playback import PlaybackConfig
    from sgdma.sequence.runner import play_circuit

    circuit = _trapped_ion_circuit(33_000)
    best = {"simulate": float("inf"), "result": float("inf"), "vcd": float("inf"), "perfetto": float("inf")}
    with tempfile.TemporaryDirectory() as d:
        for _ in range(3):
            gc.collect()
            res, _, _ = play_circuit(circuit, "zcu111", PlaybackConfig(gate_time_ns=1000.0))
            best["simulate"] = min(best["simulate"], res.wall_s["simulate"])
            best["result"] = min(best["result"], res.wall_s["result"])
            best["vcd"] = min(best["vcd"], best_of(lambda: res.timeline.write_vcd(Path(d) / "t.vcd"), 1))
            best["perfetto"] = min(best["perfetto"], best_of(lambda: res.timeline.write_perfetto(Path(d) / "t.json"),
                                                             1))
    out_s = best["result"] + best["vcd"] + best["perfetto"]
    return {"playback_output_over_c_33000_gates": figure(
        out_s * 1e3, "ms", best["simulate"] * 1e3, "C playback (the simulation) of the same run",
        f"{res.gates} gates; result {best['result'] * 1e3:.1f} ms + VCD {best['vcd'] * 1e3:.1f} ms + Perfetto "
        f"{best['perfetto'] * 1e3:.1f} ms vs C {best['simulate'] * 1e3:.1f} ms; goal ratio <= 3")}


def _circuit_file(circuit, path) -> None:
    """A circuit as a JSON circuit file (one entry per application)."""
    cols = circuit.columns()
    gates = []
    for gid, row, q in zip(cols.gate_ids.tolist(), cols.params.tolist(), cols.qubits.tolist()):
        e = {"gate": cols.gate_names[gid]}
        e.update({k: v for k, v in zip(cols.param_names, row) if v == v})
        q = [x for x in q if x >= 0]
        if q:
            e["qubits"] = q
        gates.append(e)
    with open(path, "w") as f:
        json.dump({"circuit": {"name": circuit.name}, "gates": gates}, f)


@benchmark
def run_command_10000_gates() -> dict:
    """`sgdma run` of a 10 000-gate circuit file without --out (a fresh interpreter each time, bytecode cached),
    minus the interpreter's own start (`python3 -c pass`); best of 3."""
    import os
    import subprocess
    import sys
    import tempfile

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # the child must import the sgdma measured here, not whatever a relative PYTHONPATH or site-packages holds
    tree = str(Path(sgdma.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([tree] + [os.path.abspath(p) for p in
                                                  env.get("PYTHONPATH", "").split(os.pathsep) if p])
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "c10k.json")
        _circuit_file(_trapped_ion_circuit(10_000), path)
        cmd = [sys.executable, "-c", "from sgdma.cli import main; main()", "run", path]

        def once(args):
            t0 = time.perf_counter()
            subprocess.run(args, env=env, cwd=d, check=True, stdout=subprocess.DEVNULL)
            return time.perf_counter() - t0

        once(cmd)                                  # writes the bytecode caches
        run = min(once(cmd) for _ in range(3))
        bare = min(once([sys.executable, "-c", "pass"]) for _ in range(3))
    return {"run_command_10000_gates_s": figure(run - bare, "s", bare, "the interpreter's own start",
                                                f"whole command {run:.3f} s; goal: under 0.3 s beyond the start")}


@benchmark
def sequence_rb_dedup() -> dict:
    """Dedup on a randomized-benchmarking circuit (1000 Cliffords + inversion): bytes the ring streams
    per pass over bytes stored, against 1 (a copy of every pulse per use)."""
    from sgdma.sequence import Sequencer, randomized_benchmarking

    board = sgdma.VirtualBoard("zcu111")
    seq = Sequencer(board, sgdma.AxiDma(board))
    ring = seq.compile(randomized_benchmarking(1000, seed=1, qubit=0))
    s = seq.stats()
    return {"sequence_rb_dedup_ratio": figure(
        s["dedup_ratio"], "x", 1.0, "no dedup (a stored copy per gate application)",
        f"{ring.n_gates} gates, {s['segments_unique']} unique segments, {s['bytes_referenced']} B streamed "
        f"per pass from {s['bytes_stored_referenced']} B stored")}


@benchmark
def demo_wall() -> dict:
    """`sgdma demo` end to end (compile, three roles, playback, report files) vs the virtual time it plays."""
    import tempfile

    from sgdma.sequence.demo import demo_circuit, run_circuit

    gc.collect()
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        data = run_circuit(demo_circuit(), out_dir=d)
        wall = time.perf_counter() - t0
    return {"demo_wall_s": figure(wall, "s", data["virtual_time_ns"] / 1e9, "virtual seconds played",
                                  f"{data['gates']} gates; goal < 10 s")}


@benchmark
def capture_sim_speed() -> dict:
    """Continuous capture at 100 MB/s (25 MS/s x 4 B) into 16 x 128 KiB buffers, zero copy, sync cache,
    on zcu102 and zynq7000 (HP port 1200 MB/s): virtual seconds simulated per wall second, with the
    end-to-end counter check and the coherency checker on (as tests run) and both off."""
    from sgdma.capture import run_capture

    out = {}
    for board in ("zcu102", "zynq7000"):
        for checks in (True, False):
            best = None
            for _ in range(3):
                b = sgdma.VirtualBoard(board)
                b.coherency.enabled = checks
                gc.collect()
                r = run_capture(b, 25e6, 4, 128 << 10, 16, api="zerocopy", cache="sync", seconds=1.0,
                                verify=checks)
                assert r["sustained"], r["overflows"]
                speed = r["simulated_s"] / r["wall_s"]
                best = max(best or 0.0, speed)
            tag = "checked" if checks else "unchecked"
            out[f"capture_{board}_100MBps_128KiB_{tag}_sim_per_wall"] = figure(
                best, "sim s / wall s", 1.0, "real time (goal >= 1)",
                f"{r['buffers_delivered']} buffers in {r['simulated_s']:.2f} virtual s; counter check and "
                f"coherency checker {'on' if checks else 'off'}; best of 3")
    return out


@benchmark
def rtio_playback_1e6_events() -> dict:
    """Event-DMA playback of a 10^6-event pulse train at the DMA's own rate (the fastest interval it sustains,
    bench.dma_limit_ns: the densest load) with the analyzer on, on zc706, exact fidelity: simulated RTIO time over
    the CPU time of the run (goal >= 0.2, issue 27), wall time beside it as context; best of 2."""
    from sgdma.rtio import Core, CoreDMA
    from sgdma.rtio.analyzer import Analyzer
    from sgdma.rtio.bench import dma_limit_ns, pulse_train

    n = 1_000_000
    best = None
    for _ in range(2):
        board = sgdma.VirtualBoard("zc706")
        core = Core(board, "csr")
        interval = int(np.ceil(dma_limit_ns(board) / (core.ref_period * 1e9)))
        dma = CoreDMA(core, region_bytes=32 << 20)
        Analyzer(core)
        board.rtio.set_logging(False)
        dma.store("train", pulse_train(n, interval), n * interval)
        core.break_realtime(20_000)
        t_sim0 = board.now_ns
        c0, t0 = time.process_time(), time.perf_counter()
        dma.playback("train")
        board.rtio.drain(int(1e12))
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        sim = (board.now_ns - t_sim0) * 1e-9
        if best is None or cpu < best[0]:
            best = (cpu, wall, sim, interval)
    cpu, wall, sim, interval = best
    out = {"rtio_playback_sim_over_cpu": figure(
        sim / cpu, "x", 1.0, "real time",
        f"{n} events every {interval} mu, {sim * 1e3:.1f} ms simulated in {cpu:.3f} CPU s ({wall:.3f} s wall, "
        f"{sim / wall:.3f}x); goal >= 0.2; load average {os.getloadavg()[0]:.2f}")}
    import shutil

    if shutil.which("valgrind"):       # the host-independent figure: instructions of the playback alone
        ir, doc = _callgrind_rtio(100_000)
        out["rtio_playback_instructions_per_event"] = figure(
            ir / doc["events"], "Ir/event", 2217.0, "before issue 27's RTIO work",
            f"{doc['events']} events, {ir / doc['virtual_ns']:.1f} instructions per virtual ns (callgrind, playback "
            f"and drain only)")
    return out


def _callgrind_rtio(events: int) -> tuple[float, dict]:
    """Instructions of benchmarks/rtio_ir.py's playback and drain (callgrind, this tree) and its JSON."""
    out = Path(f"/tmp/sgdma-callgrind-{os.getpid()}-rtio")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                        "--toggle-collect=vb_rtio_k_playback", "--toggle-collect=vb_rtio_drain", sys.executable,
                        str(Path(__file__).with_name("rtio_ir.py")), "--events", str(events)],
                       env=env, capture_output=True, text=True, check=True)
    doc = json.loads(r.stdout.strip().splitlines()[-1])
    total = next(int(line.split()[1]) for line in out.read_text().splitlines() if line.startswith("totals:"))
    out.unlink()
    return float(total), doc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", help="write results as JSON")
    ap.add_argument("--only", action="append", help="run only these benchmarks")
    ap.add_argument("--baseline", type=Path, help="an older source tree, extension built in place "
                    "(s0_points_vs_baseline)")
    ap.add_argument("--plot", type=Path, metavar="DIR", help="draw every figure's ratio to its baseline "
                    "(benchmarks.png) here")
    args = ap.parse_args()
    if args.plot is not None:
        try:
            args.plot.mkdir(parents=True, exist_ok=True)
            (args.plot / ".write-test").touch()
            (args.plot / ".write-test").unlink()
        except OSError as e:
            ap.error(f"--plot {args.plot}: cannot write there ({e.strerror}); give a writable directory")
    global BASELINE_TREE
    if args.baseline is not None:
        if not (args.baseline / "src" / "sgdma").is_dir():
            ap.error(f"--baseline {args.baseline}: no src/sgdma there; give a source tree whose extension is "
                     "built in place (python3 setup.py build_ext --inplace)")
        BASELINE_TREE = args.baseline.resolve()
    results = {"machine": {"python": platform.python_version(), "machine": platform.machine(),
                           "processor": platform.processor() or "unknown", "cpus": os.cpu_count(),
                           "load_average_1min": os.getloadavg()[0]}}
    for name, fn in BENCHMARKS.items():
        if args.only and name not in args.only:
            continue
        for key, fig in fn().items():
            results[key] = fig
            print(f"{key:<40} {fig['value']:>14.4g} {fig['unit']:<6} baseline {fig['baseline']:>12.4g} "
                  f"({fig['baseline_name']})  ratio {fig['ratio']:.3g}" + (f"\n{'':<40} {fig['note']}"
                                                                          if fig.get("note") else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
            f.write("\n")
    if args.plot is not None:
        print(f"wrote {plot(results, args.plot)}")


def plot(results: dict, directory: Path) -> Path:
    """One bar per figure: its ratio to the baseline measured beside it (log scale; 1 = as fast as the
    baseline), labelled with the value and the baseline's name."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figs = [(k, v) for k, v in results.items() if k != "machine" and v.get("ratio") == v.get("ratio")
            and v.get("ratio", 0) > 0]
    fig, ax = plt.subplots(figsize=(11, 0.45 * len(figs) + 1.6))
    names = [k for k, _ in figs]
    ratios = [v["ratio"] for _, v in figs]
    ax.barh(range(len(figs)), ratios, color="#4477aa")
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlim(min(ratios + [1.0]) / 2, max(ratios + [1.0]) * 3e3)      # room for the labels on the right
    ax.set_yticks(range(len(figs)), names, fontsize=8)
    ax.invert_yaxis()
    for i, (_, v) in enumerate(figs):
        ax.annotate(f" {v['value']:.4g} {v['unit']} vs {v['baseline_name']}", (v["ratio"], i), va="center",
                    fontsize=7)
    m = results["machine"]
    ax.set_xlabel("ratio to the baseline measured in the same run")
    ax.set_title(f"sgdma benchmarks ({m['machine']}, {m['cpus']} CPUs, load {m['load_average_1min']:.1f}, "
                 f"Python {m['python']})", fontsize=9)
    fig.tight_layout()
    out = directory / "benchmarks.png"
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


if __name__ == "__main__":
    main()
