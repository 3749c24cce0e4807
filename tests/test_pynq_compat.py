"""sgdma.pynq: PYNQ's buffer and MMIO rules, and PYNQ's own DMA driver (pynq/lib/dma.py from the pynq
package) running unmodified on the virtual board after `sgdma.pynq.install(board)`."""
import importlib.util
import os
import sys
import warnings

import numpy as np
import pytest

import sgdma
import sgdma.pynq as spynq


@pytest.fixture(params=["exact", "functional"])
def installed(request):
    """install() for one test (on a board of each fidelity), then pynq's names given back."""
    saved = {k: sys.modules.get(k) for k in ("pynq", "pynq.lib", "pynq.lib.dma")}
    board = sgdma.VirtualBoard("zcu111", loopback=True, fidelity=request.param)
    spynq.install(board)
    yield board
    spynq.uninstall()
    for k, v in saved.items():
        if v is not None:
            sys.modules[k] = v


def _need_pynq():
    if importlib.util.find_spec("pynq") is None and sys.modules.get("pynq") is None:
        if os.environ.get("CI"):
            pytest.fail("CI installs the pynq package (.ci/run: pip install --no-deps pynq); it is missing")
        pytest.skip("the pynq package is not installed (pip install --no-deps pynq)")


def test_allocate_follows_pynq_rules():
    board = sgdma.VirtualBoard("zcu111")
    spynq.use(board)
    a = spynq.allocate(16)
    assert a.dtype == np.dtype("u4") and a.shape == (16,)          # PYNQ's default dtype is 'u4'
    assert a.physical_address == a.device_address and a.cacheable and not a.coherent
    assert a.virtual_address == a.ctypes.data
    a[:] = 7
    a.sync_to_device()
    a.sync_from_device()
    with spynq.allocate((4, 4), dtype=np.int16) as b:
        addr = b.physical_address
        assert b.shape == (4, 4) and b.dtype == np.int16
    with pytest.raises(Exception, match="freed|free"):          # the with block freed it
        b.physical_address  # noqa: B018
    del b                                                          # its memory returns with the last view
    c = spynq.allocate((4, 4), dtype=np.int16)
    assert c.physical_address == addr and not c.any()             # the freed memory, zeroed again
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        c.close()                                                  # PYNQ: deprecated and without effect
    assert any(issubclass(x.category, DeprecationWarning) for x in w) and c.physical_address == addr
    u = spynq.allocate(8, cacheable=False)
    assert not u.cacheable and u.coherent
    with pytest.raises(TypeError, match="unexpected arguments"):
        spynq.allocate(8, colour="red")


def test_allocate_is_zeroed_after_reuse():
    board = sgdma.VirtualBoard("zcu111")
    spynq.use(board)
    a = spynq.allocate((64, 16), dtype=np.uint32)
    a[:] = 0xFFFFFFFF
    addr = a.physical_address
    a.freebuffer()
    del a
    b = spynq.allocate((64, 16), dtype=np.uint32, target=board)
    assert b.physical_address == addr and not b.any()


def test_mmio_follows_pynq_rules():
    board = sgdma.VirtualBoard("zcu111", options={"dma.addr_width": 64})   # CURDESC_MSB is a register
    m = spynq.MMIO(board.axi_dma.base, 0x100, device=board)
    m.write(0x08, 0x1000)                                          # CURDESC: a writable pair of words
    m.write(0x0C, 0x2)
    assert m.read(0x08, 8) == 0x2_0000_1000                        # 'little': the word at +4 is the high half
    assert m.read(0x08, 8, "big") == 0x1000_0000_0002
    assert m.read(0x08, 2) == 0x1000 and m.read(0x08, 1) == 0x00
    m.write(0x08, (0x40).to_bytes(4, "little") + (0x5).to_bytes(4, "little"))   # bytes: whole words
    assert m.read(0x08) == 0x40 and m.read(0x0C) == 0x5
    for bad, err in ((1.5, ValueError), ("7", ValueError), (None, ValueError), (True, ValueError),
                     (b"\x01\x02\x03", MemoryError), (1 << 32, ValueError), (-1, ValueError)):
        with pytest.raises(err):
            m.write(0x08, bad)
    assert m.read(0x08) == 0x40                                    # nothing refused reached the register
    with pytest.raises(ValueError, match="word_order"):
        m.read(0x08, 8, "middle")
    with pytest.raises(ValueError, match="1, 2, 4 and 8"):
        m.read(0x08, 3)
    with pytest.raises(MemoryError, match="multiple of 4"):
        m.read(0x02)
    with pytest.raises(ValueError, match="negative"):
        m.write(-4, 0)


