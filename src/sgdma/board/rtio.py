"""The board's RTIO core (csrc/vboard/pl/rtio*.c) as a handle: the only place the RTIO layer's calls reach the C board."""
from __future__ import annotations

import numpy as np

from sgdma import _core
from sgdma.board.checks import _whole as _int
from sgdma.board.threads import single_threaded

INITIATORS = {"csr": 0, "acp": 1, "acp-batch": 2, "fifo": 3}


@single_threaded(lambda port: port._board._thread_owner)
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
        _core.rtio_at(self._b, _int(t, "t"))

    def delay(self, dt: int) -> None:
        _core.rtio_delay(self._b, _int(dt, "dt"))

    def wall(self) -> int:
        return _core.rtio_wall(self._b)

    def output(self, target: int, words) -> tuple[int, int, int]:
        return _core.rtio_output(self._b, _int(target, "target"), words)

    def batch_start(self) -> None:
        _core.rtio_batch_start(self._b)

    def batch_end(self) -> tuple[int, int, int]:
        return _core.rtio_batch_end(self._b)

    def flush(self) -> tuple[int, int, int]:
        return _core.rtio_flush(self._b)

    def playback(self, ptr: int, limit_ps: int) -> dict:
        return _core.rtio_playback(self._b, _int(ptr, "ptr"), _int(limit_ps, "limit_ps"))

    def pulses(self, target: int, n: int, half_mu: int, batch: int = 0) -> dict:
        return _core.rtio_pulses(self._b, _int(target, "target"), _int(n, "n"), _int(half_mu, "half_mu"), _int(batch, "batch"))

    def drain(self, limit_ps: int) -> bool:
        return _core.rtio_drain(self._b, _int(limit_ps, "limit_ps"))

    # inputs
    def input(self, channel: int, timeout_mu: int, want_data: bool = False, limit_ps: int = 10**13) -> tuple[int, int]:
        """One CRI read through the CSR kernel initiator: (i_status, timestamp or data; -1 unless status is 0)."""
        return _core.rtio_input(self._b, _int(channel, "channel"), _int(timeout_mu, "timeout_mu"), bool(want_data), _int(limit_ps, "limit_ps"))

    def stimulus(self, channel: int, t_mu, levels) -> None:
        """The input pin's transitions from now on: strictly increasing times (mu) and the level after each."""
        t = np.ascontiguousarray(t_mu, np.int64)
        v = np.ascontiguousarray(levels, np.uint8)
        if t.shape != v.shape or t.ndim != 1:
            raise ValueError(f"stimulus on channel {channel}: t_mu and levels must be 1-D and the same length")
        _core.rtio_stimulus(self._b, _int(channel, "channel"), t.tobytes(), v.tobytes())

    def loopback(self, out_channel: int, in_channel: int | None) -> None:
        """Wire output channel `out_channel`'s level to input pin `in_channel` (None: unwire)."""
        _core.rtio_loopback(self._b, _int(out_channel, "out_channel"), -1 if in_channel is None else _int(in_channel, "in_channel"))

    def input_counters(self) -> dict:
        return _core.rtio_input_counters(self._b)

    # observation
    def counters(self) -> dict:
        return _core.rtio_counters(self._b)

    def edges(self) -> dict:
        t, ch, addr, data = _core.rtio_edges(self._b)
        return {"t_mu": np.frombuffer(t, np.int64), "channel": np.frombuffer(ch, np.uint32),
                "address": np.frombuffer(addr, np.uint32), "data": np.frombuffer(data, np.uint32)}

    def set_logging(self, on: bool) -> None:
        _core.rtio_set_logging(self._b, bool(on))

    def set_fast(self, on: bool) -> None:
        """Off: the core rescans its lanes and engines at every step (the reference the caches must match)."""
        _core.rtio_set_fast(self._b, bool(on))

    def analyzer_arm(self, base: int, size: int) -> None:
        _core.rtio_analyzer_arm(self._b, _int(base, "base"), _int(size, "size"))

    def analyzer_disarm(self, limit_ps: int) -> bool:
        return _core.rtio_analyzer_disarm(self._b, _int(limit_ps, "limit_ps"))

    def analyzer_state(self) -> dict:
        return _core.rtio_analyzer_state(self._b)
