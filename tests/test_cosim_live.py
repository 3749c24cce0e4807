"""Live co-simulation (sgdma.cocotb): RTL against the timed board, on Icarus.

The cocotb side (rtl/tb/test_cosim_memport.py) asserts the bytes software wrote and every burst's
latency against the model's PL read path run alone; here each case is one simulator run.
Skipped only when cocotb or Icarus is absent; .ci/run installs them."""
import importlib.util
import shutil

import numpy as np
import pytest

import sgdma

cocotb_missing = importlib.util.find_spec("cocotb") is None or not shutil.which("iverilog")
needs_sim = pytest.mark.skipif(cocotb_missing, reason="cocotb or iverilog not installed (pip install '.[rtl]')")


def run(case, tmp_path, params=None, env=None):
    from sgdma.rtl import live
    o, _ = live.run(live.Case(case, case, tuple((params or {}).items()), tuple((env or {}).items())), tmp_path)
    return o


@needs_sim
def test_reader_reads_the_cpus_bytes_at_the_models_latency(tmp_path):
    """pynq-z2 HP0, four 128-byte bursts, with and without a CPU copy load on the DDR controller."""
    lat = {}
    for load in ("", "800"):
        from sgdma.rtl import live
        o, r = live.run(live.Case("reads", "read_ddr_through_hp0", env=(("SGDMA_COSIM_CPU_LOAD", load),)),
                        tmp_path / f"b{load}")
        assert o.ok, o.failed
        assert r["latency_clocks"] == r["model_clocks"]
        lat[load] = r["latency_clocks"]
    # the CPU's traffic competes at the controller: the RTL sees it
    assert sum(lat["800"]) > sum(lat[""])


@needs_sim
def test_rtl_write_reaches_the_ddr_software_reads(tmp_path):
    o = run("write_lands_in_ddr", tmp_path, params={"WRITE": 1})
    assert o.ok, o.failed


@needs_sim
@pytest.mark.parametrize("bad, words", [
    (1, ["AR channel", "ARLEN=31", "AXI3", "at clock"]),
    (2, ["W channel", "WLAST high on beat 2 of 16", "AWLEN=15", "at clock"]),
    (3, ["R channel", "RREADY low for 151 clocks", "at clock"]),
])
def test_bad_axi_is_a_clear_error(tmp_path, bad, words):
    o = run("bad_axi_is_reported", tmp_path, params={"BAD": bad}, env={"STALL": "150"})
    assert o.ok, o.failed                      # the bridge raised AxiProtocolError, not a hang
    from sgdma.rtl import live
    line = live.protocol_error(o)
    for w in words:
        assert w in line, line


def test_port_must_be_the_boards_pl_port():
    pytest.importorskip("cocotbext.axi")
    from sgdma.cocotb.memport import port_spec
    with pytest.raises(ValueError, match=r"port='hp'"):
        port_spec(sgdma.VirtualBoard("pynq-z2", port="acp"), "hp0")
    with pytest.raises(ValueError, match=r"no \[port.hpc\]"):
        port_spec(sgdma.VirtualBoard("pynq-z2"), "hpc0")
    s = port_spec(sgdma.VirtualBoard("zcu102", port="hpc"), "hpc1")
    assert (s["axi"], s["width_bits"]) == (4, 128)
    assert port_spec(sgdma.VirtualBoard("pynq-z2", port="hp"), "hp0")["axi"] == 3


@needs_sim
@pytest.mark.parametrize("case", ["registers_and_interrupt", "no_interrupt_is_a_bounded_wait",
                                  "board_software_runs_in_step_with_hdl",
                                  "rtl_packets_land_in_ddr", "no_buffer_backpressures_the_rtl"])
def test_gp_interrupt_and_s2mm_stream(tmp_path, case):
    from sgdma.rtl import live
    c = next(c for c in live.CASES if c.testcase == case)
    o, _ = live.run(c, tmp_path)
    assert o.ok, o.failed


