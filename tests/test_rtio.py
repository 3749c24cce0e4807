"""RTIO on the virtual board, checked against expectations computed here from the documented layouts and rules
(/work/shared/reference/artiq-rtio.md), never against the model's own verdict."""
import struct

import numpy as np
import pytest

import sgdma
from sgdma.rtio import Core, CoreDMA, DMAError, RTIOError, RTIOUnderflow, TTLOut
from sgdma.rtio import bench as B
from sgdma.rtio import trace as T
from sgdma.rtio.analyzer import Analyzer, decode_dump, summary, to_vcd


def board(**opts):
    return sgdma.VirtualBoard("zc706", options=opts or None)


# ---- trace encoding (sec. 2.4) ----------------------------------------------------------------------

def hand_record(channel, address, ts, words):
    """One record written out field by field from the table in artiq-rtio.md sec. 2.4."""
    body = bytes([13 + 4 * len(words)]) + channel.to_bytes(3, "little") + struct.pack("<q", ts) + bytes([address])
    return body + b"".join(struct.pack("<I", w) for w in words)


def test_encoding_is_byte_exact():
    ev = T.Events(np.array([0, 8, -5, 1 << 40], np.int64),
                  np.array([(3 << 8) | 0, (3 << 8) | 1, (0x123456 << 8) | 0xAB, 8 << 8], np.uint32),
                  np.array([1, 1, 2, 16], np.uint8),
                  np.array([1, 0, 0xDEADBEEF, 7] + list(range(100, 116)), np.uint32))
    expected = (hand_record(3, 0, 0, [1]) + hand_record(3, 1, 8, [0]) + hand_record(0x123456, 0xAB, -5, [0xDEADBEEF, 7])
                + hand_record(8, 0, 1 << 40, list(range(100, 116))) + b"\x00")
    assert len(hand_record(8, 0, 0, list(range(16)))) == 77          # the documented maximum
    assert T.encode(ev) == expected
    assert T.encode_py(ev) == expected
    for dec in (T.decode(expected), T.decode_py(expected)):
        assert dec.ts.tolist() == ev.ts.tolist()
        assert dec.target.tolist() == ev.target.tolist()
        assert dec.nwords.tolist() == ev.nwords.tolist()
        assert dec.data.tolist() == ev.data.tolist()


def test_decode_rejects_malformed_and_unterminated():
    good = hand_record(1, 0, 5, [1])
    with pytest.raises(ValueError, match="end marker"):
        T.decode(good)
    with pytest.raises(ValueError, match="byte 17: record length 15"):
        T.decode(good + b"\x0f" + bytes(20))
    with pytest.raises(ValueError, match="1..16"):
        T.encode(T.Events(np.zeros(1, np.int64), np.zeros(1, np.uint32), np.array([17], np.uint8),
                          np.zeros(17, np.uint32)))


def test_stored_trace_starts_aligned_and_is_the_encoding():
    b = board()
    core = Core(b)
    dma = CoreDMA(core)
    ttl = TTLOut(core, 2)
    with dma.record("a"):
        ttl.on()
        core.delay_mu(40)
        ttl.off()
    with dma.record("b"):
        ttl.pulse_mu(8)
    for name, recs in (("a", hand_record(2, 0, 0, [1]) + hand_record(2, 0, 40, [0])),
                       ("b", hand_record(2, 0, 0, [1]) + hand_record(2, 0, 8, [0]))):
        epoch, duration, ptr, ddma = dma.get_handle(name)
        assert ptr % 128 == 0 and not ddma
        stored = dma.trace_bytes(name)
        assert stored[:len(recs) + 1] == recs + b"\x00" and not any(stored[len(recs) + 1:])
    assert dma.get_handle("a")[1] == 40 and dma.get_handle("b")[1] == 8


# ---- playback: relocation, epochs, underflow ----------------------------------------------------------

