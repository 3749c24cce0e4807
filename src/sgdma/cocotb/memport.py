"""PsMemoryPort: the board's PL-side PS port as an AXI slave on the DUT's master signals.

HDL time is the master.  On the clock edge a DUT's AR (or its write's WLAST) is taken, the
board runs up to that time and the burst enters the interconnect, DDR controller and DRAM
(``sgdma.board.plport``: the path the board's DMA uses).  Beat *i* of an *n*-beat
read the model delivers at ``t_first + (i+1)(t_done - t_first)/n``; it is driven on RDATA
from the first clock edge at or after that time and stays until the DUT takes it (RREADY).
A write's B is driven from the first edge at or after the model's write response.  Reads
are answered in the order they were accepted (AXI allows it for any IDs).
"""
from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field

import cocotb
from cocotb.triggers import RisingEdge
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiBus

from sgdma.board.plport import pl_read, pl_write
from sgdma.cocotb.errors import AxiProtocolError
from sgdma.cocotb.simtime import now_ps
from sgdma.hw import presets

RESP = (0, 3, 2)          # board answer (OK, DECERR, SLVERR) -> AXI xRESP (OKAY, DECERR, SLVERR)
BURST_INCR = 1
STALL_CLOCKS = 100_000    # a response waiting this long for xREADY is a hang, reported


def port_spec(board, port: str) -> dict:
    """The preset's facts about PS port ``port`` ("hp0", "hpc1", "acp": the [port.hp] ... table)."""
    kind = port.rstrip("0123456789")
    table = presets.load(board.preset).get("port", {})
    if kind not in table:
        raise ValueError(f"port={port!r}: board {board.preset!r} has no [port.{kind}] "
                         f"(it lists {', '.join(table) or 'none'})")
    v = {k: item["value"] for k, item in table[kind].items()}
    for k in ("width_bits", "request_ns", "response_ns", "clock_mhz"):
        if k in v and abs(board.option(f"ic.{k}") - float(v[k])) > 1e-9:
            raise ValueError(f"port={port!r}: the board's PL port is not [port.{kind}] (ic.{k} = "
                             f"{board.option(f'ic.{k}'):g}, the port's {v[k]:g}); create it with "
                             f"VirtualBoard({board.preset!r}, port={kind!r})")
    return {"name": port, "width_bits": int(v["width_bits"]), "axi": int(v.get("axi", 4)),
            "accept": int(v.get("accept", 8)), "max_burst_bytes": int(v.get("max_burst_bytes", 0))}


@dataclass
class _Burst:
    id: int
    addr: int             # first byte (aligned to the beat size)
    beats: int
    size: int             # bytes per beat
    clock: int            # the clock its address was taken
    t_addr: int = 0       # board ps of that clock
    ready: list = field(default_factory=list)   # HDL ps each beat (read) / B (write) is ready
    data: bytes = b""
    resp: int = 0
    done: int = 0         # beats handed over (read) or taken (write)
    wdata: bytearray | None = None
    wmask: bytearray | None = None


def _v(sig) -> int:
    """A control input as 0/1 (X or Z: 0, as during reset)."""
    val = sig.value
    return int(val) if val.is_resolvable else 0


