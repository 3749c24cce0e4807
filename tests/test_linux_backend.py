"""The Linux user-space backend against a fake system root (SGDMA_SYSROOT):
sysfs as files, /dev/uioN a socket delivering the virtual board's interrupts,
the u-dma-buf device file shared with the virtual board's DDR, the register
window served by the virtual board through the backend's one accessor."""
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

import sgdma
from sgdma import pg021 as P
from sgdma.board.linux import devices, parse_spec
from sgdma.board.linux.fakeroot import FakeRoot
from sgdma.hw import presets

ROOT = Path(__file__).resolve().parents[1]
PHYS, SIZE = 0x8010_0000, 1 << 22


@pytest.fixture
def fake(tmp_path, monkeypatch):
    vb = sgdma.VirtualBoard("zcu111", loopback=True)
    f = FakeRoot(tmp_path, vb, buffer=("udmabuf0", PHYS, SIZE))
    monkeypatch.setenv("SGDMA_SYSROOT", str(tmp_path))
    yield f
    f.close()


def open_board(fake, **kw):
    kw.setdefault("preset", "zcu111")
    return sgdma.LinuxBoard(dma="axi_dma_0", buffers="udmabuf0", registers=fake, **kw)


def test_discovery_lists_uio_and_udmabuf(fake):
    fake.add_uio("gpio_leds", 0x4120_0000, 0x1000, None)
    d = devices()
    assert [(u["name"], u["index"], u["addr"], u["size"]) for u in d["uio"]] == [
        ("axi_dma_0", 0, fake.board.axi_dma.base, 0x10000), ("gpio_leds", 1, 0x4120_0000, 0x1000)]
    (buf,) = d["udmabuf"]
    assert (buf["name"], buf["phys"], buf["size"], buf["coherent"], buf["sync_mode"]) == (
        "udmabuf0", PHYS, SIZE, False, 1)


def test_loopback_end_to_end_with_interrupts(fake):
    lb = open_board(fake, mm2s_irq="axi_dma_0")
    dma = sgdma.AxiDma(lb)
    dma.reset()
    dma.mm2s.set_irq(ioc=True, error=True)
    tx, rx = dma.mm2s.ring(16), dma.s2mm.ring(16)
    rng = np.random.default_rng(1)
    sizes = [1000, 64, 4096, 3]
    srcs = [lb.allocate(n) for n in sizes]
    dsts = [lb.allocate(4096) for _ in sizes]
    for s in srcs:
        s[:] = rng.integers(0, 256, s.size)
        s.flush()
    rx.add_packets(dsts)
    rx.submit()
    tx.add_packets(srcs)
    tx.submit()
    tx.wait()
    rx.wait()
    done = rx.reclaim()
    assert list(done.packet_lengths()) == sizes
    for s, d in zip(srcs, dsts):
        d.invalidate()
        assert np.array_equal(d[:s.size], s)     # the CPU's view of what the virtual DMA wrote
    info = lb.info()
    # the MM2S wait slept on its interrupt: one re-enable per sleep, and the count
    # read() returned is the device's running total
    assert fake.uio[0].enables == info["irq_waits"][0] == info["irq_count"][0] == fake.uio[0].count >= 1
    assert info["irq_waits"][1] == 0                  # S2MM has no interrupt here: it polled


def test_interrupt_counts_and_reenable_per_wait(fake):
    lb = open_board(fake, mm2s_irq="axi_dma_0")
    dma = sgdma.AxiDma(lb)
    dma.reset()
    dma.mm2s.set_irq(ioc=True, error=True)
    tx = dma.mm2s.ring(8)
    buf = lb.allocate(2048)
    for k in range(3):
        tx.add_packets([buf])
        tx.submit()
        tx.wait()
        tx.reclaim()
        assert lb.info()["irq_count"][0] == k + 1
    assert fake.uio[0].enables == 3
    assert len(fake.board.mm2s_sink.packets()) == 3


