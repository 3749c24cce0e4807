"""Capture: is the asked rate sustained, the highest sustained rate (bisected on the model), and what
binds there.  At the lowest failing rate of the bisection the run is replayed with each resource relaxed
in turn: the consumer CPU (every host-path cost item free), the PL FIFO (16x deeper) and DDR refresh
(off).  For each relaxation that sustains that rate, the highest rate it reaches is bisected; the one that
reaches furthest names the binding resource (what relaxing it would buy is kept).  If none sustains it,
the DMA side (S2MM engine, port, DRAM bandwidth) binds."""
from __future__ import annotations

from sgdma.capture.driver import CaptureError
from sgdma.capture.session import run_capture
from sgdma.capture.sweep import stream_limit_sps, trial_seconds
from sgdma.models.cpu import COST_UNITS, MAX_COST_MBPS, coherent_port

FIFO_RELAX = 16

#: every host-path cost item at its cheapest legal value: software takes no time
FREE_CPU = {k: (MAX_COST_MBPS if u == "MB/s" else 0.0) for k, u in COST_UNITS.items()
            if u in ("MB/s", "ns")}

RESOURCES = {
    "CPU": "the consumer CPU (interrupts, system calls, cache maintenance, copies, the consumer)",
    "PL FIFO": "the PL FIFO between the ADC and the DMA (it must cover the gaps while no buffer is armed)",
    "DDR refresh": "DDR refresh windows stopping the DMA's writes",
    "DMA": "the DMA side: S2MM engine, interconnect port and DRAM bandwidth (no relaxation above lifted it)",
    "stream": "the S2MM stream's width x clock: the ADC cannot offer more",
}


def _relaxed(opts: dict, what: str) -> dict:
    """The run's keyword arguments with one resource relaxed."""
    o = dict(opts)
    if what == "CPU":
        o["cpu_costs"] = {**(opts.get("cpu_costs") or {}), **FREE_CPU}
    elif what == "PL FIFO":
        o["fifo_bytes"] = opts["fifo_bytes"] * FIFO_RELAX
    elif what == "DDR refresh":
        options = {"dram.trefi_ns": 0.0}
        line = (opts.get("cpu_costs") or {}).get("cmo_line_ns")
        if line is not None:
            options["cpu.cache_line_ns"] = float(line)
        if opts.get("dma_mode") == "simple":
            options["dma.include_sg"] = 0.0
        o["board_options"] = options
    return o


def _board(opts: dict):
    """A preset name, or a fresh board with the relaxed options (each run starts on a new board)."""
    if "board_options" not in opts:
        return opts["board"]
    from sgdma.board.virtual import VirtualBoard

    port = coherent_port(opts["board"]) if opts.get("cache") == "coherent" else None
    return VirtualBoard(opts["board"], seed=opts.get("seed", 0), port=port, options=opts["board_options"],
                        cpu_load=opts.get("cpu_load"))


def _run(opts: dict, rate: float, **kw) -> dict:
    """run_capture with every option of the user's run (a relaxed board carries the background load itself)."""
    return run_capture(_board(opts), rate, opts["sample_bytes"], opts["buffer_bytes"], opts["buffers"],
                       api=opts["api"], cache=opts["cache"], mode=opts["mode"], consumer_rate=opts.get("consumer_rate"),
                       fifo_bytes=opts["fifo_bytes"], seed=opts.get("seed", 0), verify=False,
                       consumer=opts.get("consumer", "none"), cpu_costs=opts.get("cpu_costs"),
                       dma_mode=opts.get("dma_mode", "sg"), irq_threshold=opts.get("irq_threshold", 1),
                       irq_delay_ns=opts.get("irq_delay_ns", 0.0),
                       cpu_load=None if "board_options" in opts else opts.get("cpu_load"), **kw)


def _sustains(opts: dict, rate: float) -> dict:
    secs = opts.get("seconds") or trial_seconds(rate, opts["sample_bytes"], opts["buffer_bytes"], opts["buffers"])
    r = _run(opts, rate, seconds=secs if opts["mode"] == "continuous" else opts.get("seconds"),
             stop_on_overflow=True)
    return {"ok": bool(r["sustained"] and r["keeping_up"]), "overflows": r["overflows"], "cpu_load": r["cpu_load"],
            "cpu_by_kind_ns": r["cpu"]["by_kind_ns"], "buffers": r["buffers_delivered"]}


