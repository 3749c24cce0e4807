"""The board's RTIO core (csrc/vboard/pl/rtio*.c) as a handle: the only place the RTIO layer's calls reach the C board."""
from __future__ import annotations

import numpy as np

from sgdma import _core

INITIATORS = {"csr": 0, "acp": 1, "acp-batch": 2, "fifo": 3}


class RtioPort:
    """Kernel-CPU and gateware operations of a board whose preset has an [rtio] section."""

    def __init__(self, board):
        self._board = board
        self._b = board._b
        _core.rtio_counters(self._b)      # raises a clear ValueError when the preset has no [rtio]

    # kernel CPU (costs charged on the board's clock)
    def init(self, initiator: str, acp_out: int = 0, acp_out_bytes: int = 0, acp_in: int = 0) -> None:
        if initiator not in INITIATORS:
            raise ValueError(f"initiator {initiator!r}: choose one of {', '.join(INITIATORS)}")
        _core.rtio_init(self._b, INITIATORS[initiator], acp_out, acp_out_bytes, acp_in)

    def reset(self) -> None:
        _core.rtio_reset(self._b)

    def now(self) -> int:
        return _core.rtio_now(self._b)

    def at(self, t: int) -> None:
        _core.rtio_at(self._b, int(t))

    def delay(self, dt: int) -> None:
        _core.rtio_delay(self._b, int(dt))

    def wall(self) -> int:
        return _core.rtio_wall(self._b)

    def output(self, target: int, words) -> tuple[int, int, int]:
        return _core.rtio_output(self._b, int(target), words)

    def batch_start(self) -> None:
        _core.rtio_batch_start(self._b)

    def batch_end(self) -> tuple[int, int, int]:
        return _core.rtio_batch_end(self._b)

    def flush(self) -> tuple[int, int, int]:
        return _core.rtio_flush(self._b)

    def playback(self, ptr: int, limit_ps: int) -> dict:
        return _core.rtio_playback(self._b, int(ptr), int(limit_ps))

    def pulses(self, target: int, n: int, half_mu: int, batch: int = 0) -> dict:
        return _core.rtio_pulses(self._b, int(target), int(n), int(half_mu), int(batch))

    def drain(self, limit_ps: int) -> bool:
        return _core.rtio_drain(self._b, int(limit_ps))

    # observation
    def counters(self) -> dict:
        return _core.rtio_counters(self._b)

    def edges(self) -> dict:
        t, ch, addr, data = _core.rtio_edges(self._b)
        return {"t_mu": np.frombuffer(t, np.int64), "channel": np.frombuffer(ch, np.uint32),
                "address": np.frombuffer(addr, np.uint32), "data": np.frombuffer(data, np.uint32)}

    def set_logging(self, on: bool) -> None:
        _core.rtio_set_logging(self._b, bool(on))

    def analyzer_arm(self, base: int, size: int) -> None:
        _core.rtio_analyzer_arm(self._b, int(base), int(size))

    def analyzer_disarm(self, limit_ps: int) -> bool:
        return _core.rtio_analyzer_disarm(self._b, int(limit_ps))

    def analyzer_state(self) -> dict:
        return _core.rtio_analyzer_state(self._b)
