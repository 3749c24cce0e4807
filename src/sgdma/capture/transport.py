"""Host transport APIs over the capture and playback drivers: the same calls a real board's
user space would make (S2's read() and mmap()+ioctl designs, S4's standard and zero-copy I/O).

Receive (S2MM)::

    rx = open_rx(board, buffer_bytes=128 << 10, buffers=16, cache="sync", api="copy")
    data = rx.read(1 << 20)                 # copy API: bytes copied out of the DMA buffers

    rx = open_rx(board, ..., api="zerocopy")
    with rx.acquire(timeout_ns=1e6) as buf: # zero-copy: a view of a completed DMA buffer
        process(buf.data)                   # numpy view (read-only), buf.length, buf.flags
                                            # leaving the block releases (re-arms) the buffer
Playback (MM2S)::

    tx = open_tx(board, buffer_bytes=4096, buffers=8, cache="sync", api="copy")
    tx.write(samples)                       # copied into free DMA buffers, cleaned, submitted
    with tx.acquire() as buf:               # zero-copy: fill a free DMA buffer in place
        buf.data[:] = ...; buf.length = n   # submitted (cleaned first under "sync") on exit

Costs (virtual time, ``TransportCosts``): a system call per read()/write() call, per acquire()
and per release() (S2: "gets the address of the next filled buffer via ioctl", "frees read
buffers with ioctl"); the copies at the policy's memcpy rate; for "sync" an invalidate of each
received buffer before the CPU reads it and a clean of each transmitted buffer before the DMA
reads it (per line by the board, ``PhysicalArray.invalidate()/flush()``, which also feed the
coherency checker).  The transport tells the checker what the CPU reads and writes.
"""
from __future__ import annotations

import math
from collections import deque

import numpy as np

from sgdma.hw import pg021 as P
from sgdma.models.cpu import CpuModel
from sgdma.driver.axidma import AxiDma
from sgdma.capture.driver import (DROPPED_BEFORE, DROPPED_WITHIN, EOF, SOF, CaptureDriver, CaptureError, CaptureTimeout,
                     CpuAccount, _checker, _mb, app_area, check_geometry, layout_of, place, resolve_board)

#: copy: read() copies out of the DMA buffers; zerocopy: one buffer per acquire()/release() system call (S2's
#: ioctl pair, liberio's DQBUF/QBUF); batch: one read() lends every completed buffer and one write() gives a batch
#: back, with the interrupt masked while the reader is busy (seed 004's zero-copy I/O: "read(2) and write(2) ...
#: transfer information about the completed buffers").
APIS = ("copy", "zerocopy", "batch")


def _deadline(board, timeout_ns: float | None) -> int | None:
    if timeout_ns is None:
        return None
    if timeout_ns < 0 or math.isnan(timeout_ns):
        raise ValueError(f"timeout_ns={timeout_ns!r}: must be >= 0")
    return board.now_ps + int(round(timeout_ns * 1000))


class BufferView:
    """A DMA buffer lent to the application (zero copy).

    ``data``: numpy uint8 view of the buffer (RX: read-only, ``length`` valid bytes; TX: the
    whole writable buffer); ``length``; ``flags`` (``SOF``, ``EOF``, ``DROPPED_BEFORE``,
    ``DROPPED_WITHIN``); ``index`` (the buffer's slot).  A context manager: leaving the block
    releases it (RX: re-armed; TX: submitted with ``length`` bytes).
    """

    def __init__(self, owner, index: int, length: int, flags: int, array: np.ndarray, first_sample: int = -1):
        self._owner = owner
        self.index = index
        self.length = length
        self.flags = flags
        self.first_sample = first_sample
        self._array = array
        self._read_marked = False
        self.done = False

    @property
    def data(self) -> np.ndarray:
        if self.done:
            raise CaptureError(f"buffer {self.index} was already released: its memory belongs to the DMA again")
        return self._owner._view_data(self)

    def samples(self, dtype) -> np.ndarray:
        """``data`` reinterpreted as samples of ``dtype`` (e.g. np.uint32)."""
        return self.data.view(dtype)

    @property
    def dropped_before(self) -> bool:
        return bool(self.flags & (DROPPED_BEFORE | DROPPED_WITHIN))

    def release(self) -> None:
        self._owner.release(self)

    def __enter__(self) -> "BufferView":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if not self.done:
            self.release()

    def __repr__(self) -> str:
        names = [n for n, bit in (("SOF", SOF), ("EOF", EOF), ("DROPPED_BEFORE", DROPPED_BEFORE),
                                  ("DROPPED_WITHIN", DROPPED_WITHIN)) if self.flags & bit]
        return f"BufferView(index={self.index}, length={self.length}, flags={'|'.join(names) or 0})"


