"""Entry points for ``sgdma capture`` (wired by src/sgdma/cli.py): plain keyword options in,
JSON-able dicts out, sizes and rates accepted as text ("128KiB", "40e6") or numbers.

* ``cli_run(board, rate, sample_bytes, buffer_bytes, buffers, api, cache, mode, consumer_rate,
  seconds, seed, fifo_bytes)`` -> the ``run_capture`` record (at least sustained, overflows,
  throughput_mbps, cpu_load, buffers_delivered);
* ``cli_sweep(board, sizes, apis, caches, ..., plot_dir)`` -> one record per (size, api, cache):
  max_rate_sps, max_mbps, pps, cpu_load, ...; ``plot_dir`` writes the PNG (path in "plot");
* ``cli_find_max_rate(...)`` -> the ``find_max_rate`` record.

``format_run``, ``format_sweep`` and ``format_max_rate`` give the text to print.
Bad input raises ``CaptureError`` (a ValueError) naming the limit.
"""
from __future__ import annotations

from sgdma.capture.driver import CaptureError
from sgdma.hw import units
from sgdma.capture.session import DEFAULT_FIFO_BYTES, run_capture
from sgdma.capture.sweep import DEFAULT_SIZES, find_max_rate, plot_sweep, sweep_buffer_size, sweep_table
from sgdma.capture.transport import APIS


def _unit(fn, value, *args):
    try:
        return fn(value, *args)
    except units.UnitError as e:
        raise CaptureError(str(e)) from None


def parse_size(value, option: str | None = None) -> int:
    """Bytes in the one unit grammar (sgdma.hw.units): 4096, "4K", "128KiB", "1G", "2^12"."""
    return _unit(units.parse_size, value, option)


def parse_sizes(value, option: str | None = None) -> list[int]:
    """A list of sizes ("64,128", "64..32KiB": powers of two between the ends); None: 64 B .. 128 KiB."""
    return list(DEFAULT_SIZES) if value is None else _unit(units.parse_sizes, value, option)


def parse_bandwidth(value, option: str | None = None) -> float | None:
    """Bytes per second: 100e6, "100MB/s", "64MiB/s"; None stays None."""
    return None if value is None else _unit(units.parse_bandwidth, value, option)


def parse_rate(value, option: str | None = None) -> float | None:
    """Per second: 40e6, "40M", "40MHz", "40 MS/s"; None stays None."""
    return None if value is None else _unit(units.parse_rate, value, option)


def _list(value, allowed, what: str) -> list[str]:
    if value is None:
        return list(allowed)
    items = [v.strip() for v in value.split(",")] if isinstance(value, str) else list(value)
    for v in items:
        if v not in allowed:
            raise CaptureError(f"{what} {v!r}: choose from {', '.join(allowed)}")
    return items


def _opts(buffer_bytes, buffer_size):
    b = buffer_bytes if buffer_bytes is not None else buffer_size
    return parse_size(b if b is not None else 128 << 10)


def _clean(record: dict) -> dict:
    return {k: v for k, v in record.items() if not k.startswith("_")}


def cli_run(board: str = "zynq7000", rate=None, sample_bytes: int = 4, buffer_bytes=None, buffers: int = 16,
            api: str = "zerocopy", cache: str = "sync", mode: str = "continuous", consumer_rate=None,
            seconds: float | None = None, seed: int = 0, fifo_bytes=DEFAULT_FIFO_BYTES, buffer_size=None,
            verify: bool = True, cpu_load=None, irq_threshold: int = 1, irq_delay_ns: float = 0.0,
            consumer: str = "none", cpu_costs: dict | None = None, dma_mode: str = "sg", **_ignored) -> dict:
    """One capture run (``run_capture``); ``buffer_size`` is an alias of ``buffer_bytes``."""
    r = parse_rate(rate)
    if r is None:
        raise CaptureError("--rate is required: the ADC's sample rate in samples/s (e.g. 40e6)")
    rec = run_capture(board, r, int(sample_bytes), _opts(buffer_bytes, buffer_size), int(buffers), api=api,
                      cache=cache, mode=mode, consumer_rate=parse_bandwidth(consumer_rate, "consumer_rate"),
                      seconds=None if seconds is None else float(seconds), fifo_bytes=parse_size(fifo_bytes),
                      seed=int(seed), verify=verify, cpu_load=cpu_load, irq_threshold=int(irq_threshold),
                      irq_delay_ns=float(irq_delay_ns or 0.0), consumer=consumer, cpu_costs=cpu_costs,
                      dma_mode=dma_mode)
    return _clean(rec)


def cli_find_max_rate(board: str = "zynq7000", sample_bytes: int = 4, buffer_bytes=None, buffers: int = 16,
                      api: str = "zerocopy", cache: str = "sync", mode: str = "continuous", consumer_rate=None,
                      seconds: float | None = None, seed: int = 0, fifo_bytes=DEFAULT_FIFO_BYTES,
                      rel_tol: float = 0.01, buffer_size=None, consumer: str = "none", cpu_costs: dict | None = None,
                      dma_mode: str = "sg", irq_threshold: int = 1, irq_delay_ns: float = 0.0, **_ignored) -> dict:
    """Bisect the highest sample rate sustained without overflow (``find_max_rate``)."""
    return find_max_rate(board, int(sample_bytes), _opts(buffer_bytes, buffer_size), int(buffers), api=api,
                         cache=cache, mode=mode, consumer_rate=parse_bandwidth(consumer_rate, "consumer_rate"),
                         seconds=None if seconds is None else float(seconds), fifo_bytes=parse_size(fifo_bytes),
                         seed=int(seed), rel_tol=float(rel_tol), consumer=consumer, cpu_costs=cpu_costs,
                         dma_mode=dma_mode, irq_threshold=int(irq_threshold), irq_delay_ns=float(irq_delay_ns))


