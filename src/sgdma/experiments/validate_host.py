"""`sgdma validate` rows for the CPU's two uncached memory types, against the u-dma-buf README's
measurements (ikwzm/udmabuf Readme.md, "Table-1" checkbuf and "Table-2" clearbuf; a Cortex-A9 Zynq-7000
under Linux, board not named): a buffer opened with O_SYNC under sync_mode 1 is strongly ordered
(pgprot_noncached), under sync_mode 2 or 3 Normal non-cacheable (pgprot_writecombine / dmacoherent).

The model runs the same loops on the zynq7000 preset's board with its own cost items, the way the
capture transport runs them (TransportCosts): nothing here is fitted to these figures.
"""
from __future__ import annotations

from sgdma.board.virtual import VirtualBoard
from sgdma.models.cpu import CpuModel

MIB = 1 << 20
#: Table-2, sync_mode 1 with O_SYNC, 1 MByte: memset() 99 times in 0.912 s.
CLEARBUF_SO_S, CLEARBUF_PASSES = 0.912, 99
#: Table-1, 1 MByte, 9 passes of "store every byte, then load and compare every byte":
#: cached (sync_mode 1 without O_SYNC) 0.434 s, strongly ordered (sync_mode 1, O_SYNC) 2.283 s,
#: write-combine (sync_mode 2, O_SYNC) 1.616 s.
CHECKBUF_CACHED_S, CHECKBUF_SO_S, CHECKBUF_WC_S = 0.434, 2.283, 1.616
CHECKBUF_PASSES = 9
#: Table-2, sync_mode 2 (write-combine) with O_SYNC, 1 MByte: memset() 99 times in 0.063 s.
CLEARBUF_WC_S = 0.063
#: The region the loops run in (any PS DDR address of the preset: the bank and row pattern is what counts).
ADDR = 0x1000_0000


def _run(board, ops, nbytes: int) -> float:
    """ns the CPU spends on ``ops`` ((kind, keywords) pairs) over ``nbytes`` at ADDR."""
    t = 0.0
    for kind, kw in ops:
        r = board.cpu_op(kind, ADDR, nbytes, **kw)
        t += (r["t_end_ps"] - r["t_start_ps"]) / 1e3
    return t


def _byte_loop_extra_ns(preset: str, policy: str, nbytes: int) -> float:
    """checkbuf's time beyond the cached run for one pass over ``nbytes``: its byte stores, then its
    byte loads, each load's data compared before the next (in-order issue: one load in flight).
    Strongly ordered, every store waits for its response; write-combine, the stores merge and are
    posted (their issue is the loop's own time, which the cached run has too)."""
    c = CpuModel.for_board(preset, "apu").transport(policy)
    path = c.uncached_path_ns
    if policy == "uncached":
        stores = [("uncached_write", {"ns_per_word": float(c._v["so_store_ns"]), "word_bytes": 1})]
    else:
        stores = [("uncached_write", {"ns_per_word": 0.0, "word_bytes": int(c._v["wc_store_bytes"])})]
    loads = [("uncached_read", {"ns_per_word": path, "word_bytes": 1, "outstanding": 1})]
    return _run(VirtualBoard(preset, seed=0), stores + loads, nbytes)


def _check(figure, published, model, band, ok, unit, note, counted=True) -> dict:
    """One row, as the fields of validate.Check (which wraps it: this module does not import validate).
    ``counted`` False: a known miss, shown with its band but left out of validate's verdict."""
    return dict(figure=figure, published=float(published), model=float(model), band=band, ok=bool(ok), unit=unit,
                note=note, counted=counted)


def _memset_row(preset: str, policy: str, seconds: float, what: str, note: str, counted: bool = True) -> dict:
    """clearbuf's memset of 1 MByte (99 passes in ``seconds``) against the policy's store operations."""
    c = CpuModel.for_board(preset, "apu").transport(policy)
    ns = _run(VirtualBoard(preset, seed=0), c.store_ops(), MIB)
    published, model = CLEARBUF_PASSES * MIB / seconds / 1e6, MIB * 1e3 / ns
    return _check(f"u-dma-buf Table-2: memset of a {what} buffer (A9)", published, model, "0.75x .. 1.25x",
                  0.75 <= model / published <= 1.25, "MB/s", f"{preset}: {note}", counted)


def host_checks(preset: str = "zynq7000") -> list[dict]:
    so = CpuModel.for_board(preset, "apu").transport("uncached")
    out = [_memset_row(preset, "uncached", CLEARBUF_SO_S, "strongly-ordered",
                       f"one {so.uncached_word_bytes}-byte store per so_store_ns, no merging")]
    so_x = _byte_loop_extra_ns(preset, "uncached", 64 << 10)
    wc_x = _byte_loop_extra_ns(preset, "writecombine", 64 << 10)
    published = (CHECKBUF_SO_S - CHECKBUF_CACHED_S) / (CHECKBUF_WC_S - CHECKBUF_CACHED_S)
    out.append(_check("u-dma-buf Table-1: byte loop, strongly ordered / write-combine time beyond cached",
                     published, so_x / wc_x, "0.8x .. 1.2x", 0.8 <= so_x / wc_x / published <= 1.2, "x",
                     f"{preset}: per byte {so_x / (64 << 10):.0f} ns (SO) vs {wc_x / (64 << 10):.0f} ns (WC): "
                     f"SO stores wait, WC stores merge; loads one at a time in both"))
    # the write-combine byte load alone: its stores are posted, so the time beyond cached is the loads'
    published = (CHECKBUF_WC_S - CHECKBUF_CACHED_S) / (CHECKBUF_PASSES * MIB) * 1e9
    model = wc_x / (64 << 10)
    out.append(_check("u-dma-buf Table-1: write-combine byte load, time beyond cached", published, model,
                     "0.75x .. 1.25x", 0.75 <= model / published <= 1.25, "ns",
                     f"{preset}: uncached_path_ns + the board's DDRC and DRAM read"))
    wc = CpuModel.for_board(preset, "apu").transport("writecombine")
    out.append(_memset_row(preset, "writecombine", CLEARBUF_WC_S, "write-combine",
                           f"{int(wc._v['wc_stores_in_flight'])} 8-byte writes in flight, each answered after "
                           f"wc_store_ack_ns (early BRESP); known miss, not counted: the model's store path is slower",
                           counted=False))
    return out