# -- receive ------------------------------------------------------------------------------------------
class _Rx:
    def __init__(self, driver: CaptureDriver):
        self.driver = driver
        self.board = driver.board
        self.cpu = driver.cpu
        self.costs = driver.costs
        self.buffers_delivered = 0
        self.bytes_delivered = 0
        self.drop_flags = 0          # buffers delivered with a DROPPED_* flag

    def start(self) -> None:
        self.driver.start()

    def _syscall(self) -> None:
        self.cpu.charge(self.costs.syscall_ns, "syscall")
        self.cpu.count("syscalls")

    def close(self) -> None:
        self.driver.close()


class CopyReader(_Rx):
    """Copy API: ``read(n)`` copies n bytes out of the completed DMA buffers (one system call;
    blocks until n bytes or the timeout).  A buffer is invalidated (sync) when the copy first
    reaches it and re-armed as soon as it is copied out."""

    api = "copy"

    def __init__(self, driver: CaptureDriver):
        super().__init__(driver)
        self._cur = None
        self._off = 0
        self.last_flags = 0
        self.last_sample = -1        # sample index of the last byte read (for latency figures)

    def read(self, n: int, timeout_ns: float | None = None) -> np.ndarray:
        if n < 0:
            raise ValueError(f"read({n}): n must be >= 0")
        drv = self.driver
        deadline = _deadline(self.board, timeout_ns)
        self._syscall()
        out = np.empty(int(n), np.uint8)
        got = 0
        flags = 0
        while got < n:
            if self._cur is None:
                if not drv.wait_ready(deadline):
                    break
                slot = drv.take()
                drv.invalidate(slot)
                self._cur, self._off = slot, 0
                flags |= slot.flags
                self.buffers_delivered += 1
                if slot.flags & (DROPPED_BEFORE | DROPPED_WITHIN):
                    self.drop_flags += 1
            slot = self._cur
            k = min(n - got, slot.nbytes - self._off)
            drv.cpu_read(slot.index, self._off, k)
            out[got:got + k] = drv.pool[slot.index, self._off:self._off + k]
            drv.copy_out(slot.index, self._off, k, self.bytes_delivered + got)
            got += k
            self._off += k
            sb = drv.sample_bytes
            self.last_sample = slot.last_sample if self._off >= slot.nbytes else slot.first_sample + self._off // sb - 1
            if self._off >= slot.nbytes:
                self._cur = None
                drv.release(slot.index)
        self.bytes_delivered += got
        self.last_flags = flags
        return out[:got]


class ZeroCopyReader(_Rx):
    """Zero-copy API: ``acquire()`` lends a completed DMA buffer (a system call that blocks until
    one is there), ``release()`` gives it back to be re-armed (another system call)."""

    api = "zerocopy"

    def acquire(self, timeout_ns: float | None = None) -> BufferView:
        drv = self.driver
        deadline = _deadline(self.board, timeout_ns)
        self._syscall()
        if not drv.wait_ready(deadline):
            raise CaptureTimeout(f"no buffer completed within {timeout_ns} ns")
        slot = drv.take()
        drv.invalidate(slot)
        self.buffers_delivered += 1
        self.bytes_delivered += slot.nbytes
        if slot.flags & (DROPPED_BEFORE | DROPPED_WITHIN):
            self.drop_flags += 1
        view = drv.pool[slot.index, :slot.nbytes].view(np.ndarray)
        view.flags.writeable = False
        return BufferView(self, slot.index, slot.nbytes, slot.flags, view, slot.first_sample)

    def try_acquire(self) -> BufferView | None:
        """acquire() without blocking: None if no buffer has completed."""
        try:
            return self.acquire(timeout_ns=0)
        except CaptureTimeout:
            return None

    def _view_data(self, view: BufferView) -> np.ndarray:
        if not view._read_marked:
            view._read_marked = True
            self.driver.cpu_read(view.index, 0, view.length)
        return view._array

    def release(self, view: BufferView) -> None:
        if view.done:
            raise CaptureError(f"buffer {view.index} released twice")
        view.done = True
        self._syscall()
        self.driver.release(view.index)