@needs_sim
@pytest.mark.parametrize("case, words", [
    ("unanswered_write_is_a_protocol_error",
     ["B channel", "s_axil_bvalid not asserted 200 clocks of clk", "write at 0x43c0000c", "never answered", " ns)"]),
    ("response_without_request_is_a_protocol_error",
     ["B channel", "s_axil_bvalid high with no write request open", "clk's edge", " ns)"]),
])
def test_gp_bad_slave_is_a_clear_error(tmp_path, case, words):
    """A DUT that never answers the CPU's access, or answers one never made: a protocol error that
    names the channel, the signal and the clock, not a hang."""
    from sgdma.rtl import live
    o, _ = live.run(next(c for c in live.CASES if c.testcase == case), tmp_path)
    assert o.ok, o.failed                      # the bridge raised AxiProtocolError
    line = live.protocol_error(o)
    for w in words:
        assert w in line, line


@needs_sim
@pytest.mark.parametrize("name", ["zcu102 hp0 (AXI4, 128 bits) reads", "zcu102 hp0 (AXI4, 128 bits) write"])
def test_zynqmp_port_is_axi4_and_128_bits(tmp_path, name):
    from sgdma.rtl import live
    o, res = live.run(next(c for c in live.CASES if c.name == name), tmp_path)
    assert o.ok, o.failed
    if res:
        assert res["latency_clocks"] == res["model_clocks"]


def test_pl_interrupt_gets_the_presets_gic_id():
    """UG585 Table 7-4: IRQ_F2P[n] is GIC ID 61+n; UG1085 Table 13-1: pl_ps_irq0[n] is 121+n."""
    pytest.importorskip("cocotbext.axi")
    from sgdma.cocotb.gp import pl_irq_gic_id
    from sgdma.hw import presets
    assert pl_irq_gic_id(presets.load("pynq-z2"), "pynq-z2", 2) == 63
    assert pl_irq_gic_id(presets.load("zcu102"), "zcu102", 7) == 128
    with pytest.raises(ValueError, match=r"s2mm_introut.*f2p=2\.\.7"):
        pl_irq_gic_id(presets.load("pynq-z2"), "pynq-z2", 1)
    with pytest.raises(ValueError, match=r"must be 0\.\.7"):
        pl_irq_gic_id(presets.load("zcu102"), "zcu102", 8)
    with pytest.raises(ValueError, match=r"no \[irq\]"):
        pl_irq_gic_id({}, "custom", 2)


@needs_sim
@pytest.mark.parametrize("name", ["MM2S into the RTL", "MM2S back-pressured", "MM2S with a quantum of 16",
                                  "MM2S with a quantum of 200"])
def test_dma_stream_source_into_rtl(tmp_path, name):
    """DmaStreamSource: every beat's time equals the model alone (its own stream, or its
    consumer-paced stream at the RTL's TREADY edges); the bytes are the packets software queued;
    a quantum beyond the read latency makes the first beat late, never early."""
    from sgdma.rtl import live
    o, _ = live.run(next(c for c in live.CASES if c.name.startswith(name)), tmp_path)
    assert o.ok, o.failed


@needs_sim
def test_stuck_tready_is_a_clear_error(tmp_path):
    from sgdma.rtl import live
    o, _ = live.run(next(c for c in live.CASES if c.testcase == "stuck_tready_is_a_protocol_error"), tmp_path)
    assert o.ok, o.failed
    line = live.protocol_error(o)
    for w in ("MM2S stream", "TREADY low for 201 clocks", "beat 0", "at clock"):
        assert w in line, line


