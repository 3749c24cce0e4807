"""PS-PCIe DMA from Python: ``PcieDma(board).channel(0, "s2c")`` runs the C driver core on the virtual board.

Host buffers live in PS DDR (board.allocate); card buffers in the endpoint's DDR behind its BAR2.  With
``endpoint_dma=True`` the channel is the endpoint's own DMA engine, programmed by the host across the link
(queues in host memory, registers behind BAR0) -- XAPP1289's comparison.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sgdma import _core
from sgdma.driver.errors import DmaError
from sgdma.hw import pcie as hw

DIRECTIONS = {"s2c": 0, "c2s": 1}


class PcieDmaError(DmaError):
    """A PS-PCIe DMA channel failed; ``channel``, ``queue`` and ``element`` say where."""

    def __init__(self, message: str, channel: int | None = None, queue: str | None = None,
                 element: int | None = None, code: int = 0):
        super().__init__(message)
        self.channel, self.queue, self.element, self.code = channel, queue, element, code


@dataclass
class PcieRun:
    """One run of packets: times in ps, byte counts from both APMs and the link."""
    direction: str
    endpoint_dma: bool
    packet: int
    count: int
    t_start: int
    t_end: int
    t_first_irq: int | None
    bytes: int
    irqs: int
    polls: int
    apm_ps: dict = field(repr=False)
    apm_ep: dict = field(repr=False)
    link: dict = field(repr=False)

    @property
    def seconds(self) -> float:
        return (self.t_end - self.t_start) * 1e-12

    @property
    def mbps(self) -> float:
        """Payload throughput (MB/s = 1e6 B/s) over the run: the endpoint APM's payload bytes per second."""
        ep = self.apm_ep["wr_class"]["data"] + self.apm_ep["rd_class"]["data"]
        return ep / self.seconds / 1e6 if self.seconds else 0.0

    @property
    def latency_ns(self) -> float | None:
        """Software start (before the first element is written) to the completion interrupt."""
        return None if self.t_first_irq is None else (self.t_first_irq - self.t_start) / 1e3


