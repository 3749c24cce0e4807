"""The DDR controller's ports, queues and arbitration (csrc/vboard/mem/ddrc.c, issue 11 sec. 1 and 6).

Each test computes its expectation from the preset's parameters and the documented scheme (UG585 pp.301-305 as
summarised in zynq-memory-system.md sec. 1.2-1.3): aging counters that start at the port's priority and count
down one per controller clock, round-robin on ties, reads and writes reaching the DRAM in bursts."""
import numpy as np
import pytest

import sgdma
from sgdma.hw import pg021 as P


def _board(preset="zynq7000", seed=3, cpu_load=None, **options):
    b = sgdma.VirtualBoard(preset, seed=seed, options=options, cpu_load=cpu_load, timing_only=True)
    d = sgdma.AxiDma(b)
    d.reset()
    return b, d


def _peak_mbps(b):
    """DRAM data-bus peak: bus bytes x 2 transfers per clock."""
    return b.option("dram.bus_bytes") * 2 / b.option("dram.tck_ns") * 1e3


def _burst_bytes(b):
    return b.option("dma.max_burst") * b.option("dma.data_width") / 8


def _mm2s(b, d, nbytes):
    buf = b.allocate(nbytes, np.uint8)
    ring = d.mm2s.ring(4)
    ring.add_packets([buf])
    ring.submit()
    b.run_until_quiet()
    p = b.probe("mm2s")
    return (p["t_last_beat"] - p["t_kick"]) / 1000.0            # ns


def _s2mm(b, d, nbytes):
    buf = b.allocate(nbytes, np.uint8)
    ring = d.s2mm.ring(4)
    ring.add_packets([buf])
    b.s2mm_source.send(bytes(nbytes), last=True)
    ring.submit()
    end = b.run_until_quiet()
    return end - b.probe("s2mm")["t_first_beat"] / 1000.0       # ns


def _ports(b):
    return b.dram_stats()["ports"]


def _n(port):
    return port["reads"] + port["writes"]


# ---- a single master: the controller costs nothing ------------------------------------------------------------

@pytest.mark.parametrize("direction", ["mm2s", "s2mm"])
def test_single_master_timing_is_the_same_in_order_or_arbitrated(direction):
    run = _mm2s if direction == "mm2s" else _s2mm
    times = []
    for scheme in (0, 1):
        b, d = _board(**{"ddrc.scheme": scheme})
        times.append(run(b, d, 256 * 1024))
        st = b.dram_stats()
        assert _n(st["ports"]["cpu"]) == 0
        # every DRAM request came through the PL port
        assert _n(st["ports"]["pl"]) == st["reads"] + st["writes"]
    assert times[0] == times[1]


# ---- bursts of a 1 MiB S2MM buffer interleave with the CPU port ------------------------------------------------

def test_one_mebibyte_s2mm_buffer_interleaves_with_the_cpu_port_in_every_window():
    n, load, window_ns = 1 << 20, 1000.0, 20000.0
    b, d = _board(cpu_load={"rate_mbps": load, "read_fraction": 0.5})
    buf = b.allocate(n, np.uint8)
    ring = d.s2mm.ring(4)
    ring.add_packets([buf])
    b.s2mm_source.send(bytes(n), last=True)
    ring.submit()
    burst, line = _burst_bytes(b), b.option("cpu.cache_line_bytes")
    port_mbps = b.option("ic.width_bits") / 8 * b.option("ic.clock_mhz")
    cpu_per_window = load * window_ns * 1e-3 / line              # MB/s x ns = bytes x 1e-3
    prev = _ports(b)
    windows = []
    for _ in range(200):
        b.advance(window_ns)
        cur = _ports(b)
        windows.append((cur["pl"]["writes"] - prev["pl"]["writes"], _n(cur["cpu"]) - _n(prev["cpu"])))
        prev = cur
        if cur["pl"]["writes"] >= n / burst:
            break
    full = windows[1:-1]                                          # windows wholly inside the transfer
    assert len(full) >= 5
    for pl, cpu in full:
        # the buffer goes out as bursts, no faster than the HP port carries them ...
        assert 1 <= pl <= port_mbps * window_ns * 1e-3 / burst + 1
        # ... and the CPU's line requests are granted between them, never more than its loop issues (its rate,
        # plus what its port FIFO held); it gets less when its FIFO fills (a latency-bound copy stalls)
        assert 1 <= cpu <= cpu_per_window + b.option("ddrc.cpu_queue")
    assert sum(pl for pl, _ in windows) >= n / burst


