"""S0's three roles, timed on the virtual board: the APU builds a gate sequence's
BD ring, hands its address to the RPU (PL GPIO or an RPMsg-like mailbox in DDR),
the RPU programs CURDESC/TAILDESC, and the PL plays the stream to the DACs at the
gate rate through a FIFO.

Everything happens on the board's one virtual timeline: the APU's ring build
and the CPUs' accesses are charged by the CPU model (sgdma.cpu), register
accesses go through MMIO, mailbox accesses to DDR through the DRAM model (so
RPMsg sees refresh and GPIO does not), and the DAC consumer (csrc/vboard/dac.c)
records every underflow with its time and gate.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from sgdma import _core
from sgdma.hw.layout import Layout
from sgdma.output.timeline import Timeline

C = _core.constants
MAILBOX_TX_FLAG, MAILBOX_RX_FLAG, MAILBOX_DATA = 0x0, 0x4, 0x8   # offsets in the RPMsg area
ACK = 1 << 31


#: Work bound of one playback, checked before it starts: the simulation, the per-gate columns and the report's
#: figures grow with the gates played (passes x gates per pass).  Assumed: a few minutes of host time on a
#: 2-core VM (the simulation ran ~0.1 ms per played gate there, more with a report's figures).
MAX_PLAYED_GATES = 1 << 20


@dataclass
class PlaybackConfig:
    mailbox: str = "gpio"           # gpio | rpmsg
    fifo_depth: int = 64            # DAC FIFO, in stream words (beats)
    gate_time_ns: float = 1000.0    # time of one gate of the circuit's median length
    lead_ns: float | None = None    # DAC start after the first word (default: one gate time)
    passes: int = 1                 # cyclic rings: how many passes to play
    seed: int = 0
    fidelity: str = "exact"         # exact | fast | functional (sgdma.experiments.fidelity); fast plays exact

    def check(self) -> None:
        from sgdma.board.fidelity import FIDELITIES

        if self.fidelity not in FIDELITIES:
            raise ValueError(f"--fidelity {self.fidelity!r}: choose {', '.join(FIDELITIES)}")
        if self.mailbox not in ("gpio", "rpmsg"):
            raise ValueError(f"mailbox {self.mailbox!r}: choose gpio or rpmsg")
        if self.fifo_depth < 1:
            raise ValueError(f"fifo depth {self.fifo_depth}: the DAC FIFO holds at least one word")
        if not self.gate_time_ns > 0:
            raise ValueError(f"gate time {self.gate_time_ns} ns must be > 0")
        if self.passes < 1:
            raise ValueError("passes must be >= 1")


@dataclass
class Underflow:
    gate: int
    gate_name: str
    time_ns: float
    late_ns: float


class Underflows(Sequence):
    """The run's underflows, in time order: a list-like view over columns (``gate``, ``time_ns``, ``late_ns``)
    that makes an :class:`Underflow` on access."""

    def __init__(self, gate: np.ndarray, time_ns: np.ndarray, late_ns: np.ndarray, table: list[str],
                 codes: np.ndarray):
        self.gate, self.time_ns, self.late_ns = gate, time_ns, late_ns
        self._table, self._codes = table, codes

    def name_of(self, gate: int) -> str:
        return self._table[int(self._codes[gate])] if 0 <= gate < len(self._codes) else "?"

    def __len__(self) -> int:
        return len(self.gate)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        g = int(self.gate[i])
        return Underflow(g, self.name_of(g), float(self.time_ns[i]), float(self.late_ns[i]))

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    def __repr__(self) -> str:
        return f"Underflows({len(self)})"


@dataclass
class PlaybackResult:
    """One playback.  Per-gate quantities are numpy columns (index = gate played, passes included); names
    are codes into ``gate_name_table``."""

    board: str
    gates: int
    bds: int
    bytes: int
    latency_ns: float               # S0's latency: start received -> first word, the RPU's tail write included
    throughput_mbps: float          # payload / (last word - first word), as S0 defines it
    underflows: Underflows
    deadline_misses: int
    mailbox: str
    mailbox_latency_ns: float
    apu_build_ns: float
    csm: dict
    dac_word_ns: float              # the DAC's word period as configured (whole picoseconds)
    timeline: Timeline = field(repr=False)
    gate_first_ns: np.ndarray = field(repr=False)      # first word of each gate at the PL
    gate_play_ns: np.ndarray = field(repr=False)       # when the DAC played it
    gate_deadline_ns: np.ndarray = field(repr=False)   # when it was due
    gate_last_ns: np.ndarray = field(default=None, repr=False)     # last word of each gate at the PL
    gate_beats: np.ndarray = field(default=None, repr=False)       # stream words per gate
    gate_name_table: list = field(default=None, repr=False)        # distinct gate names
    gate_name_code: np.ndarray = field(default=None, repr=False)   # per gate: index into gate_name_table
    gate_fetch_ns: np.ndarray = field(default=None, repr=False)    # issue of each gate's first BD fetch
    bd_fetch_ns: np.ndarray = field(default=None, repr=False)      # (n, 2) BD fetch issue, data back
    refresh_ns: np.ndarray = field(default=None, repr=False)       # (n, 2) DRAM refresh windows in the run
    tail_write_ns: float = 0.0
    fifo_depth: int = 0
    word_bytes: int = 0
    stream_clock_mhz: float = 0.0
    wall_s: dict = field(default_factory=dict, repr=False)   # host seconds: "simulate" (the C run), "result"

    @property
    def gate_names(self) -> np.ndarray:
        """Gate name per gate played (object array, made from the codes)."""
        return np.array(self.gate_name_table, dtype=object)[self.gate_name_code]


def _cpu(board, name):
    from sgdma.models.cpu import CpuModel

    try:
        return CpuModel.for_board(board, name)
    except ValueError:
        return None


def _mailbox_gpio(board, apu, rpu, value: int, rng, tl: Timeline, seq: int) -> float:
    base = board.gpio_base + C["MAILBOX_GPIO_BLOCK"] * C["CSM_GPIO_SPAN"]
    data, flag = base + C["CSM_GPIO_DATA"], base + C["CSM_GPIO2_DATA"]
    return _handoff(board, apu, rpu, value, rng, tl, seq, data, flag, flag, "GPIO",
                    (apu.mmio_write_ns, apu.mmio_read_ns), (rpu.mmio_write_ns, rpu.mmio_read_ns))


def _mailbox_rpmsg(board, apu, rpu, value: int, rng, tl: Timeline, seq: int) -> float:
    area = Layout.of(board).rpmsg
    return _handoff(board, apu, rpu, value, rng, tl, seq, area + MAILBOX_DATA, area + MAILBOX_TX_FLAG,
                    area + MAILBOX_RX_FLAG, "RPMsg",
                    (apu.ddr_store_ns, apu.ddr_load_ns), (rpu.ddr_store_ns, rpu.ddr_load_ns))


def _handoff(board, apu, rpu, value, rng, tl, seq, data, tx, rx, kind, apu_cost, rpu_cost) -> float:
    """APU writes the value then the flag; the RPU's busy-wait sees the flag, reads the
    value and acknowledges; the APU sees the acknowledgement.  Returns the time from the
    APU's first write to the RPU holding the value."""
    b = board
    t0 = board.now_ns
    b.cpu_write32(data, value & 0xFFFFFFFF, apu_cost[0])
    b.cpu_write32(tx, seq, apu_cost[0])
    tl.span("APU", f"{kind} mailbox: post ring address", t0, board.now_ns)
    # the RPU was already spinning: its next poll comes somewhere in one poll period
    board.advance(float(rng.uniform(0, rpu_cost[1])))
    t_rpu = board.now_ns
    for polls in range(1, 100_001):
        if b.cpu_read32(tx, rpu_cost[1]) == seq:
            break
    else:
        raise TimeoutError(f"{kind} mailbox: the RPU never saw flag {seq} at 0x{tx:x}")
    got = b.cpu_read32(data, rpu_cost[1])
    t_has = board.now_ns
    b.cpu_write32(rx, seq | ACK, rpu_cost[0])
    tl.span("RPU", f"{kind} mailbox: receive, acknowledge ({polls} polls)", t_rpu, board.now_ns)
    t_ack = board.now_ns
    for _ in range(100_000):
        if b.cpu_read32(rx, apu_cost[1]) == (seq | ACK):
            break
    else:
        raise TimeoutError(f"{kind} mailbox: the APU never saw the acknowledgement at 0x{rx:x}")
    tl.span("APU", f"{kind} mailbox: acknowledgement seen", t_ack, board.now_ns)
    if got != value & 0xFFFFFFFF:
        raise RuntimeError(f"{kind} mailbox: sent 0x{value:x}, the RPU read 0x{got:x}")
    return t_has - t0


