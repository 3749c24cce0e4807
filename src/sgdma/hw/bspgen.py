"""``sgdma bsp``: the files a Vitis BSP generates for a board -- xparameters.h, the AXI DMA driver's
configuration table (xaxidma_g.c), bspconfig.h -- and a make fragment that builds the BSP shim and the virtual
board, all from a preset (the one source of the addresses, widths and interrupt IDs)."""
from __future__ import annotations

from pathlib import Path

from sgdma.hw import presets

# What a Vitis BSP calls each DDR region of a preset, by the region's name in the preset.
DDR_NAMES = {
    "ps": "XPAR_PS7_DDR_0_S_AXI",                 # Zynq-7000 PS DDR (ps7_ddr_0)
    "ps_low": "XPAR_PSU_DDR_0_S_AXI",             # ZynqMP low DDR aperture (psu_ddr_0)
    "ps_high": "XPAR_PSU_DDR_1_S_AXI",            # ZynqMP high DDR aperture (psu_ddr_1)
    "pl": "XPAR_MIG_0_C0_DDR4_MEMORY_MAP",        # PL DDR4 behind a MIG (ddr4_0 / mig_0, C0 port)
    "main": "XPAR_MIG7SERIES_0",                  # a soft-core system's DDR behind a 7-series MIG
}
# The high-address suffix that goes with each base name (Vitis writes BASEADDR/HIGHADDR pairs).
_HIGH = {"XPAR_MIG_0_C0_DDR4_MEMORY_MAP": "XPAR_MIG_0_C0_DDR4_MEMORY_MAP_HIGHADDR"}

# The GIC of each PS family: the instance names Vitis gives it and its CPU-interface and distributor bases.
GIC = {
    "zynq7000": {"name": "XPAR_PS7_SCUGIC_0", "cpu": 0xF8F0_0100, "dist": 0xF8F0_1000,
                 "source": "UG585 Appendix B, mpcore: ICC (CPU interface) at 0xF8F0_0100, ICD (distributor) at 0xF8F0_1000"},
    "zynqmp": {"name": "XPAR_PSU_ACPU_GIC", "cpu": 0xF902_0000, "dist": 0xF901_0000,
               "source": "UG1085 address map, APU GIC-400: GICD (distributor) at 0xF901_0000, GICC (CPU interface) at 0xF902_0000"},
}


def family(ddr_names: list[str]) -> str:
    """The PS family, from the DDR regions the preset has: Zynq-7000 has one PS DDR region ('ps'), ZynqMP
    two apertures ('ps_low', 'ps_high'); a design with neither (a soft core) has no PS."""
    if "ps" in ddr_names:
        return "zynq7000"
    if "ps_low" in ddr_names or "ps_high" in ddr_names:
        return "zynqmp"
    return "none"


def _v(doc: dict, section: str, key: str):
    return doc[section][key]["value"]


def parse_sets(items) -> dict[str, float]:
    """``KEY=VALUE`` board options (as SGDMA_OPTIONS takes them) into a dict; ValueError names the bad one."""
    out: dict[str, float] = {}
    for item in items or ():
        key, eq, value = str(item).partition("=")
        try:
            if not eq or not key.strip():
                raise ValueError
            out[key.strip()] = float(int(value, 0)) if value.strip().lower().startswith("0x") else float(value)
        except ValueError:
            raise ValueError(f"--set {item!r}: want KEY=NUMBER, e.g. --set dma.include_sg=0") from None
    return out