# ---- priority and aging (stage 1) -------------------------------------------------------------------------------

def _read_contention(cpu_prio, pl_prio, load=True, nbytes=64 * 1024, **extra):
    """MM2S against a CPU read stream beyond the DRAM's peak (reads only: stage 1 alone decides)."""
    b, _ = _board()
    peak = _peak_mbps(b)
    opts = {"ddrc.cpu_rd_priority": cpu_prio, "ddrc.pl_rd_priority": pl_prio, **extra}
    b, d = _board(cpu_load={"rate_mbps": 1.5 * peak, "read_fraction": 1.0} if load else None, **opts)
    t = _mm2s(b, d, nbytes)
    return b, t, _ports(b)


def _mean_read_latency_ns(port):
    return port["read_latency_ps"] / port["reads"] / 1000.0


def test_a_high_priority_port_keeps_its_unloaded_read_latency():
    b, _, quiet = _read_contention(1023, 0, load=False)
    _, _, hi = _read_contention(1023, 0)
    _, _, lo = _read_contention(0, 1023)
    o = b.option
    tclk_ns = o("dram.tck_ns") / o("ddrc.clock_ratio")
    cpu_request_ns = o("cpu.cache_line_bytes") / (_peak_mbps(b) * 1e-3)       # one line on the data bus
    # high priority: at most the CPU request on the bus plus a row conflict (PRE after tRAS, tRP, tRCD)
    slack = cpu_request_ns + o("dram.tras_ns") + o("dram.trp_ns") + o("dram.trcd_ns")
    assert _mean_read_latency_ns(hi["pl"]) <= _mean_read_latency_ns(quiet["pl"]) + slack
    # low priority: every request waits for its aging counter, 1023 controller clocks
    assert _mean_read_latency_ns(lo["pl"]) >= 1023 * tclk_ns
    assert hi["cpu"]["reads"] > 0 and lo["cpu"]["reads"] > 0


@pytest.mark.parametrize("pl_prio", [160, 480])
def test_aging_bounds_the_starved_ports_wait(pl_prio):
    """CPU at priority 0 and saturating: the PL port is granted when its counter, reloaded at its last grant,
    reaches 0 (then it ties at 0 and wins round-robin): one burst per pl_prio clocks plus the CPU request on the
    bus (with a row conflict) and, at most once, a refresh window (tRFC)."""
    b, t_ns, ports = _read_contention(0, pl_prio, **{"dma.outstanding": 1})
    tclk_ns = b.option("dram.tck_ns") / b.option("ddrc.clock_ratio")
    limit_ns = pl_prio * tclk_ns
    cpu_request_ns = b.option("cpu.cache_line_bytes") / (_peak_mbps(b) * 1e-3)
    slack_ns = (cpu_request_ns + b.option("dram.tras_ns") + b.option("dram.trp_ns") + b.option("dram.trcd_ns")
                + b.option("dram.trfc_ns"))
    pl = ports["pl"]
    assert limit_ns <= pl["max_wait_ps"] / 1000.0 <= limit_ns + slack_ns
    # one burst in flight: each burst's unloaded round trip plus its wait for the aging limit
    _, quiet_ns, _ = _read_contention(0, pl_prio, load=False, **{"dma.outstanding": 1})
    nbursts = 64 * 1024 / _burst_bytes(b)
    # the first burst may find its counter already run down (it counts from its last reload, before the kick)
    assert quiet_ns + (nbursts - 1) * limit_ns <= t_ns <= quiet_ns + nbursts * (limit_ns + slack_ns)
    assert pl["overtaken"] > 0