def test_playback_relocates_to_now_and_advances_by_duration():
    b = board()
    core = Core(b)
    dma = CoreDMA(core)
    ttl = TTLOut(core, 1)
    rel = [0, 30, 100, 131]
    with dma.record("t"):
        for i, t in enumerate(rel):
            core.at_mu(t)
            ttl.set_o(i % 2 == 0)
        core.at_mu(200)
    core.break_realtime(10_000)
    start = core.now_mu()
    dma.playback("t")
    assert core.now_mu() == start + 200
    b.rtio.drain(int(1e9))
    e = b.rtio.edges()
    assert e["t_mu"].tolist() == [start + t for t in rel]
    assert e["data"].tolist() == [1, 0, 1, 0]
    assert (e["channel"] == 1).all()


def test_epochs_invalidate_handles():
    b = board()
    core = Core(b)
    dma = CoreDMA(core)
    ttl = TTLOut(core, 0)
    with dma.record("x"):
        ttl.pulse_mu(10)
    h = dma.get_handle("x")
    core.break_realtime(10_000)
    dma.playback_handle(h)                       # current: plays
    with dma.record("y"):
        ttl.pulse_mu(10)
    with pytest.raises(DMAError, match="Invalid handle"):
        dma.playback_handle(h)
    h2 = dma.get_handle("x")
    assert h2[0] == h[0] + 1
    dma.erase("y")
    with pytest.raises(DMAError, match="Invalid handle"):
        dma.playback_handle(h2)
    with pytest.raises(DMAError, match="'y'"):
        dma.playback("y")
    with pytest.raises(DMAError, match="'y'"):
        dma.erase("y")


def test_underflow_latches_and_drops_the_rest():
    b = board()
    core = Core(b)
    dma = CoreDMA(core)
    n, k, step = 40, 25, 50
    ts = np.arange(n, dtype=np.int64) * step
    ts[k] = -1_000_000                          # behind the counter whenever played
    dma.store("u", T.Events.single_word(ts, 5 << 8, 1), n * step)
    core.break_realtime(20_000)
    now = core.now_mu()
    with pytest.raises(RTIOUnderflow) as ei:
        dma.playback("u")
    e = ei.value
    assert e.channel == 5 and e.timestamp == now - 1_000_000
    assert e.dropped == n - k                    # the offending event and every one after it
    assert "channel 5" in str(e) and str(now - 1_000_000) in str(e)
    b.rtio.drain(int(1e9))
    assert b.rtio.edges()["t_mu"].tolist() == [now + int(t) for t in ts[:k]]


def test_kernel_output_behind_the_counter_raises_with_channel_and_timestamp():
    for ini in ("csr", "acp", "fifo"):
        b = board()
        core = Core(b, ini)
        ttl = TTLOut(core, 3)
        wall = core.get_rtio_counter_mu()
        core.at_mu(wall - 500)
        if ini == "fifo":
            ttl.on()                              # posted: the error is latched and read back later
            with pytest.raises(RTIOUnderflow, match="channel 3"):
                core.wait_until_submitted()
        else:
            with pytest.raises(RTIOUnderflow, match=f"channel 3, {wall - 500} mu"):
                ttl.on()


def test_acp_batch_names_the_failing_entry():
    b = board()
    core = Core(b, "acp-batch", batch_capacity=16)
    ttl = TTLOut(core, 4)
    core.break_realtime(50_000)
    t0 = core.now_mu()
    with pytest.raises(RTIOUnderflow, match=f"channel 4, {t0 - 200_000} mu"):
        with core.batch():
            ttl.on()
            core.delay_mu(100)
            ttl.off()
            core.at_mu(t0 - 200_000)
            ttl.on()
            core.at_mu(t0 + 1000)
            ttl.off()
    b.rtio.drain(int(1e9))
    assert b.rtio.edges()["t_mu"].tolist() == [t0, t0 + 100]   # the batch stops at the first error


# ---- the core's rules (sec. 1.4) ---------------------------------------------------------------------------