def facts(preset: str, sets: dict[str, float] | None = None) -> dict:
    doc = presets.load(preset)
    sets = dict(sets or {})
    for key, value in sets.items():       # the preset as the board will be built (bspconfig.h carries the same)
        *where, leaf = key.split(".")
        table = doc
        for w in where:
            table = table.setdefault(w, {})
        table[leaf] = {"value": value}
    if "irq" not in doc:
        raise ValueError(f"preset {preset!r} has no [irq] section (the GIC IDs of the DMA's interrupt lines): "
                         "add mm2s and s2mm IDs with their source")
    dma = doc["dma"]
    width = int(dma["data_width"]["value"])
    ddr = [(name, int(r["base"]["value"]), int(r["size"]["value"])) for name, r in doc.get("ddr", {}).items()]
    unknown = [n for n, _, _ in ddr if n not in DDR_NAMES]
    if unknown:
        raise ValueError(f"preset {preset!r}: DDR region {unknown[0]!r} has no Vitis name "
                         f"(known: {', '.join(DDR_NAMES)}); name the region after the memory it models")
    return {
        "name": doc.get("name", str(preset)), "path": str(presets.path(preset).resolve()),
        "family": family([n for n, _, _ in ddr]),
        "base": int(dma["base"]["value"]), "span": 0x10000, "include_sg": int(dma["include_sg"]["value"]),
        "has_dre": int(dma.get("has_dre", {"value": 0})["value"]), "data_width": width,
        "burst": int(dma["max_burst"]["value"]), "addr_width": int(dma["addr_width"]["value"]),
        "length_width": int(dma["length_width"]["value"]),
        "irq_mm2s": int(_v(doc, "irq", "mm2s")), "irq_s2mm": int(_v(doc, "irq", "s2mm")),
        "gpio": int(doc["gpio"]["base"]["value"]) if "gpio" in doc else None,
        "ddr": ddr, "sets": sets,
    }


def _rows(f: dict) -> list[tuple[str, str]]:
    d = "XPAR_AXI_DMA_0_"
    rows = [("XPAR_XAXIDMA_NUM_INSTANCES", "1U"), (d + "DEVICE_ID", "0U"), (d + "BASEADDR", f"0x{f['base']:08X}U"),
            (d + "HIGHADDR", f"0x{f['base'] + f['span'] - 1:08X}U"), (d + "SG_INCLUDE_STSCNTRL_STRM", "0U"),
            (d + "INCLUDE_SG", f"{f['include_sg']}U"), (d + "INCLUDE_MM2S", "1U"),
            (d + "INCLUDE_MM2S_DRE", f"{f['has_dre']}U"), (d + "M_AXI_MM2S_DATA_WIDTH", f"{f['data_width']}U"),
            (d + "INCLUDE_S2MM", "1U"), (d + "INCLUDE_S2MM_DRE", f"{f['has_dre']}U"),
            (d + "M_AXI_S2MM_DATA_WIDTH", f"{f['data_width']}U"), (d + "NUM_MM2S_CHANNELS", "1U"),
            (d + "NUM_S2MM_CHANNELS", "1U"), (d + "MM2S_BURST_SIZE", f"{f['burst']}U"),
            (d + "S2MM_BURST_SIZE", f"{f['burst']}U"), (d + "MICRO_DMA", "0U"), (d + "ADDR_WIDTH", f"{f['addr_width']}U"),
            (d + "SG_LENGTH_WIDTH", f"{f['length_width']}U"),
            ("XPAR_FABRIC_AXIDMA_0_MM2S_INTROUT_VEC_ID", f"{f['irq_mm2s']}U"),
            ("XPAR_FABRIC_AXIDMA_0_S2MM_INTROUT_VEC_ID", f"{f['irq_s2mm']}U"),
            ("XPAR_FABRIC_AXI_DMA_0_MM2S_INTROUT_INTR", f"{f['irq_mm2s']}U"),
            ("XPAR_FABRIC_AXI_DMA_0_S2MM_INTROUT_INTR", f"{f['irq_s2mm']}U")]
    gic = GIC.get(f["family"])
    rows += [("XPAR_SCUGIC_NUM_INSTANCES", "1U"), ("XPAR_SCUGIC_0_DEVICE_ID", "0U"),
             ("XPAR_SCUGIC_SINGLE_DEVICE_ID", "0U")]
    if gic:
        rows += [("XPAR_SCUGIC_0_CPU_BASEADDR", f"0x{gic['cpu']:08X}U"),
                 ("XPAR_SCUGIC_0_DIST_BASEADDR", f"0x{gic['dist']:08X}U"),
                 (gic["name"] + "_DEVICE_ID", "0U"), (gic["name"] + "_BASEADDR", f"0x{gic['cpu']:08X}U"),
                 (gic["name"] + "_DIST_BASEADDR", f"0x{gic['dist']:08X}U")]
    if f["gpio"] is not None:
        rows += [("XPAR_XGPIO_NUM_INSTANCES", "1U"), ("XPAR_AXI_GPIO_0_DEVICE_ID", "0U"),
                 ("XPAR_AXI_GPIO_0_BASEADDR", f"0x{f['gpio']:08X}U"),
                 ("XPAR_AXI_GPIO_0_HIGHADDR", f"0x{f['gpio'] + 0xFFFF:08X}U")]
    if f["ddr"]:        # the region allocate() uses by default: where sgdma's own examples put BDs and buffers
        rows.append(("XPAR_DDR_MEM_BASEADDR", f"0x{f['ddr'][0][1]:X}ULL"))
    for name, base, size in f["ddr"]:
        vitis = DDR_NAMES[name]
        rows += [(vitis + "_BASEADDR", f"0x{base:X}ULL"),
                 (_HIGH.get(vitis, vitis + "_HIGHADDR"), f"0x{base + size - 1:X}ULL")]
    return rows