def test_polling_without_interrupt_or_enables(fake):
    lb = open_board(fake)                            # no mm2s_irq: the core polls
    dma = sgdma.AxiDma(lb)
    dma.reset()
    tx = dma.mm2s.ring(4)
    tx.add_packets([lb.allocate(256)])
    tx.submit()
    tx.wait()
    assert fake.uio[0].enables == 0 and lb.info()["irq_waits"] == (0, 0)


def test_interrupt_that_never_comes_is_bounded_with_registers(tmp_path, monkeypatch):
    vb = sgdma.VirtualBoard("zcu111", loopback=False)            # no stream into S2MM: it never finishes
    fake = FakeRoot(tmp_path, vb, irq="s2mm", irq_limit_ns=20e3)
    monkeypatch.setenv("SGDMA_SYSROOT", str(tmp_path))
    try:
        lb = open_board(fake, s2mm_irq="axi_dma_0")
        dma = sgdma.AxiDma(lb)
        dma.reset()
        dma.s2mm.set_irq(ioc=True, error=True)
        rx = dma.s2mm.ring(4)
        rx.add_packets([lb.allocate(1024)])
        rx.submit()
        with pytest.raises(sgdma.DmaTimeoutError) as e:
            rx.wait(timeout_ns=200e3)
        msg = str(e.value)
        assert "DMASR" in msg and "interrupt" in msg
        # The wait is wall-clock (poll, 1 ms here); on a loaded machine it can end before the fake's hardware
        # thread has finished simulating irq_limit_ns: let it finish (bounded) before counting what it saw.
        deadline = time.monotonic() + 30
        while fake.uio[0].missed + fake.uio[0].count < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert fake.uio[0].missed == 1 and lb.info()["irq_count"] == (0, 0)
    finally:
        fake.close()


def test_sync_order_offset_size_direction(fake):
    lb = open_board(fake)
    a = lb.allocate(100)
    b = lb.allocate(5000, align=4096)
    fake.clear_syncs()
    b.flush()
    a.invalidate()
    b[10:20].flush()
    s = fake.syncs()
    off_a, off_b = a.physical_address - PHYS, b.physical_address - PHYS
    assert off_a == 0 and off_b == 4096
    # each sync is offset, size, direction, then the trigger (u-dma-buf's order)
    assert [(x.offset, x.size, x.direction, x.trigger) for x in s] == [
        (off_b, 5000, 1, 1), (off_a, 100, 2, 1), (off_b + 10, 10, 1, 1)]
    assert lb.info()["buffer"]["syncs"] == 3


def test_uncached_and_coherent_need_no_syncs(fake, tmp_path):
    lb = open_board(fake, cache="uncached")
    assert lb.info()["buffer"]["cached"] is False
    fake.clear_syncs()
    lb.allocate(64).flush()
    assert fake.syncs() == []
    with pytest.raises(OSError, match=r"not DMA-coherent \(dma_coherent = 0\).*cache=sync"):
        open_board(fake, cache="coherent")
    fake.add_udmabuf("udmabuf1", PHYS + SIZE, 1 << 16, coherent=True)
    lb2 = sgdma.LinuxBoard(dma="axi_dma_0", buffers="udmabuf1", registers=fake, cache="coherent")
    fake.clear_syncs()
    lb2.allocate(64).flush()
    assert fake.syncs() == [] and lb2.info()["buffer"]["coherent"] is True


def test_allocate_is_zeroed_and_bounded(fake):
    lb = open_board(fake)
    a = lb.allocate(4096)
    a[:] = 0xAB
    addr = a.physical_address
    a.freebuffer()
    del a
    b = lb.allocate(4096)
    assert b.physical_address == addr and not b.any()
    with pytest.raises(MemoryError, match="make the u-dma-buf larger.*modprobe u-dma-buf udmabuf0="):
        lb.allocate(SIZE)