def cli_sweep(board: str = "zynq7000", sizes=None, apis=None, caches=None, sample_bytes: int = 4,
              buffers: int = 16, mode: str = "continuous", consumer_rate=None, seconds: float | None = None,
              seed: int = 0, fifo_bytes=DEFAULT_FIFO_BYTES, plot_dir=None, jobs: int | None = None,
              rel_tol: float = 0.02, api=None, cache=None, consumer: str = "none", cpu_costs: dict | None = None,
              dma_mode: str = "sg", executor=None, progress=None, irq_threshold: int = 1,
              irq_delay_ns: float = 0.0, **_ignored) -> list[dict]:
    """Sustained MB/s and packets/s against buffer size for each API and cache policy.

    ``apis``/``caches``: lists or comma-separated text (default: all; ``api``/``cache`` are
    accepted as one-item aliases); ``sizes``: see ``parse_sizes`` (default 64 B .. 128 KiB);
    ``plot_dir``: also write the PNG (its path goes in every record's "plot").  ``executor``: where the
    points run (sgdma.executor; default: ``jobs`` local processes); ``progress(done, total)`` counts points."""
    from sgdma.models.cpu import POLICIES
    from sgdma.capture.sweep import default_jobs

    apis = _list(apis if apis is not None else api, APIS, "api")
    caches = _list(caches if caches is not None else cache, POLICIES, "cache policy")
    recs = sweep_buffer_size(board, parse_sizes(sizes), apis, caches, sample_bytes=int(sample_bytes),
                             buffers=int(buffers), mode=mode, consumer_rate=parse_bandwidth(consumer_rate, "consumer_rate"),
                             fifo_bytes=parse_size(fifo_bytes), seed=int(seed), rel_tol=float(rel_tol),
                             seconds=None if seconds is None else float(seconds),
                             jobs=default_jobs() if jobs is None else int(jobs), consumer=consumer,
                             cpu_costs=cpu_costs, dma_mode=dma_mode, executor=executor, progress=progress,
                             irq_threshold=int(irq_threshold), irq_delay_ns=float(irq_delay_ns))
    if plot_dir is not None and recs:
        path = str(plot_sweep(recs, plot_dir)[0])
        for r in recs:
            r["plot"] = path
    return recs


# -- text -----------------------------------------------------------------------------------------
def format_run(r: dict) -> str:
    lat = r["latency_us"]
    lines = [
        f"capture on {r['board']}: {r['rate_sps'] / 1e6:g} MS/s x {r['sample_bytes']} B = {r['offered_mbps']:.1f} MB/s "
        f"into {r['buffers']} x {r['buffer_bytes']} B buffers, {r['api']} API, {r['cache']} cache, {r['mode']}",
        f"  {'sustained' if r['sustained'] else 'NOT sustained'}: {r['overflows']} samples dropped "
        f"in {r['drop_episodes']} episodes" + ("" if r.get("keeping_up", True) else
                                               "; the reader is not keeping up (ring reserve shrinking)"),
        f"  delivered {r['buffers_delivered']} buffers, {r['throughput_mbps']:.1f} MB/s ({r['pps']:.0f} buffers/s) "
        f"over {r['simulated_s'] * 1e3:.1f} ms of virtual time; CPU load {100 * r['cpu_load']:.1f} %",
    ]
    if lat["median"] is not None:
        lines.append(f"  latency ADC -> application: median {lat['median']:.1f} us, p99 {lat['p99']:.1f} us, "
                     f"max {lat['max']:.1f} us")
    if r["mode"] == "burst":
        lines.append(f"  burst: fill {r['fill_mbps']:.1f} MB/s, drain {r['drain_mbps']:.1f} MB/s")
    if "verified" in r:
        lines.append(f"  counter check: {'ok' if r['verified'] else 'FAILED'} ({r['verify']['gaps']} gaps, all "
                     f"matching the ADC's drop report)" if r["verified"] else
                     f"  counter check: FAILED: {r['verify']}")
    if r["drops"]:
        t0, t1, first, n = r["drops"][0]
        lines.append(f"  first drop at {t0 / 1e3:.1f} us: samples {first}..{first + n - 1}")
    return "\n".join(lines)


def format_max_rate(r: dict) -> str:
    return (f"{r['board']} {r['api']}/{r['cache']} ({r['mode']}), {r['buffers']} x {r['buffer_bytes']} B, "
            f"{r['sample_bytes']} B samples: max {r['max_rate_sps'] / 1e6:.3f} MS/s = {r['max_mbps']:.1f} MB/s "
            f"({r['pps']:.0f} buffers/s) without overflow, limited by the {r['limit']}"
            + (f"; CPU load there {100 * r['cpu_load']:.0f} %" if r.get("cpu_load") is not None else "")
            + f" [{r['trials']} trials, +-{100 * r['rel_tol']:g} %]")


def format_sweep(records: list[dict]) -> str:
    if not records:
        return "(no points)"
    head = (f"{records[0]['board']}: sustained throughput without overflow by buffer size "
            f"({records[0]['buffers']} buffers, {records[0]['sample_bytes']} B samples; MB = 10^6 B)")
    return head + "\n" + sweep_table(records)


__all__ = ["cli_run", "cli_sweep", "cli_find_max_rate", "format_run", "format_sweep", "format_max_rate",
           "parse_size", "parse_sizes", "parse_rate"]
