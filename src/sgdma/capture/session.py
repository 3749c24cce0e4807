"""A capture session: an ADC on the S2MM stream, the capture driver, a transport API and a
consumer application, on one virtual timeline.

``run_capture(board, rate, sample_bytes, buffer_bytes, buffers, api, cache, mode, consumer_rate,
seconds, fifo_bytes, seed)`` returns a JSON-able record:

* ``sustained``: no sample was dropped (continuous: by the ADC's PL FIFO during the run; burst:
  before the pool was full);
* ``overflows``: samples dropped (continuous: all the FIFO dropped during the run; burst: the
  samples missing from the burst); ``drops``: the episodes (time of the first and last drop in
  ns, first sample index, samples) as the ADC reports them;
* ``throughput_mbps``: bytes handed to the application / elapsed virtual time (MB = 10^6 B);
  ``pps``: buffers handed per second; burst adds ``fill_mbps`` and ``drain_mbps``;
* ``cpu_load``: busy fraction of the consumer CPU (driver, interrupts, system calls, copies,
  cache maintenance, wake-ups, the application) over the run; ``cpu`` breaks it down;
* ``keeping_up``: the reader still had to wait for data in the last quarter of the run (a reader
  that never waits is eating into the ring's reserve and would overflow in a longer run);
* ``buffers_delivered``, ``bytes_delivered``; ``latency_us``: from the ADC producing a buffer's
  last sample to the application holding the buffer (median, p99, max, mean);
* ``verified``: the counter pattern checked end to end: every delivered sample in order, and
  every gap in the delivered counter is exactly the samples the ADC reported dropped there
  (``verify`` has the details).

``ring_depth`` (the buffers of the ring), ``held_max``/``held_mean`` (buffers the application held at once:
they are out of the ring, so the DMA has the rest to fill) and ``syscalls`` describe the host's life cycle.

The consumer: per buffer, the transport call(s) (copy: ``read(buffer_bytes)``; zero copy:
``acquire()`` ... ``release()``; batch: one ``read()`` for every completed buffer, one ``write()`` to
give them back, the interrupt masked while the application works), then the application's own work at ``consumer_rate`` bytes/s
(None: it does nothing with the data, S4's transport benchmark).  With zero copy the application's
first read of the data comes out of the DMA buffer at the policy's read rate (uncached: slow).
"""
from __future__ import annotations

import math
import time

import numpy as np

from sgdma.models.cpu import POLICIES
from sgdma.capture.driver import (CONSUMERS, DROPPED_BEFORE, DROPPED_WITHIN, MODES, CaptureDriver, CaptureError,
                                  CaptureTimeout, resolve_board)
from sgdma.capture.simple import SimpleCaptureDriver
from sgdma.capture.transport import APIS, READERS

DEFAULT_FIFO_BYTES = 8192
LOST = DROPPED_BEFORE | DROPPED_WITHIN


