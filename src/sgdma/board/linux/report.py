"""``sgdma info --board linux:...``: what this Linux system offers sgdma."""
from __future__ import annotations

from .discovery import devices
from .spec import parse_spec


def info_lines(spec: str) -> tuple[list[str], dict]:
    """Lines to print and the data behind them; with dma=/buffers= in the spec the board is opened too."""
    d = devices()
    lines = ["UIO devices (/sys/class/uio)"]
    if not d["uio"]:
        lines.append("  none: give the DMA's device-tree node compatible = \"generic-uio\" and boot with "
                     "uio_pdrv_genirq.of_id=generic-uio (docs/boards.md)")
    for u in d["uio"]:
        where = f"0x{u['addr']:010x} + 0x{u['size']:x}" if u["size"] else "no register map"
        lines.append(f"  uio{u['index']:<3} {u['name']:<24} {where}")
    lines.append("u-dma-buf buffers (/sys/class/u-dma-buf)")
    if not d["udmabuf"]:
        lines.append("  none: `modprobe u-dma-buf udmabuf0=4194304` or a device-tree node compatible = "
                     "\"ikwzm,u-dma-buf\" (docs/boards.md)")
    for b in d["udmabuf"]:
        lines.append(f"  {b['name']:<28} 0x{b['phys']:010x} + {b['size']} bytes, sync_mode {b['sync_mode']}, "
                     f"{'DMA-coherent' if b['coherent'] else 'not coherent (cache=' + _fits(b['sync_mode']) + ')'}")
    kw = parse_spec(spec)
    if "dma" in kw:
        from .board import LinuxBoard

        board = LinuxBoard(**kw)
        blk = board.axi_dma
        lines.append(f"Opened {board!r}")
        lines.append(f"  {'SG engine' if blk.include_sg else 'simple mode only'} (DMASR.SGIncld); "
                     f"{blk.data_width}-bit data, {blk.addr_width}-bit addresses, length width {blk.length_width} "
                     f"({'preset ' + board.preset if board.preset else 'PG021 defaults: give preset= if the IP differs'})")
        for ch, regs in board.dma_registers().items():
            lines.append(f"  {ch}: DMACR=0x{regs['DMACR']:08x} [{regs['DMACR_decoded']}] "
                         f"DMASR=0x{regs['DMASR']:08x} [{regs['DMASR_decoded']}]")
        d["opened"] = board.info()
        board.close()
    return lines, d


def _fits(sync_mode: int) -> str:
    """The cache= values a u-dma-buf's sync_mode maps (O_SYNC: 1/5 strongly ordered, 2/3/6/7 write-combine,
    0/4 cached; unknown: any)."""
    if sync_mode < 0:
        return "sync, uncached or writecombine"
    return {0: "sync", 1: "sync or uncached"}.get(sync_mode % 4, "sync or writecombine")
