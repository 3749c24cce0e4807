"""The CPU as a memory master and the capture host path (issue 11 sec. 2 and 4).

Each expectation is computed here from the operation's definition (lines, words, bytes, cost items),
never read back from the code under test's own summary."""
from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

import sgdma
from sgdma.capture.session import run_capture
from sgdma.cli import main
from sgdma.driver.axidma import AxiDma
from sgdma.models.cpu import CostFileError, check_costs, load_cost_file

BOARD = "zc706"          # Zynq-7000: CPU and DMA share the PS DDR3 controller


def _lines(addr: int, n: int, line: int) -> int:
    return (addr + n + line - 1) // line - addr // line


# -- CPU operations as DRAM traffic --------------------------------------------------------------
def test_copy_is_line_fills_and_write_backs_on_the_dram():
    b = sgdma.VirtualBoard(BOARD)
    line = int(b.option("cpu.cache_line_bytes"))
    src, dst, n = 0x1000_0000, 0x2000_0040, 100_000
    before = b.dram_stats()
    r = b.cpu_op("copy", src, n, dst=dst, ns_per_line=80.0)
    after = b.dram_stats()
    fills, wbs = _lines(src, n, line), _lines(dst, n, line)
    assert (r["read_bytes"], r["write_bytes"]) == (fills * line, wbs * line)
    assert (after["reads"] - before["reads"], after["writes"] - before["writes"]) == (fills, wbs)
    # the CPU cannot copy faster than its own per-line limit; the board's clock moved with it
    assert r["t_end_ps"] - r["t_start_ps"] >= max(fills, wbs) * 80_000
    assert b.now_ps == r["t_end_ps"]


def test_uncached_reads_are_one_word_request_at_a_time():
    b = sgdma.VirtualBoard(BOARD)
    n, word, path_ns = 4096, 8, 77.0
    r = b.cpu_op("uncached_read", 0x1000_0000, n, ns_per_word=path_ns, word_bytes=word)
    assert r["requests"] == n // word and r["read_bytes"] == n and r["write_bytes"] == 0
    # each load waits for its data: longer than the CPU-side path alone by at least the DRAM's CAS latency
    cas_ns = b.option("dram.cl") * b.option("dram.tck_ns")
    assert (r["t_end_ps"] - r["t_start_ps"]) / 1e3 >= n // word * (path_ns + cas_ns)


def test_clean_writes_back_only_the_dirty_lines():
    b = sgdma.VirtualBoard(BOARD)
    line = int(b.option("cpu.cache_line_bytes"))
    buf = b.allocate(16 * line, np.uint8)
    b.coherency.register(buf, policy="sync")
    b.coherency.cpu_write(buf[3 * line:3 * line + 1])          # one line
    b.coherency.cpu_write(buf[8 * line:11 * line - 5])         # three lines
    t0 = b.now_ps
    before = b.cpu_traffic
    buf.flush()
    after = b.cpu_traffic
    assert after["write_bytes"] - before["write_bytes"] == 4 * line
    assert after["read_bytes"] == before["read_bytes"]
    # the CPU still pays its maintenance op on every line of the range
    assert b.now_ps - t0 >= 16 * b.option("cpu.cache_line_ns") * 1000 - 1
    before = b.cpu_traffic
    buf.flush()                                                # nothing dirty any more
    buf.invalidate()
    assert b.cpu_traffic["write_bytes"] == before["write_bytes"]