def test_lane_count_limits_events_per_coarse_cycle_and_errors_are_counted_not_raised():
    b = board()
    core = Core(b)
    core.break_realtime(50_000)
    t = core.now_mu() // 8 * 8
    lanes = int(b.option("rtio.lanes"))
    core.at_mu(t)
    for ch in range(lanes + 1):                  # one more than the lanes, all in one coarse cycle
        core.output((ch % 9) << 8, 1)
    c = b.rtio.counters()
    assert c["sequence_errors"] == 1 and c["written"] == lanes


def test_two_outputs_on_a_channel_in_one_coarse_cycle_collide():
    b = board()
    core = Core(b)
    core.break_realtime(50_000)
    t = core.now_mu() // 8 * 8
    core.at_mu(t)
    core.output(6 << 8, 1)
    core.at_mu(t + 3)                            # same coarse cycle (8 fine steps), later fine timestamp
    core.output(6 << 8, 0)
    b.rtio.drain(int(1e9))
    c = b.rtio.counters()
    assert c["collisions"] == 1 and c["emitted"] == 1


def test_full_fifo_stalls_the_submitter():
    b = board()
    core = Core(b)
    depth = int(b.option("rtio.fifo_depth"))
    core.break_realtime(1000)
    t0 = core.now_mu()
    for i in range(depth + 1):
        core.at_mu(t0 + 100_000 * (i + 1))
        core.output(0, i & 1)
    # event depth+1 could only enter once event 1 had left the lane: the CPU is past event 1's time
    assert b.now_ns >= t0 + 100_000
    assert b.rtio.counters()["busy_waits"] == 1


def test_wide_channel_carries_sixteen_words():
    b = board()
    core = Core(b)
    core.break_realtime(10_000)
    core.output(8 << 8, list(range(1, 17)))
    with pytest.raises(RTIOError, match="1..16"):
        core.output(8 << 8, list(range(17)))
    b.rtio.drain(int(1e9))
    assert b.rtio.edges()["data"].tolist() == [1]


# ---- initiators (sec. 5) -----------------------------------------------------------------------------------

def test_csr_transactions_follow_from_the_layout_and_cost_what_the_port_costs():
    b = board()
    r = B.kernel_interval(b, "csr")
    # per event: target store + o_data word 0 store + o_status load; the delay: 64-bit now load and store
    assert r["gp_reads_per_event"] == pytest.approx(3, abs=0.01)
    assert r["gp_writes_per_event"] == pytest.approx(4, abs=0.01)
    slower = B.kernel_interval(board(**{"rtio.csr_read_ns": 280.0}), "csr")
    # every load is on the CPU's critical path: (280 - csr_read_ns) more per load, three loads per event
    assert slower["interval_ns"] - r["interval_ns"] == pytest.approx(3 * (280.0 - b.option("rtio.csr_read_ns")), abs=2)
    acp = B.kernel_interval(b, "acp")
    acp_slow = B.kernel_interval(board(**{"rtio.csr_read_ns": 280.0}), "acp")
    assert acp["interval_ns"] == acp_slow["interval_ns"]          # ACPKI does not touch GP per event
    assert r["interval_ns"] > acp["interval_ns"] > r["gateware_limit_ns"]


def test_acp_interval_is_its_round_trip():
    b = board()
    g = lambda k: b.option(f"rtio.{k}")
    coarse = 1e3 / g("clock_mhz")
    cpu = 1e3 / g("cpu_mhz")
    # CPU: call + stores + sev, barrier; gateware: sync, read (96 B, data in after 5 beats), CRI write, reply write
    # (24 B = 3 beats); CPU re-fetch; then the cursor delay.  Edges round up to the RTIO clock: +/- 2 cycles.
    expect = ((g("output_cycles") + 3 * g("store_cycles") + g("store_cycles") + g("sev_cycles") + g("delay_cycles")
               + g("store_cycles")) * cpu + g("barrier_ns") + g("evento_sync_cycles") * coarse + g("acp_read_ns")
              + 5 * coarse + g("cri_write_cycles") * coarse + g("acp_write_ns") + 3 * coarse + g("poll_miss_ns"))
    r = B.kernel_interval(b, "acp")
    assert abs(r["interval_ns"] - expect) <= 2 * coarse + 1