def test_uio_map_offset_through_the_real_mmap(fake, tmp_path):
    # No hook: registers come from mmap of /dev/uio1 (here a plain file) at map0's offset.
    n = fake.add_uio("regs", 0xA000_0100, 0x100, None)
    dev = tmp_path / f"dev/uio{n}"
    os.unlink(dev)
    page = bytearray(8192)
    words = {0x00: P.CR_RESET_VALUE, 0x04: P.SR_SGINCLD | P.SR_HALTED, 0x34: 0x1234_5678, 0x58: 0xCAFE_F00D}
    for off, v in words.items():
        page[0x100 + off:0x104 + off] = struct.pack("<I", v)
    dev.write_bytes(bytes(page))
    (tmp_path / f"sys/class/uio/uio{n}/maps/map0/offset").write_text("0x100\n")
    lb = sgdma.LinuxBoard(dma="regs", buffers=None)
    assert lb.axi_dma.base == 0xA000_0100 and lb.axi_dma.include_sg
    for off, v in words.items():
        assert lb.read32(0xA000_0100 + off) == v
    lb.write32(0xA000_0100 + 0x30, 0x1)
    assert struct.unpack_from("<I", dev.read_bytes(), 0x130)[0] == 1


def test_devmem_fallback(fake, tmp_path):
    mem = tmp_path / "dev/mem"
    with open(mem, "wb") as f:
        f.truncate(0xB000_0000)
        f.seek(0xA000_0000)
        f.write(struct.pack("<II", P.CR_RESET_VALUE, P.SR_HALTED))
    lb = sgdma.LinuxBoard(dma="0xA0000000", buffers="0x90000000:64K")
    assert not lb.axi_dma.include_sg and lb.info()["buffer"] == {
        "name": "0x90000000", "phys": 0x9000_0000, "size": 65536, "cached": False, "coherent": False,
        "sync_mode": -1, "syncs": 0}
    a = lb.allocate(16)
    a[:] = 7
    with open(mem, "rb") as f:
        f.seek(0x9000_0000)
        assert f.read(16) == b"\x07" * 16


# ---- errors a board user meets, each with its fix ---------------------------------------

def test_no_such_uio_lists_those_that_exist(fake):
    with pytest.raises(OSError, match=r'no UIO device named "axi_dma_9" \(found: uio0 "axi_dma_0"\)'):
        sgdma.LinuxBoard(dma="axi_dma_9", buffers="udmabuf0", registers=fake)


def test_no_uio_at_all_and_node_not_generic_uio(tmp_path, monkeypatch):
    monkeypatch.setenv("SGDMA_SYSROOT", str(tmp_path))
    with pytest.raises(OSError, match=r"no UIO devices at all; give the DMA's device-tree node "
                                      r'compatible = "generic-uio"'):
        sgdma.LinuxBoard(dma="axi_dma_0")
    node = tmp_path / "sys/firmware/devicetree/base/amba_pl@0/dma@40400000"
    node.mkdir(parents=True)
    (node / "compatible").write_bytes(b"xlnx,axi-dma-7.1\0xlnx,axi-dma-1.00.a\0")
    with pytest.raises(OSError, match=r'node /amba_pl@0/dma@40400000 is compatible "xlnx,axi-dma-7.1,'
                                      r'xlnx,axi-dma-1.00.a", not generic-uio: a kernel driver owns it'):
        sgdma.LinuxBoard(dma="dma")
    (node / "compatible").write_bytes(b"generic-uio\0")
    with pytest.raises(OSError, match=r"is generic-uio but no UIO device was created: boot with "
                                      r"uio_pdrv_genirq.of_id=generic-uio"):
        sgdma.LinuxBoard(dma="dma")
    # a label resolves through __symbols__ as well
    sym = tmp_path / "sys/firmware/devicetree/base/__symbols__"
    sym.mkdir()
    (sym / "axi_dma_0").write_text("/amba_pl@0/dma@40400000\n")
    with pytest.raises(OSError, match=r"node /amba_pl@0/dma@40400000 is generic-uio"):
        sgdma.LinuxBoard(dma="axi_dma_0")


def test_map_smaller_than_register_span(fake):
    fake.add_uio("tiny", 0xA004_0000, 0x40, None)
    with pytest.raises(OSError, match=r'uio1 "tiny": map 0 is 64 bytes, smaller than the AXI DMA\'s register span '
                                      r"\(0x60 bytes\); make the device-tree reg property cover"):
        sgdma.LinuxBoard(dma="tiny", buffers=None, registers=fake)


