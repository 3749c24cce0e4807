"""Sustained RTIO event intervals (seed 001 Fig. 2): the shortest pulse period each path sustains without underflow.

A trial submits `events` alternating on/off events on one TTL channel, each `interval` after the previous, starting
`slack_mu` ahead of the counter.  If submission costs c per event, the slack shrinks by (c - interval) per event, so
the trial underflows exactly when interval < c - slack/events: the smallest passing interval is the sustained
interval to within slack/events (reported as `resolution_mu`).  A bisection over integer intervals finds it.
"""
from __future__ import annotations

import numpy as np

from sgdma.rtio import trace as T
from sgdma.rtio.analyzer import RING_BYTES
from sgdma.rtio.core import Core
from sgdma.rtio.dma import CoreDMA

INITIATORS = ("csr", "acp", "acp-batch", "fifo")
HI_MAX_MU = 1 << 22                         # the longest interval the bisection tries before giving up


class NotSustained(RuntimeError):
    """The bisection found no sustained interval: a negative result of the bench, not a failure while running.
    ``row``: kernel_interval's row saying so (the initiator and its parameters), else None."""

    def __init__(self, msg: str, row: dict | None = None):
        super().__init__(msg)
        self.row = row


def _bisect(ok, hi_start: int = 16, hi_max: int = HI_MAX_MU) -> int:
    hi = hi_start
    while not ok(hi):
        hi *= 2
        if hi > hi_max:
            raise NotSustained(f"no interval up to {hi_max} mu is sustained")
    lo = 0                                  # invariant: ok(hi), not ok(lo) (0 is never sustained)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def kernel_interval(board, initiator: str, events: int = 4000, slack_mu: int = 2000, batch: int = 64,
                    channel: int = 0) -> dict:
    """Sustained interval of kernel submission through `initiator` (csr, acp, acp-batch, fifo).  Raises
    NotSustained, with the row saying so, when no interval up to HI_MAX_MU is."""
    if initiator not in INITIATORS:
        raise ValueError(f"initiator {initiator!r}: choose one of {', '.join(INITIATORS)}")
    core = Core(board, initiator, batch_capacity=max(batch + 2, 2))
    port = core.port
    if initiator == "acp-batch":
        # a batch is submitted only when it is complete: the first event's slack must cover filling one batch,
        # so scale slack and length together (same resolution)
        slack_mu, events = slack_mu * 10, events * 10
    last = {}

    def ok(interval: int) -> bool:
        port.reset()
        core.port.init(initiator, *_acp_args(core))
        port.set_logging(False)
        core.at_mu(core.get_rtio_counter_mu() + slack_mu)
        r = port.pulses(channel << 8, events // 2, interval, batch if initiator == "acp-batch" else 0)
        port.drain(int(1e12))
        last[interval] = (r, port.counters())
        return r["status"] == 0

    params = {"initiator": initiator, "board": board.name, "batch": batch if initiator == "acp-batch" else None,
              "events": events, "slack_mu": slack_mu, "gateware_limit_ns": gateware_limit_ns(board)}
    try:
        best = _bisect(ok)
    except NotSustained as e:
        port.set_logging(True)
        why = str(e) + (f": the kernel starts {slack_mu} mu ahead and submits a batch only when all {batch} events "
                        f"are written, so the first ones underflow" if initiator == "acp-batch" else "")
        raise NotSustained(why, {**params, "sustained": False, "interval_mu": None, "interval_ns": None,
                                 "searched_up_to_mu": HI_MAX_MU, "reason": why}) from None
    r, c = last[best]
    mu_ns = core.ref_period * 1e9
    n = max(r["events"], 1)
    port.set_logging(True)
    return {**params, "sustained": True, "interval_mu": best, "interval_ns": best * mu_ns,
            "resolution_mu": slack_mu / events, "submit_ns_per_event": (r["t1_ps"] - r["t0_ps"]) / 1e3 / n,
            "gp_reads_per_event": c["gp_reads"] / n, "gp_writes_per_event": c["gp_writes"] / n,
            "sev_per_event": c["sevs"] / n, "credit_refreshes": c["credit_refreshes"]}


def _acp_args(core: Core) -> tuple:
    if core._acp is None:
        return ()
    out, inb = core._acp
    return (out.physical_address, out.nbytes, inb.physical_address)


def gateware_limit_ns(board) -> float:
    """One CRI write per cri_write_cycles of the RTIO clock: the core's own acceptance limit."""
    return board.option("rtio.cri_write_cycles") * 1e3 / board.option("rtio.clock_mhz")


def dma_limit_ns(board, record_bytes: int = 17) -> float:
    """The event DMA's own rate (artiq gateware/rtio/dma.py): the CRI master's cycles plus the TimeOffset
    stage's bubble, or the RawSlicer's refill of record_bytes at bus_bytes per cycle plus its output cycle."""
    cycles = max(board.option("rtio.cri_write_cycles") + 1, record_bytes / board.option("rtio.bus_bytes") + 1)
    return cycles * 1e3 / board.option("rtio.clock_mhz")


def pulse_train(events: int, interval: int, channel: int = 0) -> T.Events:
    ts = np.arange(events, dtype=np.int64) * interval
    return T.Events(ts, np.full(events, channel << 8, np.uint32), np.ones(events, np.uint8),
                    (np.arange(events) % 2 == 0).astype(np.uint32))


def dma_interval(board, analyzer: bool = False, events: int = 20000, slack_mu: int = 4000,
                 ring_bytes: int = RING_BYTES) -> dict:
    """Sustained event interval of DMA playback (optionally with the analyzer writing every event to DDR)."""
    core = Core(board, "csr")
    dma = CoreDMA(core, region_bytes=max(1 << 20, events * 17 * 2))
    ring = board.allocate(ring_bytes, align=64) if analyzer else None
    last = {}

    def ok(interval: int) -> bool:
        core.port.reset()
        core.port.init("csr")
        core.port.set_logging(False)
        if ring is not None:
            core.port.analyzer_arm(ring.physical_address, ring_bytes)
        dma.store("bench", pulse_train(events, interval), events * interval)
        core.at_mu(core.get_rtio_counter_mu() + slack_mu)
        res = core.port.playback(dma.get_handle("bench")[2], int(10e12))
        core.port.drain(int(1e12))
        last[interval] = (res, core.port.analyzer_state())
        return res["error"] == 0 and not res["timeout"]

    best = _bisect(ok, hi_start=8)
    res, an = last[best]
    core.port.set_logging(True)
    mu_ns = core.ref_period * 1e9
    busy_ns = (res["t_end_ps"] - res["t_start_ps"]) / 1e3
    return {"board": board.name, "analyzer": analyzer, "interval_mu": best, "interval_ns": best * mu_ns,
            "resolution_mu": slack_mu / events, "events": events, "engine_ns_per_event": busy_ns / events,
            "analyzer_overflow": bool(an["overflow"]), "analyzer_lost": an["lost"],
            "gateware_limit_ns": dma_limit_ns(board)}
