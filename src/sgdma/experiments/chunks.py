"""Chunks of trials, the unit of work of a sweep: which trials of which point, sized and ordered for the workers."""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Chunk:
    """Trials [first, last) of point number `index` (a characterize.Point)."""
    index: int
    point: object
    first: int
    last: int

    @property
    def key(self) -> str:
        return f"p{self.index}_{self.first}_{self.last}"


def point_cost(setup, p) -> float:
    """Simulated ns one trial of `p` takes, roughly: the stream time at one beat per clock plus a BD fetch
    (~1 us on S0's boards) per BD.  Only used to order and size chunks, never in a result."""
    per_bd = max(p.bytes_per_bd / 16.0 * 4.0, 1000.0)     # 16 B beats at ~250 MHz, or the fetch
    return 20_000.0 + p.bds * p.cycles * per_bd


def plan_chunks(setup, points: list, workers: int) -> list[Chunk]:
    """Largest first, sized so the costliest point spreads over every worker and no chunk is more than
    ~1/(4 workers) of the whole sweep."""
    costs = [point_cost(setup, p) * setup.trials for p in points]
    target = max(sum(costs) / (4 * max(workers, 1)), 1.0)
    chunks = []
    for i, (p, c) in enumerate(zip(points, costs)):
        n = int(min(setup.trials, max(1, math.ceil(c / target), workers if c >= target else 1)))
        bounds = [setup.trials * k // n for k in range(n + 1)]
        chunks += [Chunk(i, p, lo, hi) for lo, hi in zip(bounds, bounds[1:]) if hi > lo]
    chunks.sort(key=lambda ch: (-costs[ch.index] * (ch.last - ch.first) / setup.trials, ch.index, ch.first))
    return chunks
