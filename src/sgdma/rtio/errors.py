"""Exceptions of the RTIO kernel API, named as ARTIQ names them."""
from __future__ import annotations


class RTIOError(Exception):
    """Base of the RTIO errors."""


class RTIOUnderflow(RTIOError):
    """An event's timestamp was too close to (or behind) the RTIO counter when it reached the core."""

    def __init__(self, channel: int, timestamp: int, slack: int | None = None, dropped: int = 0,
                 during: str = "kernel output"):
        self.channel, self.timestamp, self.slack, self.dropped = channel, timestamp, slack, dropped
        msg = f"RTIO underflow at channel {channel}, {timestamp} mu ({during})"
        if slack is not None:
            msg += f", slack {slack} mu"
        if dropped:
            msg += f"; {dropped} events of the trace dropped (this one and every later one)"
        msg += ". Fix: schedule the event later (delay_mu / break_realtime) or submit fewer events per time"
        super().__init__(msg)


class RTIODestinationUnreachable(RTIOError):
    pass


class DMAError(RTIOError):
    """CoreDMA misuse: nested record, unknown/erased/stale trace, trace too large, playback failure."""
