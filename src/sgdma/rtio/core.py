"""The ARTIQ-shaped kernel API on the virtual board: a timeline cursor and event submission through one initiator.

``Core(board, initiator)`` is the core device as a kernel sees it: ``now_mu``/``at_mu``/``delay_mu``/``delay``,
``break_realtime``, ``get_rtio_counter_mu``; ``TTLOut(core, channel)`` gives ``on``/``off``/``pulse``.  Every call
is charged on the board's clock by the initiator's timed path (CSR over GP, ACPKI, credit FIFO).
"""
from __future__ import annotations

import math

from sgdma.rtio.errors import RTIODestinationUnreachable, RTIOError, RTIOOverflow, RTIOUnderflow
from sgdma.rtio.layout import CONST, MAX_WORDS

O_WAIT, O_UNDERFLOW, O_UNREACHABLE = CONST["O_STATUS_WAIT"], CONST["O_STATUS_UNDERFLOW"], CONST["O_STATUS_UNREACHABLE"]
I_TIMEOUT, I_OVERFLOW, I_BUSY, I_UNREACHABLE = (CONST[k] for k in ("I_STATUS_WAIT_EVENT", "I_STATUS_OVERFLOW",
                                                                    "I_STATUS_WAIT_STATUS", "I_STATUS_UNREACHABLE"))
RISING, FALLING = CONST["SENSITIVITY_RISING"], CONST["SENSITIVITY_FALLING"]
ACP_TX, ACP_HDR, ACP_IN = CONST["ACP_OUT_TRANSACTION_BYTES"], CONST["ACP_OUT_HEADER_BYTES"], CONST["ACP_IN_BYTES"]


