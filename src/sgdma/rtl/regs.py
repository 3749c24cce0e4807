"""rtl/generated/sgdma_csm_regs.vh from the C register contract.

The values come from sgdma._core.constants, which the binding compiles from
csrc/include/sgdma/csm.h (CSM_EXPORTS): the header stays the one source of
truth and the RTL never types an offset or a bit.
"""
from __future__ import annotations

from pathlib import Path

from .. import _core

INCLUDE = "sgdma_csm_regs.vh"


def _field(mask: int) -> tuple[int, int]:
    lsb = (mask & -mask).bit_length() - 1
    msb = mask.bit_length() - 1
    if mask != ((1 << (msb + 1)) - 1) ^ ((1 << lsb) - 1):
        raise ValueError(f"mask 0x{mask:x} is not one contiguous field")
    return lsb, msb


def render() -> str:
    c = _core.constants
    out = ["// sgdma_csm_regs.vh - the timing engine's register contract for the RTL.",
           "// Generated from csrc/include/sgdma/csm.h by `sgdma rtl regs`: do not edit.",
           "`ifndef SGDMA_CSM_REGS_VH", "`define SGDMA_CSM_REGS_VH", "",
           "// AXI GPIO (PG144) register offsets; block B sits one span above block A"]
    for name in ("CSM_GPIO_SPAN", "CSM_GPIO_DATA", "CSM_GPIO2_DATA"):
        out.append(f"`define SGDMA_{name:<24} 32'h{c[name]:08x}")
    out += ["", "// block A channel 1 (CPU -> PL) control, channel 2 (PL -> CPU) status"]
    for name in ("CSM_CTL_RESET", "CSM_CTL_START", "CSM_CTL_ACK", "CSM_CTL_SEL",
                 "CSM_STS_READY", "CSM_STS_DONE", "CSM_STS_STATE"):
        lsb, msb = _field(c[name])
        if lsb == msb:
            out.append(f"`define SGDMA_{name + '_BIT':<24} {lsb}")
        else:
            out.append(f"`define SGDMA_{name + '_LSB':<24} {lsb}")
            out.append(f"`define SGDMA_{name + '_MSB':<24} {msb}")
    sel_w = _field(c["CSM_CTL_SEL"])[1] - _field(c["CSM_CTL_SEL"])[0] + 1
    st_w = _field(c["CSM_STS_STATE"])[1] - _field(c["CSM_STS_STATE"])[0] + 1
    out += ["", "// counter select values (CSM_CTL_SEL)"]
    for name in ("CSM_SEL_SETUP", "CSM_SEL_LATENCY", "CSM_SEL_THROUGHPUT", "CSM_SEL_BEATS"):
        out.append(f"`define SGDMA_{name:<24} {sel_w}'d{c[name]}")
    out += ["", "// engine states (CSM_STS_STATE)"]
    for name in ("CSM_STATE_IDLE", "CSM_STATE_WAIT_START", "CSM_STATE_MM2S", "CSM_STATE_DONE"):
        out.append(f"`define SGDMA_{name:<24} {st_w}'d{c[name]}")
    out += ["", "`endif", ""]
    return "\n".join(out)


def table() -> list[tuple[str, str, str]]:
    """(register, bits, meaning) rows of the map, for the README."""
    c = _core.constants

    def bits(name):
        lsb, msb = _field(c[name])
        return f"{lsb}" if lsb == msb else f"{msb}:{lsb}"
    a, b = 0, c["CSM_GPIO_SPAN"]
    d1, d2 = c["CSM_GPIO_DATA"], c["CSM_GPIO2_DATA"]
    return [
        (f"A+0x{a + d1:x} ch1 (CPU→PL)", bits("CSM_CTL_RESET"), "RESET: hold the engine in IDLE, clear counters"),
        (f"A+0x{a + d1:x} ch1 (CPU→PL)", bits("CSM_CTL_START"), "START: rising edge in WAIT_START starts MM2S timing"),
        (f"A+0x{a + d1:x} ch1 (CPU→PL)", bits("CSM_CTL_ACK"), "ACK: rising edge in DONE returns to IDLE"),
        (f"A+0x{a + d1:x} ch1 (CPU→PL)", bits("CSM_CTL_SEL"),
         f"SEL: counter on block B ch1 (setup {c['CSM_SEL_SETUP']}, latency {c['CSM_SEL_LATENCY']}, "
         f"throughput {c['CSM_SEL_THROUGHPUT']}, beats {c['CSM_SEL_BEATS']})"),
        (f"A+0x{a + d2:x} ch2 (PL→CPU)", bits("CSM_STS_READY"), "READY: in WAIT_START"),
        (f"A+0x{a + d2:x} ch2 (PL→CPU)", bits("CSM_STS_DONE"), "DONE: payload seen, counters final"),
        (f"A+0x{a + d2:x} ch2 (PL→CPU)", bits("CSM_STS_STATE"),
         f"STATE: idle {c['CSM_STATE_IDLE']}, wait-start {c['CSM_STATE_WAIT_START']}, "
         f"mm2s {c['CSM_STATE_MM2S']}, done {c['CSM_STATE_DONE']}"),
        (f"B+0x{d1:x} ch1 (PL→CPU)", "31:0", "the selected counter, PL clocks (beats: beats)"),
        (f"B+0x{d2:x} ch2 (CPU→PL)", "31:0", "payload length in beats (0: until the first TLAST)"),
        (f"B = A+0x{b:x}", "", "block B's base"),
    ]


def write(rtl_dir: Path) -> Path:
    path = Path(rtl_dir) / "generated" / INCLUDE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render())
    return path