def test_no_udmabuf_says_how_to_load_it(tmp_path, monkeypatch):
    vb = sgdma.VirtualBoard("zcu111")
    f = FakeRoot(tmp_path, vb, buffer=None)
    monkeypatch.setenv("SGDMA_SYSROOT", str(tmp_path))
    try:
        with pytest.raises(OSError, match=r"no u-dma-buf buffers .*modprobe u-dma-buf udmabuf0="):
            sgdma.LinuxBoard(dma="axi_dma_0", buffers="udmabuf0", registers=f)
        f.add_udmabuf("udmabuf3", PHYS, 1 << 16)
        with pytest.raises(OSError, match=r'no u-dma-buf named "udmabuf0" \(found: udmabuf3 \(65536 bytes\)\)'):
            sgdma.LinuxBoard(dma="axi_dma_0", buffers="udmabuf0", registers=f)
    finally:
        f.close()


def test_udmabuf_sync_mode_0_cannot_be_uncached(tmp_path, monkeypatch):
    vb = sgdma.VirtualBoard("zcu111")
    f = FakeRoot(tmp_path, vb, sync_mode=0)
    monkeypatch.setenv("SGDMA_SYSROOT", str(tmp_path))
    try:
        with pytest.raises(OSError, match="sync_mode 0, which keeps the CPU cache on"):
            sgdma.LinuxBoard(dma="axi_dma_0", buffers="udmabuf0", registers=f, cache="uncached")
    finally:
        f.close()


@pytest.mark.skipif(not hasattr(os, "setuid"), reason="needs POSIX users")
def test_permission_denied_names_the_file_and_the_fix():
    root = Path(tempfile.mkdtemp())
    try:
        os.chmod(root, 0o755)
        vb = sgdma.VirtualBoard("zcu111")
        f = FakeRoot(root, vb)
        for p in root.rglob("*"):
            if p.is_dir():
                os.chmod(p, 0o755)
        os.chmod(root / "dev/udmabuf0", 0o600)
        # LinuxBoard is imported before the user drops root (sgdma imports its parts on first use)
        code = ("import os; from sgdma import LinuxBoard; os.getuid() == 0 and os.setuid(65534)\n"
                "try:\n LinuxBoard(dma='0xA0000000', buffers='udmabuf0')\n"
                "except OSError as e: print(e)\n")
        env = dict(os.environ, SGDMA_SYSROOT=str(root), PYTHONPATH=str(Path(sgdma.__file__).resolve().parents[1]))
        with open(root / "dev/mem", "wb") as m:
            m.truncate(0xA001_0000)
        os.chmod(root / "dev/mem", 0o666)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
        assert f"cannot open {root}/dev/udmabuf0" in out.stdout, out.stdout + out.stderr
        assert "Permission denied; run as root, or add a udev rule" in out.stdout
        f.close()
    finally:
        subprocess.run(["rm", "-rf", str(root)])


def test_second_owner_of_a_channel_is_refused(fake, tmp_path):
    lb = open_board(fake)
    dma = sgdma.AxiDma(lb)
    lb2 = open_board(fake)
    with pytest.raises(OSError, match=r'the MM2S channel of DMA "axi_dma_0" is already open .*close it there first'):
        sgdma.AxiDma(lb2)
    # and from another process
    code = ("import sgdma\nfrom sgdma.board.linux.fakeroot import FakeRoot\n"
            "vb = sgdma.VirtualBoard('zcu111')\n"
            "try:\n sgdma.AxiDma(sgdma.LinuxBoard(dma='axi_dma_0', buffers=None, registers=vb))\n"
            "except OSError as e: print(e)\n")
    env = dict(os.environ, PYTHONPATH=str(Path(sgdma.__file__).resolve().parents[1]))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert "channel of DMA \"axi_dma_0\" is already open" in out.stdout, out.stdout + out.stderr
    del dma