def test_credit_fifo_approaches_the_gateware_limit():
    b = board()
    rows = {ini: B.kernel_interval(board(), ini) for ini in ("csr", "acp", "acp-batch", "fifo")}
    fifo = rows["fifo"]["interval_ns"]
    assert fifo == min(r["interval_ns"] for r in rows.values())
    # one posted GP transaction per event; the CPU's own work overlaps the port's acceptance time
    cpu = (b.option("rtio.output_cycles") + b.option("rtio.delay_cycles")) * 1e3 / b.option("rtio.cpu_mhz")
    assert fifo <= max(b.option("rtio.csr_write_ns"), cpu) + 2
    assert rows["fifo"]["gp_reads_per_event"] < 0.05              # a credit refresh only when the count hits 0
    # with a free port it is the gateware that limits: one CRI write per 3 RTIO cycles
    fast = B.kernel_interval(board(**{"rtio.csr_write_ns": 1.0, "rtio.cpu_mhz": 8000.0}), "fifo")
    assert fast["interval_ns"] == pytest.approx(fast["gateware_limit_ns"], abs=1)


def test_softcore_baseline_is_its_bus():
    r = B.kernel_interval(sgdma.VirtualBoard("kc705_softcore"), "csr")
    assert r["board"] == "kc705_softcore"
    # 24 CPU cycles at 125 MHz, 3 loads of 40 ns; stores are posted: the CPU waits for the bus to take a store only
    # when one is still in its 24 ns - 3 of the 4 (target->o_data->load, and the now hi->lo pair); the last now
    # store overlaps the next event's call overhead
    assert r["interval_ns"] == pytest.approx(24 * 8 + 3 * 40 + 3 * 24, abs=2)


# ---- DMA rate and the analyzer (sec. 3, 4) --------------------------------------------------------------------

def test_dma_rate_is_the_gateware_unless_the_port_is_too_slow():
    # counted by hand from artiq gateware/rtio/dma.py for a 17-byte record on the 64-bit Zynq reader: CRIMaster
    # IDLE -> WRITE -> CHECK_STATE (ack) = 3 cycles, then TimeOffset's registered stage accepts the next record
    # only once its output is empty: 1 bubble.  The RawSlicer refills 17 bytes in 2-3 fetch cycles + 1 output
    # cycle, hidden behind those 4.  4 cycles at 125 MHz = 32 ns.
    b = board()
    assert B.dma_interval(b)["interval_ns"] == pytest.approx(32.0, abs=0.5)
    with_an = B.dma_interval(board(), analyzer=True)
    assert with_an["interval_ns"] == pytest.approx(32.0, abs=0.5)   # the analyzer never stalls the CRI
    # seed 001 sec. 5: the limit is the DMA/RTIO gateware, not memory: the analyzer keeps up at it
    # (one 32-byte message = 4 beats of 8 bytes = 4 cycles, as long as the DMA's 4 per record)
    assert with_an["analyzer_lost"] == 0 and not with_an["analyzer_overflow"]
    # a 64-bit port at 50 MHz moves 400 MB/s: a 17-byte record needs 42.5 ns
    slow = B.dma_interval(board(**{"ic.clock_mhz": 50.0}))
    assert slow["interval_ns"] == pytest.approx(17 / 0.4, abs=2.5)


def test_dma_long_records_are_bound_by_the_slicer():
    # a 16-word record is 77 bytes: the RawSlicer fetches 77 / 8 = 9.625 words on average between outputs, + its
    # output cycle = 10.625 cycles at 8 ns (the CRI master's 4 hide behind it)
    from sgdma.rtio.bench import dma_limit_ns
    assert dma_limit_ns(board(), 77) == pytest.approx(10.625 * 8)
    assert dma_limit_ns(board(), 17) == pytest.approx(4 * 8)


