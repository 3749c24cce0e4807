"""The package's shape: layers only point down, no import cycles, applications never reach into the C board."""
import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1] / "src" / "sgdma"

# Lower number = lower layer.  A module may import its own layer or below, never above.
LAYERS = {
    "_core": 0, "hw": 0, "executor": 0,
    "board": 1,
    "pynq": 3,                     # PYNQ-shaped facade over a board
    "driver": 2,
    "models": 3, "output": 3,
    "sequence": 4, "capture": 4, "rtio": 4, "pcie": 4,
    "experiments": 5, "rtl": 5,
    "cli": 6,
}


def _modules():
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        yield ".".join(parts), path


def _imports(name, path):
    tree = ast.parse(path.read_text())
    pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.startswith("sgdma"):
                yield mod
                for a in node.names:               # "from sgdma.hw import presets" imports a module too
                    yield f"{mod}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("sgdma"):
                    yield a.name


def _graph():
    mods = dict(_modules())
    graph = {}
    for name, path in mods.items():
        graph[name] = {m for m in _imports(name, path) if m in mods and m != name}
    return graph


def _layer(mod):
    parts = mod.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def test_every_subpackage_has_a_layer():
    subs = {p.name for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert subs <= set(LAYERS), f"packages without a layer: {sorted(subs - set(LAYERS))}"


def test_imports_only_point_down():
    bad = []
    for mod, deps in _graph().items():
        lm = _layer(mod)
        if lm is None:
            continue
        for d in deps:
            ld = _layer(d)
            if ld is not None and ld > lm:
                bad.append(f"{mod} (layer {lm}) imports {d} (layer {ld})")
    assert not bad, "\n".join(sorted(bad))


def test_no_import_cycles():
    graph = _graph()
    # a package's __init__ re-exporting its own modules is not a cycle of the design
    for mod in list(graph):
        graph[mod] = {d for d in graph[mod] if not (mod.startswith(d + ".") and d in graph)}
    state, cycles = {}, []

    def visit(n, stack):
        state[n] = 1
        stack.append(n)
        for d in sorted(graph.get(n, ())):
            if state.get(d) == 1:
                cycles.append(stack[stack.index(d):] + [d])
            elif d not in state:
                visit(d, stack)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n, [])
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_applications_use_the_public_board_api():
    """Only the board and driver layers hold the C board handle (`._b`)."""
    offenders = []
    for name, path in _modules():
        if _layer(name) in (0, 1, 2):
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\._b\b", line):
                offenders.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


# ---- the AXI DMA model's layers (csrc/vboard/dma, issue 9) ------------------------------------------------------
CSRC = pathlib.Path(__file__).resolve().parents[1] / "csrc" / "vboard"
# Top to bottom: a file may call functions defined in its own rank or below, never above.
DMA_RANKS = {
    "dma/regs.c": 0, "dma/channel.c": 1, "dma/sg.c": 2, "dma/mm2s.c": 3, "dma/s2mm.c": 3,
    "dma/bd.c": 4, "mem/ic.c": 5, "mem/dram.c": 6,
}


def _strip_c_comments(text):
    return re.sub(r"/\*.*?\*/", "", re.sub(r"//[^\n]*", "", text, flags=re.S), flags=re.S)


def _c_defined(text):
    """Non-static functions a C file defines (name at the start of a definition)."""
    return set(re.findall(r"^(?!static)[A-Za-z_][\w \*]*?\b(vb_\w+)\s*\([^;{]*\)\s*\{", text, flags=re.M))


def test_dma_calls_only_point_down():
    texts = {f: _strip_c_comments((CSRC / f).read_text()) for f in DMA_RANKS}
    owner = {fn: f for f, t in texts.items() for fn in _c_defined(t)}
    assert {"vb_dma_write", "vb_chan_control", "vb_sg_mm2s_step", "vb_mm2s_issue_burst", "vb_s2mm_step",
            "vb_bd_load", "vb_ic_read", "vb_dram_access"} <= set(owner), "definitions not found: parser broken"
    bad = []
    for f, t in texts.items():
        for fn in set(re.findall(r"\b(vb_\w+)\s*\(", t)):
            g = owner.get(fn)
            if g and DMA_RANKS[g] < DMA_RANKS[f]:
                bad.append(f"{f} calls {fn} of {g}")
    assert not bad, "lower DMA layers call upward: " + "; ".join(sorted(bad))


def test_dma_layer_check_catches_an_upward_call(tmp_path):
    """The check above can fail: a data mover calling the channel is reported."""
    texts = {"dma/channel.c": "void vb_chan_x(int a)\n{\n}\n", "dma/mm2s.c": "void f(void) { vb_chan_x(1); }\n"}
    owner = {fn: f for f, t in texts.items() for fn in _c_defined(t)}
    calls = [(f, fn) for f, t in texts.items() for fn in re.findall(r"\b(vb_\w+)\s*\(", t)
             if owner.get(fn) and DMA_RANKS[owner[fn]] < DMA_RANKS[f]]
    assert calls == [("dma/mm2s.c", "vb_chan_x")]
