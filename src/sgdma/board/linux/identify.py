"""Is a register window an AXI DMA's?  PG021: DMACR bit 1 always reads 1, and an AXI DMA sets no bit that
PG021 does not define in DMACR or DMASR.  Another IP (an AXI GPIO: GPIO_TRI resets to all ones) or an empty
window (all zeros) fails on one of the two channels' blocks at least; a build with one channel leaves the other
block reading zero, so one channel that passes is enough."""
from __future__ import annotations

from sgdma.hw import pg021 as P

CR_DEFINED = P.CR_RS | P.CR_RSVD1 | P.CR_RESET | P.CR_KEYHOLE | P.CR_CYCLIC | P.CR_IRQ_ALL | P.CR_THRESHOLD | P.CR_DELAY
SR_DEFINED = (P.SR_HALTED | P.SR_IDLE | P.SR_SGINCLD | P.SR_ERR_ALL | P.SR_IRQ_ALL | P.SR_THRESHOLD_STS
              | P.SR_DELAY_STS)


def channel_looks_like_dma(cr: int, sr: int) -> bool:
    return bool(cr & P.CR_RSVD1) and not cr & ~CR_DEFINED & 0xFFFF_FFFF and not sr & ~SR_DEFINED & 0xFFFF_FFFF


def check_axi_dma(read32, base: int, what: str) -> None:
    """ValueError naming what was found unless the window at base reads as an AXI DMA."""
    found = []
    for ch in ("mm2s", "s2mm"):
        off = base + P.channel_offset(ch)
        cr, sr = read32(off + P.DMACR), read32(off + P.DMASR)
        if channel_looks_like_dma(cr, sr):
            return
        found.append(f"{ch.upper()} DMACR=0x{cr:08x} DMASR=0x{sr:08x}")
    raise ValueError(f"{what} at 0x{base:x} is not an AXI DMA: {', '.join(found)} (an AXI DMA's DMACR bit 1 "
                     "always reads 1 and it sets no bit PG021 leaves undefined; all zeros is another IP, an "
                     "empty address, or a DMA held in reset or without a clock): check dma= names the AXI DMA's "
                     "device (`sgdma info --board linux:` lists the UIO devices)")
