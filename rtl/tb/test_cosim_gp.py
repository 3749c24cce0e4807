"""Live co-simulation: the CPU writes and reads pl_regs_irq.v over GP (sgdma.cocotb.GpPort) and
waits for its interrupt (PlInterrupt).  Expectations: the preset's MMIO and IRQ-entry costs, the
RTL's own timer rule (irq rises TIMER clocks after the write is taken), the bytes written."""
import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotb.utils import get_sim_time

from sgdma.board.virtual import VirtualBoard
from sgdma.board.virtual import MMIO
from sgdma.cocotb import AxiProtocolError, GpPort, PlInterrupt, Software
from sgdma.hw import presets

BASE = 0x43C0_0000
CLK_PS = 10_000


def now_ps():
    return round(get_sim_time("ps"))


async def setup(dut, **kw):
    b = VirtualBoard("pynq-z2")
    cocotb.start_soon(Clock(dut.clk, CLK_PS, "ps").start())
    gp = GpPort(dut, "s_axil", dut.clk, b, base=BASE, size=0x1_0000, reset=dut.rst_n, **kw)
    irq = PlInterrupt(dut.irq, b)
    dut.rst_n.value = 0
    await ClockCycles(dut.clk, 4)
    dut.rst_n.value = 1
    await RisingEdge(dut.clk)
    return b, gp, irq


async def edges(dut, log):
    """AW handshakes and the irq line's rise, seen on the DUT's pins."""
    while True:
        await RisingEdge(dut.clk)
        if int(dut.s_axil_awvalid.value) and int(dut.s_axil_awready.value):
            log["aw"].append(now_ps())
        if int(dut.irq.value) and not log["irq"]:
            log["irq"].append(now_ps())


@cocotb.test()
async def registers_and_interrupt(dut):
    b, gp, irq = await setup(dut)
    apu = presets.load("pynq-z2")["cpu"]["apu"]
    read_ns, write_ns = b.option("cpu.mmio_read_ns"), b.option("cpu.mmio_write_ns")
    log = {"aw": [], "irq": []}
    cocotb.start_soon(edges(dut, log))

    t0 = now_ps()
    await gp.write32(BASE + 0x0, 0x1234ABCD)
    assert now_ps() - t0 == round(write_ns * 1000)          # the DUT answers within the posted cost
    t0 = now_ps()
    assert await gp.read32(BASE + 0x0) == 0x1234ABCD
    assert now_ps() - t0 == round(read_ns * 1000)

    assert irq.line() == (False, None, 0)                   # the board's IRQ_F2P[2]: low, never rose
    await gp.write32(BASE + 0x4, 50)
    t_write = log["aw"][-1]
    t_handler = await irq.wait(timeout_ns=10_000)
    assert log["irq"][0] - t_write == 50 * CLK_PS            # the RTL's rule: TIMER clocks after the handshake
    # the board's interrupt model saw the pin's edge: the register output changes on the clock edge
    # before the one a synchronous monitor first samples it high
    line = irq.line()
    assert line.level and line.rises == 1 and line.rose_ps == log["irq"][0] - CLK_PS + irq.offset
    assert irq.raised_ps == log["irq"][0] - CLK_PS
    assert round(t_handler * 1000) == irq.raised_ps + round(apu["irq_entry_ns"]["value"] * 1000)
    assert b.now_ps == round(t_handler * 1000) + irq.offset  # the board's CPU is in its handler
    assert await gp.read32(BASE + 0x8) == 1
    await gp.write32(BASE + 0x8, 1)
    assert await gp.read32(BASE + 0x8) == 0
    assert irq.line()[:3:2] == (False, 1)                    # the RTL cleared it: the line fell


@cocotb.test()
async def no_interrupt_is_a_bounded_wait(dut):
    b, gp, irq = await setup(dut)
    try:
        await irq.wait(timeout_ns=2_000)
    except TimeoutError as e:
        assert "irq" in str(e) and "2000 ns" in str(e), e
    else:
        raise AssertionError("wait returned without an interrupt")
    try:
        await gp.read32(BASE - 4)
    except ValueError as e:
        assert "outside the PL window" in str(e)
    else:
        raise AssertionError("an access outside the window was taken")


@cocotb.test(expect_error=AxiProtocolError)
async def unanswered_write_is_a_protocol_error(dut):
    """(BAD=1) The RTL takes a write to 0xC and never raises BVALID: the CPU's access ends in a
    protocol error after stall_clocks, not a hang (pytest reads the message)."""
    b, gp, irq = await setup(dut, stall_clocks=200)
    await gp.write32(BASE, 7)                                 # answered: the bridge is quiet
    await gp.write32(BASE + 0xC, 1)


@cocotb.test(expect_error=AxiProtocolError)
async def response_without_request_is_a_protocol_error(dut):
    """(BAD=2) The RTL raises BVALID when its timer fires, with no write open."""
    b, gp, irq = await setup(dut)
    await gp.write32(BASE + 0x4, 5)
    await ClockCycles(dut.clk, 50)


@cocotb.test()
async def board_software_runs_in_step_with_hdl(dut):
    """The board's own MMIO as a coroutine: each access starts at the HDL's time (the board is run
    up to it) and the HDL waits out the preset's cost of it; GP accesses and board calls interleave
    on one timeline."""
    b, gp, irq = await setup(dut)
    sw = Software(b)
    cpu = presets.load("pynq-z2")["cpu"]
    dma = MMIO(b, b.axi_dma.base, 0x10000)
    await ClockCycles(dut.clk, 7)                            # the HDL moves on alone: the board lags
    assert b.now_ps < now_ps() + sw.offset
    t0 = now_ps()
    sr = await sw.call(dma.read, 0x4)                         # MM2S DMASR after reset: halted
    assert sr & 1
    assert now_ps() - t0 == round(cpu["mmio_read_ns"]["value"] * 1000)
    assert b.now_ps == now_ps() + sw.offset                   # in step
    t1 = now_ps()
    await sw.call(dma.write, 0x0, 0x4)                        # MM2S DMACR reset bit
    assert now_ps() - t1 == round(cpu["mmio_write_ns"]["value"] * 1000)
    await gp.write32(BASE, 0x55)                              # the RTL's register, then the board's again
    t2 = now_ps()
    await sw.call(dma.read, 0x4)
    assert now_ps() - t2 == round(cpu["mmio_read_ns"]["value"] * 1000) and b.now_ps == now_ps() + sw.offset
