"""Capture sweeps: the highest sample rate a transport sustains, and S4's table (MB/s and packets/s
against buffer size) for each API and cache policy.

Method (``find_max_rate``): bisection on the ADC's sample rate.  A rate is *sustained* if a run of
``trial_seconds`` of virtual time (default: ~1000 buffers or 20 ring laps, between 2 ms and
0.5 s) drops no sample AND the reader is keeping up (it still had to wait for data in the last
quarter of the run: a reader that never waits lives off the ring's reserve, which a finite run
would hide); a run stops at the first buffer flagged with lost samples.  The bracket
starts around an estimate from the mean CPU costs, is widened until its ends disagree, then
halved geometrically to ``rel_tol``.  The top is the S2MM stream's own limit (width x clock):
the ADC cannot offer more.  ``limit`` names what gave out: "stream" (the top was sustained),
"cpu" (the consumer CPU was >= 90 % busy at the best rate) or "dma" (the S2MM engine, port and
DRAM, with CPU time to spare).  Every trial is a fresh board with the same seed: the result is
deterministic for a seed (the wake-up jitter, Linux ticks and stalls, DRAM refresh are the seed's).

``sweep_buffer_size`` runs ``find_max_rate`` per (size, API, policy) and reports the sustained
MB/s (10^6 B/s) and packets (= buffers) per second: what the CPU-side transport sustains without
loss, not a saturated throughput (a producer faster than the transport only adds drops).
"""
from __future__ import annotations

import math
import time
from pathlib import Path

from sgdma.models.cpu import POLICIES, CpuModel, preset_doc
from sgdma.capture.driver import CaptureError
from sgdma.capture.session import DEFAULT_FIFO_BYTES, default_cache, run_capture
from sgdma.capture.transport import APIS

DEFAULT_SIZES = tuple(1 << k for k in range(6, 18))        # 64 B .. 128 KiB


def _preset(board) -> str:
    return board.preset if hasattr(board, "axi_dma") else str(board)


def stream_limit_sps(board, sample_bytes: int) -> float:
    """The ADC's ceiling: the S2MM stream's width x clock, in samples/s."""
    doc = preset_doc(_preset(board))
    width = doc["dma"]["data_width"]["value"] // 8
    mhz = doc["dma"]["clock_mhz"]["value"]
    return width * mhz * 1e6 / sample_bytes


def estimate_mbps(board, buffer_bytes: int, api: str, cache: str, consumer_rate: float | None = None) -> float:
    """Mean-cost estimate of what the consumer CPU sustains (MB/s), to seed the bisection."""
    model = CpuModel.for_board(_preset(board), "apu")
    c = model.transport(cache)
    per = c.wakeup_mean_ns() + 1500.0 + c.cmo_ns(0, buffer_bytes)
    if api == "batch":                       # a batch's wake-up and two calls are shared by its buffers
        per = (per + 2 * c.syscall_ns) / 4 + c.cmo_ns(0, buffer_bytes) * 3 / 4
    else:
        per += c.syscall_ns * (2 if api == "zerocopy" else 1)
    if api == "copy":
        per += c.copy_ns(buffer_bytes)
    if consumer_rate:
        per += buffer_bytes * 1e9 / consumer_rate + (c.read_ns(buffer_bytes) if api != "copy" else 0.0)
    return buffer_bytes / per * 1e3


def trial_seconds(rate: float, sample_bytes: int, buffer_bytes: int, buffers: int) -> float:
    per_buffer = buffer_bytes / (rate * sample_bytes)
    return min(max(max(1000, 20 * buffers) * per_buffer, 2e-3), 0.5)


