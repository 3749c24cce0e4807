"""Issue 11 mechanisms, each against an expectation computed here from the preset and first principles:
interrupt coalescing (IRQThreshold / IRQDelay through Ring.submit), the S2MM write path (one AW/W/B per
burst, outstanding-write limit, write-response latency), and the CPU as a DRAM master (background load)."""
import math

import numpy as np
import pytest

import sgdma
from sgdma.hw import pg021 as P


def _board(preset="zcu111", seed=3, **kw):
    b = sgdma.VirtualBoard(preset, seed=seed, **kw)
    d = sgdma.AxiDma(b)
    d.reset()
    return b, d


# ---- interrupt coalescing -------------------------------------------------------------------------------------

def _count_interrupts(board, ch, poll_ns=200.0, limit=200000):
    """An interrupt handler that polls the line, acks (W1C) and counts each source."""
    ioc = dly = 0
    for _ in range(limit):
        if ch.irq_pending:
            bits = ch.irq_ack()
            ioc += bool(bits & P.SR_IOC_IRQ)
            dly += bool(bits & P.SR_DLY_IRQ)
        elif ch.idle and not ch.irq_pending:
            board.advance(20 * poll_ns)             # a pending delay timer may still fire
            if not ch.irq_pending:
                return ioc, dly
        board.advance(poll_ns)
    raise AssertionError("the transfer did not finish")


