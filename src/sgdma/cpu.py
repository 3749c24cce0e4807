"""CPU cost model: what it costs a CPU of the SoC to build a BD ring (S0 sec. IV.B).

Mechanistic, not a fit of S0's output.  Building n BDs costs

    fixed  = ring_instructions x cpi / clock + barrier_ns
    per BD = bd_instructions x cpi / clock            (driver code)
           + stores_per_bd x store_ns                 (NXTDESC, BUFFER, CONTROL, STATUS [+ MSBs, APP])
           + lines_per_bd x cmo_line_cycles / clock   (the flush, one op per cache line of the BD)

where store_ns depends on the mapping (an L1 hit when "cached", a trip over the CPU's AXI port when
"device").  A Linux CPU adds, per sample: page walks for the 4 KiB pages the ring touches (TLB hit,
walk from L2 or walk from DDR: discrete modes), timer ticks (CONFIG_HZ, a few microseconds each)
and rare long stalls (preemption / device IRQs, Poisson in time, log-uniform up to ~30 us).  A
bare-metal CPU adds small Gaussian jitter only.  Every parameter is in the board preset's
[cpu.apu] / [cpu.rpu] section with its source.  All randomness comes from the caller's Generator.
"""
from __future__ import annotations

import math

import numpy as np

from . import pg021 as P
from . import presets

CPUS = ("apu", "rpu")
MAPPINGS = ("cached", "device")

_COMMON = ("core", "os", "clock_mhz", "mapping", "cpi", "ring_instructions", "bd_instructions", "store_ns",
           "cache_line_bytes", "cmo_line_cycles", "barrier_ns", "mmio_read_ns", "mmio_write_ns", "ddr_load_ns",
           "ddr_store_ns", "jitter_bd_ns", "jitter_ring_ns")
_LINUX = ("hz", "tick_ns", "tick_sd_ns", "stall_per_us", "stall_min_ns", "stall_max_ns", "page_bytes",
          "tlb_miss_prob", "walk_dram_prob", "walk_l2_ns", "walk_dram_ns")


def available(preset) -> list[str]:
    """CPU models a board preset defines (its [cpu.<name>] sections)."""
    cpu = presets.load(preset).get("cpu", {})
    return [name for name in CPUS if isinstance(cpu.get(name), dict) and "value" not in cpu[name]]


def bd_fields(addr_width: int, app_words: int = 0) -> tuple[str, ...]:
    """The 32-bit words a BD fill stores (PG021 BD layout): the MSB halves only when the DMA
    has addresses wider than 32 bits (the Xilinx driver skips them otherwise), APP words only
    with a control/status stream."""
    words = ["nxtdesc", "buffer", "control", "status"]
    if addr_width > 32:
        words[1:1] = ["nxtdesc_msb"]
        words[3:3] = ["buffer_msb"]
    return tuple(words + [f"app{k}" for k in range(min(app_words, P.BD_APP_COUNT))])