# -- the counter pattern, end to end ------------------------------------------------------------------
class CounterCheck:
    """Checks the delivered stream of the ADC's counter pattern (sample k = k, little-endian).

    Per buffer (vectorised): the samples follow each other (difference 1 modulo the counter's
    width) except at gaps; each gap is recorded at its position in the delivered stream.
    ``reconcile(drops)`` then compares the gaps with the ADC's drop episodes: a gap must be
    exactly the samples dropped there, and every drop before the last delivered sample must
    show up as a gap.  Counters narrower than 8 bytes are compared modulo 2^(8 x bytes)."""

    def __init__(self, sample_bytes: int):
        self.sb = sample_bytes
        self.k = min(sample_bytes, 8)
        self.m = 1 << (8 * self.k)
        self.dtype = np.dtype(f"<u{self.k}") if self.k in (1, 2, 4, 8) else None
        self.delivered = 0              # samples fed
        self.expect = 0                 # counter value of the next sample if nothing is lost
        self.gaps: list[tuple[int, int]] = []   # (delivered position, missing samples mod m)
        self.partial = b""

    def _values(self, data: np.ndarray) -> np.ndarray:
        if self.dtype is not None and self.sb == self.k:
            return data.view(self.dtype)
        rows = data.reshape(-1, self.sb)[:, :self.k]
        pad = np.zeros((rows.shape[0], 8), np.uint8)
        pad[:, :self.k] = rows
        return pad.view("<u8").reshape(-1)

    def feed(self, data: np.ndarray) -> None:
        data = np.asarray(data, np.uint8).reshape(-1)
        if self.partial:
            data = np.concatenate([np.frombuffer(self.partial, np.uint8), data])
            self.partial = b""
        tail = data.size % self.sb
        if tail:
            self.partial = data[data.size - tail:].tobytes()
            data = data[:data.size - tail]
        if not data.size:
            return
        v = self._values(data)
        n, m = v.size, self.m
        first_gap = (int(v[0]) - self.expect) % m
        if first_gap:
            self.gaps.append((self.delivered, first_gap))
        missing_total = first_gap
        d = np.diff(v)                          # wraps modulo the dtype's width
        bad = np.flatnonzero(d != 1)
        for j in bad:                           # one iteration per gap, not per sample
            g = (int(d[j]) - 1) % m
            self.gaps.append((self.delivered + int(j) + 1, g))
            missing_total += g
        self.delivered += n
        self.expect = (int(v[-1]) + 1) % m

    def reconcile(self, drops) -> dict:
        """Compare the gaps with the ADC's drop episodes (first_sample, samples)."""
        m = self.m
        expected: dict[int, int] = {}
        dropped_before = 0
        for _t0, _t1, first, count in sorted(drops, key=lambda d: d[2]):
            pos = first - dropped_before          # samples delivered before this drop
            if pos >= self.delivered:
                break                             # after the last delivered sample
            expected[pos] = expected.get(pos, 0) + count
            dropped_before += count
        seen = {}
        for pos, g in self.gaps:
            seen[pos] = (seen.get(pos, 0) + g) % m
        unexplained = [(p, g) for p, g in sorted(seen.items()) if expected.get(p, 0) % m != g]
        unreported = [(p, c) for p, c in sorted(expected.items()) if c % m and p not in seen]
        ok = not unexplained and not unreported
        return {"ok": ok, "samples": self.delivered, "gaps": len(self.gaps), "dropped_between": dropped_before,
                "unexplained_gaps": unexplained[:10], "unreported_drops": unreported[:10]}


def _stats(values) -> dict:
    a = np.asarray(values, dtype=float)
    if not a.size:
        return {"median": None, "p99": None, "max": None, "mean": None}
    return {"median": float(np.median(a)), "p99": float(np.percentile(a, 99)), "max": float(a.max()),
            "mean": float(a.mean())}


def default_seconds(rate: float, sample_bytes: int, buffer_bytes: int, buffers: int) -> float:
    """Continuous default: 50 ms, or four times what the ring holds, up to 2 s."""
    ring_s = buffers * buffer_bytes / (rate * sample_bytes)
    return min(max(0.05, 4 * ring_s), 2.0)


#: Work bound of one run: buffers handed to the application (each is a few simulated DMA and CPU events and
#: one Python-level step).  Assumed: about a minute of host time on a 2-core VM; longer runs are refused
#: before they start, naming this limit.
MAX_BUFFERS_PER_RUN = 1 << 20


