"""CPU cost model: what it costs a CPU of the SoC to build a BD ring (S0 sec. IV.B), and to move
captured data to an application (``CpuModel.transport``: copies, cache maintenance, system calls,
interrupt wake-ups; used by sgdma.capture).

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

from sgdma.hw import pg021 as P
from sgdma.hw import presets

CPUS = ("apu", "rpu")
MAPPINGS = ("cached", "device")

_COMMON = ("core", "os", "clock_mhz", "mapping", "cpi", "ring_instructions", "bd_instructions", "store_ns",
           "cache_line_bytes", "cmo_line_cycles", "barrier_ns", "mmio_read_ns", "mmio_write_ns", "ddr_load_ns",
           "ddr_store_ns", "jitter_bd_ns", "jitter_ring_ns")
_LINUX = ("hz", "tick_ns", "tick_sd_ns", "stall_per_us", "stall_min_ns", "stall_max_ns", "page_bytes",
          "tlb_miss_prob", "walk_dram_prob", "walk_l2_ns", "walk_dram_ns")


_DOCS: dict = {}


def preset_doc(preset) -> dict:
    """``presets.load`` memoised by file and modification time (a preset is parsed once per
    process, not once per model; callers must not modify the document)."""
    path = presets.path(preset)
    key = (str(path), path.stat().st_mtime_ns)
    doc = _DOCS.get(key)
    if doc is None:
        doc = _DOCS[key] = presets.load(path)
    return doc


def available(preset) -> list[str]:
    """CPU models a board preset defines (its [cpu.<name>] sections)."""
    cpu = preset_doc(preset).get("cpu", {})
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
        self.preset = None          # set by for_board: the preset whose [cpu] section the board charges
        self._v = v

    @classmethod
    def for_board(cls, board_or_preset, name: str, app_words: int = 0) -> "CpuModel":
        """The [cpu.<name>] model of a preset (name, .toml path or a VirtualBoard)."""
        board = board_or_preset
        preset = board.preset if hasattr(board, "axi_dma") else board
        doc = preset_doc(preset)
        label = doc.get("name", str(preset))
        cpus = available(preset)
        if name not in cpus:
            raise ValueError(f"board {label!r} has no CPU {name!r}; available CPUs: {', '.join(cpus) or 'none'}")
        addr_width = board.axi_dma.addr_width if hasattr(board, "axi_dma") else int(doc["dma"]["addr_width"]["value"])
        lay = {k: item["value"] for k, item in doc.get("layout", {}).items()}
        ring_offset = int(lay.get("offset", 0)) + int(lay.get("rpmsg_bytes", 0))   # S0: rings after the RPMsg area
        model = cls(label, name, doc["cpu"][name], addr_width, app_words, ring_offset)
        model.preset = preset
        return model

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

    # -- transport (sgdma.capture) ------------------------------------------------------
    def transport(self, policy: str, board=None, overrides: dict | None = None) -> "TransportCosts":
        """Transport costs of this CPU under a cache policy (see TransportCosts).  ``board``: the
        VirtualBoard whose effective [cpu] cache_line_ns / cache_line_bytes its C cache ops charge
        (default: the preset's values).  ``overrides``: cost items replacing the preset's
        (``check_costs``; ``cmo_line_ns`` must already be the board's)."""
        cpu = preset_doc(self.preset).get("cpu", {}) if self.preset is not None else {}
        if board is not None and hasattr(board, "option"):
            line_ns, line_bytes = board.option("cpu.cache_line_ns"), int(board.option("cpu.cache_line_bytes"))
        else:
            line_ns = float(cpu.get("cache_line_ns", {}).get("value", 0.0))
            line_bytes = int(cpu.get("cache_line_bytes", {}).get("value", self._v["cache_line_bytes"]))
        source = ("the board's [cpu] cache_line_ns, charged per line by its C cache ops (PhysicalArray.flush/"
                  "invalidate): " + str(cpu.get("cache_line_ns", {}).get("source", "")))
        return TransportCosts(self, policy, line_ns, line_bytes, source, overrides)

    def os_noise(self, rng: np.random.Generator) -> "OsNoise":
        """Linux ticks and stalls on this CPU's busy intervals (none on bare metal)."""
        return OsNoise(self, rng)

    def __repr__(self) -> str:
        return (f"CpuModel({self.board!r}, {self.name!r}: {self.core}, {self.os}, {self.mapping}, "
                f"{self.per_bd_ns:.1f} ns/BD + {self.fixed_ns:.1f} ns)")


# -- transport costs (sgdma.capture) --------------------------------------------------------------
#: Cache policies of DMA buffers: cached + explicit clean/invalidate; an uncached mapping, either
#: strongly ordered / Device-nGnRnE ("uncached": pgprot_noncached, /dev/mem of a no-map carve-out,
#: UIO, u-dma-buf sync_mode 1) or Normal non-cacheable ("writecombine": pgprot_writecombine and
#: dma_alloc_coherent's pgprot_dmacoherent, u-dma-buf sync_mode 2/3); or a cache-coherent PS port
#: (ACP / HPC) that needs no maintenance (arm-host-path.md sec. 1.1, 2.1-2.4).
POLICIES = ("sync", "uncached", "writecombine", "coherent")
#: Preferred coherent port per board, in order (the preset's [port.*] names).
COHERENT_PORTS = ("hpc", "acp")

_TRANSPORT = ("memcpy_cached_mbps", "memcpy_uncached_mbps", "read_cached_mbps", "read_uncached_mbps",
              "syscall_ns", "irq_entry_ns", "isr_ns", "wakeup_ns", "wakeup_sd_ns", "cmo_range_ns")
#: Host-path items that act through the board's memory (cpuops): the file consumer's bandwidth, the
#: strongly-ordered access (load size, path, store) and the write-combine one (loads in flight and
#: their size, the merged store burst); a preset without them cannot run those consumers / policies.
_HOST = ("file_write_mbps", "uncached_word_bytes", "uncached_path_ns", "so_store_ns")
_WC = ("wc_load_bytes", "wc_loads_in_flight", "wc_store_bytes")
#: Optional: the write-combine store path (stores in flight, each answered after wc_store_ack_ns; without
#: them merged stores go at the cached copy rate) and strongly-ordered loads in flight (default 1).
_WC_STORE = ("wc_stores_in_flight", "wc_store_ack_ns")
#: Sizes of one uncached access or merged burst the board can time (cpuops.c).
ACCESS_BYTES = (1, 2, 4, 8, 16, 32, 64)

#: Every host-path cost item a user may override (``cpu_costs=`` / ``--cpu-costs FILE.toml``) and its
#: unit.  ``cmo_line_ns`` is the board's [cpu] cache_line_ns (the C cache ops charge it per line).
COST_UNITS = {"memcpy_cached_mbps": "MB/s", "memcpy_uncached_mbps": "MB/s", "read_cached_mbps": "MB/s",
              "read_uncached_mbps": "MB/s", "file_write_mbps": "MB/s", "syscall_ns": "ns", "irq_entry_ns": "ns",
              "isr_ns": "ns", "wakeup_ns": "ns", "wakeup_sd_ns": "ns", "cmo_range_ns": "ns", "cmo_line_ns": "ns",
              "uncached_path_ns": "ns", "uncached_word_bytes": "byte", "so_store_ns": "ns",
              "wc_load_bytes": "byte", "wc_loads_in_flight": "load", "wc_store_bytes": "byte",
              "wc_stores_in_flight": "store", "wc_store_ack_ns": "ns", "so_loads_in_flight": "load"}


#: Bounds of the cost items: an event costs at most 1 s; a bandwidth is 1 kB/s .. 1 TB/s.
MAX_COST_NS = 1e9
MIN_COST_MBPS, MAX_COST_MBPS = 1e-3, 1e6


class CostFileError(ValueError):
    """A --cpu-costs file or cpu_costs= dict the host path cannot use (the key and the rule are named)."""


def check_costs(costs: dict, where: str) -> dict:
    """``{item: float}`` from ``{item: number | {"value": v, "unit": u}}``: unknown items, wrong units and
    values out of range are refused naming the item and ``where`` (a file or "cpu_costs")."""
    out = {}
    if not isinstance(costs, dict):
        raise CostFileError(f"{where}: expected a table of cost items, got {type(costs).__name__}")
    for key, item in costs.items():
        if key not in COST_UNITS:
            raise CostFileError(f"{where}: unknown cost item {key!r}; known items: {', '.join(sorted(COST_UNITS))}")
        unit = COST_UNITS[key]
        if isinstance(item, dict):
            extra = set(item) - {"value", "unit", "source"}
            if "value" not in item or extra:
                raise CostFileError(f"{where}: {key} must be a number or {{ value = ..., unit = \"{unit}\" }}"
                                    + (f" (unknown fields {', '.join(sorted(extra))})" if extra else ""))
            if "unit" in item and item["unit"] != unit:
                raise CostFileError(f"{where}: {key} has unit {item['unit']!r}; it is in {unit!r}: convert the "
                                    f"value to {unit}")
            item = item["value"]
        if isinstance(item, bool) or not isinstance(item, (int, float)) or not math.isfinite(item):
            raise CostFileError(f"{where}: {key} = {item!r} is not a number (in {unit})")
        low_ok = item > 0 if unit in ("MB/s", "byte", "load", "store") else item >= 0
        if not low_ok:
            raise CostFileError(f"{where}: {key} = {item!r} {unit}: must be {'> 0' if unit != 'ns' else '>= 0'}")
        # each ns item is the cost of one event (a system call, an interrupt, a cache line) and each
        # rate a CPU or file bandwidth: outside these bounds the host path would take ages of virtual
        # time per buffer (and the OS-noise draws per busy interval grow without bound)
        if unit == "ns" and item > MAX_COST_NS:
            raise CostFileError(f"{where}: {key} = {item!r} ns: one event may cost at most {MAX_COST_NS:g} ns "
                                f"(1 s); give the cost of one event in ns")
        if unit == "MB/s" and not MIN_COST_MBPS <= item <= MAX_COST_MBPS:
            raise CostFileError(f"{where}: {key} = {item!r} MB/s: a bandwidth must be {MIN_COST_MBPS:g}.."
                                f"{MAX_COST_MBPS:g} MB/s; give it in MB/s (10^6 B/s)")
        if key == "uncached_word_bytes" and item not in (4, 8, 16):
            raise CostFileError(f"{where}: uncached_word_bytes = {item!r}: an uncached load is 4, 8 or 16 bytes")
        if key in ("wc_load_bytes", "wc_store_bytes") and item not in ACCESS_BYTES:
            raise CostFileError(f"{where}: {key} = {item!r}: a write-combine access is "
                                f"{', '.join(map(str, ACCESS_BYTES))} bytes")
        if key in ("wc_loads_in_flight", "so_loads_in_flight", "wc_stores_in_flight") and (
                item != int(item) or not 1 <= item <= 16):
            raise CostFileError(f"{where}: {key} = {item!r}: a whole number of {unit}s, 1..16")
        out[key] = float(item)
    return out


def load_cost_file(path) -> dict:
    """The cost items of a TOML file (top-level ``item = value`` or ``item = { value, unit }``, or under a
    ``[costs]`` table); CostFileError names the file and the key on any problem."""
    import tomllib
    from pathlib import Path

    from sgdma.hw import files

    p = Path(path)
    try:
        doc = tomllib.loads(files.read_bounded(p, 1 << 20, "cost file").decode())
    except files.InputFileError as e:
        raise CostFileError(f"--cpu-costs {e}") from None
    except OSError as e:
        raise CostFileError(f"--cpu-costs {p}: cannot read it ({e.strerror or e})") from None
    except UnicodeDecodeError as e:
        raise CostFileError(f"--cpu-costs {p}: not UTF-8 text ({e.reason} at byte {e.start}); save it as "
                            f"UTF-8 TOML") from None
    except tomllib.TOMLDecodeError as e:
        raise CostFileError(f"--cpu-costs {p}: not valid TOML ({e})") from None
    if set(doc) == {"costs"} and isinstance(doc["costs"], dict):
        doc = doc["costs"]
    return check_costs(doc, f"--cpu-costs {p}")


def coherent_port(preset) -> str | None:
    """The PS port of a preset that is I/O coherent (HPC before ACP), or None."""
    ports = preset_doc(preset).get("port", {})
    return next((p for p in COHERENT_PORTS if p in ports), None)


class TransportCosts:
    """What the CPU pays to hand DMA buffers to an application under one cache policy.

    Per system call ``syscall_ns``; per interrupt ``irq_entry_ns`` (not busy: the GIC and the
    exception entry, out of WFI) + ``isr_ns``; per wake-up of a blocked reader ``wakeup_ns`` with
    gamma-distributed jitter of ``wakeup_sd_ns``; per byte copied ``1 / copy_mbps`` and per byte
    the application reads straight out of a DMA buffer ``1 / read_mbps`` (cached or uncached rates
    by policy); per maintained buffer ``cmo_range_ns`` plus ``cmo_line_ns`` per cache line.

    The per-line cost is the board's own ``[cpu] cache_line_ns``: the board charges it in C when
    ``PhysicalArray.flush()/invalidate()`` run (which also feeds the coherency checker), so the
    transport calls those and never charges lines itself (one source of truth).  ``cmo_ns`` only
    predicts it.
    """

    def __init__(self, model: "CpuModel", policy: str, cache_line_ns: float, cache_line_bytes: int,
                 line_source: str, overrides: dict | None = None):
        if policy not in POLICIES:
            raise ValueError(f"cache policy {policy!r}: choose {', '.join(POLICIES)}")
        self.overrides = check_costs(dict(overrides or {}), "cpu_costs")
        v = {**model._v, **self.overrides}
        if "cmo_line_ns" in self.overrides:
            cache_line_ns = self.overrides["cmo_line_ns"]
            line_source = "overridden (cpu_costs)"
        missing = [k for k in _TRANSPORT if k not in v]
        if missing:
            raise ValueError(f"board {model.board!r} [cpu.{model.name}] has no transport costs "
                             f"(lacks {', '.join(missing)}): capture needs them")
        self.board, self.cpu, self.policy = model.board, model.name, policy
        self.maintenance = policy == "sync"
        cached = policy in ("sync", "coherent")
        #: the DMA buffer's memory type: "cached", "so" (strongly ordered / Device) or "wc" (Normal
        #: non-cacheable)
        self.mapping = "cached" if cached else ("so" if policy == "uncached" else "wc")
        if self.mapping == "wc":
            missing = [k for k in _WC if k not in v]
            if missing:
                raise ValueError(f"board {model.board!r} [cpu.{model.name}] lacks {', '.join(missing)}: the "
                                 f"writecombine policy needs them (add them or pass cpu_costs=)")
            # predicted rate (the board times the loads): the loads in flight per round trip
            self.copy_mbps = self.read_mbps = (float(v["wc_loads_in_flight"]) * float(v["wc_load_bytes"]) * 1e3
                                               / float(v["ddr_load_ns"]))
        else:
            self.copy_mbps = float(v["memcpy_cached_mbps" if cached else "memcpy_uncached_mbps"])
            self.read_mbps = float(v["read_cached_mbps" if cached else "read_uncached_mbps"])
        #: copies INTO a DMA buffer (playback): the CPU's stores at its cached copy rate; to a
        #: write-combine buffer they merge into bursts, to a strongly-ordered one each waits
        self.write_mbps = float(v["memcpy_cached_mbps"])
        self.syscall_ns = float(v["syscall_ns"])
        self.irq_entry_ns = float(v["irq_entry_ns"])
        self.isr_ns = float(v["isr_ns"])
        self.wakeup_ns = float(v["wakeup_ns"])
        self.wakeup_sd_ns = float(v["wakeup_sd_ns"])
        self.cmo_range_ns = float(v["cmo_range_ns"]) if self.maintenance else 0.0
        self.cmo_line_ns = float(cache_line_ns)
        self.cache_line_bytes = int(cache_line_bytes)
        self.cached = cached
        self.read_cached_mbps = float(v["read_cached_mbps"])
        self.file_mbps = float(v["file_write_mbps"]) if "file_write_mbps" in v else None
        self.uncached_word_bytes = int(v.get("uncached_word_bytes", 0)) or None
        self.uncached_path_ns = float(v["uncached_path_ns"]) if "uncached_path_ns" in v else None
        self._line_source = line_source
        self._model = model
        self._v = v

    # -- the CPU's memory operations (board.cpu_op keyword sets) ------------------------------
    def line_ns(self, mbps: float) -> float:
        """CPU time per cache line at a bandwidth limit of ``mbps``."""
        return self.cache_line_bytes * 1e3 / mbps

    def _uncached(self, what: str) -> dict:
        """The board's uncached loads: strongly ordered, one ``uncached_word_bytes`` load at a time;
        write-combine, ``wc_loads_in_flight`` loads of ``wc_load_bytes`` overlapping, each over the
        same path (``uncached_path_ns``) and the DRAM."""
        if self.uncached_path_ns is None or self.uncached_word_bytes is None:
            raise ValueError(f"board {self.board!r} [cpu.{self.cpu}] lacks uncached_path_ns / uncached_word_bytes: "
                             f"{what} out of a non-cacheable buffer needs them (add them or pass cpu_costs=)")
        if self.mapping == "wc":
            return {"ns_per_word": self.uncached_path_ns, "word_bytes": int(self._v["wc_load_bytes"]),
                    "outstanding": int(self._v["wc_loads_in_flight"])}
        so = {"ns_per_word": self.uncached_path_ns, "word_bytes": self.uncached_word_bytes}
        if int(self._v.get("so_loads_in_flight", 1)) > 1:
            so["outstanding"] = int(self._v["so_loads_in_flight"])
        return so

    def wc_store_mbps(self) -> float:
        """The rate of a write-combine store stream: ``wc_stores_in_flight`` non-cacheable writes of
        ``uncached_word_bytes``, each answered after ``wc_store_ack_ns`` (the A9's path to the PL310's
        early BRESP); without those items the cached copy rate."""
        if all(k in self._v for k in _WC_STORE) and self.uncached_word_bytes:
            ack = float(self._v["wc_store_ack_ns"])
            rate = float(self._v["wc_stores_in_flight"]) * self.uncached_word_bytes * 1e3 / ack if ack > 0 else 0.0
            return rate if rate > 0 else self.write_mbps
        return self.write_mbps

    def store_ops(self) -> list[tuple[str, dict]]:
        """The operations of the CPU's stores filling a DMA buffer (playback's copy-in, after the loads
        of the application's bytes): cached, none (the lines stay dirty until the clean); strongly
        ordered, one ``uncached_word_bytes`` store per ``so_store_ns`` (no merging: each waits for its
        response); write-combine, bursts of ``wc_store_bytes`` merged in the store buffers and posted at
        their own path's rate (``wc_store_mbps``).  The uncached ones end with the barrier that waits for
        the last store."""
        if self.mapping == "cached":
            return []
        if self.mapping == "wc":
            b = int(self._v["wc_store_bytes"])
            return [("uncached_write", {"ns_per_word": b * 1e3 / self.wc_store_mbps(), "word_bytes": b})]
        if "so_store_ns" not in self._v or self.uncached_word_bytes is None:
            raise ValueError(f"board {self.board!r} [cpu.{self.cpu}] lacks so_store_ns / uncached_word_bytes: "
                             f"storing into a strongly-ordered buffer needs them (add them or pass cpu_costs=)")
        return [("uncached_write", {"ns_per_word": float(self._v["so_store_ns"]),
                                    "word_bytes": self.uncached_word_bytes})]

    def load_op(self, from_dma: bool) -> tuple[str, dict]:
        """(kind, keywords) of reading every byte: of a DMA buffer (the policy's mapping) or of the
        application's own cached memory."""
        if from_dma and not self.cached:
            return "uncached_read", self._uncached("reading")
        return "read", {"ns_per_line": self.line_ns(self.read_mbps if from_dma else self.read_cached_mbps)}

    def copy_ops(self, from_dma: bool, mbps: float | None = None) -> list[tuple[str, dict]]:
        """The operations of copying out of a DMA buffer (``from_dma``) or the application's memory at
        the copy bandwidth (``mbps``: a slower sink's, e.g. the file's): cached, one copy (fills and
        write-backs); uncached source, its word loads then the destination's write-backs."""
        if from_dma and not self.cached:      # a slower sink paces the destination's writes
            return [("uncached_read", self._uncached("copying")),
                    ("memset", {"ns_per_line": self.line_ns(mbps) if mbps is not None else 0.0})]
        rate = mbps if mbps is not None else (self.copy_mbps if from_dma else self.write_mbps)
        return [("copy", {"ns_per_line": self.line_ns(rate)})]

    # -- costs ------------------------------------------------------------------------------
    def copy_ns(self, nbytes: int) -> float:
        """memcpy out of a DMA buffer into the application's memory."""
        return nbytes * 1e3 / self.copy_mbps

    def write_ns(self, nbytes: int) -> float:
        """memcpy from the application into a DMA buffer (playback)."""
        return nbytes * 1e3 / self.write_mbps

    def read_ns(self, nbytes: int) -> float:
        """The application's first read of bytes straight out of a DMA buffer (zero copy)."""
        return nbytes * 1e3 / self.read_mbps

    def lines(self, addr: int, nbytes: int) -> int:
        if nbytes <= 0:
            return 0
        l = self.cache_line_bytes
        return (addr + nbytes + l - 1) // l - addr // l

    def cmo_ns(self, addr: int, nbytes: int) -> float:
        """Predicted cost of cleaning or invalidating one buffer (0 without maintenance)."""
        if not self.maintenance:
            return 0.0
        return self.cmo_range_ns + self.lines(addr, nbytes) * self.cmo_line_ns

    def wakeup_mean_ns(self) -> float:
        """Interrupt to a blocked reader running again (mean)."""
        return self.irq_entry_ns + self.isr_ns + self.wakeup_ns

    def wakeups(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """``count`` scheduler wake-up latencies (ns): gamma with mean wakeup_ns, sd wakeup_sd_ns."""
        mean, sd = self.wakeup_ns, self.wakeup_sd_ns
        if sd <= 0 or mean <= 0:
            return np.full(count, max(mean, 0.0))
        k = (mean / sd) ** 2
        return rng.gamma(k, sd * sd / mean, count)

    def items(self) -> dict:
        """Every host-path cost item in effect ({item: value}; see COST_UNITS)."""
        out = {k: float(self._v[k]) for k in COST_UNITS if k in self._v}
        out["cmo_line_ns"] = self.cmo_line_ns
        return out

    def describe(self) -> dict:
        p = self._model.params
        src = {k: dict(p[k]) for k in _TRANSPORT + _HOST + _WC if k in p}
        for k, val in self.overrides.items():
            src[k] = {"value": val, "unit": COST_UNITS[k], "source": "overridden (cpu_costs)"}
        src["cmo_line_ns"] = {"value": self.cmo_line_ns, "unit": "ns", "source": self._line_source}
        src["cache_line_bytes"] = {"value": self.cache_line_bytes, "unit": "byte",
                                   "source": "the board's [cpu] cache_line_bytes (the lines the board charges)"}
        return {"board": self.board, "cpu": self.cpu, "policy": self.policy, "maintenance": self.maintenance,
                "copy_mbps": self.copy_mbps, "read_mbps": self.read_mbps, "write_mbps": self.write_mbps,
                "parameters": src}

    def __repr__(self) -> str:
        return (f"TransportCosts({self.board!r}, {self.policy}: copy {self.copy_mbps:g} MB/s, read "
                f"{self.read_mbps:g} MB/s, syscall {self.syscall_ns:g} ns, wake-up {self.wakeup_mean_ns():g} ns)")


class OsNoise:
    """Linux noise on a busy CPU, in virtual time: timer ticks (every 1/HZ of absolute time that
    falls inside a busy interval costs tick_ns) and rare long stalls (Poisson in busy time,
    log-uniform durations), with the [cpu.<name>] parameters of the BD-creation model.
    A bare-metal CPU has none.  Deterministic for a Generator state."""

    def __init__(self, model: "CpuModel", rng: np.random.Generator):
        self.linux = model.linux
        self.rng = rng
        if not self.linux:
            return
        v = model._v
        self.period_ns = 1e9 / float(v["hz"])
        self.tick_ns, self.tick_sd_ns = float(v["tick_ns"]), float(v["tick_sd_ns"])
        self.stall_per_ns = float(v["stall_per_us"]) / 1e3
        self.lo, self.hi = math.log(float(v["stall_min_ns"])), math.log(float(v["stall_max_ns"]))
        self.phase_ns = float(rng.random()) * self.period_ns
        self._to_stall = self._draw_gap()
        self.ticks = self.stalls = 0
        self.tick_total_ns = self.stall_total_ns = 0.0

    def _draw_gap(self) -> float:
        return float(self.rng.exponential(1.0 / self.stall_per_ns)) if self.stall_per_ns > 0 else math.inf

    def busy(self, start_ns: float, busy_ns: float) -> float:
        """Extra ns a busy interval of ``busy_ns`` starting at ``start_ns`` suffers."""
        if not self.linux or busy_ns <= 0:
            return 0.0
        extra = 0.0
        self._to_stall -= busy_ns
        while self._to_stall <= 0:
            d = math.exp(self.lo + (self.hi - self.lo) * float(self.rng.random()))
            extra += d
            self.stalls += 1
            self.stall_total_ns += d
            self._to_stall += self._draw_gap()
        end = start_ns + busy_ns + extra
        p = self.period_ns
        n = math.floor((end - self.phase_ns) / p) - math.floor((start_ns - self.phase_ns) / p)
        if n > 0:
            t = n * self.tick_ns + math.sqrt(n) * self.tick_sd_ns * float(self.rng.standard_normal())
            t = max(t, 0.0)
            extra += t
            self.ticks += n
            self.tick_total_ns += t
        return extra

