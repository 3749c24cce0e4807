"""Characterization sweeps on the virtual board: S0's experiment and its relatives.

A trial plays S0's RPU role against the timed model: prime the BD ring
(CURDESC + RS), hand-shake with the PL timing engine over GPIO, write the
tail, wait in standby until the engine is done, read its counters.  Latency
is tail write → first stream beat; throughput is payload / (first → last
beat), as S0 defines them.  Each trial draws its own DRAM refresh phase from
the seed, so the spread over trials is the model's own, not added noise.
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Iterable, Iterator

import numpy as np

from sgdma.hw import pg021 as P
from sgdma.hw import units
from sgdma.board.programs import s0_trials
from sgdma.board.virtual import VirtualBoard, cpu_load_options
from sgdma.driver.axidma import AxiDma
from sgdma.hw.layout import Layout
from sgdma.experiments import fidelity as fid
from sgdma.experiments import sweepcache
from sgdma.experiments.chunks import Chunk, plan_chunks, point_cost  # noqa: F401  (part of the sweep API)


class SweepError(ValueError):
    """A sweep point the board cannot do; raised before anything runs."""


class SweepFailed(RuntimeError):
    """Chunks of a sweep failed while running (or their worker died); the finished ones are kept in the cache."""


@dataclass(frozen=True)
class Point:
    bytes_per_bd: int
    bds: int
    cycles: int = 1


@dataclass(frozen=True)
class CpuLoad:
    """A background CPU load competing with the DMA for DRAM (VirtualBoard(cpu_load=...)): a byte rate and the
    share of it that is reads (a memcpy: 0.5)."""
    rate_mbps: float
    read_fraction: float = 0.5

    @classmethod
    def of(cls, load) -> "CpuLoad | None":
        """Any form VirtualBoard takes (800, "800MB/s", "1.2GB/s,read=0.7", a dict); None for no load."""
        keys = cpu_load_options(load)
        if not keys or keys["cpu.load_mbps"] == 0:
            return None
        return cls(keys["cpu.load_mbps"], keys["cpu.load_read_fraction"])


@dataclass(frozen=True)
class Setup:
    board: str = "zcu111"
    mode: str = "sg"               # sg | simple
    direction: str = "mm2s"        # mm2s | s2mm
    placement: str = "sequential"  # sequential | random
    trials: int = 10
    seed: int = 0
    timing_only: bool = True
    port: str | None = None        # a PS port of the board's [port.*] list (None: the preset's [ic])
    cpu_load: CpuLoad | None = None  # background CPU load on the trials' boards (any form CpuLoad.of takes)
    fidelity: str = "exact"        # exact | fast | functional (sgdma.experiments.fidelity)
    fast_periods: int = fid.DEFAULT_PERIODS   # fast: refresh periods in the window
    tolerance: float = fid.DEFAULT_TOLERANCE  # fast: relative error the window is extended to meet (half of it)
    options: tuple = ()            # (key, value) preset overrides of the trials' boards (a relaxed replay's)

    def __post_init__(self):
        try:
            fid.check(self.fidelity, self.fast_periods, self.tolerance)
        except fid.FidelityError as e:
            raise SweepError(str(e)) from None
        if not isinstance(self.cpu_load, (CpuLoad, type(None))):   # one canonical form: equal loads, equal setups
            try:
                object.__setattr__(self, "cpu_load", CpuLoad.of(self.cpu_load))
            except ValueError as e:
                raise SweepError(f"--cpu-load: {e}") from None


@dataclass
class Record:
    board: str
    mode: str
    direction: str
    placement: str
    bytes_per_bd: int
    bds: int
    cycles: int
    trials: int
    latency_ns: dict
    throughput_mbps: dict
    simulated_ns: float
    wall_s: float
    cpu_s: float = 0.0            # CPU time of the workers (honest speed figures on a loaded machine)
    cpu_load_mbps: float = 0.0    # the background CPU load the trials ran under (0: none)
    cpu_load_read_fraction: float = 0.0
    fidelity: str = "exact"       # the fidelity the point was run at
    extrapolated: int = 0         # trials whose throughput was extrapolated (fast); the others ran exact
    exact_bds: int = 0            # BDs simulated exactly, summed over the trials
    error_estimate: float = 0.0   # bound of the relative throughput error (max over trials; 0: all exact)
    fidelity_note: str = ""       # why a fast point ran exact, or what functional approximates
    samples: dict = field(default_factory=dict, repr=False)

    def as_dict(self, samples: bool = False) -> dict:
        d = asdict(self)
        if not samples:
            d.pop("samples")
        return d


def stats(values: Iterable[float]) -> dict:
    a = np.asarray(list(values), dtype=float)
    return {"median": float(np.median(a)), "min": float(a.min()), "max": float(a.max())}


def parse_size(text) -> int:
    """Bytes in the one unit grammar (sgdma.hw.units)."""
    return units.parse_size(text)


def parse_list(text) -> list[int]:
    """'32,64,128', '2^5..2^13' or '32..8192' (powers of two between the ends): sgdma.hw.units.parse_sizes."""
    return units.parse_sizes(text)


def s0_points() -> list[Point]:
    """S0 Table II: bytes/BD 2^5..2^13 x BDs 2^1..2^13, plus ring cycles 2^1..2^13 on
    rings of 4 and 16 BDs at 32 B and 8 KiB per BD."""
    pts = [Point(1 << b, 1 << n) for b in range(5, 14) for n in range(1, 14)]
    pts += [Point(bpb, ring, 1 << c) for ring in (4, 16) for bpb in (32, 8192) for c in range(1, 14)]
    return pts


class Bench:
    """One virtual board reused trial after trial (reseeded each time)."""

    def __init__(self, setup: Setup):
        if setup.mode not in ("sg", "simple"):
            raise SweepError(f"--mode {setup.mode!r}: choose sg or simple")
        if setup.direction not in ("mm2s", "s2mm"):
            raise SweepError(f"--direction {setup.direction!r}: choose mm2s or s2mm")
        if setup.placement not in ("sequential", "random"):
            raise SweepError(f"--placement {setup.placement!r}: choose sequential or random")
        if setup.trials < 1:
            raise SweepError("--trials must be >= 1")
        self.setup = setup
        try:
            self.board = VirtualBoard(setup.board, seed=setup.seed, timing_only=setup.timing_only,
                                      include_sg=setup.mode == "sg", port=setup.port, cpu_load=setup.cpu_load,
                                      options={**fid.board_options(setup.fidelity), **dict(setup.options)} or None)
        except ValueError as e:
            raise SweepError(str(e)) from None
        self.dma = AxiDma(self.board)
        self.channel = self.dma.mm2s if setup.direction == "mm2s" else self.dma.s2mm
        self.layout = Layout.of(self.board)
        self.width = self.board.axi_dma.data_bytes
        self.clk_ns = 1e3 / self.board.axi_dma.clock_mhz
        self.regs = self.board.mmio(self.board.axi_dma.base)
        self.base = P.channel_offset(setup.direction)

    def warm_up(self) -> None:
        """One unrecorded trial: a fresh board's first touches of its memory
        (page faults of the BD and buffer regions) and numpy's first calls are
        not the model's speed."""
        p = Point(self.width, 1)
        if self.setup.direction == "mm2s":
            _c_trials(self, p, np.zeros(1, np.uint64))
        stats(trial_seeds(0, p, 2).astype(float))   # numpy's first-use costs, not the model's

    # -- refusing what cannot run ------------------------------------------------
    def stride(self, bytes_per_bd: int) -> int:
        return -(-bytes_per_bd // self.width) * self.width

    def check(self, p: Point) -> None:
        s, blk, lay = self.setup, self.board.axi_dma, self.layout
        if p.bytes_per_bd < 1 or p.bds < 1 or p.cycles < 1:
            raise SweepError(f"{p}: bytes per BD, BDs and cycles must all be >= 1")
        if p.bytes_per_bd > blk.max_length:
            raise SweepError(f"{p.bytes_per_bd} bytes per BD exceeds the {s.board} DMA's length width "
                             f"({blk.length_width} bits: at most {blk.max_length} bytes)")
        if s.mode == "simple" and (p.bds != 1 or p.cycles != 1):
            raise SweepError(f"simple mode has no BD ring: use --bds 1 --cycles 1 (got bds={p.bds}, "
                             f"cycles={p.cycles}); each trial is one transfer of bytes-per-BD bytes")
        if p.bds > lay.max_bds:
            raise SweepError(f"a ring of {p.bds} BDs does not fit the {s.board} BD region "
                             f"({lay.bd_bytes} bytes: at most {lay.max_bds} BDs)")
        if p.bds * self.stride(p.bytes_per_bd) > lay.buffer_bytes:
            raise SweepError(f"{p.bds} buffers of {p.bytes_per_bd} bytes ({p.bds * self.stride(p.bytes_per_bd)} "
                             f"bytes) do not fit the {s.board} buffer region ({lay.buffer_bytes} bytes)")
        if p.cycles > 1 and s.direction != "mm2s":
            raise SweepError("ring cycles (cyclic mode) are measured on MM2S playback only: use --cycles 1")
        beats = p.bds * p.cycles * -(-p.bytes_per_bd // self.width)
        if beats >= 1 << 32:
            raise SweepError(f"{beats} stream beats overflow the timing engine's 32-bit counter")
        if s.direction == "s2mm" and not s.timing_only and p.bds * p.bytes_per_bd > 1 << 30:
            raise SweepError("an S2MM point moves its payload through host memory: keep it under 1 GiB")

    # -- one trial -------------------------------------------------------------------
    def addresses(self, p: Point, rng: np.random.Generator) -> np.ndarray:
        stride = self.stride(p.bytes_per_bd)
        if self.setup.placement == "sequential":
            slots = np.arange(p.bds, dtype=np.uint64)
        else:
            n_slots = self.layout.buffer_bytes // stride
            slots = rng.choice(n_slots, size=p.bds, replace=False).astype(np.uint64)
        return self.layout.buffer_base + slots * np.uint64(stride)

    def trial(self, p: Point, seed: int) -> tuple[float, float, float]:
        """One S2MM trial in Python (MM2S trials run in C, see _c_trials)."""
        b = self.board
        b.reseed(seed)
        self.dma.reset()
        t0 = b.now_ps
        rng = np.random.default_rng(seed)
        # S2MM only: MM2S points run S0's RPU program in C (_c_trials)
        if self.setup.mode == "simple":
            lat, thr = self._simple_s2mm_trial(p, rng)
        else:
            lat, thr = self._sg_s2mm_trial(p, rng)
        return lat, thr, (b.now_ps - t0) / 1e3

    def _sg_s2mm_trial(self, p: Point, rng) -> tuple[float, float]:
        b = self.board
        ring = self.channel.ring(p.bds, physical_address=self.layout.bd_base)
        ring.fill(self.addresses(p, rng), np.full(p.bds, p.bytes_per_bd, np.uint32),
                  np.zeros(p.bds, np.uint8))
        tail = ring.prepare()
        b.s2mm_source.send(np.zeros(p.bds * p.bytes_per_bd, np.uint8), last=True)  # TVALID before the tail
        self.channel.write_tail(tail)
        b.run_until_quiet()
        ring.memory.freebuffer()
        return self._probe_figures(p.bds * p.bytes_per_bd)

    def _simple_s2mm_trial(self, p: Point, rng) -> tuple[float, float]:
        b, regs, base = self.board, self.regs, self.base
        addr = int(self.addresses(p, rng)[0])
        regs.write(base + P.DMACR, P.CR_RS)
        regs.write(base + P.ADDR, addr & 0xFFFFFFFF)
        if self.board.axi_dma.addr_width > 32:
            regs.write(base + P.ADDR_MSB, addr >> 32)
        b.s2mm_source.send(np.zeros(p.bytes_per_bd, np.uint8), last=True)   # TVALID before LENGTH
        regs.write(base + P.LENGTH, p.bytes_per_bd)
        b.run_until_quiet()
        return self._probe_figures(p.bytes_per_bd)

    def _probe_figures(self, payload: int) -> tuple[float, float]:
        pr = self.board.probe("s2mm")
        if pr["t_first_beat"] is None:
            raise TimeoutError(f"S2MM moved no data; DMA registers: {self.board.dma_registers()['s2mm']}")
        lat = (pr["t_first_beat"] - pr["t_kick"]) / 1e3
        span = (pr["t_last_beat"] - pr["t_first_beat"]) / 1e3
        return lat, payload / max(span, self.clk_ns) * 1e3


def trial_seeds(seed: int, p: Point, trials: int) -> np.ndarray:
    """One seed per trial, from (seed, point) only: independent of sweep order and of
    how points are split over processes."""
    return np.random.SeedSequence([seed, p.bytes_per_bd, p.bds, p.cycles]).generate_state(trials, np.uint64)


def _c_trials(bench: Bench, p: Point, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """MM2S trials run S0's RPU program in C (csrc/apps/s0_bench.c), one call per chunk: latency (ns),
    throughput (MB/s) and simulated ps per trial."""
    b, lay, blk = bench.board, bench.layout, bench.board.axi_dma
    payload = p.bds * p.cycles * p.bytes_per_bd
    polls = _poll_limit(bench, p)
    raw, sim = s0_trials(
        b, dma_base=blk.base, gpio_base=b.gpio_base, bd_dev=lay.bd_base, bd_capacity=lay.max_bds,
        buffer_base=lay.buffer_base, buffer_bytes=lay.buffer_bytes, addr_width=blk.addr_width,
        length_width=blk.length_width, data_bytes=blk.data_bytes, poll_limit=min(polls, 2**32 - 1),
        bytes_per_bd=p.bytes_per_bd, bds=p.bds, cycles=p.cycles, random=bench.setup.placement == "random",
        simple=bench.setup.mode == "simple", seeds=seeds.tobytes())
    counts = np.frombuffer(raw, dtype=np.uint32).reshape(-1, 4)
    lat = counts[:, 1] * bench.clk_ns
    thr = payload / (counts[:, 2] * bench.clk_ns) * 1e3
    return lat, thr, np.frombuffer(sim, dtype=np.uint64).copy()


def _poll_limit(bench: Bench, p: Point) -> int:
    """Bound of the wait for DONE, in GPIO polls: 2 us per BD (fetch-bound small BDs) plus 10x the stream
    time, generously."""
    b, blk = bench.board, bench.board.axi_dma
    payload = p.bds * p.cycles * p.bytes_per_bd
    expected_ns = 50_000 + p.bds * p.cycles * 2_000 + payload / (blk.data_bytes * blk.clock_mhz) * 1e3 * 10
    return min(int(expected_ns / max(b.option("cpu.mmio_read_ns"), 1.0)) + 1000, 2**32 - 1)


def _fast_c_trials(bench: Bench, p: Point, seeds: np.ndarray) -> tuple:
    """The fast fidelity's MM2S trials: (latency ns, throughput MB/s, simulated ps, extrapolated, exact BDs,
    error estimate) per trial."""
    f = fid.fast_trials(bench, p, seeds, _poll_limit(bench, p))
    lat = f.latency_clocks * bench.clk_ns
    thr = p.bds * p.cycles * p.bytes_per_bd / (f.throughput_clocks * bench.clk_ns) * 1e3
    return lat, thr, f.simulated_ps, f.extrapolated.astype(np.int64), f.exact_bds, f.error_estimate


_local = threading.local()


def _bench_for(setup: Setup) -> Bench:
    """One board per thread (or process), reused chunk after chunk."""
    b = getattr(_local, "bench", None)
    if b is None or b.setup != setup:
        b = Bench(setup)
        b.warm_up()
        _local.bench = b
    return b


#: Simulated time of one C call of a chunk (by chunks.point_cost's estimate), so that a stopped thread executor
#: ends its running chunks within about this much simulation; assumed: 50 ms, far above a call's fixed cost.
STOP_CHECK_SIM_NS = 50e6


def _check_stop() -> None:
    from sgdma.executor import Stopped, should_stop

    if should_stop():
        raise Stopped("the sweep was stopped")


def run_chunk(task: tuple[Setup, Chunk]) -> dict:
    """Raw per-trial arrays for one chunk; statistics are computed once, in the parent."""
    setup, ch = task
    w0, c0 = time.perf_counter(), time.thread_time()
    bench = _bench_for(setup)
    seeds = trial_seeds(setup.seed, ch.point, ch.last)[ch.first:]
    n_bds = ch.point.bds * ch.point.cycles
    if setup.direction == "mm2s":
        # a few C calls per chunk, not one: a stopped thread executor (Ctrl-C) is heard between them
        step = max(1, int(STOP_CHECK_SIM_NS // point_cost(setup, ch.point)))
        fast = setup.fidelity == "fast" and not fid.unvalidated(setup)
        out = []
        for lo in range(0, len(seeds), step):
            _check_stop()
            if fast:
                out.append(_fast_c_trials(bench, ch.point, seeds[lo:lo + step]))
            else:
                lat, thr, sim = _c_trials(bench, ch.point, seeds[lo:lo + step])
                out.append((lat, thr, sim, np.zeros(len(lat), np.int64), np.full(len(lat), n_bds, np.int64),
                            np.zeros(len(lat))))
        lat, thr, sim, extra, exact_bds, err = (np.concatenate([o[k] for o in out]) for k in range(6))
    else:
        rows = []
        for s in seeds:
            _check_stop()
            rows.append(bench.trial(ch.point, int(s)))
        lat = np.array([r[0] for r in rows], float)
        thr = np.array([r[1] for r in rows], float)
        sim = np.array([int(round(r[2] * 1e3)) for r in rows], np.uint64)
        extra, exact_bds, err = np.zeros(len(rows), np.int64), np.full(len(rows), n_bds, np.int64), np.zeros(len(rows))
    return {"key": ch.key, "latency_ns": lat, "throughput_mbps": thr, "simulated_ps": sim,
            "extrapolated": extra, "exact_bds": exact_bds, "error_estimate": err, "wall_s": time.perf_counter() - w0, "cpu_s": time.thread_time() - c0}


def _record(setup: Setup, p: Point, parts: list[dict]) -> Record:
    lat = np.concatenate([r["latency_ns"] for r in parts])
    thr = np.concatenate([r["throughput_mbps"] for r in parts])
    sim_ps = int(sum(int(r["simulated_ps"].sum()) for r in parts))
    rec = Record(board=setup.board, mode=setup.mode, direction=setup.direction, placement=setup.placement,
                 bytes_per_bd=p.bytes_per_bd, bds=p.bds, cycles=p.cycles, trials=setup.trials,
                 latency_ns=stats(lat), throughput_mbps=stats(thr), simulated_ns=sim_ps / 1e3,
                 wall_s=sum(r["wall_s"] for r in parts), cpu_s=sum(r["cpu_s"] for r in parts),
                 cpu_load_mbps=setup.cpu_load.rate_mbps if setup.cpu_load else 0.0,
                 cpu_load_read_fraction=setup.cpu_load.read_fraction if setup.cpu_load else 0.0,
                 fidelity=setup.fidelity,
                 extrapolated=int(sum(int(r["extrapolated"].sum()) for r in parts)),
                 exact_bds=int(sum(int(r["exact_bds"].sum()) for r in parts)),
                 error_estimate=float(max(float(r["error_estimate"].max(initial=0.0)) for r in parts)),
                 fidelity_note=_note(setup, p, parts),
                 samples={"latency_ns": lat.tolist(), "throughput_mbps": thr.tolist()})
    return rec


def _note(setup: Setup, p: Point, parts: list[dict]) -> str:
    if setup.fidelity == "functional":
        return fid.FUNCTIONAL_NOTE
    if setup.fidelity != "fast":
        return ""
    why = fid.unvalidated(setup)
    if why:
        return f"ran exact: the fast estimator is not validated for {why}"
    ran_exact = sum(len(r["extrapolated"]) - int(r["extrapolated"].sum()) for r in parts)
    if ran_exact:
        return (f"{ran_exact} of {setup.trials} trials ran exact (shorter than warm-up + window, or the "
                f"error estimate stayed above half the tolerance in every window the trial had room for)")
    return ""


def run_point(bench: Bench, p: Point) -> Record:
    """One point, all its trials, on this bench (the planner's short runs)."""
    setup = bench.setup
    _local.bench = bench
    return _record(setup, p, [run_chunk((setup, Chunk(0, p, 0, setup.trials)))])


#: Work bound of one sweep, checked before any point runs: BD executions (trials x BDs x cycles, summed over
#: the points).  S0's full Table II sweep is ~1.4e8; assumed: the limit is ~30x that (hours on a 2-core VM).
MAX_SWEEP_BD_RUNS = 1 << 32
MAX_POINTS = 1 << 16         # points of one sweep (S0's Table II has 169)


def sweep(setup: Setup, points: list[Point], jobs: int = 1, executor=None, cache: str | None = None,
          progress=None) -> Iterator[Record]:
    """Records in the order of `points`; every point is checked before any runs.

    Work is split into chunks of trials (largest first) and run on `executor` (default: local processes,
    `jobs` of them); each trial's seed comes from (sweep seed, point, trial index), so the records are the
    same however the work is split.  `cache`: a directory keeping finished chunks, so an interrupted sweep
    resumes.  `progress(done_trials, total_trials)` is called as chunks finish."""
    from sgdma.executor import LocalExecutor, check_jobs

    check_jobs(jobs)
    work = setup.trials * sum(p.bds * p.cycles for p in points)
    if work > MAX_SWEEP_BD_RUNS:
        raise SweepError(f"the sweep runs {work:.3g} BDs ({setup.trials} trials x BDs x cycles over {len(points)} "
                         f"points), over the limit of {MAX_SWEEP_BD_RUNS:.3g}; fewer --trials, --bds or --cycles")
    bench = Bench(setup)
    for p in points:
        bench.check(p)
    own = executor is None
    if own:
        executor = LocalExecutor(jobs, "processes")
    store = sweepcache.open_cache(cache, setup, points) if cache else None
    chunks = store.plan if store and store.plan else plan_chunks(setup, points, getattr(executor, "workers", jobs))
    if store:
        store.save_plan(chunks)
    total = len(points) * setup.trials
    parts: dict[int, list[dict]] = {i: [] for i in range(len(points))}
    need = {i: 0 for i in range(len(points))}
    for ch in chunks:
        need[ch.index] += 1
    todo, done_trials = [], 0
    for ch in chunks:
        hit = store.load(ch) if store else None
        if hit is not None:
            parts[ch.index].append(hit)
            done_trials += ch.last - ch.first
        else:
            todo.append(ch)
    if progress:
        progress(done_trials, total)
    failed: list[tuple[Chunk, BaseException]] = []
    next_point = 0

    def ready():
        nonlocal next_point
        while next_point < len(points) and len(parts[next_point]) == need[next_point]:
            got = sorted(parts[next_point], key=lambda r: int(r["key"].split("_")[1]))
            yield _record(setup, points[next_point], got)
            parts[next_point] = []
            next_point += 1

    lost: BaseException | None = None          # the executor failed: the chunks not back are lost with it
    returned = set()
    try:
        if jobs <= 1 and own:
            bench.warm_up()
            _local.bench = bench
        tasks = [(setup, ch) for ch in todo]
        try:              # a chunk whose worker died comes back as a WorkerLost; the other chunks run on
            results = executor.map(_safe_chunk, tasks, keep_going=True)
        except TypeError:                        # an executor of the caller's own without keep_going
            results = executor.map(_safe_chunk, tasks)
        while True:
            try:
                i, res = next(results)
            except StopIteration:
                break
            except Exception as e:          # a worker died (BrokenProcessPool, KilledWorker) or the cluster went
                lost = e
                break
            returned.add(i)
            ch = todo[i]
            if isinstance(res, BaseException):
                failed.append((ch, res))
                continue
            if store:
                store.save(ch, res)
            parts[ch.index].append(res)
            done_trials += ch.last - ch.first
            if progress:
                progress(done_trials, total)
            if not failed:
                yield from ready()
        if not failed and lost is None:
            yield from ready()          # points whose chunks all came from the cache (all of them, on a rerun)
    except BaseException:
        if own:
            executor.stop()
        raise
    else:
        if own:
            executor.close()
    missing = [ch for i, ch in enumerate(todo) if i not in returned] if lost is not None else []
    if failed or missing:
        msg = []
        if failed:
            msg.append(f"{len(failed)} chunk(s) failed: " + _chunk_names(
                [(ch, f" ({type(e).__name__}: {e})") for ch, e in failed]) + ".")
        if missing:
            why = f"{type(lost).__name__}: {lost}".rstrip(": ")
            msg.append(f"A worker was lost ({why}) while {len(missing)} chunk(s) ran or waited: "
                       + _chunk_names([(ch, "") for ch in missing]) + ".")
        hint = ("Finished chunks are kept in the cache: run again with the same --cache to resume."
                if store else "Use --cache DIR to keep finished chunks across runs.")
        raise SweepFailed(" ".join(msg + [hint]))


def _chunk_names(items: list) -> str:
    names = ", ".join(f"{ch.point.bytes_per_bd} B x {ch.point.bds} BDs x {ch.point.cycles} cycles trials "
                      f"{ch.first}-{ch.last - 1}{why}" for ch, why in items[:5])
    return names + (f" and {len(items) - 5} more" if len(items) > 5 else "")


def _safe_chunk(task):
    try:
        return run_chunk(task)
    except Exception as e:              # reported per chunk; finished chunks are kept
        return e


def default_jobs() -> int:
    from sgdma.executor import default_jobs as cores

    return cores()


def log2_label(n: int) -> str:
    k = int(math.log2(n))
    return f"2^{k}" if 1 << k == n else str(n)


def frame(records: list[Record]):
    """The records as a pandas DataFrame, one row per point (statistics flattened into columns)."""
    import pandas as pd

    rows = []
    for r in records:
        d = r.as_dict() if isinstance(r, Record) else dict(r)
        d.pop("samples", None)
        for k in ("latency_ns", "throughput_mbps"):
            for stat, v in d.pop(k).items():
                d[f"{k}_{stat}"] = v
        rows.append(d)
    return pd.DataFrame(rows)