def _bracket(opts: dict, start: float, top: float, rel_tol: float) -> tuple[float, float | None, int]:
    """(highest sustained rate, lowest failing rate or None if the stream's top is sustained, trials): doubled or
    halved from ``start`` until the ends disagree, then bisected geometrically to ``rel_tol``."""
    trials = 0

    def ok(rate: float) -> bool:
        nonlocal trials
        trials += 1
        return _sustains(opts, rate)["ok"]

    start = min(start, top)
    if ok(start):
        lo, hi = start, None
        while lo < top:
            r = min(top, lo * 2)
            if not ok(r):
                hi = r
                break
            lo = r
        if hi is None:
            return lo, None, trials
    else:
        hi, lo = start, start / 2
        while not ok(lo):
            hi, lo = lo, lo / 2
            if lo < 1.0:
                raise CaptureError(f"no sample rate above 1 sample/s is sustained with {opts['buffers']} x "
                                   f"{opts['buffer_bytes']} B buffers ({opts['api']}, {opts['cache']})")
    while hi / lo > 1 + rel_tol:
        mid = (lo * hi) ** 0.5
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo, hi, trials


def analyse(opts: dict, rate: float, run_seconds: float | None = None, rel_tol: float = 0.02) -> dict:
    """``opts``: run_capture's keyword arguments (board, sample_bytes, buffer_bytes, buffers, api, cache, mode,
    consumer_rate, seconds, fifo_bytes, seed, consumer, cpu_costs, dma_mode, and optionally cpu_load,
    irq_threshold, irq_delay_ns: every trial runs with them); ``rate``: the asked rate;
    ``run_seconds``: the length of the asked run, replayed for the timeline (default: run_capture's)."""
    top = stream_limit_sps(opts["board"], opts["sample_bytes"])
    best, failing, trials = _bracket(opts, rate, top, rel_tol)
    out = {"asked_sps": rate, "max_rate_sps": best, "max_mbps": best * opts["sample_bytes"] / 1e6,
           "margin": best / rate, "failing_sps": failing, "trials": trials,
           "resolution": failing / best - 1 if failing else None, "stream_limit_sps": top, "replays": {}}
    at_best = _sustains(opts, best)
    out["cpu_at_max"] = {"load": at_best["cpu_load"], "by_kind_ns": at_best["cpu_by_kind_ns"],
                         "buffers": at_best["buffers"]}
    if failing is None:
        out["binding"] = "stream"
    else:
        out["binding"] = "DMA"
        lifted = {}
        for what in ("CPU", "PL FIFO", "DDR refresh"):
            r = _sustains(_relaxed(opts, what), failing)
            out["replays"][what] = {"ok": r["ok"], "overflows": r["overflows"]}
            if r["ok"]:                       # it lifts the limit: how far?
                lifted[what] = _bracket(_relaxed(opts, what), failing, top, rel_tol)[0]
        if lifted:
            # several may lift it (refresh stalls are what a deeper FIFO rides out): the one that goes furthest binds
            out["binding"] = max(lifted, key=lifted.get)
            relaxed = _relaxed(opts, out["binding"])
            out["relaxed"] = {"resource": out["binding"], "max_rate_sps": lifted[out["binding"]],
                              "max_mbps": lifted[out["binding"]] * opts["sample_bytes"] / 1e6,
                              "at_asked": _sustains(relaxed, rate)["ok"],
                              "others": {k: v for k, v in lifted.items() if k != out["binding"]}}
    out["why"] = RESOURCES[out["binding"]]
    out["timeline"] = timeline({**opts, "seconds": run_seconds or opts.get("seconds")}, rate)
    return out


TIMELINE_POINTS = 2000       # samples kept (every k-th hand-off of a longer run)


def timeline(opts: dict, rate: float) -> dict:
    """The run at ``rate`` replayed with its per-hand-off samples (run_capture's timeline), thinned."""
    r = _run(opts, rate, seconds=opts.get("seconds"), timeline=True)
    tl = r["timeline"]
    k = max(1, -(-len(tl["t_ps"]) // TIMELINE_POINTS))
    return {key: v[::k] for key, v in tl.items()} | {"rate_sps": rate, "every": k, "fifo_bytes": opts["fifo_bytes"],
                                                     "buffers": opts["buffers"]}