class BatchReader(_Rx):
    """Batched zero-copy API: ``read()`` is one system call returning a view of every buffer completed since
    the last call (up to ``max_buffers``); ``write(views)`` is one system call giving them back.

    The driver's life cycle is NAPI's (arm-host-path.md sec. 3.1): while the reader holds buffers or works,
    the device interrupt stays masked and ``read()`` collects completions itself (``CaptureDriver.drain``);
    only a ``read()`` that finds nothing unmasks it and sleeps, paying the interrupt entry, the handler and
    the wake-up once for the buffers that have completed by then.  Buffers the application holds are not in
    the ring: the DMA has ``ring_depth - held`` buffers to fill."""

    api = "batch"

    def __init__(self, driver: CaptureDriver):
        super().__init__(driver)
        self.reads = 0
        self.held_total = 0          # sum over read() calls of the buffers it lent
        self.held_max = 0

    def read(self, max_buffers: int | None = None, timeout_ns: float | None = None) -> list[BufferView]:
        if max_buffers is not None and (not isinstance(max_buffers, (int, np.integer)) or max_buffers < 1):
            raise ValueError(f"max_buffers={max_buffers!r}: a whole number >= 1 (or None: every completed buffer)")
        drv = self.driver
        deadline = _deadline(self.board, timeout_ns)
        self._syscall()
        drv.drain()
        if not drv.ready and not drv.wait_ready(deadline):
            return []
        views = []
        while drv.ready and (max_buffers is None or len(views) < max_buffers):
            slot = drv.take()
            drv.invalidate(slot)
            if slot.flags & (DROPPED_BEFORE | DROPPED_WITHIN):
                self.drop_flags += 1
            view = drv.pool[slot.index, :slot.nbytes].view(np.ndarray)
            view.flags.writeable = False
            views.append(BufferView(self, slot.index, slot.nbytes, slot.flags, view, slot.first_sample))
        self.buffers_delivered += len(views)
        self.bytes_delivered += sum(v.length for v in views)
        self.reads += 1
        self.held_total += len(drv.held)
        self.held_max = max(self.held_max, len(drv.held))
        return views

    def _view_data(self, view: BufferView) -> np.ndarray:
        if not view._read_marked:
            view._read_marked = True
            self.driver.cpu_read(view.index, 0, view.length)
        return view._array

    def write(self, views) -> None:
        """Give buffers back (one system call): they are re-armed in ring order and the tail moves once."""
        views = list(views)
        seen = set()
        for v in views:
            if v.done or v.index in seen:
                raise CaptureError(f"buffer {v.index} released twice")
            seen.add(v.index)
        if not views:
            return
        self._syscall()
        for v in views:
            v.done = True
        self.driver.release_many([v.index for v in views])

    def release(self, view: BufferView) -> None:
        """One buffer back (a write() of one): what leaving a ``with view:`` block does."""
        self.write([view])

    def held_mean(self) -> float:
        """Buffers held by the application right after each read(), on average."""
        return self.held_total / self.reads if self.reads else 0.0


READERS = {"copy": CopyReader, "zerocopy": ZeroCopyReader, "batch": BatchReader}


def open_rx(board, buffer_bytes: int, buffers: int, cache: str = "sync", api: str = "zerocopy",
            sample_bytes: int = 1, seed: int = 0, rearm: bool = True, start: bool = True):
    """A receive stream: CaptureDriver + the copy, zero-copy or batched zero-copy API."""
    if api not in APIS:
        raise CaptureError(f"api {api!r}: choose {', '.join(APIS)}")
    drv = CaptureDriver(board, buffer_bytes, buffers, cache=cache, sample_bytes=sample_bytes, seed=seed,
                        rearm=rearm)
    rx = READERS[api](drv)
    if start:
        rx.start()
    return rx