def test_cpu_copy_slows_a_concurrent_dma_read():
    """The CPU's copy competes with the DMA at the DDR controller: the same MM2S transfer (reads that
    wait for DRAM data) ends later while a copy runs; alone it runs at the HP port's rate."""
    def last_beat(copy: bool) -> tuple[int, int]:
        b = sgdma.VirtualBoard(BOARD, include_sg=False)
        dma = AxiDma(b)
        buf = b.allocate(256 << 10, np.uint8)
        dma.mm2s.transfer(buf)
        if copy:
            b.cpu_op("copy", 0x3000_0000, 1 << 20, dst=0x3800_0000, ns_per_line=20.0)
        dma.mm2s.wait(10e6)
        p = b.probe("mm2s")
        return p["t_first_beat"], p["t_last_beat"]

    (f0, alone), (f1, shared) = last_beat(False), last_beat(True)
    b = sgdma.VirtualBoard(BOARD)
    port_ps = (256 << 10) / (b.axi_dma.data_bytes * b.axi_dma.clock_mhz) * 1e6     # stream width x clock
    assert alone - f0 == pytest.approx(port_ps, rel=0.01)
    assert shared - f1 > 1.2 * (alone - f0)


# -- completion handling -----------------------------------------------------------------------------
@pytest.mark.parametrize("count", [16, 4096])
def test_reclaim_costs_the_completed_bds_not_the_ring(count):
    b = sgdma.VirtualBoard(BOARD)
    dma = AxiDma(b)
    k, size = 5, 256
    bufs = [b.allocate(size, np.uint8) for _ in range(count)]
    ring = dma.s2mm.ring(count)
    ring.add_packets(bufs)
    ring.submit()
    for _ in range(k):
        b.s2mm_source.send(np.ones(size, np.uint8), last=True)
    b.run_until_quiet(1e9)
    t0 = b.now_ps
    done = ring.reclaim()
    dt_ns = (b.now_ps - t0) / 1e3
    assert len(done) == k
    # one invalidate per BD the walk reads (k completed + the first incomplete one) and the DMASR
    # read that tells a stopped walk from an error: nothing scales with the ring
    line, line_ns = int(b.option("cpu.cache_line_bytes")), b.option("cpu.cache_line_ns")
    expect = (k + 1) * math.ceil(64 / line) * line_ns + b.option("cpu.mmio_read_ns")
    assert dt_ns == pytest.approx(expect, rel=1e-9, abs=1e-3)


def test_per_packet_host_cost_is_flat_in_ring_size():
    kw = dict(api="zerocopy", cache="uncached", seconds=0.02, seed=3)
    small = run_capture(BOARD, 2.5e6, 4, 1024, 16, **kw)
    large = run_capture(BOARD, 2.5e6, 4, 1024, 4096, **kw)
    assert small["buffers_delivered"] == large["buffers_delivered"] > 150
    assert small["interrupts"] == large["interrupts"] == small["buffers_delivered"]
    # the only driver work that depends on the ring size is arming it once at the start: a clean of
    # every BD (its cache lines at [cpu] cache_line_ns each); per packet, nothing
    b = sgdma.VirtualBoard(BOARD)
    line, line_ns = int(b.option("cpu.cache_line_bytes")), b.option("cpu.cache_line_ns")
    start = (4096 - 16) * math.ceil(64 / line) * line_ns
    d_small, d_large = (r["cpu"]["by_kind_ns"]["driver"] for r in (small, large))
    assert d_large - d_small == pytest.approx(start, rel=1e-9)


def test_irq_threshold_cuts_capture_interrupts_n_fold():
    kw = dict(api="zerocopy", cache="uncached", seconds=0.004, seed=1)
    one = run_capture(BOARD, 4e6, 4, 1024, 64, **kw)
    n = 8
    many = run_capture(BOARD, 4e6, 4, 1024, 64, irq_threshold=n, irq_delay_ns=200_000, **kw)
    assert one["interrupts"] == one["buffers_delivered"]
    # every interrupt reclaims all completed buffers: n per interrupt, plus the delay interrupt
    # that reports the ones left below the threshold when the run ends
    assert many["interrupts"] == math.ceil(many["buffers_delivered"] / n)