def test_board_spec_parsing():
    assert parse_spec("linux:dma=axi_dma_0,buffers=udmabuf0,cache=uncached") == {
        "dma": "axi_dma_0", "buffers": "udmabuf0", "cache": "uncached"}
    assert parse_spec("linux:") == {}
    with pytest.raises(ValueError, match="unknown key 'dam'"):
        parse_spec("linux:dam=x")
    with pytest.raises(ValueError, match="'dma' is not key=value"):
        parse_spec("linux:dma")


def test_cli_info_lists_devices_and_opens_the_dma(fake, monkeypatch):
    from click.testing import CliRunner

    from sgdma.cli import main

    r = CliRunner().invoke(main, ["info", "--board", "linux:"])
    assert r.exit_code == 0, r.output
    assert "uio0   axi_dma_0" in r.output and "0x00a0000000 + 0x10000" in r.output
    assert "udmabuf0" in r.output and f"0x{PHYS:010x} + {SIZE} bytes" in r.output
    r = CliRunner().invoke(main, ["info", "--board", "linux:dma=nope"])
    assert r.exit_code == 3 and 'no UIO device named "nope" (found: uio0 "axi_dma_0")' in r.output
    r = CliRunner().invoke(main, ["info", "--board", "linux:dma"])
    assert r.exit_code == 2 and "not key=value" in r.output


# ---- device names as Linux gives them ------------------------------------------------------

@pytest.fixture
def linux_named(tmp_path, monkeypatch):
    """As uio_pdrv_genirq names devices: after the device-tree node ("dma"), not Vivado's label.  Two DMAs
    (uio1, uio2) are both "dma"; uio0 is an AXI GPIO.  The tree is ZynqMP's: two address and two size cells."""
    vb = sgdma.VirtualBoard("zcu111", loopback=True)
    dma, gpio = vb.axi_dma.base, presets.load("zcu111")["gpio"]["base"]["value"]
    f = FakeRoot(tmp_path, vb, dma_name="gpio", buffer=("udmabuf0", PHYS, SIZE))
    f.uio[0].channel = None
    (tmp_path / "sys/class/uio/uio0/maps/map0/addr").write_text(f"0x{gpio:016x}\n")
    f.add_uio("dma", dma, 0x10000, "mm2s")
    f.add_uio("dma", dma + 0x20000, 0x10000, None)
    f.add_dt_node(f"/amba_pl@0/dma@{dma:x}", (dma, 0x10000), label="axi_dma_0")
    f.add_dt_node(f"/amba_pl@0/dma@{dma + 0x20000:x}", (dma + 0x20000, 0x10000), label="axi_dma_1")
    f.add_dt_node(f"/amba_pl@0/gpio@{gpio:x}", (gpio, 0x10000), label="axi_gpio_0")
    monkeypatch.setenv("SGDMA_SYSROOT", str(tmp_path))
    yield f
    f.close()


def test_a_vivado_label_resolves_through_the_device_tree(linux_named):
    dma = linux_named.board.axi_dma.base
    lb = sgdma.LinuxBoard(dma="axi_dma_0", buffers="udmabuf0", registers=linux_named)
    regs = lb.info()["registers"]
    assert (regs["name"], regs["index"], regs["addr"]) == ("dma", 1, dma)     # the node's reg picked uio1
    lb.close()
    lb = sgdma.LinuxBoard(dma="uio1", buffers="udmabuf0", registers=linux_named)
    assert lb.info()["registers"]["index"] == 1
    lb.close()
    # two devices share the node name: the message lists both and says how to pick one
    with pytest.raises(OSError, match=rf'2 UIO devices are named "dma" \(uio1 at 0x{dma:x}, uio2 at '
                                      rf'0x{dma + 0x20000:x}\): name the one you mean as uioN, or by its '
                                      r"device-tree label"):
        sgdma.LinuxBoard(dma="dma", buffers="udmabuf0", registers=linux_named)


