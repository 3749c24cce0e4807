"""A Linux board's sysfs and /dev as files, served by a VirtualBoard: the
Linux backend runs against it unchanged (``SGDMA_SYSROOT=<root>``).

- ``sys/class/uio/uioN/{name,maps/map0/{addr,size,offset}}`` as files;
- ``dev/uioN`` a Unix socket speaking UIO's 4-byte protocol: a write of 1
  re-enables the interrupt, and the count comes back when the virtual
  board's interrupt line of the chosen channel is asserted (the board runs in
  virtual time while the driver sleeps; it gives up after ``irq_limit_ns``);
- ``sys/class/u-dma-buf/NAME/*`` as files; the five sync files are one FIFO,
  so the order, offset, size and direction of every sync can be read back;
- ``sys/firmware/devicetree/base/...`` nodes as Linux lays them out (``reg`` and
  ``#address-cells`` as big-endian cells, ``compatible`` NUL-separated,
  ``__symbols__/LABEL`` a NUL-terminated path), by :meth:`add_dt_node`;
- ``dev/NAME`` a file that is also the virtual board's DDR at ``phys_addr``
  (the DMA and the CPU see the same pages);
- the register window is served by :meth:`read32` / :meth:`write32`: pass the
  FakeRoot as ``LinuxBoard(registers=...)``.
"""
from __future__ import annotations

import fcntl
import os
import socket
import struct
import threading
from dataclasses import dataclass
from pathlib import Path

from sgdma import _core

F_SETPIPE_SZ = 1031          # fcntl.h (Linux)


@dataclass
class Sync:
    offset: int
    size: int
    direction: int           # 1 DMA_TO_DEVICE (for_device), 2 DMA_FROM_DEVICE (for_cpu)
    trigger: int


class _UioDevice:
    """One /dev/uioN socket and its interrupt source."""

    def __init__(self, root: "FakeRoot", path: Path, channel: str | None):
        self.root, self.channel = root, channel
        self.count = 0          # interrupts delivered (UIO's total count)
        self.enables = 0        # write(1)s received
        self.missed = 0         # enables after which the line never came
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        self.sock.listen(4)
        self.sock.settimeout(0.05)
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.root._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            while not self.root._stop.is_set():
                try:
                    data = conn.recv(4)
                except OSError:
                    return
                if len(data) < 4:
                    return
                if struct.unpack("<I", data)[0] == 1:
                    self.enables += 1
                    self._deliver(conn)

    def _deliver(self, conn: socket.socket) -> None:
        if self.channel is None:
            return
        # This thread is the hardware: it runs the board's C model directly while the program, blocked in
        # read() on /dev/uioN, waits for it (the public API serves one thread per board, sgdma.board.threads).
        core, step = self.root.board._b, self.root.irq_step_ns
        ch = {"mm2s": 0, "s2mm": 1}.get(self.channel, self.channel)
        with self.root._lock:
            for _ in range(max(1, int(self.root.irq_limit_ns / step))):
                if core.irq_pending(ch):
                    self.count += 1
                    conn.sendall(struct.pack("<I", self.count))
                    return
                core.advance_ps(int(round(step * 1000)))
        self.missed += 1