def check_request(board, rate: float, sample_bytes: int, fifo_bytes: int, consumer_rate, seconds,
                  api: str, cache: str, mode: str, buffer_bytes: int | None = None) -> None:
    """Refuse up front what no capture can do, naming the limit."""
    if api not in APIS:
        raise CaptureError(f"api {api!r}: choose {' or '.join(APIS)}")
    if cache not in POLICIES:
        raise CaptureError(f"cache policy {cache!r}: choose {', '.join(POLICIES)}")
    if mode not in MODES:
        raise CaptureError(f"mode {mode!r}: choose {' or '.join(MODES)}")
    if not isinstance(sample_bytes, (int, np.integer)) or not 1 <= sample_bytes <= 8:
        raise CaptureError(f"sample_bytes={sample_bytes!r}: the virtual ADC makes samples of 1 to 8 bytes")
    if rate is None or not math.isfinite(rate) or rate <= 0:
        raise CaptureError(f"rate={rate!r} samples/s: the ADC needs a positive, finite sample rate")
    stream = board.axi_dma.data_bytes * board.axi_dma.clock_mhz * 1e6
    if rate * sample_bytes > stream:
        raise CaptureError(f"{rate:g} samples/s x {sample_bytes} B = {rate * sample_bytes / 1e6:g} MB/s exceeds the "
                           f"{board.preset} S2MM stream: {board.axi_dma.data_bytes} B x {board.axi_dma.clock_mhz:g} MHz "
                           f"= {stream / 1e6:g} MB/s; at most {stream / sample_bytes:g} samples/s")
    if not isinstance(fifo_bytes, (int, np.integer)) or fifo_bytes < 2 * sample_bytes:
        raise CaptureError(f"fifo_bytes={fifo_bytes!r}: the PL FIFO must hold at least two samples "
                           f"({2 * sample_bytes} B)")
    if consumer_rate is not None and (not math.isfinite(consumer_rate) or consumer_rate <= 0):
        raise CaptureError(f"consumer_rate={consumer_rate!r} B/s: must be positive (or None: no processing)")
    if seconds is not None and (not math.isfinite(seconds) or seconds <= 0):
        raise CaptureError(f"seconds={seconds!r}: the run needs a positive length of virtual time")
    if seconds is not None and buffer_bytes:
        work = seconds * rate * sample_bytes / buffer_bytes
        if work > MAX_BUFFERS_PER_RUN:
            raise CaptureError(f"seconds={seconds:g}: {seconds:g} s at {rate * sample_bytes / 1e6:g} MB/s fills "
                               f"{work:.3g} buffers of {buffer_bytes} B, over the limit of {MAX_BUFFERS_PER_RUN} per "
                               f"run; capture at most {MAX_BUFFERS_PER_RUN * buffer_bytes / (rate * sample_bytes):.3g} "
                               f"s or use larger buffers")


def check_consumer(consumer_rate, buffer_bytes: int, seconds: float) -> None:
    """A continuous run ends between buffers, so one buffer's processing at ``consumer_rate`` must fit in the
    run: else the ADC streams on into a full ring for that whole time (virtual time, and host time, without
    bound: 1 B/s on a 128 KiB buffer is 36 hours)."""
    if consumer_rate is None:
        return
    per_s = buffer_bytes / consumer_rate
    if per_s > seconds:
        raise CaptureError(f"consumer_rate={consumer_rate:g} B/s: processing one {buffer_bytes}-byte buffer takes "
                           f"{per_s:.3g} s, longer than the whole run ({seconds:g} s); use a consumer rate of at "
                           f"least {buffer_bytes / seconds:.3g} B/s, smaller buffers or a longer run (--seconds)")


def default_cache(dma_mode: str) -> str:
    """The cache policy a driver gives its buffers unless told: seed 002's simple-mode driver allocates
    with dma_alloc_coherent, write-combine on a non-coherent ARM; the SG capture driver syncs."""
    return "writecombine" if dma_mode == "simple" else "sync"