@needs_sim
@pytest.mark.parametrize("seq", [0, 1])
def test_s0_live_equals_model_and_replay(tmp_path, seq):
    """Issue 29 example 1: the gate sequence live through the repo's CSM and DAC streamer. The
    cocotb side asserts every word's arrival edge, the counters and the DAC's underflows against
    the model alone; here the counters also equal today's replay of the model's trace."""
    from sgdma.rtl import cosim, live
    g, n, gc, lc, f = live.S0_LIVE[seq]
    case = next(c for c in live.CASES if c.testcase == "s0_gate_sequence_live" and f"{g} gates x {n} B" in c.name)
    o, res = live.run(case, tmp_path / "live")
    assert o.ok, o.failed
    replay = cosim.run(cosim.gate_sequence("zcu102", g, n, gc, lc, f, seed=3), build_dir=tmp_path / "replay")
    assert replay.equal, replay.mismatches
    assert res["counters"] == replay.rtl["counters"] == res["model_counters"]
    assert res["beat_edges"] == res["model_beat_edges"]
    assert res["underflow_count"] == replay.rtl["underflow_count"]


def test_pl_interrupt_is_a_line_of_the_boards_interrupt_model():
    """IRQ_F2P[2..7] in the board (C): the board runs up to the edge's time (never back), a rise
    is counted once per low-to-high edge, and the DMA's own inputs [0]/[1] are refused."""
    from sgdma.board.plport import pl_irq_line, pl_irq_set
    b = sgdma.VirtualBoard("pynq-z2")
    assert pl_irq_line(b, 5) == (False, None, 0)
    pl_irq_set(b, 5, True, 7_000_000)
    assert b.now_ps == 7_000_000 and pl_irq_line(b, 5) == (True, 7_000_000, 1)
    pl_irq_set(b, 5, True, 8_000_000)                      # still high: no new rise
    pl_irq_set(b, 5, False, 9_000_000)
    pl_irq_set(b, 5, True, 1_000)                          # an edge in the board's past lands at its now
    assert pl_irq_line(b, 5) == (True, 9_000_000, 2)
    assert pl_irq_line(b, 6).level is False                # lines are independent
    for bad in (0, 1, 8):
        with pytest.raises(ValueError, match=r"lines 2\.\.7.*AXI DMA"):
            pl_irq_set(b, bad, True, 0)


def _live_stream(board):
    """Take every MM2S beat as soon as offered (the bridge's C calls, no HDL): the bytes, TLASTs."""
    from sgdma.board.plport import mm2s_beat
    out, lasts = b"", []
    for _ in range(100_000):                   # bounded: the beats and the waits between them
        off = board.mm2s_offer_ps()
        if off is None:
            board.advance(10)
            continue
        data, n, tlast = mm2s_beat(board)
        assert board.mm2s_accept(off) == tlast
        out += data[:n]
        lasts.append(tlast)
        if tlast:
            return out, lasts
    raise AssertionError("no TLAST")


@pytest.mark.parametrize("keyhole", [False, True])
def test_live_beats_carry_the_models_stream_bytes(keyhole):
    """DmaStreamSource's data: the beats a live consumer takes carry the bytes the model's own
    stream records (sink_record), the keyhole bit's repeated first beat included; TLAST once, last."""
    from sgdma.hw import pg021 as P

    def run(live):
        b = sgdma.VirtualBoard("pg021", include_sg=0, sink_record=True)
        buf = b.allocate(4096, np.uint8)
        buf[:] = np.arange(4096) % 251
        if live:
            b.mm2s_live()
        base = b.axi_dma.base + P.MM2S_BASE
        b.write32(base + P.DMACR, P.CR_RS | (P.CR_KEYHOLE if keyhole else 0))
        b.write32(base + P.ADDR, buf.physical_address & 0xFFFFFFFF)
        b.write32(base + P.LENGTH, 1000)
        return b

    got, lasts = _live_stream(run(True))
    model = run(False)
    model.run_until_quiet()
    (want,) = model.mm2s_sink.packets()
    assert got == want and len(got) == 1000
    assert lasts[-1] and not any(lasts[:-1])
