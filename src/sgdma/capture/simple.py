"""Direct-register (simple-mode) capture: seed 002's custom driver.

The S2MM channel runs without scatter-gather (the board is built with include_sg = 0).  The driver
owns N large buffers; one is programmed into the channel at a time (S2MM_DA, then S2MM_LENGTH arms
it, PG021 simple mode).  Its completion interrupt (IOC, one per buffer: there is no IRQThreshold
outside SG mode) acks DMASR, reads the bytes written from S2MM_LENGTH, queues the buffer for user
space and programs the next free buffer.  With no free buffer left the channel stays idle ("until
all free buffers are filled, at which point DMA controller will be stopped", seed 002) and the
stream backs up into the PL FIFO; the release of a buffer (the ioctl that frees it, or read()
having copied it out) restarts the channel.  User space gets buffers with ``read()`` (the copy API)
or mmap + ioctl (the zero-copy API), exactly as over the SG driver.

Between one buffer's last beat and the next DA/LENGTH write the channel is idle: interrupt entry,
the handler's register accesses and its own work decide how much the PL FIFO must hold: the
mechanism that makes large buffers (few interrupts) pay off.
"""
from __future__ import annotations

from collections import deque

from sgdma.hw import pg021 as P

from sgdma.capture.driver import EOF, SOF, DROPPED_BEFORE, DROPPED_WITHIN, CaptureDriver, CaptureError, Slot


class SimpleCaptureDriver(CaptureDriver):
    """N buffers swapped by the interrupt handler through S2MM_DA / S2MM_LENGTH (no BDs)."""

    dma_mode = "simple"

    def __init__(self, board, buffer_bytes: int, buffers: int, *args, irq_threshold: int = 1,
                 irq_delay_ns: float = 0.0, **kw):
        if int(irq_threshold) != 1 or irq_delay_ns:
            raise CaptureError("dma_mode 'simple' has no interrupt coalescing: PG021's IRQThreshold and IRQDelay "
                               "count SG packets; use irq_threshold=1 and no delay (or dma_mode 'sg')")
        super().__init__(board, buffer_bytes, buffers, *args, **kw)
        if self.channel.has_sg:
            raise CaptureError("dma_mode 'simple' needs the DMA built without scatter-gather (include_sg = 0)")
        self.free: deque[int] = deque()
        self.in_flight: int | None = None       # the buffer programmed into DA/LENGTH

    def _make_ring(self, lay):
        return None                             # simple mode has no BDs

    def start(self) -> None:
        """Invalidate the pool once (sync), enable IOC and error interrupts, program buffer 0."""
        if self.started:
            return
        self.started = True
        if self.channel.registers()["dmasr"] & P.SR_ERR_ALL:
            self.dma.reset()
        self.channel.set_irq(ioc=True, delay=False, error=True, threshold=1)
        if self.costs.maintenance:
            self.cpu.charge(self.costs.cmo_range_ns, "cache_maintenance")
            self.cpu.board_op("cache_maintenance", self.memory.invalidate)
        self.free.extend(range(self.n))
        self._program()

    def _program(self) -> None:
        """Hand the next free buffer to the channel (DMASR read, DA and LENGTH writes)."""
        if self.in_flight is not None or not self.free:
            return
        i = self.free.popleft()
        self.cpu.board_op("driver", self.channel.start_simple, int(self.addresses[i]), self.buffer_bytes)
        self.in_flight = i
        self.armed = 1

    def _isr(self, busy: bool = False) -> int:
        """Ack DMASR, read S2MM_LENGTH, queue the buffer, program the next one."""
        c = self.costs
        irq = self.cpu.board_op("driver", self.channel.irq_ack)
        self.cpu.charge(c.isr_ns + (c.irq_entry_ns if busy else 0.0), "isr")
        self.cpu.count("interrupts")
        self.irqs += 1
        if self.in_flight is None or not irq:
            return 0
        nbytes = self.cpu.board_op("driver", self.channel.wait, 1e6)   # idle already: DMASR + LENGTH reads
        i, self.in_flight = self.in_flight, None
        self.armed = 0
        self._program()                         # swap first: the channel idles until then
        first, last, before, within = self.track.follow(self.pool[i], nbytes)
        flags = SOF | EOF | (DROPPED_BEFORE if before else 0) | (DROPPED_WITHIN if within else 0)
        self.ready.append(Slot(i, nbytes, flags, first, last, self.board.now_ps))
        self.completed += 1
        self.completed_bytes += nbytes
        return 1

    def release(self, index: int) -> None:
        """The reader is done with a buffer: it is free again; an idle channel restarts with it."""
        if self.held.pop(index, None) is None:
            raise CaptureError(f"{self.name}: buffer {index} is not held by the reader")
        if not self.rearm_on_release:
            return
        self.free.append(index)
        self._program()