def test_equal_priorities_share_by_aging_not_by_port():
    """Vivado's values (all 0x3FF): neither port is favoured; the DMA keeps most of its unloaded rate."""
    b, quiet_ns, _ = _read_contention(1023, 1023, load=False)
    _, eq_ns, eq = _read_contention(1023, 1023)
    _, hi_ns, _ = _read_contention(0, 1023)
    assert quiet_ns <= eq_ns < hi_ns
    assert eq["cpu"]["overtaken"] > 0 and eq["pl"]["overtaken"] > 0


# ---- the CPU's copy load against the DMA ----------------------------------------------------------------------

def test_cpu_copy_load_lowers_s2mm_headroom():
    n = 256 * 1024
    b, d = _board()
    quiet = _s2mm(b, d, n)
    peak = _peak_mbps(b)
    load = 0.9 * peak                                     # a memcpy that alone would take 90 % of the bus
    b, d = _board(cpu_load={"rate_mbps": load, "read_fraction": 0.5})
    loaded = _s2mm(b, d, n)
    ports = _ports(b)
    assert loaded > quiet
    # both ports share one data bus: their granted bytes cannot exceed the peak over the transfer
    cpu_mbps = ports["cpu"]["bytes"] / loaded * 1e3
    assert n / loaded * 1e3 + cpu_mbps <= peak
    # and the S2MM write bursts waited for the CPU's requests
    assert ports["pl"]["wait_ps"] > 0 and ports["pl"]["overtaken"] > 0


# ---- S2MM against MM2S: the write path --------------------------------------------------------------------------

def test_s2mm_is_slower_than_mm2s_and_faster_when_write_responses_are_free():
    """ZCU102 (latency-bound: 4 outstanding bursts either way).  A write reaches the controller only with its
    data, so each S2MM burst's round trip holds its W crossing before the DRAM write; with free B only the
    DMA's W channel (stream rate less the per-burst W gap) is left."""
    n = 256 * 1024
    b, d = _board("zcu102")
    mm2s = n / _mm2s(b, d, n)
    b, d = _board("zcu102")
    s2mm = n / _s2mm(b, d, n)
    b, d = _board("zcu102", **{"ic.early_bresp": 1})
    free = n / _s2mm(b, d, n)
    o = b.option
    stream = o("dma.data_width") / 8 * o("dma.clock_mhz") * 1e-3      # bytes/ns
    port = o("ic.width_bits") / 8 * o("ic.clock_mhz") * 1e-3
    assert s2mm < mm2s
    assert free > s2mm
    # free B leaves the DMA's own W channel: 16-beat bursts each followed by the S2MM W gap (PG021 Table 2)
    beats = o("dma.max_burst")
    assert free == pytest.approx(min(stream * beats / (beats + P.LAT_S2MM_BURST_GAP), port), rel=0.03)
    # the write round trip: request + W over the port + DRAM (CWL, ctrl latency) + response, 4 in flight
    burst = _burst_bytes(b)
    trip = (o("ic.request_ns") + burst / port + o("dram.cwl") * o("dram.tck_ns") + o("dram.ctrl_latency_ns")
            + o("ic.response_ns"))
    assert s2mm <= o("dma.write_outstanding") * burst / trip * 1.02


# ---- statistics, options, determinism ----------------------------------------------------------------------------

def test_per_port_statistics_add_up_to_the_dram_requests():
    b, d = _board(cpu_load={"rate_mbps": 800.0, "read_fraction": 0.25})
    _mm2s(b, d, 128 * 1024)
    st = b.dram_stats()
    cpu, pl = st["ports"]["cpu"], st["ports"]["pl"]
    assert cpu["reads"] + pl["reads"] == st["reads"]
    assert cpu["writes"] + pl["writes"] == st["writes"]
    assert cpu["bytes"] == _n(cpu) * b.option("cpu.cache_line_bytes")
    run = 4096 / b.option("cpu.cache_line_bytes")                            # the copy loop's 4 KiB runs
    assert cpu["reads"] == pytest.approx(0.25 * _n(cpu), abs=run)
    assert pl["bytes"] >= 128 * 1024