class PsMemoryPort:
    """``PsMemoryPort(dut, "m_axi_hp0", dut.clk, board, port="hp0")``: signals by cocotbext-axi's
    ``AxiBus.from_prefix`` naming; while ``reset`` is asserted (active low unless
    ``reset_active_level``) the port is idle and bursts in flight are dropped (what the board
    has done stays done)."""

    def __init__(self, dut, prefix: str, clock, board, port: str = "hp0", reset=None,
                 reset_active_level: bool = False, stall_clocks: int | None = STALL_CLOCKS):
        self.spec = port_spec(board, port)
        self.board, self.clock, self.prefix = board, clock, prefix
        self.reset, self.reset_level = reset, bool(reset_active_level)
        self.stall_clocks = stall_clocks
        bus = AxiBus.from_prefix(dut, prefix)
        self.aw, self.w, self.b = bus.write.aw, bus.write.w, bus.write.b
        self.ar, self.r = bus.read.ar, bus.read.r
        self.wid = getattr(dut, f"{prefix}_wid", None)      # AXI3 only
        self.bytes = self.spec["width_bits"] // 8
        for sig, name in ((self.r.rdata, "rdata"), (self.w.wdata, "wdata")):
            if len(sig) != self.spec["width_bits"]:
                raise ValueError(f"{prefix}_{name} is {len(sig)} bits; port {port} of {board.preset} is "
                                 f"{self.spec['width_bits']} bits: set the DUT's data width to it")
        self.max_beats = 16 if self.spec["axi"] == 3 else 256
        self.offset = board.now_ps - now_ps()     # board time = HDL time + offset
        self.clocks = 0
        self.reads: deque[_Burst] = deque()
        self.writes: deque[_Burst] = deque()          # AW taken, data still coming
        self.bresps: deque[_Burst] = deque()          # data in, B pending
        self.read_bursts = self.write_bursts = 0
        self._r_wait = self._b_wait = 0
        for s in (self.ar.arready, self.aw.awready, self.w.wready, self.r.rvalid, self.b.bvalid):
            s.value = 0
        self.error: AxiProtocolError | None = None
        self.log = logging.getLogger(f"sgdma.cocotb.{prefix}")
        self._task = cocotb.start_soon(self._run())

    # -- checks -----------------------------------------------------------------------------
    def _fail(self, msg: str):
        self.error = AxiProtocolError(f"{self.prefix} ({self.spec['name']}): {msg} at clock {self.clocks} "
                                      f"({get_sim_time('ns'):g} ns)")
        self.log.error("%s", self.error)       # in the simulator's log even when a test expects the error
        raise self.error

    def _address(self, ch: str, bus) -> _Burst:
        s = {k: getattr(bus, f"{ch}{k}") for k in ("id", "addr", "len", "size", "burst")}
        for k, sig in s.items():
            if not sig.value.is_resolvable:
                self._fail(f"{ch.upper()} channel: {ch.upper()}{k.upper()} is {sig.value} while "
                           f"{ch.upper()}VALID is high")
        bid, addr, ln, size, burst = (int(sig.value) for sig in s.values())
        C = ch.upper()
        if burst != BURST_INCR:
            self._fail(f"{C} channel: {C}BURST={burst}; the bridge answers INCR bursts (1) only")
        if ln + 1 > self.max_beats:
            self._fail(f"{C} channel: {C}LEN={ln} ({ln + 1} beats); port {self.spec['name']} is "
                       f"AXI{self.spec['axi']}, bursts of at most {self.max_beats} beats")
        nb = 1 << size
        if nb > self.bytes:
            self._fail(f"{C} channel: {C}SIZE={size} ({nb} bytes per beat) is wider than the "
                       f"{self.bytes}-byte data bus")
        start = addr & ~(nb - 1)
        end = start + (ln + 1) * nb - 1
        if start >> 12 != end >> 12:
            self._fail(f"{C} channel: {C}ADDR=0x{addr:x}, {ln + 1} beats of {nb} bytes cross a 4 KiB "
                       f"boundary (AXI forbids it); split the burst")
        mb = self.spec["max_burst_bytes"]
        if mb and (ln + 1) * nb > mb:
            self._fail(f"{C} channel: a burst of {(ln + 1) * nb} bytes; port {self.spec['name']} takes at "
                       f"most {mb}")
        return _Burst(bid, start, ln + 1, nb, self.clocks)

    # -- channels ---------------------------------------------------------------------------
    def _take_ar(self, t):
        rd = self._address("ar", self.ar)
        resp, t_issue, t_first, t_done, data = pl_read(self.board, t + self.offset, rd.addr,
                                                             rd.beats * rd.size)
        span = t_done - t_first
        rd.ready = [t_first + span * (i + 1) // rd.beats - self.offset for i in range(rd.beats)]
        rd.data, rd.resp = data, RESP[resp]
        self.reads.append(rd)
        self.read_bursts += 1

    def _lane(self, addr: int) -> int:
        return (addr % self.bytes) * 8

    def _drive_r(self, t, taken: bool):
        r = self.r
        if taken:
            rd = self.reads[0]
            rd.done += 1
            if rd.done == rd.beats:
                self.reads.popleft()
            self._r_wait = 0
        elif _v(r.rvalid):
            self._r_wait += 1
            if self.stall_clocks and self._r_wait > self.stall_clocks:
                rd = self.reads[0]
                self._fail(f"R channel: RREADY low for {self._r_wait} clocks while beat {rd.done} of ID "
                           f"{rd.id} waits")
            return
        if self.reads and self.reads[0].ready[self.reads[0].done] <= t:
            rd = self.reads[0]
            i = rd.done
            beat = rd.data[i * rd.size:(i + 1) * rd.size]
            r.rdata.value = int.from_bytes(beat, "little") << self._lane(rd.addr + i * rd.size)
            r.rid.value = rd.id
            if hasattr(r, "rresp"):
                r.rresp.value = rd.resp
            r.rlast.value = int(i == rd.beats - 1)
            r.rvalid.value = 1
        else:
            r.rvalid.value = 0

    def _take_aw(self, t):
        wr = self._address("aw", self.aw)
        wr.t_addr = t + self.offset
        wr.wdata = bytearray(wr.beats * wr.size)
        wr.wmask = bytearray(wr.beats * wr.size)
        self.writes.append(wr)

    def _take_w(self, t):
        wr = self.writes[0]
        if self.wid is not None and int(self.wid.value) != wr.id:
            self._fail(f"W channel: WID={int(self.wid.value)} but the write in progress is AWID={wr.id} "
                       f"(AXI3: W beats follow the order of their AWs)")
        last = _v(self.w.wlast)
        i = wr.done
        if last and i != wr.beats - 1:
            self._fail(f"W channel: WLAST high on beat {i + 1} of {wr.beats} (AWLEN={wr.beats - 1}, AWID={wr.id})")
        if not last and i == wr.beats - 1:
            self._fail(f"W channel: WLAST low on beat {wr.beats}, the last of AWLEN={wr.beats - 1} (AWID={wr.id})")
        lane = self._lane(wr.addr + i * wr.size)
        data = int(self.w.wdata.value) >> lane
        strb = int(self.w.wstrb.value) >> (lane // 8) if hasattr(self.w, "wstrb") else (1 << wr.size) - 1
        for k in range(wr.size):
            if strb >> k & 1:
                wr.wdata[i * wr.size + k] = data >> (8 * k) & 0xFF
                wr.wmask[i * wr.size + k] = 1
        wr.done += 1
        if last:
            self.writes.popleft()
            n = wr.beats * wr.size
            try:        # bytes without a strobe keep what memory holds
                cur = bytes(self.board.view(wr.addr, n))
            except (ValueError, OSError):
                cur = bytes(n)
            buf = bytes(d if m else c for d, m, c in zip(wr.wdata, wr.wmask, cur))
            resp, _, t_b = pl_write(self.board, wr.t_addr, t + self.offset,
                                          wr.addr, buf)
            wr.ready, wr.resp = [t_b - self.offset], RESP[resp]
            self.bresps.append(wr)
            self.write_bursts += 1

    def _drive_b(self, t, taken: bool):
        b = self.b
        if taken:
            self.bresps.popleft()
            self._b_wait = 0
        elif _v(b.bvalid):
            self._b_wait += 1
            if self.stall_clocks and self._b_wait > self.stall_clocks:
                self._fail(f"B channel: BREADY low for {self._b_wait} clocks while the response of "
                           f"AWID={self.bresps[0].id} waits")
            return
        if self.bresps and self.bresps[0].ready[0] <= t:
            wr = self.bresps[0]
            b.bid.value = wr.id
            if hasattr(b, "bresp"):
                b.bresp.value = wr.resp
            b.bvalid.value = 1
        else:
            b.bvalid.value = 0

    def _in_reset(self) -> bool:
        return self.reset is not None and _v(self.reset) == int(self.reset_level)

    async def _run(self):
        edge = RisingEdge(self.clock)
        while True:
            await edge
            self.clocks += 1
            t = now_ps()
            if self._in_reset():     # bursts in flight are dropped (the board has done them)
                for s in (self.ar.arready, self.aw.awready, self.w.wready, self.r.rvalid, self.b.bvalid):
                    s.value = 0
                self.reads.clear(), self.writes.clear(), self.bresps.clear()
                continue
            ar = _v(self.ar.arready) and _v(self.ar.arvalid)
            r = _v(self.r.rvalid) and _v(self.r.rready)
            aw = _v(self.aw.awready) and _v(self.aw.awvalid)
            w = _v(self.w.wready) and _v(self.w.wvalid)
            b = _v(self.b.bvalid) and _v(self.b.bready)
            if aw:
                self._take_aw(t)
            if w:
                self._take_w(t)
            if ar:
                self._take_ar(t)
            self._drive_r(t, r)
            self._drive_b(t, b)
            accept = self.spec["accept"]
            self.ar.arready.value = int(len(self.reads) < accept)
            self.aw.awready.value = int(len(self.writes) + len(self.bresps) < accept)
            self.w.wready.value = int(bool(self.writes))

    def idle(self) -> bool:
        """No burst in flight (every read answered, every write responded)."""
        return not (self.reads or self.writes or self.bresps)

    def check_idle(self):
        """Raise AxiProtocolError naming what is still in flight (call at a test's end)."""
        if not self.idle():
            what = [f"read ID {r.id} ({r.done}/{r.beats} beats taken)" for r in self.reads]
            what += [f"write AWID {w.id} ({w.done}/{w.beats} W beats)" for w in self.writes]
            what += [f"write AWID {w.id} (B not taken)" for w in self.bresps]
            self._fail("bursts still in flight: " + ", ".join(what))