def find_max_rate(board, sample_bytes: int = 4, buffer_bytes: int = 128 << 10, buffers: int = 16,
                  api: str = "zerocopy", cache: str | None = None, mode: str = "continuous",
                  consumer_rate: float | None = None, seconds: float | None = None,
                  fifo_bytes: int = DEFAULT_FIFO_BYTES, seed: int = 0, rel_tol: float = 0.01,
                  consumer: str = "none", cpu_costs: dict | None = None, dma_mode: str = "sg",
                  irq_threshold: int = 1, irq_delay_ns: float = 0.0) -> dict:
    """Highest sample rate sustained without overflow (see the module docstring).

    ``board``: a preset name (or a VirtualBoard, whose preset is used: every trial gets a fresh
    board).  ``seconds``: virtual time per trial (default ``trial_seconds``).  ``consumer``,
    ``cpu_costs``, ``dma_mode``, ``irq_threshold``, ``irq_delay_ns``, ``cache``: as ``run_capture``."""
    wall0 = time.perf_counter()
    cache = default_cache(dma_mode) if cache is None else cache
    name = _preset(board)
    if not 0 < rel_tol < 1:
        raise CaptureError(f"rel_tol={rel_tol!r}: must be between 0 and 1")
    top = stream_limit_sps(name, sample_bytes) if 1 <= sample_bytes <= 8 else 1.0
    runs = []

    def sustained(rate: float) -> bool:
        secs = seconds if seconds is not None else trial_seconds(rate, sample_bytes, buffer_bytes, buffers)
        r = run_capture(name, rate, sample_bytes, buffer_bytes, buffers, api=api, cache=cache, mode=mode,
                        consumer_rate=consumer_rate, seconds=secs if mode == "continuous" else seconds,
                        fifo_bytes=fifo_bytes, seed=seed, verify=False, stop_on_overflow=True, consumer=consumer,
                        cpu_costs=cpu_costs, dma_mode=dma_mode, irq_threshold=irq_threshold,
                        irq_delay_ns=irq_delay_ns)
        ok = r["sustained"] and r["keeping_up"]
        runs.append({"rate_sps": rate, "ok": ok, "sustained": r["sustained"], "keeping_up": r["keeping_up"],
                     "overflows": r["overflows"], "cpu_load": r["cpu_load"],
                     "throughput_mbps": r["throughput_mbps"], "latency_us": r["latency_us"],
                     "simulated_s": r["simulated_s"]})
        return ok

    # validate once, up front (raises CaptureError naming the limit)
    guess = min(top, estimate_mbps(name, buffer_bytes, api, cache, consumer_rate) * 1e6 / sample_bytes)
    if mode == "burst":
        guess = top
    lo, hi = guess / 2, min(top, guess * 2)
    limit = None
    if sustained(hi):
        while hi < top:
            lo, hi = hi, min(top, hi * 4)
            if not sustained(hi):
                break
        else:
            lo = hi
            limit = "stream"
    else:
        while not sustained(lo):
            hi, lo = lo, lo / 4
            if lo < 1.0:
                raise CaptureError(f"{name}: no sample rate above 1 sample/s is sustained with {buffers} x "
                                   f"{buffer_bytes} B buffers ({api}, {cache})")
    while limit != "stream" and hi / lo > 1 + rel_tol:
        mid = math.sqrt(lo * hi)
        if sustained(mid):
            lo = mid
        else:
            hi = mid
    best = next((r for r in reversed(runs) if r["ok"] and r["rate_sps"] == lo), None)
    if limit != "stream":
        # what gave out just above: the consumer CPU (busy nearly all the time at the best rate) or
        # the DMA side (S2MM engine, port, DRAM) with CPU time to spare
        limit = "cpu" if best is not None and best["cpu_load"] >= 0.9 else "dma"
    return {"board": name, "api": api, "cache": cache, "mode": mode, "sample_bytes": sample_bytes,
            "buffer_bytes": buffer_bytes, "buffers": buffers, "consumer_rate": consumer_rate, "seed": seed,
            "consumer": consumer, "dma_mode": dma_mode,
            "fifo_bytes": fifo_bytes, "max_rate_sps": lo, "max_mbps": lo * sample_bytes / 1e6,
            "pps": lo * sample_bytes / buffer_bytes, "limit": limit, "stream_limit_sps": top,
            # the same under the names sweep tables use
            "max_rate": lo, "throughput_mbps": lo * sample_bytes / 1e6, "packets_per_s": lo * sample_bytes / buffer_bytes,
            "bracket_sps": [lo, hi], "rel_tol": rel_tol,
            "cpu_load": best["cpu_load"] if best else None,
            "latency_us": best["latency_us"] if best else None,
            "trials": len(runs), "runs": runs, "wall_s": time.perf_counter() - wall0}


def _point(args) -> dict:
    board, size, api, cache, kw = args
    r = find_max_rate(board, buffer_bytes=size, api=api, cache=cache, **kw)
    r.pop("runs")
    return r


def default_jobs() -> int:
    from sgdma.executor import default_jobs as cores

    return cores()