def test_analyzer_overflow_is_flagged_when_messages_outrun_the_writer():
    # a 32-bit analyzer/DMA bus: a message takes 8 beats (64 ns), the DMA's 17-byte record 17/4 + 1 = 5.25 cycles
    r = B.dma_interval(board(**{"rtio.bus_bytes": 4}), analyzer=True)
    assert r["interval_ns"] == pytest.approx(5.25 * 8, abs=4.5)
    assert r["analyzer_overflow"] and r["analyzer_lost"] > 0


def test_analyzer_ring_wraps_oldest_first(tmp_path):
    b = board()
    core = Core(b)
    an = Analyzer(core, ring_bytes=4 * 32)
    ttl = TTLOut(core, 0)
    core.break_realtime(10_000)
    t0 = core.now_mu()
    for i in range(10):
        core.at_mu(t0 + 1000 * i)
        ttl.set_o(i % 2 == 0)
    b.rtio.drain(int(1e9))
    dump = an.dump()
    d = decode_dump(dump)
    s = summary(d)
    assert s["wrapped"] and s["sent_bytes"] == 128 and s["total_bytes"] == 11 * 32   # 10 outputs + stopped
    m = d.messages
    # the last four messages in order: outputs 7, 8, 9, then the stopped message
    assert m["timestamp"][:3].tolist() == [t0 + 7000, t0 + 8000, t0 + 9000]
    assert m["type"].tolist() == [0, 0, 0, 3]
    info = to_vcd(d, str(tmp_path / "w.vcd"))
    text = (tmp_path / "w.vcd").read_text()
    assert "wrapped" in text and info["notes"]


def test_analyzer_dump_header_and_message_layout():
    b = board()
    core = Core(b)
    an = Analyzer(core)
    core.break_realtime(10_000)
    t = core.now_mu()
    core.output((2 << 8) | 1, 1)
    b.rtio.drain(int(1e9))
    dump = an.dump()
    assert dump[:1] == b"e"
    sent, total, ovf, logch, dds = struct.unpack_from("<IQBBB", dump, 1)
    assert (sent, total, ovf, dds) == (64, 64, 0, 1)
    # zc706: TTL channels 0-7 and the wide channel 8; ARTIQ's LogChannel comes after every PHY channel and
    # RTIO_LOG_CHANNEL is its index, so comm_analyzer must not take TTL channel 0 for the log channel
    assert logch == 9
    msg = dump[16:48]
    # big-endian fields of sec. 4.2: data 0-7, address 8-11, rtio_counter 12-19, timestamp 20-27, type|channel 28-31
    assert struct.unpack(">Q", msg[0:8])[0] == 1
    assert struct.unpack(">I", msg[8:12])[0] == 1
    assert struct.unpack(">q", msg[20:28])[0] == t
    assert struct.unpack(">I", msg[28:32])[0] == (2 << 2) | 0
    assert 0 < struct.unpack(">q", msg[12:20])[0] < t                # the wall clock when it was submitted


# ---- bad input ---------------------------------------------------------------------------------------------

def test_bad_input_gets_clear_errors():
    b = board()
    core = Core(b)
    dma = CoreDMA(core, region_bytes=4096)
    ttl = TTLOut(core, 0)
    with pytest.raises(DMAError, match="already recording"):
        with dma.record("a"):
            with dma.record("b"):
                pass
    assert core._recorder is None
    with pytest.raises(RTIOError, match="1..16"):
        with dma.record("w"):
            core.output(8 << 8, list(range(17)))
    with pytest.raises(DMAError, match="does not fit the DMA region of 4096 bytes"):
        with dma.record("big"):
            for _ in range(300):
                ttl.pulse_mu(10)
    with pytest.raises(ValueError, match=r"\[rtio\]"):
        sgdma.VirtualBoard("zedboard").rtio
    with pytest.raises(ValueError, match="initiator"):
        Core(b, "pio")


