"""sgdma_csm unit tests: reset values, the GPIO handshake, counters at the edges.

Every expectation is counted from the clock edges the test drives: a value set
after edge e-1 is seen at edge e."""
import cocotb
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from sgdma_tb import C, edge, field_get, field_prep, start

SEL = {n: field_prep(C["CSM_CTL_SEL"], C[f"CSM_SEL_{n.upper()}"]) for n in ("setup", "latency", "throughput", "beats")}


def state(dut) -> int:
    return field_get(C["CSM_STS_STATE"], int(dut.gpio_status.value))


async def counters(dut, ctl: int) -> dict:
    out = {}
    for name, sel in SEL.items():
        dut.gpio_ctl.value = (ctl & ~C["CSM_CTL_SEL"]) | sel
        await ReadOnly()
        out[name] = int(dut.gpio_count.value)
        await RisingEdge(dut.clk)
    return out


async def idle_inputs(dut):
    dut.gpio_ctl.value = 0
    dut.gpio_length.value = 0
    dut.mon_tvalid.value = 0
    dut.mon_tready.value = 0
    dut.mon_tlast.value = 0
    await start(dut)
    await RisingEdge(dut.clk)


async def reset_and_start(dut, gap: int) -> None:
    """RESET for one clock, released at edge r, START seen at edge r + gap."""
    dut.gpio_ctl.value = C["CSM_CTL_RESET"]
    await RisingEdge(dut.clk)
    dut.gpio_ctl.value = 0                 # seen at edge r
    await RisingEdge(dut.clk)
    await ClockCycles(dut.clk, gap - 1)
    dut.gpio_ctl.value = C["CSM_CTL_START"]   # seen at edge r + gap
    await RisingEdge(dut.clk)


async def beats(dut, pattern: str) -> None:
    """Drive the monitor one clock per character: 'b' beat, 'L' beat with TLAST,
    's' TVALID without TREADY (stall), '.' idle."""
    for ch in pattern:
        dut.mon_tvalid.value = int(ch in "bLs")
        dut.mon_tready.value = int(ch in "bL")
        dut.mon_tlast.value = int(ch == "L")
        await RisingEdge(dut.clk)
    dut.mon_tvalid.value = 0
    dut.mon_tready.value = 0
    dut.mon_tlast.value = 0


@cocotb.test()
async def reset_values(dut):
    await idle_inputs(dut)
    await ReadOnly()
    assert state(dut) == C["CSM_STATE_IDLE"]
    assert int(dut.gpio_status.value) & (C["CSM_STS_READY"] | C["CSM_STS_DONE"]) == 0
    await RisingEdge(dut.clk)
    assert await counters(dut, 0) == {"setup": 0, "latency": 0, "throughput": 0, "beats": 0}


@cocotb.test()
async def handshake_sequence(dut):
    await idle_inputs(dut)
    dut.gpio_length.value = 4
    dut.gpio_ctl.value = C["CSM_CTL_RESET"]
    await edge(dut)
    assert state(dut) == C["CSM_STATE_IDLE"]
    await RisingEdge(dut.clk)
    dut.gpio_ctl.value = 0
    await edge(dut)
    assert state(dut) == C["CSM_STATE_WAIT_START"] and int(dut.gpio_status.value) & C["CSM_STS_READY"]
    await RisingEdge(dut.clk)
    dut.gpio_ctl.value = C["CSM_CTL_START"]
    await edge(dut)
    assert state(dut) == C["CSM_STATE_MM2S"] and not int(dut.gpio_status.value) & C["CSM_STS_READY"]
    await RisingEdge(dut.clk)
    await beats(dut, "bbbb")
    await ReadOnly()
    assert state(dut) == C["CSM_STATE_DONE"] and int(dut.gpio_status.value) & C["CSM_STS_DONE"]
    await RisingEdge(dut.clk)
    dut.gpio_ctl.value = C["CSM_CTL_START"] | C["CSM_CTL_ACK"]
    await edge(dut)
    assert state(dut) == C["CSM_STATE_IDLE"]


@cocotb.test()
async def counters_first_beat_and_tlast(dut):
    """length 0: DONE at the first TLAST; setup/latency are edge distances, throughput inclusive."""
    await idle_inputs(dut)
    await reset_and_start(dut, gap=7)                     # START seen 7 edges after release
    await ClockCycles(dut.clk, 4)                          # first beat at START edge + 5
    await beats(dut, "bbbL" + "bb")                        # beats after TLAST are not counted
    c = await counters(dut, C["CSM_CTL_START"])
    assert c == {"setup": 7, "latency": 5, "throughput": 4, "beats": 4}, c


@cocotb.test()
async def stall_mid_packet(dut):
    """TVALID without TREADY is no beat; the stall is inside the throughput window."""
    await idle_inputs(dut)
    dut.gpio_length.value = 5
    await reset_and_start(dut, gap=1)
    await beats(dut, "bb" + "sss" + "b.." + "bL")
    c = await counters(dut, C["CSM_CTL_START"])
    # beats at edges s+1, s+2, s+6, s+9, s+10: latency 1, throughput 10 - 1 + 1
    assert c == {"setup": 1, "latency": 1, "throughput": 10, "beats": 5}, c


@cocotb.test()
async def length_stops_inside_a_packet(dut):
    await idle_inputs(dut)
    dut.gpio_length.value = 3
    await reset_and_start(dut, gap=2)
    await beats(dut, "bbbbbL")
    c = await counters(dut, C["CSM_CTL_START"])
    assert c["beats"] == 3 and c["throughput"] == 3 and c["latency"] == 1, c


@cocotb.test()
async def beat_on_the_start_edge_counts_with_latency_zero(dut):
    """Control acts before the beat within one clock, as in the model."""
    await idle_inputs(dut)
    dut.gpio_length.value = 1
    dut.gpio_ctl.value = C["CSM_CTL_RESET"]
    await RisingEdge(dut.clk)
    dut.gpio_ctl.value = 0
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    dut.gpio_ctl.value = C["CSM_CTL_START"]
    await beats(dut, "b")
    c = await counters(dut, C["CSM_CTL_START"])
    assert c == {"setup": 2, "latency": 0, "throughput": 1, "beats": 1}, c


@cocotb.test()
async def stream_before_start_and_start_without_reset_are_ignored(dut):
    await idle_inputs(dut)
    dut.gpio_ctl.value = C["CSM_CTL_START"]                # no RESET pulse: stays IDLE
    await beats(dut, "bbL")
    await ReadOnly()
    assert state(dut) == C["CSM_STATE_IDLE"]
    await RisingEdge(dut.clk)
    dut.gpio_ctl.value = C["CSM_CTL_RESET"]
    await RisingEdge(dut.clk)
    dut.gpio_ctl.value = 0
    await beats(dut, "bbL")                                 # READY, not started: not counted
    await ReadOnly()
    assert state(dut) == C["CSM_STATE_WAIT_START"]
    await RisingEdge(dut.clk)
    assert (await counters(dut, 0))["beats"] == 0


@cocotb.test()
async def reset_clears_counters(dut):
    await idle_inputs(dut)
    await reset_and_start(dut, gap=3)
    await beats(dut, "bL")
    assert (await counters(dut, C["CSM_CTL_START"]))["beats"] == 2
    dut.gpio_ctl.value = C["CSM_CTL_RESET"]
    await RisingEdge(dut.clk)
    assert await counters(dut, C["CSM_CTL_RESET"]) == {"setup": 0, "latency": 0, "throughput": 0, "beats": 0}
