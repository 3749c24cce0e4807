"""Regressions for bugs found in review: lifetimes, bounds, and inputs that used to crash or hang."""
import gc

import numpy as np
import pytest

import sgdma
from sgdma import _core


def test_board_cannot_be_reinitialised():
    b = sgdma.VirtualBoard("zcu111")
    with pytest.raises(RuntimeError, match="already initialised"):
        b._b.__init__(str(sgdma.hw.presets.path("zcu111")), {}, 0)
    assert b.read32(b.axi_dma.base + 4) & 1                      # still the same, working board


def test_freed_buffer_finalizer_cannot_free_a_later_allocation():
    b = sgdma.VirtualBoard("pg021")
    a = b.allocate(100)
    addr = a.physical_address
    a.freebuffer()
    c = b.allocate(100)
    assert c.physical_address != addr                            # not reused while the freed array lives ...
    del a
    gc.collect()
    d = b.allocate(100)
    assert d.physical_address == addr                            # ... reused once it died
    assert d.physical_address != c.physical_address              # and c's block stays c's


def test_a_running_ring_survives_garbage_collection():
    b = sgdma.VirtualBoard("zcu111", loopback=False)
    dma = sgdma.AxiDma(b)
    dma.reset()
    ring = dma.mm2s.ring(8)
    ring.add_packets([b.allocate(64) for _ in range(8)])
    ring.submit()
    address = ring.address
    del ring
    gc.collect()
    junk = b.allocate((8, 64), np.uint8)
    assert junk.physical_address != address                      # the channel still owns those BDs
    b.run_until_quiet()
    assert not dma.mm2s.registers()["dmasr"] & sgdma.pg021.SR_ERR_ALL
    assert len(b.mm2s_sink.packets()) == 8


def test_a_short_wait_does_not_shorten_later_waits():
    b = sgdma.VirtualBoard("zcu111")
    dma = sgdma.AxiDma(b)
    dma.reset()
    rx = dma.s2mm.ring(1)
    rx.fill([b.allocate(64).physical_address], [64])
    rx.submit()
    default = dma.s2mm._c.info()["poll_limit"]
    with pytest.raises(sgdma.DmaTimeoutError):
        rx.wait(timeout_ns=5)
    # the channel's own bound is back (a 5 ns bound is a handful of reads) ...
    assert dma.s2mm._c.info()["poll_limit"] == default == sgdma.pg021.DEFAULT_POLL_LIMIT
    # ... so a raw driver wait (no per-call bound) lasts as long as the transfer needs
    b.s2mm_source.send(bytes(64))
    dma.s2mm._c.wait_idle()
    done = rx.reclaim()
    assert len(done) == 1 and int(done.records["bytes"][0]) == 64


def test_recover_keeps_both_snapshots():
    b = sgdma.VirtualBoard("zcu111")
    dma = sgdma.AxiDma(b)
    dma.reset()
    rx = dma.s2mm.ring(1)
    buf = b.allocate(64)
    b.inject_slverr(buf.physical_address, 64)
    rx.fill([buf.physical_address], [64])
    rx.submit()
    b.s2mm_source.send(bytes(64))
    b.run_until_quiet()
    snaps = dma.recover()
    assert snaps["s2mm"]["dmasr"] & sgdma.pg021.SR_DMASLVERR


def test_s0_program_refuses_zero_sizes():
    b = sgdma.VirtualBoard("zcu111")
    from sgdma.hw.layout import Layout

    lay = Layout.of(b)
    with pytest.raises(sgdma.LengthError):
        _core.s0_trials(b._b, dma_base=b.axi_dma.base, gpio_base=b.gpio_base, bd_dev=lay.bd_base,
                        bd_capacity=lay.max_bds, buffer_base=lay.buffer_base, buffer_bytes=lay.buffer_bytes,
                        addr_width=32, length_width=26, data_bytes=32, poll_limit=1000, bytes_per_bd=0, bds=4,
                        cycles=1, random=False, simple=False, seeds=np.zeros(1, np.uint64).tobytes())


@pytest.mark.parametrize("opt", [{"mmio_read_ns": 0}, {"mmio_write_ns": -1}, {"max_burst": 16.5}])
def test_board_options_that_break_time_are_refused(opt):
    with pytest.raises((ValueError, TypeError)):
        sgdma.VirtualBoard("zcu111", **opt)


def test_values_that_do_not_fit_are_refused():
    b = sgdma.VirtualBoard("zcu111")
    with pytest.raises(ValueError):
        b._b.cpu_write32(0x8000_0000, 2**32 + 7, 1000)
    ring = sgdma.AxiDma(b).mm2s.ring(2)
    with pytest.raises(ValueError, match="rearm"):
        ring.rearm(2**32)


def test_capture_wait_with_no_source_fails_fast():
    from sgdma.capture import CaptureError, open_rx

    b = sgdma.VirtualBoard("zynq7000")
    rx = open_rx(b, 4096, 4)
    with pytest.raises(CaptureError, match="no buffer can complete"):
        rx.acquire()


def test_add_packets_of_nothing():
    b = sgdma.VirtualBoard("zcu111")
    assert sgdma.AxiDma(b).mm2s.ring(2).add_packets([]) == 0
