"""RTIO bench: what binds each initiator's sustained event interval.  The bisection of
sgdma.rtio.bench.kernel_interval is replayed on boards with one resource relaxed: the gateware (one CRI
write per RTIO cycle), the kernel CPU (10x its clock), the GP port (1 ns CSR accesses) and the ACP (1 ns
round trips).  The relaxation that shortens the interval most binds; the interval it reaches is kept."""
from __future__ import annotations

from sgdma.board.virtual import VirtualBoard
from sgdma.experiments.limits import LIFT
from sgdma.rtio import bench as B

RELAX = {
    "gateware": {"rtio.cri_write_cycles": 1.0, "rtio.evento_sync_cycles": 1.0},
    "kernel CPU": {"rtio.cpu_mhz": "x10"},
    "GP port": {"rtio.csr_read_ns": 1.0, "rtio.csr_write_ns": 1.0, "rtio.csr_write_latency_ns": 1.0},
    "ACP": {"rtio.acp_read_ns": 1.0, "rtio.acp_write_ns": 1.0, "rtio.poll_miss_ns": 1.0},
}
WHY = {"gateware": "the RTIO core accepts one CRI write per cri_write_cycles of its clock",
       "kernel CPU": "the kernel's own instructions per event (output call, cursor arithmetic) on the CPU",
       "GP port": "uncached CSR loads and stores of each event over the GP port",
       "ACP": "the ACP round trips of the event's hand-off and the reply poll",
       "none": "no relaxation shortened it by 3 % (the interval is at the bisection's resolution)",
       "not sustained": "no interval is sustained, so there is nothing to relax"}


def _options(preset: str, relax: dict) -> dict:
    base = VirtualBoard(preset)
    out = {}
    for k, v in relax.items():
        try:
            have = base.option(k)
        except (KeyError, ValueError):
            continue                              # the preset has no such stage (a softcore has no ACP)
        out[k] = have * 10 if v == "x10" else v
    return out


def binding(preset: str, initiator: str, interval_ns: float, batch: int = 64) -> dict:
    replays = {}
    for name, relax in RELAX.items():
        opts = _options(preset, relax)
        if not opts:
            continue
        replays[name] = B.kernel_interval(VirtualBoard(preset, options=opts), initiator, batch=batch)["interval_ns"]
    best = min(replays, key=replays.get) if replays else None
    name = best if best and interval_ns >= LIFT * replays[best] else "none"
    return {"binding": name, "why": WHY[name], "relaxed_interval_ns": replays}


def analyse(rows: list[dict], batch: int = 64) -> list[dict]:
    """One binding per bench row (board preset, initiator, interval_ns); none replayed for a row not sustained."""
    return [binding(r["board"], r["initiator"], r["interval_ns"], batch) if r.get("sustained", True) else
            {"binding": "not sustained", "why": WHY["not sustained"], "relaxed_interval_ns": {}} for r in rows]