def sweep_buffer_size(board, sizes=DEFAULT_SIZES, apis=APIS, caches=POLICIES, sample_bytes: int = 4,
                      buffers: int = 16, mode: str = "continuous", consumer_rate: float | None = None,
                      fifo_bytes: int = DEFAULT_FIFO_BYTES, seed: int = 0, rel_tol: float = 0.02,
                      seconds: float | None = None, jobs: int = 1, skip_unsupported: bool = True,
                      executor=None, consumer: str = "none", cpu_costs: dict | None = None,
                      dma_mode: str = "sg", progress=None, irq_threshold: int = 1,
                      irq_delay_ns: float = 0.0) -> list[dict]:
    """Sustained MB/s and packets/s per buffer size, API and cache policy (``find_max_rate`` per point).

    A policy the board cannot do (``coherent`` without an ACP/HPC port, e.g. zcu111's PL DDR) is
    skipped when ``skip_unsupported`` (else CaptureError).  ``jobs``: local worker processes, or an
    ``executor`` (sgdma.executor); the records do not depend on either.  ``progress(done, total)`` counts
    points as they finish."""
    name = _preset(board)
    sizes = [int(s) for s in sizes]
    for a in apis:
        if a not in APIS:
            raise CaptureError(f"api {a!r}: choose {' or '.join(APIS)}")
    for c in caches:
        if c not in POLICIES:
            raise CaptureError(f"cache policy {c!r}: choose {', '.join(POLICIES)}")
    from sgdma.capture.driver import resolve_board

    usable = []
    for c in caches:
        try:
            resolve_board(name, c, dma_mode=dma_mode)
        except CaptureError:
            if not skip_unsupported:
                raise
            continue
        usable.append(c)
    kw = dict(sample_bytes=sample_bytes, buffers=buffers, mode=mode, consumer_rate=consumer_rate,
              fifo_bytes=fifo_bytes, seed=seed, rel_tol=rel_tol, seconds=seconds, consumer=consumer,
              cpu_costs=cpu_costs, dma_mode=dma_mode, irq_threshold=irq_threshold, irq_delay_ns=irq_delay_ns)
    # refuse bad geometry before any worker starts
    from sgdma.board.virtual import VirtualBoard
    from sgdma.capture.driver import check_geometry, layout_of

    vb = VirtualBoard(name)
    for s in sizes:
        check_geometry(vb, layout_of(vb), s, buffers, sample_bytes)
    del vb
    tasks = [(name, s, a, c, kw) for c in usable for a in apis for s in sizes]
    from sgdma.executor import LocalExecutor

    own = executor is None
    executor = executor or LocalExecutor(max(1, min(jobs, len(tasks))), "processes")
    out = [None] * len(tasks)
    try:
        if progress:
            progress(0, len(tasks))
        for done, (i, rec) in enumerate(executor.map(_point, tasks), 1):
            out[i] = rec
            if progress:
                progress(done, len(tasks))
        return out
    finally:
        if own:
            executor.close()


def sweep_table(records: list[dict]) -> str:
    """S4-style text table: size, MB/s, packets/s per (api, cache)."""
    series = sorted({(r["api"], r["cache"]) for r in records})
    sizes = sorted({r["buffer_bytes"] for r in records})
    by = {(r["api"], r["cache"], r["buffer_bytes"]): r for r in records}
    head = f"{'size (B)':>9}" + "".join(f"  {a + '/' + c:>24}" for a, c in series)
    sub = f"{'':>9}" + "".join(f"  {'MB/s':>10} {'pps':>13}" for _ in series)
    lines = [head, sub]
    for s in sizes:
        row = f"{s:>9}"
        for a, c in series:
            r = by.get((a, c, s))
            row += f"  {r['max_mbps']:>10.1f} {r['pps']:>13.0f}" if r else f"  {'-':>10} {'-':>13}"
        lines.append(row)
    return "\n".join(lines)


def plot_sweep(records: list[dict], directory: str | Path) -> list[Path]:
    """PNG: sustained MB/s and packets/s against buffer size, one line per (API, policy)."""
    from sgdma.output.plots import pyplot, save

    plt = pyplot()
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    series = sorted({(r["api"], r["cache"]) for r in records})
    board = records[0]["board"] if records else "?"
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5))
    styles = {"copy": "--", "zerocopy": "-", "batch": ":"}
    colors = {"sync": "tab:red", "uncached": "tab:blue", "writecombine": "tab:purple", "coherent": "tab:green"}
    for api, cache in series:
        rows = sorted((r for r in records if r["api"] == api and r["cache"] == cache), key=lambda r: r["buffer_bytes"])
        x = [r["buffer_bytes"] for r in rows]
        label = f"{api}, {cache}"
        a1.plot(x, [r["max_mbps"] for r in rows], styles.get(api, "-"), color=colors.get(cache), marker="o", ms=3,
                label=label)
        a2.plot(x, [r["pps"] for r in rows], styles.get(api, "-"), color=colors.get(cache), marker="o", ms=3,
                label=label)
    if records:
        top = records[0]["stream_limit_sps"] * records[0]["sample_bytes"] / 1e6
        a1.axhline(top, color="0.4", ls=":", lw=1, label=f"S2MM stream limit {top:.0f} MB/s")
    for ax, ylabel, title in ((a1, "sustained MB/s (10^6 B/s)", "throughput without loss"),
                              (a2, "buffers (packets) per second", "packet rate without loss")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("buffer size (bytes)")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{title} ({board}, virtual board)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    a2.set_yscale("log")
    return [save(fig, d / f"capture_sweep_{board}.png")]