class PcieChannel:
    def __init__(self, dma: "PcieDma", index: int, direction: str, endpoint_dma: bool):
        self.dma, self.index, self.direction, self.endpoint_dma = dma, index, direction, endpoint_dma

    def _card(self, offset: int) -> int:
        """Card buffer address as this channel's engine sees it: a BAR2 bus address (root DMA) or the
        endpoint's AXI address (endpoint DMA)."""
        info = self.dma.info
        return (info["ep_ddr_axi"] if self.endpoint_dma else info["bar2"]) + offset

    def run(self, packet: int, count: int, *, coalesce: int = 0, irq_every: int = 1, poll_us: float = 1000.0,
            limit_ms: float = 10_000.0, card_offset: int = 0, src_axi: int = -1, dst_axi: int = -1,
            reap: bool = True, card_address: int | None = None) -> PcieRun:
        """Move ``count`` packets of ``packet`` bytes, keeping the queue full; raise PcieDmaError on a failure.

        ``card_address`` replaces the card buffer's address as the engine sees it (a raw bus/AXI address);
        ``src_axi``/``dst_axi`` (0/1) override the elements' address-location flag; ``reap=False`` posts every
        packet before reaping any.
        """
        where = f"PCIe DMA channel {self.index} ({self.direction}{', endpoint DMA' if self.endpoint_dma else ''})"
        if count < 1:
            raise ValueError(f"count={count}: at least one packet")
        for name, v, scale in (("poll_us", poll_us, 1e6), ("limit_ms", limit_ms, 1e9)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v * scale < 2.0**63:
                raise ValueError(f"{name}={v!r}: a finite time > 0 that the board's 64-bit picosecond clock holds")
        if not 0 <= coalesce <= hw.PSDMA_COALESCE_MAX:
            raise ValueError(f"coalesce={coalesce}: the 8-bit coalesce_count field takes 0..{hw.PSDMA_COALESCE_MAX}")
        host = self.dma.host
        if card_offset >= self.dma.card_bytes:
            raise ValueError(f"card_offset={card_offset:#x}: the card window is {self.dma.card_bytes:#x} bytes")
        self._packet = packet
        r = _core.pcie_run(self.dma._board._b, int(self.endpoint_dma), self.index, DIRECTIONS[self.direction],
                           packet, count, self.dma.queue_addr, self.dma.nelem, host.physical_address, host.nbytes,
                           self._card(card_offset) if card_address is None else card_address,
                           self.dma.card_bytes - card_offset, coalesce, irq_every,
                           int(poll_us * 1e6), int(limit_ms * 1e9), src_axi, dst_axi, not reap)
        if r["rc"] != 0:
            raise self._error(where, r)
        return PcieRun(self.direction, self.endpoint_dma, packet, count, r["t_start"], r["t_end"],
                       None if r["t_first_irq"] >= 2**63 else r["t_first_irq"], r["bytes"], r["irqs"], r["polls"],
                       r["apm_ps"], r["apm_ep"], r["link"])

    def _error(self, where: str, r: dict) -> PcieDmaError:
        dev, drv = r["device_error"], r["driver_error"]
        if dev:
            q = hw.QUEUE_NAMES[dev["queue"]]
            return PcieDmaError(f"{where}, {q} queue element {dev['index']}: address {dev['addr']:#x} {dev['why']}; "
                                f"the channel was reset and accepts new work", self.index, q, dev["index"], r["rc"])
        if drv:
            q = hw.QUEUE_NAMES[drv["queue"]]
            return PcieDmaError(f"{where}, {q} queue element {drv['index']}: status {drv['status']:#x} reports an "
                                f"error; the channel was reset", self.index, q, drv["index"], r["rc"])
        if r["rc"] == -4:
            return PcieDmaError(f"{where}, SRC queue element {r['post_index']}: the queue is full "
                                f"({self.dma.nelem - 1} of {self.dma.nelem} elements in flight; one stays empty); "
                                f"reap completions first or use a larger queue", self.index, "SRC", r["post_index"],
                                r["rc"])
        if r["rc"] == -3:
            return PcieDmaError(f"{where}, SRC queue element {r['post_index']}: byte count {self._packet} does not "
                                f"fit the element's 24-bit field (1..{hw.PSDMA_SD_MAX_BYTES}); split the transfer "
                                f"into packets of at most {hw.PSDMA_SD_MAX_BYTES} bytes", self.index, "SRC",
                                r["post_index"], r["rc"])
        if r["rc"] == -7:
            return PcieDmaError(f"{where}: no completion within the time limit; the channel was left as it was",
                                self.index, None, None, r["rc"])
        return PcieDmaError(f"{where}: {r['message']}", self.index, None, None, r["rc"])

    def send(self, data) -> PcieRun:
        """S2C one packet: ``data`` (bytes-like or numpy) from PS DDR to the endpoint's DDR at offset 0."""
        if self.direction != "s2c":
            raise ValueError(f"channel {self.index} is {self.direction}; send() needs an s2c channel")
        a = np.frombuffer(np.ascontiguousarray(data).tobytes(), dtype=np.uint8)
        host = self.dma.host
        if a.size > host.nbytes:
            raise ValueError(f"{a.size} bytes exceed the host buffer ({host.nbytes} bytes)")
        host[: a.size] = a
        host.flush()
        return self.run(a.size, 1)

    def receive(self, nbytes: int) -> np.ndarray:
        """C2S one packet of ``nbytes`` from the endpoint's DDR at offset 0; returns a numpy copy."""
        if self.direction != "c2s":
            raise ValueError(f"channel {self.index} is {self.direction}; receive() needs a c2s channel")
        host = self.dma.host
        if nbytes > host.nbytes:
            raise ValueError(f"{nbytes} bytes exceed the host buffer ({host.nbytes} bytes)")
        self.run(nbytes, 1)
        host.invalidate()
        return np.array(host[:nbytes])


class PcieDma:
    """The ZynqMP PS-PCIe DMA of a virtual board with a ``[pcie]`` preset section (e.g. ``zcu102``)."""

    def __init__(self, board, nelem: int = 256, host_bytes: int = 64 << 20, card_bytes: int = 64 << 20):
        self._board = board
        self.info = _core.pcie_info(board._b)
        if not 2 <= nelem <= 65536:
            raise ValueError(f"nelem={nelem}: a queue holds 2..65536 elements (16-bit handles)")
        self.nelem, self.card_bytes = nelem, min(card_bytes, self.info["bar2_size"])
        self._queues = board.allocate(_core.pcie_queue_bytes(nelem), align=64)
        self.host = board.allocate(host_bytes, align=4096)
        self.queue_addr = self._queues.physical_address

    def channel(self, index: int, direction: str, endpoint_dma: bool = False) -> PcieChannel:
        if not 0 <= index < hw.PSDMA_CHANNELS:
            raise ValueError(f"channel {index}: the PS-PCIe DMA has channels 0..{hw.PSDMA_CHANNELS - 1}")
        if direction not in DIRECTIONS:
            raise ValueError(f"direction {direction!r}: use 's2c' (system to card) or 'c2s' (card to system)")
        return PcieChannel(self, index, direction, endpoint_dma)

    def card_read(self, offset: int, nbytes: int) -> np.ndarray:
        """Bytes of the endpoint's DDR behind BAR2 (a copy)."""
        return np.frombuffer(_core.pcie_ep_read(self._board._b, self.info["ep_ddr_axi"] + offset, nbytes), np.uint8)

    def card_write(self, offset: int, data) -> None:
        _core.pcie_ep_write(self._board._b, self.info["ep_ddr_axi"] + offset, bytes(np.asarray(data).tobytes()))

    def set_link_trained(self, up: bool) -> None:
        """Model a link that did (not) train (the LTSSM outcome)."""
        _core.pcie_set_trained(self._board._b, bool(up))
        self.info = _core.pcie_info(self._board._b)

    @property
    def guest_errors(self) -> int:
        return _core.pcie_info(self._board._b)["guest_errors"]