# -- consumers -------------------------------------------------------------------------------------------
def test_copy_consumer_adds_twice_the_bytes_of_dram_traffic():
    kw = dict(api="zerocopy", cache="sync", seconds=0.01, seed=0)
    none = run_capture(BOARD, 10e6, 4, 64 << 10, 8, consumer="none", **kw)
    copy = run_capture(BOARD, 10e6, 4, 64 << 10, 8, consumer="copy", **kw)
    touch = run_capture(BOARD, 10e6, 4, 64 << 10, 8, consumer="touch", **kw)
    assert none["cpu_dram_bytes"] == 0                     # invalidates of clean lines move nothing
    assert copy["cpu"]["dram_bytes"]["consumer"] == {"read_bytes": copy["bytes_delivered"],
                                                     "write_bytes": copy["bytes_delivered"]}
    assert copy["cpu_dram_bytes"] == 2 * copy["bytes_delivered"]
    assert touch["cpu_dram_bytes"] == touch["bytes_delivered"]
    # and the copy is CPU time: at least the bytes over the preset's memcpy bandwidth
    mbps = copy["costs"]["items"]["memcpy_cached_mbps"]
    assert copy["cpu"]["by_kind_ns"]["consumer"] >= copy["bytes_delivered"] / mbps * 1e3 * (1 - 1e-9)
    assert copy["cpu_load"] > none["cpu_load"]


@pytest.mark.parametrize("cache", ["sync", "uncached"])
def test_file_consumer_writes_at_the_file_bandwidth(cache):
    r = run_capture(BOARD, 2e6, 4, 64 << 10, 8, api="zerocopy", cache=cache, seconds=0.02, consumer="file",
                    cpu_costs={"file_write_mbps": 50.0})
    line = r["costs"]["cache_line_bytes"]
    expect = r["buffers_delivered"] * (64 << 10) // line * line * 1e3 / 50.0
    assert r["cpu"]["by_kind_ns"]["consumer"] >= expect * (1 - 1e-9)
    assert r["cpu"]["dram_bytes"]["consumer"]["write_bytes"] == r["bytes_delivered"]
    # write(): one more system call per buffer than the zero-copy API's two
    assert r["cpu"]["counts"]["syscalls"] >= 3 * r["buffers_delivered"]


# -- simple (direct-register) mode ---------------------------------------------------------------------
@pytest.mark.parametrize("api", ["copy", "zerocopy"])
def test_simple_mode_delivers_what_sg_mode_does(api):
    kw = dict(api=api, cache="uncached", seconds=0.02, seed=2)
    sg = run_capture(BOARD, 5e6, 4, 128 << 10, 8, dma_mode="sg", **kw)
    simple = run_capture(BOARD, 5e6, 4, 128 << 10, 8, dma_mode="simple", **kw)
    assert simple["sustained"] and simple["verified"] and sg["verified"]
    assert simple["bytes_delivered"] == sg["bytes_delivered"] > 0
    assert simple["interrupts"] == simple["buffers_delivered"]


def test_simple_mode_refuses_coalescing():
    with pytest.raises(ValueError, match="simple"):
        run_capture(BOARD, 1e6, 4, 4096, 4, dma_mode="simple", irq_threshold=4, irq_delay_ns=1e4, seconds=0.001)


# -- cost items ------------------------------------------------------------------------------------------------
def test_cost_overrides_take_effect():
    r = run_capture(BOARD, 2e6, 4, 64 << 10, 8, api="zerocopy", cache="uncached", seconds=0.01,
                    cpu_costs={"syscall_ns": 7777.0, "isr_ns": {"value": 1234.0, "unit": "ns"}})
    c = r["cpu"]
    assert c["by_kind_ns"]["syscall"] == pytest.approx(c["counts"]["syscalls"] * 7777.0)
    assert r["costs"]["items"]["isr_ns"] == 1234.0 and r["costs"]["syscall_ns"] == 7777.0