@pytest.mark.parametrize("threshold", [1, 3, 8])
def test_irq_threshold_cuts_interrupts_n_fold(threshold):
    n_packets = 24                                   # a multiple of every threshold below
    board, dma = _board(timing_only=True)
    # packets of several microseconds each, so the polling handler sees every interrupt separately
    bufs = [board.allocate(65536, np.uint8) for _ in range(n_packets)]
    ring = dma.mm2s.ring(64)
    ring.add_packets(bufs)
    ring.submit(irq_threshold=threshold)
    ioc, dly = _count_interrupts(board, dma.mm2s)
    assert (ioc, dly) == (n_packets // threshold, 0)


def test_irq_delay_reports_the_packets_below_the_threshold():
    n_packets, threshold = 26, 8                     # 3 full groups and 2 packets left over
    board, dma = _board(timing_only=True)
    bufs = [board.allocate(65536, np.uint8) for _ in range(n_packets)]
    ring = dma.mm2s.ring(64)
    ring.add_packets(bufs)
    ring.submit(irq_threshold=threshold, irq_delay_ns=2000)
    unit_ns = board.option("dma.dly_timer_resolution") * 1e3 / board.option("dma.clock_mhz")
    assert dma.mm2s.delay_units(2000) == math.ceil(2000 / unit_ns)   # IRQDelay in timer units, rounded up
    ioc, dly = _count_interrupts(board, dma.mm2s)
    assert (ioc, dly) == (n_packets // threshold, 1)


def test_coalescing_arguments_are_checked():
    board, dma = _board()
    ring = dma.mm2s.ring(4)
    with pytest.raises(ValueError, match="irq_threshold"):
        ring.submit(irq_threshold=0)
    with pytest.raises(ValueError, match="irq_delay_ns"):
        ring.submit(irq_delay_ns=1e9)


# ---- S2MM write path ------------------------------------------------------------------------------------------

def _s2mm_ns(nbytes, preset="zcu111", cpu_load=None, **options):
    board, dma = _board(preset, options=options, cpu_load=cpu_load)
    buf = board.allocate(nbytes, np.uint8)
    ring = dma.s2mm.ring(4)
    ring.add_packets([buf])
    board.s2mm_source.send(bytes(nbytes), last=True)
    ring.submit()
    end = board.run_until_quiet()
    p = board.probe("s2mm")
    return end - p["t_first_beat"] / 1000.0, board


def _mm2s_ns(nbytes, preset="zcu111", cpu_load=None, **options):
    board, dma = _board(preset, options=options, cpu_load=cpu_load, timing_only=True)
    buf = board.allocate(nbytes, np.uint8)
    ring = dma.mm2s.ring(4)
    ring.add_packets([buf])
    ring.submit()
    board.run_until_quiet()
    p = board.probe("mm2s")
    return (p["t_last_beat"] - p["t_kick"]) / 1000.0, board


def test_s2mm_one_outstanding_write_pays_a_write_response_per_burst():
    """Ideal memory, one write in flight: every burst costs its W beats + request + response."""
    n = 64 * 1024
    t, board = _s2mm_ns(n, **{"dram.enabled": 0, "dma.write_outstanding": 1})
    o = board.option
    clk = 1e3 / o("dma.clock_mhz")
    burst = o("dma.max_burst") * o("dma.data_width") / 8
    # W beats follow their AW one per clock; the next AW waits for B, request + response after WLAST
    per_burst = burst / (o("dma.data_width") / 8) * clk + max(o("ic.request_ns") + o("ic.response_ns"),
                                                             P.LAT_S2MM_BURST_GAP * clk)
    expected = P.LAT_S2MM_TVALID_TO_AW * clk + (n / burst) * per_burst
    assert t == pytest.approx(expected, rel=0.05)


def test_s2mm_is_faster_when_write_responses_are_free():
    n = 64 * 1024
    slow, board = _s2mm_ns(n, **{"dma.write_outstanding": 1})
    free, _ = _s2mm_ns(n, **{"dma.write_outstanding": 1, "ic.early_bresp": 1})
    o = board.option
    clk = 1e3 / o("dma.clock_mhz")
    # free B: the DMA's W channel is the only limit left, one beat per clock and the W gap between bursts
    # (PG021 Table 2); the chunk-by-chunk stream takes add a residual of a few per cent, hence the band
    beats = n / (o("dma.data_width") / 8)
    bursts = beats / o("dma.max_burst")
    expected = (P.LAT_S2MM_TVALID_TO_AW + beats + (bursts - 1) * P.LAT_S2MM_BURST_GAP) * clk
    assert expected <= free <= 1.08 * expected
    assert slow > 1.5 * free


def test_mm2s_is_unchanged_by_the_write_path_options():
    base, _ = _mm2s_ns(256 * 1024)
    other, _ = _mm2s_ns(256 * 1024, **{"dma.write_outstanding": 1, "ic.early_bresp": 1})
    assert base == other


# ---- the CPU as a DRAM master ---------------------------------------------------------------------------------

def _dram_peak_mbps(board):
    return board.option("dram.bus_bytes") * 2 / board.option("dram.tck_ns") * 1e3     # MB/s, DDR: 2 per clock


def test_one_mebibyte_s2mm_buffer_is_thousands_of_bursts_interleaved_with_the_cpu():
    n = 1 << 20
    load = 1000.0                                                    # MB/s
    t, board = _s2mm_ns(n, preset="zynq7000", cpu_load=load)
    o = board.option
    burst = o("dma.max_burst") * o("dma.data_width") / 8
    st = board.dram_stats()
    bursts = n / burst
    cpu_requests_during = load * t * 1e-3 / o("cpu.cache_line_bytes")    # MB/s * ns -> bytes, / line
    assert bursts >= 1000
    # writes: the S2MM bursts (+ one STATUS write-back) and the CPU's write-backs (half of its requests)
    assert st["writes"] >= bursts + 0.4 * cpu_requests_during
    # reads: the BD fetches and the CPU's line fills, issued while the buffer was being written
    assert st["reads"] >= 0.4 * cpu_requests_during
    alone, _ = _s2mm_ns(n, preset="zynq7000")
    assert t > alone


def test_cpu_copy_load_raises_dma_read_latency_and_costs_bandwidth():
    n = 256 * 1024
    quiet, board = _mm2s_ns(n, preset="zynq7000")
    peak = _dram_peak_mbps(board)                                 # DDR3-1066 x 32 bit
    load = 2000.0
    loaded, _ = _mm2s_ns(n, preset="zynq7000", cpu_load=load)
    tp_quiet, tp_loaded = n / quiet * 1e3, n / loaded * 1e3      # MB/s
    assert tp_loaded < tp_quiet
    assert tp_loaded + load <= peak                               # the DRAM data bus is shared
    mean = []
    for cpu_load in (None, load):                                 # first-beat latency of a 64-byte BD
        lat = []
        for seed in range(8):
            b, d = _board("zynq7000", seed=seed, cpu_load=cpu_load, timing_only=True)
            buf = b.allocate(64, np.uint8)
            r = d.mm2s.ring(4)
            r.add_packets([buf])
            b.advance(20000 + 977 * seed)                         # the CPU load is running
            r.submit()
            b.run_until_quiet()
            p = b.probe("mm2s")
            lat.append(p["t_first_beat"] - p["t_kick"])
        mean.append(np.mean(lat))
    assert mean[1] > mean[0]


def test_cpu_load_option_is_checked():
    with pytest.raises(ValueError, match="cpu_load"):
        sgdma.VirtualBoard("zcu111", cpu_load="fast")
    with pytest.raises(ValueError, match="read_fraction"):
        sgdma.VirtualBoard("zcu111", cpu_load={"rate_mbps": 100, "read_fraction": 2})
    b = sgdma.VirtualBoard("zcu111", cpu_load="1.5GB/s")
    assert b.option("cpu.load_mbps") == 1500.0
