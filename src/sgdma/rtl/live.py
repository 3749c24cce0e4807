"""The live co-simulation examples (sgdma.cocotb against rtl/tb/pl_mem_reader.v,
pl_stream_gen.v, pl_stream_sink.v and pl_regs_irq.v), one simulator run each: run by `sgdma rtl test` and tests/test_cosim_live.py."""
from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from pathlib import Path

from . import sim

TESTBENCH, TOP, SOURCES = "test_cosim_memport", "pl_mem_reader", ["pl_mem_reader.v"]


# S0 live gate sequences (gates, bytes per gate, DAC clocks per word, lead clocks, DAC FIFO): the
# starving and the back-pressured sequence of cosim.default_scenarios, shortened for CI.
S0_LIVE = ((24, 32, 25, 125, 16), (16, 64, 60, 60, 4))


@dataclass(frozen=True)
class Case:
    name: str
    testcase: str             # the cocotb test in rtl/tb/test_cosim_memport.py
    params: tuple = ()        # RTL parameters
    env: tuple = ()           # environment of the cocotb side
    testbench: str = TESTBENCH
    top: str = TOP
    sources: tuple = tuple(SOURCES)


CASES = (
    Case("hp0 reads, idle DDR", "read_ddr_through_hp0"),
    Case("hp0 reads, CPU load 800 MB/s", "read_ddr_through_hp0", env=(("SGDMA_COSIM_CPU_LOAD", "800"),)),
    Case("hp0 write, read back by software", "write_lands_in_ddr", params=(("WRITE", 1),)),
    Case("zcu102 hp0 (AXI4, 128 bits) reads", "read_ddr_through_hp0", params=(("DATA_WIDTH", 128), ("BEATS", 8)),
         env=(("PRESET", "zcu102"), ("DATA_WIDTH", "128"), ("BEATS", "8"))),
    Case("zcu102 hp0 (AXI4, 128 bits) write", "write_lands_in_ddr",
         params=(("WRITE", 1), ("DATA_WIDTH", 128), ("BEATS", 8)),
         env=(("PRESET", "zcu102"), ("DATA_WIDTH", "128"), ("BEATS", "8"))),
    Case("AXI3 burst too long -> protocol error", "bad_axi_is_reported", params=(("BAD", 1),)),
    Case("WLAST early -> protocol error", "bad_axi_is_reported", params=(("BAD", 2),)),
    Case("RREADY never asserted -> protocol error", "bad_axi_is_reported", params=(("BAD", 3),),
         env=(("STALL", "150"),)),
    Case("RTL packets into S2MM, received by the driver", "rtl_packets_land_in_ddr", testbench="test_cosim_stream",
         top="pl_stream_gen", sources=("pl_stream_gen.v",)),
    Case("S2MM without a buffer back-pressures the RTL", "no_buffer_backpressures_the_rtl",
         testbench="test_cosim_stream", top="pl_stream_gen", sources=("pl_stream_gen.v",)),
    Case("MM2S into the RTL, TREADY always high: the model's stream", "mm2s_drives_the_rtl_as_the_models_stream",
         testbench="test_cosim_source", top="pl_stream_sink", sources=("pl_stream_sink.v",)),
    *(Case(f"MM2S with a quantum of {q} clocks: {what}", "quantum_trades_exactness_for_speed",
           env=(("QUANTUM", str(q)),), testbench="test_cosim_source", top="pl_stream_sink",
           sources=("pl_stream_sink.v",))
      for q, what in ((16, "within the read latency, exact"), (200, "longer, the first beat late"))),
    Case("MM2S back-pressured, TREADY 1 clock in 3: the model's consumer",
         "tready_duty_cycle_paces_the_dma_as_the_models_consumer", params=(("READY_EVERY", 3),),
         env=(("READY_EVERY", "3"),), testbench="test_cosim_source", top="pl_stream_sink",
         sources=("pl_stream_sink.v",)),
    Case("MM2S with TREADY stuck low -> protocol error", "stuck_tready_is_a_protocol_error",
         params=(("READY_EVERY", 60000),), env=(("READY_EVERY", "60000"),), testbench="test_cosim_source",
         top="pl_stream_sink", sources=("pl_stream_sink.v",)),
    *(Case(f"S0 live: {g} gates x {n} B, DAC {gc} clk/word, FIFO {f}", "s0_gate_sequence_live",
           params=(("USE_DAC", 1), ("DATA_WIDTH", 128), ("FIFO_DEPTH", f), ("GATE_CLOCKS", gc), ("LEAD_CLOCKS", lc)),
           env=(("GATES", str(g)), ("BYTES", str(n)), ("GATE_CLOCKS", str(gc)), ("LEAD_CLOCKS", str(lc)),
                ("FIFO", str(f)), ("SGDMA_CLK_FS", "4000000")),
           testbench="test_cosim_s0", top="sgdma_cosim_top",
           sources=("sgdma_csm.v", "sgdma_dac_stream.v", "sgdma_cosim_top.v"))
      for g, n, gc, lc, f in S0_LIVE),
    Case("GP registers and interrupt", "registers_and_interrupt", testbench="test_cosim_gp", top="pl_regs_irq",
         sources=("pl_regs_irq.v",)),
    Case("no interrupt: bounded wait", "no_interrupt_is_a_bounded_wait", testbench="test_cosim_gp",
         top="pl_regs_irq", sources=("pl_regs_irq.v",)),
    Case("board software in step with HDL time", "board_software_runs_in_step_with_hdl", testbench="test_cosim_gp",
         top="pl_regs_irq", sources=("pl_regs_irq.v",)),
    Case("GP write never answered -> protocol error", "unanswered_write_is_a_protocol_error", params=(("BAD", 1),),
         testbench="test_cosim_gp", top="pl_regs_irq", sources=("pl_regs_irq.v",)),
    Case("GP response without a request -> protocol error", "response_without_request_is_a_protocol_error",
         params=(("BAD", 2),), testbench="test_cosim_gp", top="pl_regs_irq", sources=("pl_regs_irq.v",)),
)


def run(case: Case, build_dir: Path, d: Path | None = None) -> tuple[sim.Outcome, dict | None]:
    """One case; with the reader's per-burst latencies (RTL and model) when it reports them."""
    build_dir = Path(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    out = build_dir / f"{case.testcase}_{zlib.crc32(repr(case).encode()):08x}.json"
    if out.exists():
        out.unlink()
    o = sim.run(case.testbench, case.top, list(case.sources), params=dict(case.params), d=d, build_dir=build_dir,
                env={"TESTCASE": case.testcase, "SGDMA_COSIM_OUT": str(out), **dict(case.env)})
    return o, (json.loads(out.read_text()) if out.exists() else None)


def protocol_error(o: sim.Outcome) -> str | None:
    """The bridge's protocol error line in the simulator's log, if any."""
    for line in o.log.read_text(errors="replace").splitlines():
        if "AxiProtocolError" not in line and " ERROR " in line and "sgdma.cocotb." in line:
            return line.split("sgdma.cocotb.", 1)[1].split(None, 1)[1].strip()
    return None