def xparameters(f: dict) -> str:
    rows = _rows(f)
    d = "XPAR_AXI_DMA_0_"
    # The canonical names (XPAR_AXIDMA_0_*) programs use alongside the instance names.
    alias = [(k.replace(d, "XPAR_AXIDMA_0_"), k) for k, _ in rows if k.startswith(d)]
    width = max(len(k) for k, _ in rows + alias)
    gic = GIC.get(f["family"])
    out = [f"/* xparameters.h - generated by `sgdma bsp` from preset {f['name']} ({f['path']}).",
           f" * PS family: {f['family']}" + (f"; GIC bases: {gic['source']}." if gic else "; no PS GIC.") + " */",
           "#ifndef XPARAMETERS_H", "#define XPARAMETERS_H", ""]
    out += [f"#define {k:<{width}} {v}" for k, v in rows]
    out += [""] + [f"#define {k:<{width}} {v}" for k, v in alias] + ["", "#endif", ""]
    return "\n".join(out)


def dma_table(f: dict) -> str:
    """XAxiDma_Config table for programs that bring the AXI DMA driver; designated
    initializers, so a field name the driver lacks fails to compile instead of
    shifting values."""
    p = "XPAR_AXIDMA_0_"
    fields = [("DeviceId", "DEVICE_ID"), ("BaseAddr", "BASEADDR"), ("HasStsCntrlStrm", "SG_INCLUDE_STSCNTRL_STRM"),
              ("HasMm2S", "INCLUDE_MM2S"), ("HasMm2SDRE", "INCLUDE_MM2S_DRE"), ("Mm2SDataWidth", "M_AXI_MM2S_DATA_WIDTH"),
              ("HasS2Mm", "INCLUDE_S2MM"), ("HasS2MmDRE", "INCLUDE_S2MM_DRE"), ("S2MmDataWidth", "M_AXI_S2MM_DATA_WIDTH"),
              ("HasSg", "INCLUDE_SG"), ("Mm2sNumChannels", "NUM_MM2S_CHANNELS"), ("S2MmNumChannels", "NUM_S2MM_CHANNELS"),
              ("Mm2SBurstSize", "MM2S_BURST_SIZE"), ("S2MmBurstSize", "S2MM_BURST_SIZE"), ("MicroDmaMode", "MICRO_DMA"),
              ("AddrWidth", "ADDR_WIDTH"), ("SgLengthWidth", "SG_LENGTH_WIDTH")]
    body = "\n".join(f"\t\t.{fld} = {p}{m}," for fld, m in fields)
    return (f"/* xaxidma_g.c - generated by `sgdma bsp` (preset {f['name']}): the AXI DMA driver's\n"
            " * configuration table.  Compile it only with that driver's xaxidma.h. */\n"
            '#include "xaxidma.h"\n#include "xparameters.h"\n\n'
            "XAxiDma_Config XAxiDma_ConfigTable[XPAR_XAXIDMA_NUM_INSTANCES] = {\n\t{\n" + body + "\n\t},\n};\n")


def bspconfig(f: dict) -> str:
    path = f["path"].replace("\\", "\\\\").replace('"', '\\"')
    opts = ",".join(f"{k}={v:.17g}" for k, v in f["sets"].items())
    return (f"/* bspconfig.h - generated by `sgdma bsp`: the BSP's build settings; here the board the\n"
            " * shim builds (SGDMA_PRESET overrides it at run time). */\n"
            "#ifndef BSPCONFIG_H\n#define BSPCONFIG_H\n\n"
            f'#define SGDMA_BSP_PRESET "{path}"\n'
            f'#define SGDMA_BSP_FAMILY "{f["family"]}"\n'
            "/* board options set by `sgdma bsp --set`, applied before SGDMA_OPTIONS */\n"
            f'#define SGDMA_BSP_OPTIONS "{opts}"\n\n#endif\n')