def test_mmio_and_default_ip_reach_the_dma():
    board = sgdma.VirtualBoard("zcu111")
    ip = spynq.DefaultIP(spynq.description(board))
    assert ip.read(0x04) & sgdma.pg021.SR_SGINCLD
    with pytest.raises(RuntimeError, match="call sgdma.pynq.use"):
        spynq.use(None) or spynq.allocate(4)


def test_a_pynq_notebook_runs_after_install(installed):
    _need_pynq()
    from pynq import MMIO, allocate                                # noqa: I001  (as a notebook writes it)
    from pynq.lib.dma import DMA

    dma = DMA(spynq.description(installed))
    assert MMIO(installed.axi_dma.base, 0x100).read(4) & sgdma.pg021.SR_SGINCLD
    with allocate(shape=(1000,), dtype=np.uint32) as src, allocate(shape=(1000,), dtype=np.uint32) as dst:
        src[:] = np.arange(1000, dtype=np.uint32) * 3
        dma.recvchannel.transfer(dst)
        dma.sendchannel.transfer(src)
        dma.sendchannel.wait()
        dma.recvchannel.wait()
        assert np.array_equal(dst, src)


@pytest.mark.parametrize("include_sg", [False, True])
def test_pynq_dma_driver_unmodified(installed, include_sg):
    _need_pynq()
    from pynq.lib.dma import DMA

    board = sgdma.VirtualBoard("zcu111", loopback=True, include_sg=include_sg)
    spynq.use(board)
    dma = DMA(spynq.description(board))
    rng = np.random.default_rng(3)
    for n in (4096, 1000 * 32, 64):                      # SG: from the second transfer on too
        src = spynq.allocate(n, dtype=np.uint8)
        dst = spynq.allocate(n, dtype=np.uint8)
        src[:] = rng.integers(0, 256, n)
        dma.recvchannel.transfer(dst)
        dma.sendchannel.transfer(src)
        dma.sendchannel.wait()
        dma.recvchannel.wait()
        assert np.array_equal(dst, src)
        del src, dst


def test_pynq_api_on_a_linux_board(tmp_path, monkeypatch):
    """The same surface over a LinuxBoard (a fake root served by a virtual board): buffers in the u-dma-buf,
    registers through the backend, and PYNQ's DMA driver moving data."""
    from sgdma.board.linux.fakeroot import FakeRoot

    vb = sgdma.VirtualBoard("zcu111", loopback=True)
    f = FakeRoot(tmp_path, vb, buffer=("udmabuf0", 0x8010_0000, 1 << 22))
    monkeypatch.setenv("SGDMA_SYSROOT", str(tmp_path))
    try:
        lb = sgdma.LinuxBoard(dma="axi_dma_0", buffers="udmabuf0", registers=f, preset="zcu111")
        spynq.use(lb)
        m = spynq.MMIO(lb.axi_dma.base, 0x100)
        assert m.read(0x04) & sgdma.pg021.SR_SGINCLD
        with pytest.raises(ValueError, match="int or bytes"):
            m.write(0x00, 2.0)
        buf = spynq.allocate(256)
        assert buf.dtype == np.dtype("u4") and 0x8010_0000 <= buf.physical_address < 0x8050_0000
        assert buf.cacheable and not buf.coherent                     # cache='sync': cached, synced by u-dma-buf
        with pytest.raises(ValueError, match="cache='uncached'"):
            spynq.allocate(16, cacheable=False)
        del buf
        ub = sgdma.LinuxBoard(dma="axi_dma_0", buffers="udmabuf0", registers=f, preset="zcu111", cache="uncached")
        u = spynq.allocate(16, target=ub)
        assert u.coherent and not u.cacheable                        # an uncached mapping needs no maintenance
        del u
        ub.close()
        _need_pynq()
        saved = {k: sys.modules.get(k) for k in ("pynq", "pynq.lib", "pynq.lib.dma")}
        spynq.install(lb)
        try:
            from pynq.lib.dma import DMA

            dma = DMA(spynq.description(lb))
            with spynq.allocate(512) as src, spynq.allocate(512) as dst:
                src[:] = np.arange(512, dtype=np.uint32) ^ 0x5A5A
                dma.recvchannel.transfer(dst)
                dma.sendchannel.transfer(src)
                dma.sendchannel.wait()
                dma.recvchannel.wait()
                assert np.array_equal(dst, src)
        finally:
            spynq.uninstall()
            for k, v in saved.items():
                if v is not None:
                    sys.modules[k] = v
    finally:
        f.close()
