"""A board preset in a few lines: CPU, DDR, ports and DMA, each figure derived from the preset's own values and
given with their sources (``sgdma info --board``)."""
from __future__ import annotations

from sgdma.hw import presets


def _v(table: dict, key: str, default=None):
    item = table.get(key)
    return item["value"] if isinstance(item, dict) and "value" in item else default


def _src(table: dict, *keys: str) -> str:
    return "; ".join(dict.fromkeys(table[k]["source"] for k in keys if isinstance(table.get(k), dict)
                                   and table[k].get("source")))


def dram_peak_mbps(doc: dict) -> float:
    """Peak DRAM data-bus bandwidth: bus bytes x two transfers per memory clock (DDR)."""
    d = doc.get("dram", {})
    tck = _v(d, "tck_ns", 0.0)
    return _v(d, "bus_bytes", 0) * 2e3 / tck if tck else 0.0


def refresh_share(doc: dict) -> float:
    """Fraction of the time a refresh blocks the devices: tRFC / tREFI."""
    d = doc.get("dram", {})
    trefi = _v(d, "trefi_ns", 0.0)
    return _v(d, "trfc_ns", 0.0) / trefi if trefi else 0.0


def summary(doc: dict) -> list[tuple[str, str, str]]:
    """(what, figure, sources) rows."""
    rows = []
    apu = doc.get("cpu", {}).get("apu")
    if isinstance(apu, dict) and "clock_mhz" in apu:
        rows.append(("CPU", f"{_v(apu, 'core', '?')} at {_v(apu, 'clock_mhz'):g} MHz ({_v(apu, 'os', '?')})",
                     _src(apu, "core", "clock_mhz")))
    rpu = doc.get("cpu", {}).get("rpu")
    if isinstance(rpu, dict) and "clock_mhz" in rpu:
        rows.append(("RPU", f"{_v(rpu, 'core', '?')} at {_v(rpu, 'clock_mhz'):g} MHz ({_v(rpu, 'os', '?')})",
                     _src(rpu, "core", "clock_mhz")))
    d = doc.get("dram", {})
    if _v(d, "enabled", 0) and _v(d, "tck_ns"):
        kind = " ".join(str(x) for x in (_v(d, "standard"), _v(d, "device")) if x) or "DRAM"
        rate = 2e3 / _v(d, "tck_ns")
        rows.append(("DDR", f"{kind}: {8 * _v(d, 'bus_bytes')}-bit at {rate:.0f} MT/s = "
                            f"{dram_peak_mbps(doc):.0f} MB/s peak; {_v(d, 'bank_groups')} x "
                            f"{_v(d, 'banks_per_group')} banks, CL{_v(d, 'cl')}",
                     _src(d, "device", "bus_bytes", "tck_ns")))
        rows.append(("refresh", f"tRFC {_v(d, 'trfc_ns'):g} ns every tREFI {_v(d, 'trefi_ns') / 1e3:g} us "
                                f"({100 * refresh_share(doc):.1f} % of the time)", _src(d, "trfc_ns", "trefi_ns")))
    c = doc.get("ddrc", {})
    if _v(d, "enabled", 0):
        rows.append(("controller", _controller(c), _src(c, "scheme", "aging", "pl_rd_priority", "cpu_rd_priority")))
    for name, region in doc.get("ddr", {}).items():
        rows.append((f"memory {name}", f"0x{_v(region, 'base'):x}, {_v(region, 'size') / 2**20:.0f} MiB",
                     _src(region, "size")))
    ic = doc.get("ic", {})
    if _v(ic, "width_bits"):
        rows.append(("DMA port", _port(ic), _src(ic, "width_bits", "clock_mhz")))
    for name, port in doc.get("port", {}).items():
        rows.append((f"port {name}", _port(port), _src(port, "width_bits", "clock_mhz")))
    dma = doc.get("dma", {})
    rows.append(("AXI DMA", f"{'SG' if _v(dma, 'include_sg') else 'simple'}, {_v(dma, 'data_width')}-bit at "
                            f"{_v(dma, 'clock_mhz'):g} MHz = {_v(dma, 'data_width') / 8 * _v(dma, 'clock_mhz'):.0f} "
                            f"MB/s per direction, bursts of {_v(dma, 'max_burst')} beats",
                 _src(dma, "data_width", "clock_mhz")))
    return rows


def _controller(c: dict) -> str:
    """The DDR controller's scheme: in order, or arbitrated with start priorities (lower first) and aging."""
    if not _v(c, "scheme", 0):
        return "in order (one queue, arrival order)"
    hpr = [p for p in ("cpu", "pl") if _v(c, f"{p}_hpr", 0)]
    return (f"arbitrated: start priority cpu {_v(c, 'cpu_rd_priority')}/{_v(c, 'cpu_wr_priority')}, "
            f"pl {_v(c, 'pl_rd_priority')}/{_v(c, 'pl_wr_priority')} (read/write; lower first), "
            f"aging {'on' if _v(c, 'aging', 0) else 'off'}, "
            f"starvation limits LPR {_v(c, 'lpr_max_starve_clocks')} / write {_v(c, 'w_max_starve_clocks')} clocks"
            + (f", HPR reads from {' and '.join(hpr)}" if hpr else ""))


def _port(t: dict) -> str:
    w, mhz = _v(t, "width_bits"), _v(t, "clock_mhz")
    return f"{w}-bit at {mhz:g} MHz = {w / 8 * mhz:.0f} MB/s per direction, {_v(t, 'request_ns', 0):g} ns each way"


def listing() -> list[tuple[str, str]]:
    """(name, one-line description) for every board preset, then every alias as 'another name for B'."""
    out = [(n, presets.load(n).get("description", "")) for n in presets.boards()]
    out += [(a, f"another name for {b} (alias)") for a, b in presets.aliases().items()]
    return out