class FakeRoot:
    def __init__(self, root: str | Path, board, dma_name: str = "axi_dma_0", dma_size: int = 0x10000,
                 buffer: tuple[str, int, int] | None = ("udmabuf0", 0x8010_0000, 1 << 22), coherent: bool = False,
                 sync_mode: int = 1, irq: str | None = "mm2s", irq_limit_ns: float = 1e6, irq_step_ns: float = 100.0,
                 extra_uio: tuple[str, ...] = ()):
        self.root = Path(root)
        self.board = board
        self.irq_limit_ns, self.irq_step_ns = irq_limit_ns, irq_step_ns
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.uio: list[_UioDevice] = []
        (self.root / "dev").mkdir(parents=True, exist_ok=True)
        (self.root / "run/lock").mkdir(parents=True, exist_ok=True)
        self.add_uio(dma_name, board.axi_dma.base, dma_size, irq)
        for name in extra_uio:
            self.add_uio(name, 0, 0, None)
        self._sync_fd = None
        self._sync_buf = b""
        if buffer is not None:
            self.add_udmabuf(*buffer, coherent=coherent, sync_mode=sync_mode)

    # -- building the tree --------------------------------------------------------------
    def _write(self, rel: str, text: str) -> None:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text + "\n")

    def add_uio(self, name: str, addr: int, size: int, irq_channel: str | None) -> int:
        n = len(self.uio)
        d = f"sys/class/uio/uio{n}"
        self._write(f"{d}/name", name)
        if size:
            self._write(f"{d}/maps/map0/addr", f"0x{addr:016x}")     # UIO prints %pa
            self._write(f"{d}/maps/map0/size", f"0x{size:016x}")
            self._write(f"{d}/maps/map0/offset", "0x0")
        self.uio.append(_UioDevice(self, self.root / f"dev/uio{n}", irq_channel))
        return n

    def add_dt_node(self, path: str, reg: tuple[int, int], label: str | None = None,
                    compatible: str = "generic-uio", address_cells: int = 2, size_cells: int = 2) -> None:
        """A device-tree node at ``path`` ("/amba_pl@0/dma@a0000000") whose parent has the given cell sizes."""
        base = self.root / "sys/firmware/devicetree/base"
        node = base / path.lstrip("/")
        node.mkdir(parents=True, exist_ok=True)
        (node.parent / "#address-cells").write_bytes(struct.pack(">I", address_cells))
        (node.parent / "#size-cells").write_bytes(struct.pack(">I", size_cells))
        cells = [(reg[0] >> 32) & 0xFFFF_FFFF, reg[0] & 0xFFFF_FFFF][2 - address_cells:] + \
                [(reg[1] >> 32) & 0xFFFF_FFFF, reg[1] & 0xFFFF_FFFF][2 - size_cells:]
        (node / "reg").write_bytes(struct.pack(f">{len(cells)}I", *cells))
        (node / "compatible").write_bytes(compatible.encode() + b"\0")
        (node / "name").write_bytes(node.name.split("@")[0].encode() + b"\0")
        if label:
            (base / "__symbols__").mkdir(exist_ok=True)
            (base / "__symbols__" / label).write_bytes(path.encode() + b"\0")

    def add_udmabuf(self, name: str, phys: int, size: int, coherent: bool = False, sync_mode: int = 1) -> None:
        d = f"sys/class/u-dma-buf/{name}"
        self._write(f"{d}/phys_addr", f"0x{phys:016x}")
        self._write(f"{d}/size", str(size))
        self._write(f"{d}/sync_mode", str(sync_mode))
        self._write(f"{d}/dma_coherent", "1" if coherent else "0")
        fifo = self.root / "sync.fifo"
        if not fifo.exists():
            os.mkfifo(fifo)
            self._sync_fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            try:
                fcntl.fcntl(self._sync_fd, F_SETPIPE_SZ, 1 << 20)
            except OSError:
                pass
        for f in ("sync_offset", "sync_size", "sync_direction", "sync_for_cpu", "sync_for_device"):
            os.symlink(fifo, self.root / d / f)
        dev = self.root / "dev" / name
        with open(dev, "wb") as fh:
            fh.truncate(size)
        _core.vb_map_file(self.board._b, phys, size, str(dev))

    # -- the register window (LinuxBoard(registers=fake)) ----------------------------------
    def read32(self, addr: int) -> int:
        with self._lock:
            self._drain()
            return self.board.read32(addr)

    def write32(self, addr: int, value: int) -> None:
        with self._lock:
            self._drain()
            self.board.write32(addr, value)

    # -- what the backend did ------------------------------------------------------------------
    def _drain(self) -> None:
        if self._sync_fd is None:
            return
        while True:
            try:
                chunk = os.read(self._sync_fd, 1 << 16)
            except BlockingIOError:
                return
            if not chunk:
                return
            self._sync_buf += chunk

    def syncs(self) -> list[Sync]:
        """Every u-dma-buf sync so far, in order (four writes each: offset, size, direction, trigger)."""
        with self._lock:
            self._drain()
        lines = [int(x) for x in self._sync_buf.decode().split()]
        if len(lines) % 4:
            raise AssertionError(f"sync writes not in groups of four: {lines}")
        return [Sync(*lines[i:i + 4]) for i in range(0, len(lines), 4)]

    def clear_syncs(self) -> None:
        self.syncs()
        self._sync_buf = b""

    def close(self) -> None:
        self._stop.set()
        for u in self.uio:
            u.sock.close()
        if self._sync_fd is not None:
            os.close(self._sync_fd)
            self._sync_fd = None