def test_same_seed_same_numbers():
    a = B.dma_interval(sgdma.VirtualBoard("zc706", seed=3), analyzer=True)
    b = B.dma_interval(sgdma.VirtualBoard("zc706", seed=3), analyzer=True)
    assert a == b


# ---- CLI ---------------------------------------------------------------------------------------------------

def test_cli_bench_analyze_demo(tmp_path):
    import json

    from click.testing import CliRunner

    from sgdma.cli import main

    run = CliRunner()
    r = run.invoke(main, ["rtio", "bench", "--initiator", "fifo", "--baseline", "", "--json", str(tmp_path / "b.json"),
                          "--plot", str(tmp_path)])
    assert r.exit_code == 0, r.output
    rows = json.loads((tmp_path / "b.json").read_text())
    assert rows[0]["initiator"] == "fifo" and (tmp_path / "rtio_intervals.png").exists()
    r = run.invoke(main, ["rtio", "demo", "--pulses", "50", "--out", str(tmp_path / "d")])
    assert r.exit_code == 0, r.output
    assert "sustained DMA event interval" in r.output
    dump = tmp_path / "d" / "analyzer.dump"
    r = run.invoke(main, ["rtio", "analyze", str(dump), "--vcd", str(tmp_path / "o.vcd")])
    assert r.exit_code == 0, r.output
    assert "$var wire 1" in (tmp_path / "o.vcd").read_text()
    (tmp_path / "bad.dump").write_bytes(b"xyz")
    r = run.invoke(main, ["rtio", "analyze", str(tmp_path / "bad.dump"), "--vcd", str(tmp_path / "p.vcd")])
    assert r.exit_code == 2 and "endianness" in r.output
    r = run.invoke(main, ["rtio", "bench", "--board", "zedboard"])
    assert r.exit_code == 2 and "[rtio]" in r.output


# ---- GP and ACP costs from their clock crossings, seed 001's comparisons (issue 26 sec. 4) ---------------------

def test_gp_costs_are_one_round_trip_through_the_crossings():
    b = board()
    cpu2x, pl = 3 / 800 * 1e3, 8.0          # CPU_2x = 800/3 MHz, the CSRs on the 125 MHz RTIO clock
    # out: 1 source + 4 destination clocks; the bridge's 2 cycles; back: 1 + 4; 8 PS interconnect stages
    by_hand = (cpu2x + 4 * pl) + 2 * pl + (pl + 4 * cpu2x) + 8 * cpu2x
    assert b.option("rtio.csr_read_ns") == pytest.approx(by_hand, abs=0.5)
    assert b.option("rtio.csr_write_ns") == b.option("rtio.csr_read_ns")   # a write crosses the same circuits
    part = 3 / 666.67 * 1e3, 10.0            # the part file: 667 MHz A9, a 100 MHz register slave
    assert b.option("cpu.mmio_read_ns") == pytest.approx(
        (part[0] + 4 * part[1]) + 2 * part[1] + (part[1] + 4 * part[0]) + 8 * part[0], abs=0.5)


def test_acp_reply_is_seen_before_its_response_returns():
    b = board()
    cpu, pl = 1.25, 8.0
    # AR in (1 PL + 4 CPU), the SCU's L1 lookup (10 CPU), R out (1 CPU + 4 PL); the reply: AW/W in + SCU write
    assert b.option("rtio.acp_read_ns") == pytest.approx((pl + 4 * cpu) + 10 * cpu + (cpu + 4 * pl), abs=0.5)
    assert b.option("rtio.acp_write_ns") == pytest.approx((pl + 4 * cpu) + 10 * cpu, abs=0.5)


def test_seed_001_orders_the_initiators():
    soft = B.kernel_interval(sgdma.VirtualBoard("kc705_softcore"), "csr")["interval_ns"]
    csr = B.kernel_interval(board(), "csr")["interval_ns"]
    acp = B.kernel_interval(board(), "acp")["interval_ns"]
    assert csr / soft > 1.7      # "over 70 % slower than mor1kx"
    assert acp < soft            # ACPKI "exceeds the RTIO event submission performance" of the softcore