class CpuModel:
    """One CPU's costs on one board.  Build with ``CpuModel.for_board(board_or_preset, "apu")``."""

    def __init__(self, board: str, name: str, params: dict, addr_width: int = 32, app_words: int = 0,
                 ring_offset: int = 0):
        self.board, self.name, self.params = board, name, params
        v = {k: item["value"] for k, item in params.items()}
        need = _COMMON + (_LINUX if v.get("os") == "linux" else ())
        missing = [k for k in need if k not in v]
        if missing:
            raise ValueError(f"board {board!r} [cpu.{name}] lacks {', '.join(missing)}")
        if v["mapping"] not in MAPPINGS:
            raise ValueError(f"board {board!r} [cpu.{name}] mapping {v['mapping']!r}: choose {' or '.join(MAPPINGS)}")
        self.core, self.os, self.mapping = str(v["core"]), str(v["os"]), str(v["mapping"])
        self.linux = self.os == "linux"
        self.clock_mhz = float(v["clock_mhz"])
        cycle_ns = 1e3 / self.clock_mhz
        # exposed access costs (ns): MMIO to PL registers, uncached DDR for a mailbox
        self.mmio_read_ns = float(v["mmio_read_ns"])
        self.mmio_write_ns = float(v["mmio_write_ns"])
        self.ddr_load_ns = float(v["ddr_load_ns"])
        self.ddr_store_ns = float(v["ddr_store_ns"])
        # the work of one BD, counted
        self.fields = bd_fields(addr_width, app_words)
        self.stores_per_bd = len(self.fields)
        self.lines_per_bd = -(-P.BD_SIZE // int(v["cache_line_bytes"]))
        self.code_bd_ns = float(v["bd_instructions"]) * float(v["cpi"]) * cycle_ns
        self.store_bd_ns = self.stores_per_bd * float(v["store_ns"])
        self.cmo_bd_ns = self.lines_per_bd * float(v["cmo_line_cycles"]) * cycle_ns
        self.per_bd_ns = self.code_bd_ns + self.store_bd_ns + self.cmo_bd_ns
        self.fixed_ns = float(v["ring_instructions"]) * float(v["cpi"]) * cycle_ns + float(v["barrier_ns"])
        self.jitter_bd_ns, self.jitter_ring_ns = float(v["jitter_bd_ns"]), float(v["jitter_ring_ns"])
        self.ring_offset = int(ring_offset)
        self._v = v

    @classmethod
    def for_board(cls, board_or_preset, name: str, app_words: int = 0) -> "CpuModel":
        """The [cpu.<name>] model of a preset (name, .toml path or a VirtualBoard)."""
        board = board_or_preset
        preset = board.preset if hasattr(board, "axi_dma") else board
        doc = presets.load(preset)
        label = doc.get("name", str(preset))
        cpus = available(preset)
        if name not in cpus:
            raise ValueError(f"board {label!r} has no CPU {name!r}; available CPUs: {', '.join(cpus) or 'none'}")
        addr_width = board.axi_dma.addr_width if hasattr(board, "axi_dma") else int(doc["dma"]["addr_width"]["value"])
        lay = {k: item["value"] for k, item in doc.get("layout", {}).items()}
        ring_offset = int(lay.get("offset", 0)) + int(lay.get("rpmsg_bytes", 0))   # S0: rings after the RPMsg area
        return cls(label, name, doc["cpu"][name], addr_width, app_words, ring_offset)

    # -- what one ring touches ------------------------------------------------------
    def pages(self, n_bds: int) -> int:
        """4 KiB pages a ring of n BDs spans (its TLB entries)."""
        if not self.linux:
            return 0
        page = int(self._v["page_bytes"])
        first = self.ring_offset // page
        last = (self.ring_offset + n_bds * P.BD_SIZE - 1) // page
        return last - first + 1

    def base_ns(self, n_bds: int) -> float:
        """Noise-free cost: no page walk, tick or stall."""
        return self.fixed_ns + n_bds * self.per_bd_ns

    # -- sampling ---------------------------------------------------------------------
    def samples(self, n_bds: int, count: int, rng: np.random.Generator) -> np.ndarray:
        """``count`` independent times (ns) to build a ring of ``n_bds`` BDs; vectorised.

        The draws are made in a fixed order, so the same Generator state gives the same array.
        """
        n, count = int(n_bds), int(count)
        if n < 1 or count < 1:
            raise ValueError(f"n_bds={n_bds}, count={count}: both must be >= 1")
        sd = math.sqrt(n * self.jitter_bd_ns ** 2 + self.jitter_ring_ns ** 2)   # n independent BDs + one ring
        t = self.base_ns(n) + sd * rng.standard_normal(count)
        if self.linux:
            t += self._linux_ns(n, t, rng)
        return np.maximum(t, 0.0)

    def _linux_ns(self, n: int, t: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        v = self._v
        count = t.size
        # page walks: each page of the ring hits the TLB or walks from L2 or from DDR (discrete modes)
        miss, far = float(v["tlb_miss_prob"]), float(v["walk_dram_prob"])
        k = rng.multinomial(self.pages(n), [1 - miss, miss * (1 - far), miss * far], size=count)
        extra = k[:, 1] * float(v["walk_l2_ns"]) + k[:, 2] * float(v["walk_dram_ns"])
        busy = t + extra
        # rare long stalls: Poisson in the busy time, log-uniform durations
        m = rng.poisson(float(v["stall_per_us"]) * busy / 1e3)
        lo, hi = math.log(float(v["stall_min_ns"])), math.log(float(v["stall_max_ns"]))
        d = np.exp(rng.uniform(lo, hi, int(m.sum())))
        stalls = np.bincount(np.repeat(np.arange(count), m), weights=d, minlength=count)
        busy = busy + stalls
        # timer ticks: a tick every 1/HZ at a random phase; ticks landing inside the window
        period = 1e9 / float(v["hz"])
        ticks = np.floor(rng.random(count) + busy / period)
        tick = ticks * float(v["tick_ns"]) + np.sqrt(ticks) * float(v["tick_sd_ns"]) * rng.standard_normal(count)
        return extra + stalls + np.maximum(tick, 0.0)

    def bd_create_ns(self, n_bds: int, rng: np.random.Generator) -> float:
        """One sample: the time to build a ring of ``n_bds`` BDs (= ``samples(n_bds, 1, rng)[0]``)."""
        return float(self.samples(n_bds, 1, rng)[0])

    # -- reporting ---------------------------------------------------------------------
    def expected(self, n_bds: int) -> dict:
        """Mean cost of each mechanism for one ring (ns)."""
        n, v = int(n_bds), self._v
        out = {"fixed": self.fixed_ns, "code": n * self.code_bd_ns, "stores": n * self.store_bd_ns,
               "cache_maintenance": n * self.cmo_bd_ns, "page_walks": 0.0, "ticks": 0.0, "stalls": 0.0}
        if self.linux:
            miss, far = float(v["tlb_miss_prob"]), float(v["walk_dram_prob"])
            out["page_walks"] = self.pages(n) * miss * ((1 - far) * float(v["walk_l2_ns"]) + far * float(v["walk_dram_ns"]))
            busy = sum(out.values())
            lo, hi = float(v["stall_min_ns"]), float(v["stall_max_ns"])
            out["stalls"] = float(v["stall_per_us"]) * busy / 1e3 * (hi - lo) / math.log(hi / lo)
            out["ticks"] = (busy + out["stalls"]) * float(v["hz"]) / 1e9 * float(v["tick_ns"])
        out["total"] = sum(out.values())
        return out

    def describe(self) -> dict:
        """Every parameter with unit and source, plus what the model counts from them."""
        out = {k: dict(item) for k, item in self.params.items()}
        derived = {
            "stores_per_bd": (self.stores_per_bd, "store", "counted: PG021 BD words written: " + ", ".join(self.fields)),
            "lines_per_bd": (self.lines_per_bd, "line", f"counted: a {P.BD_SIZE}-byte BD over cache_line_bytes"),
            "per_bd_ns": (self.per_bd_ns, "ns", "derived: code + stores + cache maintenance per BD"),
            "fixed_ns": (self.fixed_ns, "ns", "derived: ring code + barrier, once per ring"),
            "ring_offset": (self.ring_offset, "byte", "derived: [layout] offset + rpmsg_bytes (S0 sec. III.D)"),
        }
        for k, (value, unit, source) in derived.items():
            out[k] = {"value": value, "unit": unit, "source": source}
        return {"board": self.board, "cpu": self.name, "core": self.core, "os": self.os, "parameters": out}

    def __repr__(self) -> str:
        return (f"CpuModel({self.board!r}, {self.name!r}: {self.core}, {self.os}, {self.mapping}, "
                f"{self.per_bd_ns:.1f} ns/BD + {self.fixed_ns:.1f} ns)")