# -- playback ---------------------------------------------------------------------------------------
class PlaybackDriver:
    """N MM2S buffers, one packet each, IOC interrupt per buffer; completed buffers come back
    free.  Placed in the layout's buffer region after whatever is there (e.g. a capture pool)."""

    def __init__(self, board, buffer_bytes: int, buffers: int, cache: str = "sync", seed: int = 0,
                 cpu: str = "apu", account: CpuAccount | None = None, name: str = "tx"):
        board = resolve_board(board, cache, seed)
        self.board, self.cache, self.name = board, cache, name
        self.buffer_bytes, self.n = int(buffer_bytes), int(buffers)
        try:
            model = CpuModel.for_board(board, cpu)
            self.costs = model.transport(cache, board)
        except ValueError as e:
            raise CaptureError(str(e)) from None
        self.layout = lay = layout_of(board)
        self.app_base, self.app_span = app_area(board, lay)
        check_geometry(board, lay, self.buffer_bytes, self.n, 1)
        self.dma = AxiDma(board)
        self.channel = self.dma.mm2s
        self.cpu = account or CpuAccount(board, model, self.costs, seed + 1)
        stride = -(-self.buffer_bytes // 64) * 64
        pool_at = place(board, lay.region, lay.buffer_base, lay.buffer_base + lay.buffer_bytes, stride * self.n,
                        64, f"{self.n} playback buffers of {_mb(self.buffer_bytes)}")
        ring_at = place(board, lay.region, lay.bd_base, lay.bd_base + lay.bd_bytes, self.n * P.BD_SIZE,
                        P.BD_ALIGN, f"a ring of {self.n} BDs")
        self.memory = board.allocate((self.n, stride), np.uint8, physical_address=pool_at)
        self.pool = self.memory[:, :self.buffer_bytes]
        self.ring = self.channel.ring(self.n, physical_address=ring_at)
        self.free: deque[int] = deque(range(self.n))
        self.bd_to_buf: dict[int, int] = {}
        self.in_flight = 0
        self.submitted = 0
        self.started = False
        self._coh = _checker(board)
        self._coh_ids = []
        if self._coh is not None:
            for i in range(self.n):
                self._coh_ids.append(self._coh.register(self.pool[i], policy=cache, name=f"{name}[{i}]"))

    def start(self) -> None:
        if not self.started:
            self.started = True
            if self.channel.halted:
                self.dma.reset()
            self.channel.set_irq(ioc=True, delay=False, error=True, threshold=1)

    def _reclaim(self) -> int:
        done = self.cpu.board_op("driver", self.ring.reclaim)
        for bd in done.indices:
            self.free.append(self.bd_to_buf.pop(int(bd)))
        self.in_flight -= len(done)
        return len(done)

    def _handle_irq(self) -> int:
        self.cpu.charge(self.costs.isr_ns, "isr")
        self.cpu.count("interrupts")
        self.cpu.board_op("driver", self.channel.irq_ack)
        return self._reclaim()

    def _sleep_until_irq(self, deadline_ps: int | None) -> bool:
        """Idle until the MM2S interrupt line rises (doubling steps from 250 ns)."""
        b = self.board
        self.cpu.settle()
        step = 250_000
        while not b.irq_pending("mm2s"):
            now = b.now_ps
            if deadline_ps is not None and now >= deadline_ps:
                return False
            target = now + step if deadline_ps is None else min(now + step, deadline_ps)
            step *= 2
            self.cpu.sleep((target - now) / 1000.0)
        self.cpu.sleep(self.costs.irq_entry_ns)
        return True

    def wait_free(self, deadline_ps: int | None = None) -> bool:
        """Block until a buffer is free (sleep until the MM2S interrupt, handler, wake-up)."""
        if self.free:
            return True
        self.cpu.settle()
        if self.board.irq_pending("mm2s"):
            self._handle_irq()
        while not self.free:
            if self.in_flight == 0:
                raise CaptureError(f"{self.name}: every buffer is held by the writer; submit one first")
            if not self._sleep_until_irq(deadline_ps):
                return False
            self._handle_irq()
            self.cpu.charge(self.cpu.wakeup_ns(), "wakeup")
            self.cpu.count("wakeups")
        return True

    def take(self) -> int:
        return self.free.popleft()

    def cpu_write(self, index: int, nbytes: int) -> None:
        if self._coh is not None and nbytes > 0:
            self.cpu.settle()
            self._coh.cpu_write(self.pool[index, :nbytes])

    def copy_in(self, index: int, nbytes: int, app_offset: int) -> None:
        """write(): the CPU copies the application's bytes into a DMA buffer at the copy bandwidth.
        Cached ("sync", "coherent"): line fills of the source; the buffer's lines stay dirty in the
        cache and leave with the clean (write-backs of the dirty lines).  Uncached: the source's
        line fills, then the stores go out as the mapping lets them (TransportCosts.store_ops):
        merged bursts at the copy rate (write-combine) or one store per response (strongly ordered)."""
        src = self.app_base + app_offset % self.app_span
        if self.costs.cached:
            self.cpu.mem("copy", [("read", {"ns_per_line": self.costs.line_ns(self.costs.write_mbps)})], src, nbytes)
        else:
            self.cpu.mem("copy", [("read", {"ns_per_line": 0.0})], src, nbytes)
            self.cpu.mem("copy", self.costs.store_ops(), int(self.memory[index].physical_address), nbytes)

    def clean(self, index: int, nbytes: int) -> None:
        if self.costs.maintenance and nbytes > 0:
            self.cpu.charge(self.costs.cmo_range_ns, "cache_maintenance")
            self.cpu.board_op("cache_maintenance", self.pool[index, :nbytes].flush)
            self.cpu.count("cleans")

    def submit(self, index: int, nbytes: int) -> None:
        """One packet of nbytes from buffer ``index``: fill the next BD, move the tail."""
        if not 0 < nbytes <= self.buffer_bytes:
            raise CaptureError(f"{self.name}: a packet of {nbytes} B does not fit a {self.buffer_bytes} B buffer")
        bd = self.ring.state["fill"]
        self.cpu.settle()
        self.ring.fill(np.array([self.memory[index].physical_address], np.uint64), np.array([nbytes], np.uint32))
        self.bd_to_buf[bd] = index
        self.in_flight += 1
        self.submitted += 1
        self.cpu.board_op("driver", self.ring.submit)

    def drain(self, timeout_ns: float = 1e9) -> None:
        """Wait until every submitted packet has left (its buffer comes back free)."""
        deadline = self.board.now_ps + int(timeout_ns * 1000)
        self.cpu.settle()
        while self.in_flight:
            if self.board.irq_pending("mm2s"):
                self._handle_irq()
                continue
            if not self._sleep_until_irq(deadline):
                raise CaptureTimeout(f"{self.name}: {self.in_flight} packets still in flight after {timeout_ns} ns")

    def close(self) -> None:
        if self._coh is not None:
            for cid in self._coh_ids:
                try:
                    self._coh.unregister(cid)
                except Exception:   # noqa: BLE001
                    pass
            self._coh_ids = []


class _Tx:
    def __init__(self, driver: PlaybackDriver):
        self.driver = driver
        self.board = driver.board
        self.cpu = driver.cpu
        self.costs = driver.costs
        self.bytes_written = 0
        self.packets = 0

    def _syscall(self) -> None:
        self.cpu.charge(self.costs.syscall_ns, "syscall")
        self.cpu.count("syscalls")

    def drain(self, timeout_ns: float = 1e9) -> None:
        self.driver.drain(timeout_ns)

    def close(self) -> None:
        self.driver.close()


class CopyWriter(_Tx):
    """Copy API for playback: ``write(data)`` copies into free DMA buffers (one packet per
    buffer-full), cleans them (sync) and submits; one system call; blocks for free buffers."""

    api = "copy"

    def write(self, data, timeout_ns: float | None = None) -> int:
        src = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        drv = self.driver
        drv.start()
        deadline = _deadline(self.board, timeout_ns)
        self._syscall()
        done = 0
        while done < src.size:
            if not drv.wait_free(deadline):
                break
            i = drv.take()
            k = min(drv.buffer_bytes, src.size - done)
            drv.pool[i, :k] = src[done:done + k]
            drv.cpu_write(i, k)
            drv.copy_in(i, k, self.bytes_written + done)
            drv.clean(i, k)
            drv.submit(i, k)
            done += k
            self.packets += 1
        self.bytes_written += done
        return done


class ZeroCopyWriter(_Tx):
    """Zero-copy playback: ``acquire()`` lends a free DMA buffer to fill in place; ``submit(view)``
    (or leaving the ``with`` block) sends ``view.length`` bytes of it as one packet."""

    api = "zerocopy"

    def acquire(self, timeout_ns: float | None = None) -> BufferView:
        drv = self.driver
        drv.start()
        deadline = _deadline(self.board, timeout_ns)
        self._syscall()
        if not drv.wait_free(deadline):
            raise CaptureTimeout(f"no playback buffer came free within {timeout_ns} ns")
        i = drv.take()
        return BufferView(self, i, drv.buffer_bytes, SOF | EOF, drv.pool[i].view(np.ndarray))

    def _view_data(self, view: BufferView) -> np.ndarray:
        return view._array

    def submit(self, view: BufferView, length: int | None = None) -> None:
        if view.done:
            raise CaptureError(f"playback buffer {view.index} submitted twice")
        n = view.length if length is None else int(length)
        drv = self.driver
        view.done = True
        self._syscall()
        drv.cpu_write(view.index, n)
        drv.clean(view.index, n)
        drv.submit(view.index, n)
        self.bytes_written += n
        self.packets += 1

    release = submit


def open_tx(board, buffer_bytes: int, buffers: int, cache: str = "sync", api: str = "copy", seed: int = 0,
            account: CpuAccount | None = None):
    """A playback stream: PlaybackDriver + the copy or zero-copy API."""
    if api not in APIS:
        raise CaptureError(f"api {api!r}: choose {' or '.join(APIS)}")
    drv = PlaybackDriver(board, buffer_bytes, buffers, cache=cache, seed=seed, account=account)
    drv.start()
    return CopyWriter(drv) if api == "copy" else ZeroCopyWriter(drv)