def test_a_label_whose_address_no_uio_device_maps(linux_named, tmp_path):
    linux_named.add_dt_node("/amba_pl@0/dma@b0000000", (0xB000_0000, 0x10000), label="axi_dma_7",
                            compatible="xlnx,axi-dma-7.1")
    with pytest.raises(OSError, match=r'no UIO device for "axi_dma_7": the device-tree label names '
                                      r"/amba_pl@0/dma@b0000000 at 0xb0000000, and no UIO device maps that address"
                                      r'.*compatible "xlnx,axi-dma-7.1", not generic-uio'):
        sgdma.LinuxBoard(dma="axi_dma_7", buffers="udmabuf0", registers=linux_named)


def test_a_device_that_is_not_an_axi_dma_is_refused(linux_named):
    with pytest.raises(ValueError, match=r'dma=axi_gpio_0 \(UIO device "gpio"\) at 0xa0010000 is not an AXI DMA: '
                                         r"MM2S DMACR=0x[0-9a-f]{8} DMASR=0x[0-9a-f]{8}, S2MM DMACR="):
        sgdma.LinuxBoard(dma="axi_gpio_0", buffers="udmabuf0", registers=linux_named)


# ---- selftest and capture on a real board ----------------------------------------------------

def test_selftest_runs_on_a_linux_board(fake):
    from sgdma.experiments import selftest

    lb = open_board(fake)
    res = selftest.run_on(lb, seed=5, rounds=2, packets=6, max_packet=700)
    assert res.ok, res.mismatches
    assert res.packets == 12 and res.s2mm_bds > 0 and res.bytes > 0
    assert res.first_word_latency_ns is None and res.virtual_ns is None       # nothing timed on a real board
    assert res.board == "linux:axi_dma_0"


def test_capture_on_a_linux_board_counts_what_the_stream_delivered(tmp_path, monkeypatch):
    from sgdma.capture.linux import capture

    vb = sgdma.VirtualBoard("zcu111")                 # S2MM fed by the board's stream source, not by MM2S
    f = FakeRoot(tmp_path, vb, buffer=("udmabuf0", PHYS, SIZE))
    monkeypatch.setenv("SGDMA_SYSROOT", str(tmp_path))
    lb = sgdma.LinuxBoard(dma="axi_dma_0", buffers="udmabuf0", registers=f, preset="zcu111")
    payload = [bytes([k]) * 4096 for k in range(6)]    # six packets of one buffer each
    seen = []
    try:
        res = capture(lb, buffer_bytes=4096, buffers=4, seconds=60.0, max_buffers=6,
                      on_buffer=lambda b: seen.append(bytes(b)),
                      on_armed=lambda: [vb.s2mm_source.send(p, last=True) for p in payload])
    finally:
        f.close()
    assert res["buffers_delivered"] == 6 and res["bytes"] == 6 * 4096
    assert seen == payload                               # every buffer, in order, re-armed and reused
    with pytest.raises(ValueError, match="multiple of the"):
        capture(lb, buffer_bytes=4095, buffers=4, seconds=1.0)
    with pytest.raises(ValueError, match="at least 2"):
        capture(lb, buffer_bytes=4096, buffers=1, seconds=1.0)


def test_selftest_and_capture_cli_take_a_linux_board(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from sgdma.cli import main

    monkeypatch.setenv("SGDMA_SYSROOT", str(tmp_path))          # a system with no UIO device
    for cmd in (["selftest"], ["capture", "--seconds", "1s"]):
        r = CliRunner().invoke(main, cmd + ["--board", "linux:dma=axi_dma_0,buffers=udmabuf0"])
        assert r.exit_code == 3 and 'no UIO device named "axi_dma_0"' in r.output, r.output
        assert "Traceback" not in r.output
        r = CliRunner().invoke(main, cmd + ["--board", "linux:dma=axi_dma_0"])
        assert r.exit_code == 2 and "give buffers" in r.output, r.output
    r = CliRunner().invoke(main, ["capture", "--board", "linux:dma=axi_dma_0,buffers=udmabuf0", "--rate", "10e6"])
    assert r.exit_code == 2 and "--rate" in r.output and "virtual board" in r.output, r.output