def run_capture(board, rate: float, sample_bytes: int, buffer_bytes: int, buffers: int, api: str = "zerocopy",
                cache: str | None = None, mode: str = "continuous", consumer_rate: float | None = None,
                seconds: float | None = None, fifo_bytes: int = DEFAULT_FIFO_BYTES, seed: int = 0,
                verify: bool = True, stop_on_overflow: bool = False, max_buffers: int | None = None,
                cpu_load=None, irq_threshold: int = 1, irq_delay_ns: float = 0.0, consumer: str = "none",
                cpu_costs: dict | None = None, dma_mode: str = "sg", timeline: bool = False) -> dict:
    """One capture run (see the module docstring).  ``board``: a preset name (built with ``seed``,
    on the coherent port for cache="coherent") or a VirtualBoard.  ``seconds``: virtual time of a
    continuous run (default ``default_seconds``); in burst mode a limit on the fill (default none).
    ``stop_on_overflow``: end at the first buffer flagged with lost samples (for bisection).
    ``max_buffers``: end after that many buffers.  ``cpu_load``: a background CPU load competing
    for DRAM (see VirtualBoard; preset names only).  ``irq_threshold`` / ``irq_delay_ns``: interrupt
    coalescing (PG021 IRQThreshold / IRQDelay); the handler reclaims every completed buffer.
    ``consumer``: what the application does with each buffer (CONSUMERS: none, touch, copy, file),
    as CPU time and DRAM traffic.  ``cpu_costs``: host-path cost items replacing the preset's
    (sgdma.models.cpu.COST_UNITS).  ``dma_mode``: "sg" (a ring of BDs) or "simple" (direct-register
    buffer swapping from the interrupt handler, seed 002's driver; api copy = read(), zerocopy =
    mmap + ioctl).  ``cache``: the buffers' policy (POLICIES); default "sync", or "writecombine" in
    simple mode, whose driver allocates its buffers with dma_alloc_coherent (seed 002), which a
    non-coherent ARM maps Normal non-cacheable (docs/host-path.md).  ``timeline``: also sample, at each buffer handed to the application, the PL FIFO's fill,
    the buffers armed at the DMA and held by the application, the CPU's busy time and the bytes the DMA wrote
    (record["timeline"], columns)."""
    wall0 = time.perf_counter()
    cache = default_cache(dma_mode) if cache is None else cache
    if consumer not in CONSUMERS:
        raise CaptureError(f"consumer {consumer!r}: choose {', '.join(CONSUMERS)}")
    board = resolve_board(board, cache, seed, cpu_load=cpu_load, cpu_costs=cpu_costs, dma_mode=dma_mode)
    check_request(board, rate, sample_bytes, fifo_bytes, consumer_rate, seconds, api, cache, mode, buffer_bytes)
    if mode == "continuous":
        check_consumer(consumer_rate, buffer_bytes,
                       default_seconds(rate, sample_bytes, buffer_bytes, buffers) if seconds is None else seconds)
    driver_cls = SimpleCaptureDriver if dma_mode == "simple" else CaptureDriver
    drv = driver_cls(board, buffer_bytes, buffers, cache=cache, sample_bytes=sample_bytes, seed=seed,
                     rearm=mode == "continuous", irq_threshold=irq_threshold, irq_delay_ns=irq_delay_ns,
                     cpu_costs=cpu_costs)
    if consumer == "file" and drv.costs.file_mbps is None:
        raise CaptureError(f"consumer 'file' needs the cost item file_write_mbps: board {board.preset!r} "
                           f"[cpu.apu] has none; pass it in cpu_costs / --cpu-costs")
    if api == "batch" and dma_mode == "simple":
        raise CaptureError("api 'batch' lends a batch of completed BDs from an SG ring: use --dma-mode sg "
                           "(simple mode hands over one buffer per interrupt)")
    rx = READERS[api](drv)
    check = CounterCheck(sample_bytes) if verify else None
    cpu, costs = drv.cpu, drv.costs
    if mode == "continuous" and seconds is None:
        seconds = default_seconds(rate, sample_bytes, buffer_bytes, buffers)
    app_ns_per_byte = 0.0 if consumer_rate is None else 1e9 / consumer_rate
    zc_read = api != "copy" and consumer_rate is not None and consumer == "none"
    from_dma = api != "copy"
    consumer_ops = {"touch": lambda: [costs.load_op(from_dma)], "copy": lambda: costs.copy_ops(from_dma),
                    "file": lambda: costs.copy_ops(from_dma, costs.file_mbps)}.get(consumer, lambda: [])()
    adc = board.adc
    rx.start()                              # arm the whole ring, then let the ADC run
    cpu.settle()
    t0 = board.now_ps
    adc.start(float(rate), int(sample_bytes), int(fifo_bytes), int(buffer_bytes))
    drv.set_source(t0, rate)
    busy0, idle0 = cpu.busy_ns, cpu.idle_ns
    traffic0 = board.cpu_traffic["read_bytes"] + board.cpu_traffic["write_bytes"]
    t_end = None if seconds is None else t0 + int(round(seconds * 1e12))
    pps = 1e12 / rate
    latencies = []
    delivered = 0
    nbytes = 0
    flagged = 0
    t_fill = None
    tl = {"t_ps": [], "fifo_samples": [], "dma_armed": [], "app_held": [], "cpu_busy_ns": [], "dma_bytes": []}

    def sample() -> None:
        tl["t_ps"].append(board.now_ps - t0)
        tl["fifo_samples"].append(adc.report()["level"])
        tl["dma_armed"].append(drv.armed)
        tl["app_held"].append(len(drv.held) + len(drv.ready))
        tl["cpu_busy_ns"].append(cpu.busy_ns - busy0)
        tl["dma_bytes"].append(drv.completed_bytes)

    def consume(data: np.ndarray, last_sample: int, src: int) -> None:
        nonlocal delivered, nbytes
        n = data.size
        if zc_read:                           # the application's first read, out of the DMA buffer
            cpu.mem("app_read", [costs.load_op(True)], src, n)
        if consumer == "file":                # write(): a system call, the copy into the page cache
            cpu.charge(costs.syscall_ns, "syscall")
            cpu.count("syscalls")
        if consumer_ops:
            cpu.mem("consumer", consumer_ops, src, n, drv.app_address(nbytes, 1))
        if check is not None:
            check.feed(data)
        cpu.settle()
        latencies.append((board.now_ps - (t0 + (last_sample + 1) * pps)) / 1e6)
        if app_ns_per_byte:
            cpu.charge(n * app_ns_per_byte, "app")
        delivered += 1
        nbytes += n
        if timeline:
            sample()

    def remaining_ns():
        return None if t_end is None else max(0.0, (t_end - board.now_ps) / 1000.0)

    def one() -> bool:
        """Hand one buffer to the application; False when the run is over."""
        nonlocal flagged
        if api == "batch":
            views = rx.read(timeout_ns=remaining_ns() if mode == "continuous" else None)
            if not views:
                return False
            for view in views:
                if view.flags & LOST:
                    flagged += 1
                consume(view.data, drv.held[view.index].last_sample, int(drv.addresses[view.index]))
            rx.write(views)
            return True
        if api == "zerocopy":
            try:
                view = rx.acquire(timeout_ns=remaining_ns() if mode == "continuous" else None)
            except CaptureTimeout:
                return False
            slot_last = drv.held[view.index].last_sample
            if view.flags & LOST:
                flagged += 1
            consume(view.data, slot_last, int(drv.addresses[view.index]))
            view.release()
            return True
        data = rx.read(buffer_bytes, timeout_ns=remaining_ns() if mode == "continuous" else None)
        if rx.last_flags & LOST:
            flagged += 1
        if data.size == 0:
            return False
        consume(data, rx.last_sample, drv.app_address(nbytes))
        return data.size == buffer_bytes

    if mode == "continuous":
        while board.now_ps < t_end:
            if not one():
                break
            if stop_on_overflow and flagged:
                break
            if max_buffers is not None and delivered >= max_buffers:
                break
        cpu.settle()
        t_stop = board.now_ps
        adc.stop()
    else:
        drv.wait_all(buffers, deadline_ps=t_end)
        cpu.settle()
        t_fill = board.now_ps
        adc.stop()                         # the driver stops the stream when the pool is full
        ready = len(drv.ready)
        for _ in range(ready):
            if not one():
                break
        cpu.settle()
        t_stop = board.now_ps
    rep = adc.report()
    elapsed_s = (t_stop - t0) / 1e12
    # A reader that keeps up runs out of data now and then; one that never waited in the last
    # quarter of the run lives off the ring's reserve and overflows in a longer run.
    keeping_up = True if mode == "burst" else drv.last_sleep_ps >= t0 + 0.75 * (t_stop - t0)
    drops = [(a / 1000.0, b / 1000.0, int(first), int(count)) for a, b, first, count in rep["drops"]]
    if mode == "continuous":
        overflows = int(rep["dropped"])
    else:
        end = drv.track.last + 1
        overflows = sum(max(0, min(first + count, end) - first) for _, _, first, count in rep["drops"] if first < end)
    summary = cpu.summary()
    busy, idle = summary["busy_ns"] - busy0, summary["idle_ns"] - idle0
    record = {
        "board": board.preset, "api": api, "cache": cache, "mode": mode, "rate_sps": float(rate),
        "consumer": consumer, "dma_mode": dma_mode, "interrupts": drv.irqs,
        "ring_depth": int(buffers), "syscalls": cpu.counts.get("syscalls", 0),
        "held_max": rx.held_max if api == "batch" else 1, "held_mean": rx.held_mean() if api == "batch" else 1.0,
        "sample_bytes": int(sample_bytes), "buffer_bytes": int(buffer_bytes), "buffers": int(buffers),
        "fifo_bytes": int(fifo_bytes), "consumer_rate": consumer_rate, "seed": seed,
        "offered_mbps": rate * sample_bytes / 1e6,
        "sustained": overflows == 0,
        "overflows": overflows,
        "throughput_mbps": nbytes / elapsed_s / 1e6 if elapsed_s > 0 else 0.0,
        "pps": delivered / elapsed_s if elapsed_s > 0 else 0.0,
        "cpu_load": busy / (busy + idle) if busy + idle > 0 else 0.0,
        "buffers_delivered": delivered,
        "bytes_delivered": nbytes,
        "buffers_flagged": flagged,
        "keeping_up": keeping_up,
        "simulated_s": elapsed_s,
        "latency_us": _stats(latencies),
        "drops": drops[:1000],
        "drop_episodes": len(drops),
        "adc": {k: int(rep[k]) for k in ("produced", "delivered", "dropped", "level")},
        "cpu": summary,
        "costs": {"copy_mbps": costs.copy_mbps, "read_mbps": costs.read_mbps, "syscall_ns": costs.syscall_ns,
                  "wakeup_mean_ns": costs.wakeup_mean_ns(), "cmo_line_ns": costs.cmo_line_ns,
                  "cmo_range_ns": costs.cmo_range_ns, "cache_line_bytes": costs.cache_line_bytes,
                  "items": costs.items()},
        "cpu_dram_bytes": board.cpu_traffic["read_bytes"] + board.cpu_traffic["write_bytes"] - traffic0,
    }
    if mode == "burst":
        fill_s = (t_fill - t0) / 1e12
        drain_s = (t_stop - t_fill) / 1e12
        record["fill_mbps"] = drv.completed_bytes / fill_s / 1e6 if fill_s > 0 else 0.0
        record["drain_mbps"] = nbytes / drain_s / 1e6 if drain_s > 0 else 0.0
        record["pool_bytes"] = buffers * buffer_bytes
    if check is not None:
        v = check.reconcile(rep["drops"])
        record["verified"] = v["ok"]
        record["verify"] = v
    coh = getattr(board, "coherency", None)
    if coh is not None:
        try:
            record["coherency_violations"] = int(coh.count)
        except Exception:   # noqa: BLE001 - checker API still settling
            pass
    if timeline:
        record["timeline"] = tl
    record["wall_s"] = time.perf_counter() - wall0
    drv.close()
    return record