def makefile(f: dict, csrc: Path) -> str:
    """The make fragment.  It builds libsgdma_bsp.a beside itself once (the shim, the virtual board, sgdma's
    driver core and its standalone platform ops, compiled against this directory's xparameters.h and
    bspconfig.h), and leaves the including Makefile's default goal alone."""
    return (f"# sgdma_bsp.mk - generated by `sgdma bsp` (preset {f['name']}): the standalone BSP on the\n"
            "# sgdma virtual board.  Include it, then build a program and its drivers with\n"
            "#   $(CC) $(SGDMA_BSP_CFLAGS) prog.c driver/*.c xaxidma_g.c $(SGDMA_BSP_LIBS) -o prog\n"
            "# and make the program depend on $(SGDMA_BSP_LIB).  Programs build as PIE so that DDR can sit\n"
            "# at its physical address (docs/boards.md).\n"
            "sgdma_saved_goal := $(.DEFAULT_GOAL)\n"
            "SGDMA_BSP_DIR    := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))/\n"
            f"SGDMA_CSRC       := {csrc}\n"
            "SGDMA_BSP_CFLAGS := -DSGDMA_VIRTUAL -fPIE -I$(SGDMA_BSP_DIR) -I$(SGDMA_CSRC)/bsp "
            "-I$(SGDMA_CSRC)/include -I$(SGDMA_CSRC)/vboard\n"
            "SGDMA_BSP_LIB    := $(SGDMA_BSP_DIR)libsgdma_bsp.a\n"
            "SGDMA_BSP_LIBS   := -pie $(SGDMA_BSP_LIB) -lm\n"
            "SGDMA_BSP_LIB_SRCS := $(wildcard $(SGDMA_CSRC)/bsp/*.c) $(wildcard $(SGDMA_CSRC)/vboard/*.c) "
            "$(wildcard $(SGDMA_CSRC)/vboard/*/*.c) $(wildcard $(SGDMA_CSRC)/driver/*.c) "
            "$(SGDMA_CSRC)/platform/xil_standalone.c\n"
            "SGDMA_BSP_OBJS   := $(patsubst $(SGDMA_CSRC)/%.c,$(SGDMA_BSP_DIR)obj/%.o,$(SGDMA_BSP_LIB_SRCS))\n"
            "$(SGDMA_BSP_DIR)obj/%.o: $(SGDMA_CSRC)/%.c $(SGDMA_BSP_DIR)xparameters.h $(SGDMA_BSP_DIR)bspconfig.h\n"
            "\t@mkdir -p $(dir $@)\n"
            "\t$(CC) -std=c11 -O2 -MMD -MP $(SGDMA_BSP_CFLAGS) -c $< -o $@\n"
            "# headers too: an updated sgdma rebuilds what its headers changed, never links stale objects\n"
            "-include $(SGDMA_BSP_OBJS:.o=.d)\n"
            "$(SGDMA_BSP_LIB): $(SGDMA_BSP_OBJS)\n"
            "\trm -f $@\n"
            "\t$(AR) rcs $@ $^\n"
            ".DEFAULT_GOAL := $(sgdma_saved_goal)\n")


def csrc_dir() -> Path | None:
    """The C sources the programs link: the copy an installed package carries (sgdma/csrc, put there by
    setup.py), else the checkout this package sits in; None when neither has them."""
    here = Path(__file__).resolve().parents[1]
    for c in (here / "csrc", here.parents[1] / "csrc"):
        if (c / "bsp").is_dir() and (c / "include" / "sgdma" / "pg021.h").is_file():
            return c
    return None


def outputs() -> list[str]:
    return ["xparameters.h", "xaxidma_g.c", "bspconfig.h", "sgdma_bsp.mk"]


def generate(preset: str, out: str | Path, sets: dict[str, float] | None = None) -> list[Path]:
    f = facts(preset, sets)
    csrc = csrc_dir()
    if csrc is None:
        raise FileNotFoundError("the BSP shim's C sources are not beside this sgdma package "
                                "(sgdma/csrc or a checkout's csrc/): reinstall sgdma from its source distribution")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = {"xparameters.h": xparameters(f), "xaxidma_g.c": dma_table(f), "bspconfig.h": bspconfig(f),
             "sgdma_bsp.mk": makefile(f, csrc)}
    written = []
    for name, text in files.items():
        (out / name).write_text(text)
        written.append(out / name)
    return written
