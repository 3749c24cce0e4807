"""sgdma_dac_stream unit tests (built with DATA_WIDTH=16, FIFO_DEPTH=4, GATE_CLOCKS=5,
LEAD_CLOCKS=3): reset values, playback timing, FIFO full and empty, underflows.

Expectations are counted from the edges the test drives: word j accepted at edge
a_j plays at p_j = max(p_{j-1} + GATE, a_j), p_0 = a_0 + LEAD; late if a_j > due."""
import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from sgdma_tb import cycle, start

DEPTH, GATE, LEAD = 4, 5, 3


class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.played, self.late, self.accepted, self.starved = [], [], [], []

    async def begin(self):
        d = self.dut
        d.s_axis_tvalid.value = 0
        d.s_axis_tlast.value = 0
        d.s_axis_tdata.value = 0
        await start(d)
        cocotb.start_soon(self.monitor())

    async def monitor(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            now = cycle()
            await ReadOnly()
            if int(d.dac_valid.value):
                self.played.append((now, int(d.dac_data.value)))
            if int(d.underflow.value):
                self.late.append(now)
            if int(d.starved.value) and (not self.starved or self.starved[-1][1] != now - 1):
                self.starved.append([now, now])
            elif int(d.starved.value):
                self.starved[-1][1] = now

    async def send(self, words, gaps=None, lasts=()):
        """Offer word i `gaps[i]` clocks after the previous one was accepted; hold until TREADY."""
        d = self.dut
        for i, w in enumerate(words):
            for _ in range(gaps[i] if gaps else 0):
                d.s_axis_tvalid.value = 0
                await RisingEdge(d.clk)
            d.s_axis_tvalid.value = 1
            d.s_axis_tdata.value = w
            d.s_axis_tlast.value = int(i in lasts)
            while True:
                await ReadOnly()
                ready = int(d.s_axis_tready.value)
                await RisingEdge(d.clk)
                if ready:
                    self.accepted.append(cycle())
                    break
        d.s_axis_tvalid.value = 0

    async def idle(self, n):
        for _ in range(n):
            await RisingEdge(self.dut.clk)


def expected_plays(accepted):
    """Play edges, and (due, arrival) of every late word."""
    plays, late, prev = [], [], None
    for j, a in enumerate(accepted):
        due = a + LEAD if j == 0 else prev + GATE
        p = max(due, a)
        if a > due:
            late.append((due, a))
        plays.append(p)
        prev = p
    return plays, late


@cocotb.test()
async def reset_values(dut):
    b = Bench(dut)
    await b.begin()
    await ReadOnly()
    assert int(dut.s_axis_tready.value) == 1
    assert int(dut.underflow_count.value) == 0 and int(dut.first_underflow_valid.value) == 0
    assert int(dut.dac_valid.value) == 0


@cocotb.test()
async def plays_in_order_at_the_gate_rate(dut):
    b = Bench(dut)
    await b.begin()
    await b.send([0x11, 0x22, 0x33], lasts=(2,))
    await b.idle(LEAD + 3 * GATE + 2)
    plays, late = expected_plays(b.accepted)
    assert [c for c, _ in b.played] == plays and [w for _, w in b.played] == [0x11, 0x22, 0x33]
    assert late == [] and int(dut.underflow_count.value) == 0


@cocotb.test()
async def fifo_full_back_pressures_until_a_word_plays(dut):
    b = Bench(dut)
    await b.begin()
    words = list(range(1, 10))
    await b.send(words)
    await b.idle(LEAD + len(words) * GATE + 2)
    # word j (j >= DEPTH) can enter only on the clock word j - DEPTH plays
    plays, late = expected_plays(b.accepted)
    for j in range(DEPTH + 1, len(words)):
        assert b.accepted[j] == plays[j - DEPTH], (j, b.accepted, plays)
    assert [c for c, _ in b.played] == plays and [w for _, w in b.played] == words
    assert late == [] and int(dut.underflow_count.value) == 0


@cocotb.test()
async def underflow_counts_late_words_with_the_first_gate(dut):
    """Gate 0 = words 0,1 (TLAST on 1); gate 1 = word 2, late; gate 2 = words 3,4, word 4 late."""
    b = Bench(dut)
    await b.begin()
    await b.send([1, 2, 3, 4, 5], gaps=[0, 0, LEAD + 2 * GATE + 4, 0, 3 * GATE], lasts=(1, 2, 4))
    await b.idle(3 * GATE)
    plays, late = expected_plays(b.accepted)
    assert len(late) == 2
    assert b.late == [a for _, a in late] and [c for c, _ in b.played] == plays
    # starved from the due edge to the edge before the word arrives
    assert [tuple(s) for s in b.starved[:2]] == [(d, a - 1) for d, a in late]
    assert int(dut.underflow_count.value) == 2
    assert int(dut.first_underflow_valid.value) == 1 and int(dut.first_underflow_gate.value) == 1


@cocotb.test()
async def empty_fifo_passes_a_late_word_straight_through(dut):
    b = Bench(dut)
    await b.begin()
    await b.send([7, 8], gaps=[0, LEAD + GATE + 6])
    await b.idle(GATE + 2)
    plays, late = expected_plays(b.accepted)
    assert plays[1] == b.accepted[1]                      # played on the clock it arrived
    assert b.played == [(plays[0], 7), (plays[1], 8)] and late == [(plays[0] + GATE, b.accepted[1])]
    assert b.late == [b.accepted[1]] and int(dut.underflow_count.value) == 1


@cocotb.test()
async def an_ended_stream_is_no_underflow(dut):
    b = Bench(dut)
    await b.begin()
    await b.send([1, 2], lasts=(1,))
    await b.idle(LEAD + 6 * GATE)
    assert b.starved and int(dut.underflow_count.value) == 0 and b.late == []


@cocotb.test()
async def no_underflow_before_the_first_word(dut):
    b = Bench(dut)
    await b.begin()
    await b.idle(5 * GATE)
    assert b.late == [] and int(dut.underflow_count.value) == 0 and b.played == []


@cocotb.test()
async def axi_stream_frames_play_in_order(dut):
    """A protocol-level source (cocotbext-axi) honouring TREADY: three gates, FIFO
    filled past its depth, every word played once, in order, on the gate grid."""
    from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSource

    b = Bench(dut)
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst_n, reset_active_level=False)
    await b.begin()
    gates = [[0x0101, 0x0202], [0x0303], [0x0404, 0x0505, 0x0606, 0x0707, 0x0808]]
    for words in gates:
        await src.send(AxiStreamFrame(b"".join(w.to_bytes(2, "little") for w in words)))
    await src.wait()
    await b.idle(LEAD + 10 * GATE)
    flat = [w for g in gates for w in g]
    assert [w for _, w in b.played] == flat
    cycles = [c for c, _ in b.played]
    assert all(y - x == GATE for x, y in zip(cycles, cycles[1:]))   # no slip: the FIFO never ran dry
    assert int(dut.underflow_count.value) == 0