def test_cmo_line_override_reaches_the_board():
    kw = dict(api="zerocopy", cache="sync", seconds=0.005, seed=0)
    r = run_capture(BOARD, 2e6, 4, 32 << 10, 8, cpu_costs={"cmo_line_ns": 1.0}, **kw)
    c = r["cpu"]
    n = c["counts"]["invalidates"]
    lines = (32 << 10) // 32
    expect = (n + 1) * r["costs"]["cmo_range_ns"] + (n * lines + 8 * lines) * 1.0
    assert c["by_kind_ns"]["cache_maintenance"] == pytest.approx(expect, rel=1e-9)


@pytest.mark.parametrize("text, match", [
    ("syscall_ns = 10\nbogus_ns = 3\n", "unknown cost item 'bogus_ns'"),
    ('syscall_ns = { value = 5, unit = "us" }\n', "syscall_ns has unit 'us'"),
    ('file_write_mbps = "fast"\n', "file_write_mbps = 'fast' is not a number"),
    ("memcpy_cached_mbps = 0\n", "memcpy_cached_mbps = 0 MB/s: must be > 0"),
    ("syscall_ns = [\n", "not valid TOML"),
])
def test_bad_cost_files_fail_cleanly(tmp_path, text, match):
    f = tmp_path / "costs.toml"
    f.write_text(text)
    with pytest.raises(CostFileError, match=match):
        load_cost_file(f)
    res = CliRunner().invoke(main, ["capture", "--board", BOARD, "--rate", "1e6", "--seconds", "1ms",
                                    "--cpu-costs", str(f)])
    assert res.exit_code == 2
    assert str(f) in res.output and match.split()[0].strip("'") in res.output


def test_cost_file_overrides_through_the_cli(tmp_path):
    f = tmp_path / "costs.toml"
    f.write_text("[costs]\nsyscall_ns = 2500.0\n")
    assert load_cost_file(f) == {"syscall_ns": 2500.0}
    out = tmp_path / "r.json"
    res = CliRunner().invoke(main, ["capture", "--board", BOARD, "--rate", "1e6", "--buffer-size", "16KiB",
                                    "--seconds", "5ms", "--cpu-costs", str(f), "--consumer", "touch",
                                    "--dma-mode", "simple", "--json", str(out)])
    assert res.exit_code == 0, res.output
    import json
    rec = json.loads(out.read_text())
    rec = rec.get("result", rec)
    assert rec["costs"]["syscall_ns"] == 2500.0 and rec["dma_mode"] == "simple" and rec["consumer"] == "touch"


def test_bad_cpu_costs_dict_is_refused_by_name():
    with pytest.raises(ValueError, match="cmo_line_ns = 'abc' is not a number"):
        run_capture(BOARD, 1e6, 4, 4096, 4, seconds=0.001, cpu_costs={"cmo_line_ns": "abc"})
    with pytest.raises(ValueError, match="consumer 'bogus'"):
        run_capture(BOARD, 1e6, 4, 4096, 4, seconds=0.001, consumer="bogus")
    with pytest.raises(ValueError, match="dma_mode 'dr'"):
        run_capture(BOARD, 1e6, 4, 4096, 4, seconds=0.001, dma_mode="dr")


def test_check_costs_names_where():
    with pytest.raises(CostFileError, match="cpu_costs: unknown cost item 'x'"):
        check_costs({"x": 1}, "cpu_costs")


@pytest.mark.parametrize("cache", ["sync", "uncached"])
def test_playback_copy_reaches_dram_once_per_byte(cache):
    """write() into a DMA buffer: the application's bytes are read (line fills) and reach DRAM once,
    by the clean's write-backs of the dirty lines (sync) or by the stores themselves (uncached)."""
    from sgdma.capture.transport import open_tx

    b = sgdma.VirtualBoard(BOARD)
    tx = open_tx(b, 4096, 4, cache=cache, api="copy")
    before = dict(b.cpu_traffic)
    n = 3 * 4096
    assert tx.write(np.arange(n, dtype=np.uint8)) == n
    tx.drain(1e7)
    after = b.cpu_traffic
    assert after["read_bytes"] - before["read_bytes"] == n
    assert after["write_bytes"] - before["write_bytes"] == n