def play(board, dma, handle, cfg: PlaybackConfig | None = None, progress=None) -> PlaybackResult:
    """Play a compiled gate sequence (a sequence RingHandle) through S0's roles.  ``progress(done, total)`` is
    called as the virtual time advances (in slices, so Ctrl-C stops the run between them)."""
    cfg = cfg or PlaybackConfig()
    cfg.check()
    played = handle.n_gates * (cfg.passes if getattr(handle, "cyclic", False) else 1)
    if played > MAX_PLAYED_GATES:
        raise ValueError(f"--passes {cfg.passes}: {cfg.passes} passes x {handle.n_gates} gates = {played} gates, over "
                         f"the limit of {MAX_PLAYED_GATES} per playback; use at most "
                         f"{max(1, MAX_PLAYED_GATES // max(1, handle.n_gates))} passes")
    board.mm2s_sink.clear()          # the report reads this run's packets only
    board.clear_bd_fetches("mm2s")
    rng = np.random.default_rng(cfg.seed)
    tl = Timeline()
    apu, rpu = _cpu(board, "apu"), _cpu(board, "rpu")
    if apu is None:
        from sgdma.hw import presets
        from sgdma.models.cpu import available

        with_apu = [n for n in presets.names() if "apu" in available(n)]
        raise ValueError(f"board {board.preset!r} has no CPU model: gate playback needs an APU; boards with one: "
                         f"{', '.join(with_apu)}")
    width = board.axi_dma.data_bytes
    ring = handle.ring
    gate_bytes = np.asarray(handle.gate_bytes, dtype=np.int64)
    gate_beats = -(-gate_bytes // width)

    # 1. the APU builds the ring (its BDs are already in memory; this is its cost)
    t = board.now_ns
    board.advance(apu.bd_create_ns(handle.n_bds, rng))
    apu_build = board.now_ns - t
    tl.span("APU", f"build ring: {handle.n_bds} BDs, {handle.n_gates} gates", t, board.now_ns)

    # 2. hand-off of the ring address to the RPU (single-CPU boards: the APU plays both roles)
    if rpu is not None:
        post = _mailbox_gpio if cfg.mailbox == "gpio" else _mailbox_rpmsg
        mailbox_ns = post(board, apu, rpu, ring.address, rng, tl, seq=handle.epoch & 0x7FFFFFFF or 1)
        mailbox = cfg.mailbox
    else:
        mailbox_ns, mailbox = 0.0, "none (one CPU)"

    # 3. the PL: DAC words at the gate rate, FIFO depth, start lead
    word_ns = cfg.gate_time_ns / max(1.0, float(np.median(gate_beats)))
    lead = cfg.gate_time_ns if cfg.lead_ns is None else cfg.lead_ns
    board.dac.configure(word_ns, lead, cfg.fifo_depth)

    # 4. the RPU: CURDESC + RS, the timing engine's handshake, then the tail write
    t = board.now_ns
    cyclic = getattr(handle, "cyclic", False)
    tail = ring.prepare_cyclic() if cyclic else ring.prepare()
    total_beats = int(gate_beats.sum()) * (cfg.passes if cyclic else 1)
    csm = board.csm
    csm.arm(total_beats)
    csm.reset()
    csm.wait_ready()
    csm.start()
    dma.mm2s.write_tail(tail)
    t_tail = board.now_ns
    tl.span("RPU", "program DMA (CURDESC, RS), timing-engine handshake, tail write", t, t_tail)

    # 5. the run: until the engine has seen every word (the RPU waits in standby)
    budget_ns = (total_beats * word_ns + lead + 1e6) * 4
    expected_ns = total_beats * word_ns + lead
    start, done = board.now_ns, False
    wall0 = time.perf_counter()
    step = max(expected_ns / 50, 1e5)                  # ~50 slices of the expected run
    while not done and board.now_ns - start < budget_ns:
        before = board.now_ns
        done = board.run_until_csm_done(min(step, start + budget_ns - board.now_ns))
        if not done and board.now_ns == before:
            break                                       # nothing left to happen: stalled, reported below
        if progress is not None:
            progress(min(board.now_ns - start, expected_ns), expected_ns)
    if not done:
        regs = board.dma_registers()["mm2s"]
        raise TimeoutError(f"playback did not finish: the timing engine saw fewer than {total_beats} words; "
                           f"MM2S DMASR {regs['DMASR_decoded']}, CURDESC 0x{regs['CURDESC']:x}")
    counters = csm.counters()
    if cyclic:
        dma.reset()                                   # PG021: cyclic mode stops by reset
    else:
        ring.wait(timeout_ns=1e7)
        ring.reclaim()
    board.run_until_quiet()
    wall1 = time.perf_counter()
    res = _result(board, handle, tl, apu_build, mailbox, mailbox_ns, counters, word_ns, t_tail, gate_beats,
                  cyclic)
    res.fifo_depth = cfg.fifo_depth
    res.wall_s = {"simulate": wall1 - wall0, "result": time.perf_counter() - wall1}
    return res


def _result(board, handle, tl, apu_build, mailbox, mailbox_ns, counters, word_ns, t_tail, gate_beats,
            cyclic) -> PlaybackResult:
    """The run's per-gate columns, from the sink's and the DAC's columns (no per-gate Python objects)."""
    dac = board.dac.columns()
    sink = board.mm2s_sink.columns()
    whole = ~sink["cut"]                                # a reset ends cyclic play mid-gate
    first, last = sink["first_ns"][whole], sink["last_ns"][whole]
    n_gates = len(first)
    reps = n_gates // max(1, handle.n_gates) + 1
    table = handle.gate_vocabulary
    codes = np.tile(np.asarray(handle.gate_codes, np.int64), reps)[:n_gates]
    beats = np.tile(gate_beats, n_gates // max(1, len(gate_beats)) + 1)[:n_gates]
    first_beat = np.r_[0, np.cumsum(beats)[:-1]]
    word_ns = dac["beat_ps"] / 1e3 if dac["beat_ps"] else word_ns     # the period the DAC was given
    t0 = dac["t0_nominal_ps"] / 1e3
    deadline = t0 + first_beat * word_ns
    # an underflow slips playback from the late word on: its gate if it was the
    # gate's first word, otherwise the gates after it
    under = dac["underflows"].astype(np.int64)
    u_gate, u_beat, u_due, u_actual = under.T
    g = np.searchsorted(first_beat, u_beat, side="right") - 1
    slipped = np.where(u_beat == first_beat[np.maximum(g, 0)], g, g + 1) if n_gates else g
    slip = np.bincount(slipped, weights=(u_actual - u_due) / 1e3, minlength=n_gates + 1)[:n_gates + 1]
    play_t = deadline + np.cumsum(slip)[:n_gates]
    underflows = Underflows(u_gate, u_actual / 1e3, (u_actual - u_due) / 1e3, table, codes)
    clk = 1e3 / board.axi_dma.clock_mhz
    span = (last[-1] - first[0]) + clk if n_gates else float("nan")
    payload = int(gate_beats.sum() * board.axi_dma.data_bytes) if not cyclic else int(
        beats.sum() * board.axi_dma.data_bytes)

    tl.span("DMA", "MM2S: tail write to last word", t_tail, last[-1] if n_gates else t_tail)
    gate = np.arange(n_gates)
    tl.span_columns("stream", table, first, last, codes=codes, gate=gate)
    tl.span_columns("DAC", table, play_t, play_t + beats * word_ns, codes=codes, gate=gate,
                    late_ns=play_t - deadline)
    if len(underflows):
        tl.instant_columns("DAC", [f"underflow gate {k}" for k in u_gate.tolist()], underflows.time_ns,
                           codes=np.arange(len(underflows)), gate=u_gate, late_ns=underflows.late_ns)

    fetches = board.bd_fetches("mm2s")
    bd_end = np.asarray(handle.gate_bd_end, dtype=np.int64)
    first_bd = np.r_[0, bd_end[:-1] + 1]
    n_pass_gates = max(1, len(first_bd))
    gate_bd = (gate // n_pass_gates) * handle.n_bds + first_bd[gate % n_pass_gates]
    gate_fetch = np.where(gate_bd < len(fetches), fetches[np.minimum(gate_bd, max(0, len(fetches) - 1)), 0]
                          if len(fetches) else np.nan, np.nan)
    t_end = float(last[-1]) if n_gates else t_tail
    return PlaybackResult(
        gate_last_ns=last, gate_beats=beats, gate_name_table=table, gate_name_code=codes, gate_fetch_ns=gate_fetch,
        bd_fetch_ns=fetches, refresh_ns=board.refresh_windows(t_tail, t_end), tail_write_ns=t_tail,
        word_bytes=board.axi_dma.data_bytes, stream_clock_mhz=board.axi_dma.clock_mhz,
        board=board.name, gates=n_gates, bds=handle.n_bds, bytes=payload,
        latency_ns=float(counters["latency_ns"]),
        throughput_mbps=payload / span * 1e3 if n_gates else 0.0,
        underflows=underflows, deadline_misses=len(dac["deadline_misses"]), mailbox=mailbox,
        mailbox_latency_ns=mailbox_ns, apu_build_ns=apu_build, csm=counters, dac_word_ns=word_ns, timeline=tl,
        gate_first_ns=first, gate_play_ns=play_t, gate_deadline_ns=deadline)
