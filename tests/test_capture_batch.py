"""The batched zero-copy life cycle (issue 26 sec. 3, seed 004's read()/write() API): one read() lends every
buffer completed since the last call, one write() gives a batch back, completions while the reader works raise
no interrupt (NAPI), and buffers the application holds are out of the DMA's reach.  Expectations come from the
ADC's sample clock and the ring geometry, not from the model's own accounting."""
import numpy as np
import pytest

from sgdma.board.virtual import VirtualBoard
from sgdma.capture import run_capture
from sgdma.capture.driver import CaptureError
from sgdma.capture.transport import open_rx

RATE, SB, BUF = 10e6, 4, 4096                  # one 4 KiB buffer per 102.4 us of ADC time
PERIOD_NS = BUF / SB / RATE * 1e9


def _rx(buffers=16, fifo=8192):
    board = VirtualBoard("zynq7000", seed=1)
    rx = open_rx(board, BUF, buffers, cache="sync", api="batch", sample_bytes=SB)
    rx.cpu.settle()
    t0 = board.now_ps
    board.adc.start(RATE, SB, fifo, BUF)
    rx.driver.set_source(t0, RATE)
    return board, rx


def test_one_read_returns_every_buffer_completed_while_the_reader_worked():
    board, rx = _rx()
    first = rx.read(timeout_ns=1e6)
    assert len(first) == 1                       # the first read sleeps until the first buffer
    rx.write(first)
    irqs, calls = rx.driver.irqs, rx.cpu.counts["syscalls"]
    k = 5
    rx.cpu.charge(k * PERIOD_NS, "app")          # the application works for five buffer periods
    rx.cpu.settle()
    views = rx.read()
    assert len(views) in (k, k + 1)              # every buffer the ADC filled meanwhile, in one call
    assert [v.index for v in views] == [(1 + i) % 16 for i in range(len(views))]
    assert rx.driver.irqs == irqs                # interrupt masked while busy: drained, not interrupted
    rx.write(views)
    assert rx.cpu.counts["syscalls"] == calls + 2   # one read(), one write(), whatever the batch


def test_data_of_a_batch_is_the_adc_counter_in_order():
    board, rx = _rx()
    got = []
    deadline = board.now_ps + int(2e9)
    while len(got) < 8 and board.now_ps < deadline:
        views = rx.read(timeout_ns=1e6)
        got += [v.samples(np.uint32).copy() for v in views]
        rx.write(views)
        rx.cpu.charge(3 * PERIOD_NS, "app")
    data = np.concatenate(got)
    assert np.array_equal(data, np.arange(data.size, dtype=np.uint32))


def test_buffers_held_by_the_application_are_not_filled():
    board, rx = _rx(buffers=4, fifo=4096)
    held = []
    while len(held) < 4:
        held += rx.read(timeout_ns=1e6)
    assert rx.held_max == 4 and rx.driver.armed == 0
    # the ring is empty: the ADC's 4 KiB FIFO fills in 1024 samples (102.4 us) and then drops
    board.advance(10 * PERIOD_NS)
    rep = board.adc.report()
    assert rep["dropped"] > 0
    assert rep["dropped"] == pytest.approx(10 * BUF / SB - BUF / SB, rel=0.15)
    rx.write(held)                                # given back: the DMA fills them again
    assert rx.driver.armed == 4
    assert len(rx.read(timeout_ns=1e6)) >= 1


def test_write_refuses_a_buffer_given_back_twice():
    board, rx = _rx()
    views = rx.read(timeout_ns=1e6)
    rx.write(views)
    with pytest.raises(CaptureError, match="released twice"):
        rx.write(views)
    with pytest.raises(ValueError, match="max_buffers"):
        rx.read(max_buffers=0)


def test_batch_needs_an_sg_ring():
    with pytest.raises(CaptureError, match="dma-mode sg"):
        run_capture("zynq7000", 1e6, 4, 4096, 8, api="batch", dma_mode="simple", seconds=1e-3)


def test_batching_cuts_interrupts_at_the_per_buffer_apis_limit():
    """At 320 MB/s in 4 KiB buffers (one per 12.8 us) the per-buffer API pays an interrupt and two system calls
    per buffer and falls behind; the batched one drains with the interrupt masked and sleeps only when dry."""
    kw = dict(seconds=3e-3, cache="sync")
    zc = run_capture("zynq7000", 80e6, 4, 4096, 64, api="zerocopy", **kw)
    b = run_capture("zynq7000", 80e6, 4, 4096, 64, api="batch", **kw)
    assert zc["syscalls"] == 2 * zc["buffers_delivered"]
    assert zc["interrupts"] >= zc["buffers_delivered"]
    assert b["syscalls"] <= 2 * b["buffers_delivered"]
    assert b["interrupts"] < 0.25 * b["buffers_delivered"]
    assert b["sustained"] and b["keeping_up"]
    assert not (zc["sustained"] and zc["keeping_up"])      # living off the ring's reserve, or already dropping
    assert b["held_max"] >= 1 and b["ring_depth"] == 64