def test_same_seed_same_arbitration():
    runs = []
    for _ in range(2):
        b, d = _board(seed=11, cpu_load={"rate_mbps": 3000.0, "read_fraction": 0.5})
        runs.append((_mm2s(b, d, 64 * 1024), b.dram_stats()))
    assert runs[0] == runs[1]


@pytest.mark.parametrize("key,value,words", [
    ("ddrc.scheme", 2, "ddrc.scheme"),
    ("ddrc.aging", 0, "ddrc.aging"),
    ("ddrc.pl_rd_priority", 1024, "priority"),
    ("ddrc.cpu_hpr", 2, "ddrc.cpu_hpr"),
    ("ddrc.w_run_length", 0, "ddrc.w_run_length"),
    ("ddrc.cpu_queue", 1000, "ddrc.cpu_queue"),
    ("ddrc.clock_ratio", 0, "ddrc.clock_ratio"),
])
def test_bad_controller_options_are_named(key, value, words):
    with pytest.raises(ValueError, match=words):
        sgdma.VirtualBoard("zynq7000", options={key: value})


def test_zynqmp_hpr_reads_beat_best_effort_reads():
    """ZynqMP: an HPR port's reads are favoured over LPR (zynq-memory-system.md sec. 2.2) until the LPR store
    starves; with the PL on HPR its latency under a saturating CPU read stream stays close to unloaded."""
    def run(pl_hpr, load):
        b, d = _board("zcu102", **{"ddrc.pl_hpr": pl_hpr})
        peak = _peak_mbps(b)
        b, d = _board("zcu102", cpu_load={"rate_mbps": 1.5 * peak, "read_fraction": 1.0} if load else None,
                      **{"ddrc.pl_hpr": pl_hpr})
        _mm2s(b, d, 64 * 1024)
        return b, _ports(b)
    b, quiet = run(1, False)
    _, hpr = run(1, True)
    _, lpr = run(0, True)
    assert _mean_read_latency_ns(hpr["pl"]) < _mean_read_latency_ns(lpr["pl"])
    o = b.option
    slack = o("dram.tras_ns") + o("dram.trp_ns") + o("dram.trcd_ns") + 4 * o("dram.tck_ns")
    assert _mean_read_latency_ns(hpr["pl"]) <= _mean_read_latency_ns(quiet["pl"]) + slack


def test_in_order_controller_throttles_a_load_above_the_dram_peak():
    """Scheme 0 (in order) still has the CPU port's bounded FIFO: a load asking twice the DRAM's peak cannot build a
    backlog that every later DMA request waits behind.  A DMA read then waits at most for the FIFO's requests ahead
    of it (depth x one line on the bus, with row changes), not for the whole excess the load asked for."""
    probe, _ = _board(**{"ddrc.scheme": 0})
    overload = 2 * _peak_mbps(probe)
    b, d = _board(cpu_load=overload, **{"ddrc.scheme": 0})
    nbytes = 1 << 20
    t_ns = _mm2s(b, d, nbytes)
    o = b.option
    depth = o("ddrc.cpu_queue")
    line_ns = o("cpu.cache_line_bytes") / (_peak_mbps(b) * 1e-3)
    row_change_ns = o("dram.tras_ns") + o("dram.trp_ns") + o("dram.trcd_ns")
    bursts = nbytes / _burst_bytes(b)
    quiet_b, quiet_d = _board(**{"ddrc.scheme": 0})
    quiet = _mm2s(quiet_b, quiet_d, nbytes)
    # each burst waits behind at most a full FIFO; an unbounded backlog would grow with the transfer's duration
    assert t_ns <= quiet + bursts * depth * (line_ns + row_change_ns)
    # ... and the load was throttled to what the bus could take, not served at the rate asked
    granted = _ports(b)["cpu"]["bytes"] / (t_ns * 1e-3)                            # MB/s
    assert granted < _peak_mbps(b)