class Core:
    """The kernel's view of an RTIO core on `board` (a VirtualBoard whose preset has [rtio])."""

    def __init__(self, board, initiator: str = "csr", batch_capacity: int = 1024):
        self.board = board
        self.port = board.rtio
        self.initiator = initiator
        c = self.port.counters()
        self.ref_period = c["mu_ps"] * 1e-12          # seconds per machine unit
        self.coarse_ps = c["coarse_ps"]
        self.ref_multiplier = 1 << c["fine_bits"]
        self._recorder = None                           # set by CoreDMA.record
        self._acp = None
        if initiator in ("acp", "acp-batch"):
            if batch_capacity < 2:
                raise ValueError(f"batch_capacity={batch_capacity}: the ACPKI buffer holds at least 2 transactions")
            out = board.allocate(ACP_HDR + ACP_TX * batch_capacity, align=64)
            inb = board.allocate(64, align=64)
            self._acp = (out, inb)
            self.port.init(initiator, out.physical_address, out.nbytes, inb.physical_address)
        else:
            self.port.init(initiator)

    # -- timeline ------------------------------------------------------------------
    def now_mu(self) -> int:
        return self._recorder.now if self._recorder else self.port.now()

    def at_mu(self, t: int) -> None:
        if self._recorder:
            self._recorder.now = int(t)
        else:
            self.port.at(t)

    def delay_mu(self, dt: int) -> None:
        if self._recorder:
            self._recorder.now += int(dt)
        else:
            self.port.delay(dt)

    def seconds_to_mu(self, seconds: float) -> int:
        mu = float(seconds) / self.ref_period
        if not math.isfinite(mu) or abs(mu) >= 2.0**63:
            raise ValueError(f"{seconds!r} s is not a time the 64-bit RTIO timeline holds (finite, under "
                             f"{2.0**63 * self.ref_period:.3g} s)")
        return int(round(mu))

    def mu_to_seconds(self, mu: int) -> float:
        return mu * self.ref_period

    def delay(self, seconds: float) -> None:
        self.delay_mu(self.seconds_to_mu(seconds))

    def get_rtio_counter_mu(self) -> int:
        return self.port.wall()

    def wait_until_mu(self, t: int) -> None:
        """Spin on the RTIO counter until it reaches `t` (ARTIQ core.wait_until_mu).  A long wait is not spun
        read by read (millions of timed CSR reads): the board's time moves to just before `t`, then the spin
        finishes it, so the wait ends on the same read boundary as a spin would."""
        from sgdma.board.checks import _whole

        t = _whole(t, "t")
        ahead = t - self.get_rtio_counter_mu()
        if ahead * self.ref_period * 1e9 > 1e18:
            raise ValueError(f"wait_until_mu({t}): {ahead} mu ahead of the counter passes the board's 64-bit "
                             f"picosecond clock")
        if ahead > 4096:                               # far ahead: no read in between can see the counter there
            self.board.advance((ahead - 2048) * self.ref_period * 1e9)
        while self.get_rtio_counter_mu() < t:
            pass

    def break_realtime(self, slack_mu: int = 125_000) -> None:
        """Move the cursor to the counter plus `slack_mu` (ARTIQ's 125 us) if it is behind that."""
        t = self.get_rtio_counter_mu() + slack_mu
        if self.now_mu() < t:
            self.at_mu(t)

    # -- events -----------------------------------------------------------------------
    def output(self, target: int, data) -> None:
        """One output event at the cursor (rtio_output / rtio_output_wide)."""
        words = [int(data)] if isinstance(data, int) else [int(w) for w in data]
        if not 1 <= len(words) <= MAX_WORDS:
            raise RTIOError(f"{len(words)} data words on channel {target >> 8}: an RTIO event carries 1..{MAX_WORDS} "
                            f"(512 bits); split the payload into several events")
        if self._recorder:
            self._recorder.append(target, words)
            return
        status, channel, ts = self.port.output(target, words)
        self._raise(status, channel, ts, "kernel output")

    def batch(self):
        """ACPKI batch (``with core.batch(): ...``): events are appended and submitted with one sev."""
        if self.initiator != "acp-batch":
            raise RTIOError(f"batch mode needs the acp-batch initiator (this core uses {self.initiator!r})")
        return _Batch(self)

    def wait_until_submitted(self) -> None:
        """Credit FIFO: let the posted events reach the core and report a latched underflow."""
        status, channel, ts = self.port.flush()
        self._raise(status, channel, ts, "credit FIFO")

    def input(self, channel: int, timeout_mu: int, want_data: bool = False) -> int:
        """One CRI read (rtio_input_timestamp / rtio_input_data): the timestamp (or data), -1 on timeout."""
        if self._recorder:
            raise RTIOError("input reads inside a DMA record block: a trace holds outputs only")
        status, value = self.port.input(channel, timeout_mu, want_data)
        if status & I_OVERFLOW:
            raise RTIOOverflow(channel)
        if status & I_UNREACHABLE:
            raise RTIODestinationUnreachable(f"input channel {channel}: no such RTIO channel on this board")
        if status & I_BUSY:
            raise RTIOError(f"input channel {channel}: the read was still waiting after the board-time limit "
                            f"(timeout {timeout_mu} mu too far ahead?)")
        return -1 if status & I_TIMEOUT else value

    def _raise(self, status: int, channel: int, ts: int, during: str) -> None:
        if status & O_UNDERFLOW:
            raise RTIOUnderflow(channel, ts, ts - self.port.wall(), during=during)
        if status & O_UNREACHABLE:
            raise RTIODestinationUnreachable(f"channel {channel}: no such RTIO channel on this board "
                                             f"(or more than one data word on the credit FIFO)")
        if status & O_WAIT:
            raise RTIOError(f"channel {channel} at {ts} mu: the initiator never got a reply "
                            f"(ACPKI batch buffer full or gateware stalled); submit smaller batches")


class _Batch:
    def __init__(self, core: Core):
        self.core = core

    def __enter__(self):
        self.core.port.batch_start()
        return self

    def __exit__(self, exc_type, exc, tb):
        status, channel, ts = self.core.port.batch_end()
        if exc_type is None:
            self.core._raise(status, channel, ts, "ACPKI batch")
        return False


class TTLOut:
    """A TTL output channel: address 0 = level, address 1 = output enable."""

    def __init__(self, core: Core, channel: int):
        self.core, self.channel = core, int(channel)
        self.target_o = self.channel << 8
        self.target_oe = (self.channel << 8) + CONST["TTL_ADDR_OE"]

    def set_o(self, level: bool) -> None:
        self.core.output(self.target_o, 1 if level else 0)

    def set_oe(self, enabled: bool) -> None:
        self.core.output(self.target_oe, 1 if enabled else 0)

    def on(self) -> None:
        self.set_o(True)

    def off(self) -> None:
        self.set_o(False)

    def pulse_mu(self, duration: int) -> None:
        self.on()
        self.core.delay_mu(duration)
        self.off()

    def pulse(self, duration: float) -> None:
        self.pulse_mu(self.core.seconds_to_mu(duration))


class TTLInOut(TTLOut):
    """A TTL channel with an input: address 2 sets the gate (sensitivity), address 3 sets it and samples the pin
    [artiq-rtio.md sec. 1.3]; gated edges become timestamped input events read back with the calls below."""

    def __init__(self, core: Core, channel: int):
        super().__init__(core, channel)
        self.target_sens = (self.channel << 8) + CONST["TTL_ADDR_SENSITIVITY"]
        self.target_sample = (self.channel << 8) + CONST["TTL_ADDR_SAMPLE"]

    def output(self) -> None:
        self.set_oe(True)

    def input(self) -> None:
        self.set_oe(False)

    def _set_sensitivity(self, value: int) -> None:
        self.core.output(self.target_sens, value)

    def _gate(self, duration: int, value: int) -> int:
        self._set_sensitivity(value)
        self.core.delay_mu(duration)
        self._set_sensitivity(0)
        return self.core.now_mu()

    def gate_rising_mu(self, duration: int) -> int:
        """Open the gate for rising edges for `duration` mu from now; returns the gate's end (for count)."""
        return self._gate(duration, RISING)

    def gate_falling_mu(self, duration: int) -> int:
        return self._gate(duration, FALLING)

    def gate_both_mu(self, duration: int) -> int:
        return self._gate(duration, RISING | FALLING)

    def gate_rising(self, duration: float) -> int:
        return self.gate_rising_mu(self.core.seconds_to_mu(duration))

    def gate_falling(self, duration: float) -> int:
        return self.gate_falling_mu(self.core.seconds_to_mu(duration))

    def gate_both(self, duration: float) -> int:
        return self.gate_both_mu(self.core.seconds_to_mu(duration))

    def count(self, up_to_timestamp_mu: int) -> int:
        """Consume the input events until the counter reaches `up_to_timestamp_mu`; how many there were."""
        n = 0
        while self.core.input(self.channel, up_to_timestamp_mu) >= 0:
            n += 1
        return n

    def timestamp_mu(self, up_to_timestamp_mu: int) -> int:
        """The next input event's timestamp, or -1 if none came before the counter reached the bound."""
        return self.core.input(self.channel, up_to_timestamp_mu)

    def sample_input(self) -> None:
        """Sample the pin at the cursor (an output at address 3 with the gate closed)."""
        self.core.output(self.target_sample, 0)

    def sample_get(self) -> int:
        """The level sample_input took (rtio_input_data: no timeout; bounded here to 1 ms of board time)."""
        status, value = self.core.port.input(self.channel, (1 << 63) - 1, True, limit_ps=10**9)
        if status & I_OVERFLOW:
            raise RTIOOverflow(self.channel)
        if status:
            raise RTIOError(f"channel {self.channel}: no sample arrived in the input FIFO within 1 ms (call "
                            f"sample_input first, and read after the cursor has passed it)")
        return value
