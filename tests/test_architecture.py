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
    "experiments": 5, "rtl": 5, "cocotb": 5,   # cocotb: live co-simulation bridges
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
    "dma/regs.c": 0, "dma/channel.c": 1, "dma/sg.c": 2, "dma/functional.c": 2, "dma/mm2s.c": 3, "dma/s2mm.c": 3,
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


# ---- all of csrc/ (issue 23): ranks from docs/architecture.md's picture -----------------------------------------
CROOT = pathlib.Path(__file__).resolve().parents[1] / "csrc"
# A module is a .c file with its .h (same path, other suffix).  Higher rank = higher layer; a module may call
# functions of its own rank or below, never above.  The longest matching prefix gives the rank.
C_RANKS = {
    "include/": 0,                               # contract headers and their inlines
    "vboard/base/": 1,                           # L0: scheduler (virtual time), stream links, rng, grow, sink log
    "vboard/bus/": 2, "vboard/mem/": 2,          # L1: windows + ops (no time); interconnect > ddrc > dram
    "vboard/dma/": 3, "vboard/pl/": 3, "vboard/pcie/": 3,   # L2: devices, siblings
    "vboard/cpu/": 4,                            # L3: initiators that advance time
    "vboard/board": 4,                           # the board's composition (board.h), for cpu/, machine.c, api*.c
    "vboard/machine": 5, "vboard/config": 5, "vboard/preset": 5,   # L4: the only module naming devices; presets
    "vboard/api": 6, "vboard/vboard": 6,         # L5: vboard.h, sync then ask (api.c, api_pcie.c, api_coherency.c)
    "driver/": 6, "platform/linux/": 6,          # driver cores and the Linux platform ops (beside the board)
    "bsp/": 7, "apps/": 7,                       # L6: the standalone-BSP shim on the board; freestanding apps
    "platform/xil_standalone": 8,                # platform ops over the BSP's calls (as on an R5)
    "python/": 9,                                # the binding: everything below it
}
# Only initiators move virtual time or wait: a device only reads `now`.
C_TIME_MOVERS = {"vb_sched_sync", "vb_sched_sync_all", "vb_sched_step_next", "vb_sched_run_until",
                 "vb_sched_run_quiet", "vb_sched_advance", "vb_sync", "vb_step_next", "vb_run_until",
                 "vb_run_until_quiet", "vb_advance_ps"}
C_TIME_OWNERS = ("vboard/base/sched", "vboard/cpu/", "vboard/api", "python/", "bsp/", "apps/",
                 "platform/xil_standalone")
# Knots other branches remove (issue 24 splits python/module.c into convert.c + module.c): the edges whose
# removal breaks each circle.  Removed when the harden branch merges.  (The BSP shim's circle is gone: bsp_intc.c
# registers its IRQ poll with the shim, issue 25.)
C_KNOTS_ELSEWHERE: frozenset = frozenset()   # no edge is excused: the binding's and the BSP's knots are gone
_KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "defined", "__attribute__", "_Static_assert"}


def _c_strip(text):
    """Comments and string literals out (an #include's name stays)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'^(?!\s*#\s*include)(.*)$', lambda m: re.sub(r'"(?:\\.|[^"\\\n])*"', '""', m.group(1)), text,
                  flags=re.M)


def _c_bodies(text):
    """Only what can call: function bodies (brace depth > 0) and macro definitions."""
    out, depth = [], 0
    for line in text.split("\n"):
        if line.lstrip().startswith("#define"):
            out.append(line)
            continue
        buf = []
        for ch in line:
            depth += (ch == "{") - (ch == "}")
            buf.append(ch if depth > 0 else " ")
        out.append("".join(buf))
    return "\n".join(out)


_C_DEF = re.compile(r"^((?:static\s+)?(?:inline\s+)?)(?:[A-Za-z_]\w*[\s\*]+)+?\**([A-Za-z_]\w*)\s*\(([^;{}]*)\)\s*\{",
                    re.M)


def _c_module(path):
    return path.rsplit(".", 1)[0]


def _c_rank(module):
    keys = [k for k in C_RANKS if module.startswith(k)]
    return C_RANKS[max(keys, key=len)] if keys else None


def _c_graph(texts):
    """{module: {module: [why, ...]}} from calls and includes of the given {path: source} files."""
    texts = {p: _c_strip(t) for p, t in texts.items()}
    owner, local = {}, {}
    for p, t in texts.items():
        for m in _C_DEF.finditer(t):
            name = m.group(2)
            if name in _KEYWORDS:
                continue
            local.setdefault(p, set()).add(name)
            if not m.group(1).startswith("static") or p.endswith(".h"):
                owner.setdefault(name, _c_module(p))
    edges = {}
    for p, t in texts.items():
        mod, out = _c_module(p), edges.setdefault(_c_module(p), {})
        for name in set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", _c_bodies(t))) - local.get(p, set()):
            g = owner.get(name)
            if g and g != mod:
                out.setdefault(g, []).append("calls " + name)
        folder = p.rsplit("/", 1)[0] if "/" in p else ""
        for inc in re.findall(r'#\s*include\s*"([^"]+)"', t):
            for base in (folder, "include", "vboard", "bsp"):
                cand = f"{base}/{inc}" if base else inc
                if cand in texts:
                    if _c_module(cand) != mod:
                        out.setdefault(_c_module(cand), []).append("includes " + inc)
                    break
    return edges


def _c_cycles(edges, allowed=frozenset(), kind="calls"):
    """Circles of `kind` edges ("calls" or "includes") between modules."""
    graph = {m: {d for d, why in ds.items() if (m, d) not in allowed and any(w.startswith(kind) for w in why)}
             for m, ds in edges.items()}
    index, low, stack, on, sccs = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                sccs.append(sorted(scc))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sccs


def _c_violations(texts, allowed=frozenset()):
    edges = _c_graph(texts)
    bad = []
    for mod, deps in sorted(edges.items()):
        rm = _c_rank(mod)
        for dep, why in sorted(deps.items()):
            calls = sorted({w.split()[1] for w in why if w.startswith("calls")})
            rd = _c_rank(dep)
            if calls and rm is not None and rd is not None and rd > rm and (mod, dep) not in allowed:
                bad.append(f"upward call: {mod} (rank {rm}) -> {dep} (rank {rd}): {', '.join(calls)}")
            moved = [c for c in calls if c in C_TIME_MOVERS]
            if moved and not mod.startswith(C_TIME_OWNERS):
                bad.append(f"a device moves time: {mod} calls {', '.join(moved)} (only api.c and cpu/ may)")
    for path, text in sorted(texts.items()):
        mod = _c_module(path)
        if not mod.startswith(C_TIME_OWNERS) and re.search(r"sched\.now\s*(?:[-+]?=(?!=)|\+\+|--)", _c_strip(text)):
            bad.append(f"a device moves time: {mod} writes sched.now (only api.c and cpu/ may)")
    for scc in _c_cycles(edges, allowed):
        inner = [f"{m} -> {d} ({', '.join(sorted(w for w in set(edges[m][d]) if w.startswith('calls'))[:3])})"
                 for m in scc for d in edges[m] if d in scc and any(w.startswith("calls") for w in edges[m][d])]
        bad.append("circle: " + "; ".join(inner))
    for scc in _c_cycles(edges, kind="includes"):
        inner = [f"{m} -> {d}" for m in scc for d in edges[m] if d in scc
                 and any(w.startswith("includes") for w in edges[m][d])]
        bad.append("include circle: " + "; ".join(inner))
    return bad


def _csrc_texts():
    return {p.relative_to(CROOT).as_posix(): p.read_text() for p in sorted(CROOT.rglob("*"))
            if p.suffix in (".c", ".h")}


def test_every_c_module_has_a_rank():
    missing = sorted({_c_module(p) for p in _csrc_texts() if _c_rank(_c_module(p)) is None})
    assert not missing, f"C modules without a rank in C_RANKS: {missing}"


def test_csrc_has_no_circle_and_no_upward_call():
    texts = _csrc_texts()
    edges = _c_graph(texts)
    # the parser sees what it must: the CPU reaches the scheduler, the binding the board's API
    assert "calls vb_sched_sync" in edges["vboard/cpu/cpu"].get("vboard/base/sched", []), "parser broken"
    assert "vboard/api" in edges["python/board"], "parser broken"
    bad = _c_violations(texts, C_KNOTS_ELSEWHERE)
    assert not bad, "\n".join(bad)


# Blocks that own their state: they see neither the board's composition (board.h) nor its API (vboard.h), so
# nothing of the board can reach them but what machine.c hands them.  The DMA, the memory path, PCIe and RTIO use
# vboard.h's types (struct vb_config, vb_region, their statistics) until their parameters are their own structs.
C_OWN_STATE = ("vboard/base/", "vboard/bus/", "vboard/pl/csm", "vboard/pl/gpio", "vboard/pl/dac", "vboard/pl/adc",
               "vboard/pl/trace")
# The only modules that see the whole board: the composer, vboard.h's functions and the initiators.
C_BOARD_USERS = ("vboard/machine", "vboard/api", "vboard/cpu/")


def _c_board_includes(texts):
    bad = []
    for path, text in sorted(texts.items()):
        mod, folder = _c_module(path), path.rsplit("/", 1)[0]
        incs = set(re.findall(r'#\s*include\s*"([^"]+)"', text))
        # "board.h" is vboard/board.h unless the including file's folder has a board.h of its own
        composition = "board.h" in incs and (folder == "vboard" or f"{folder}/board.h" not in texts)
        sees = ({"board.h"} if composition else set()) | ({"vboard.h"} & incs)
        if sees and mod.startswith(C_OWN_STATE):
            bad.append(f"{path} includes {', '.join(sorted(sees))}")
        elif composition and not mod.startswith(C_BOARD_USERS):
            bad.append(f"{path} includes board.h (only machine.c, api*.c and cpu/ may)")
    return bad


def test_blocks_that_own_their_state_never_see_the_board():
    texts = _csrc_texts()
    assert not _c_board_includes(texts), _c_board_includes(texts)
    assert any('"board.h"' in t for p, t in texts.items() if p.startswith("vboard/cpu/")), "parser broken"
    planted = dict(texts)
    planted["vboard/pl/dac.c"] = '#include "board.h"\n' + planted["vboard/pl/dac.c"]
    planted["vboard/dma/sg.c"] = '#include "board.h"\n' + planted["vboard/dma/sg.c"]
    planted["python/board.c"] = '#include "board.h"\n' + planted["python/board.c"]
    assert _c_board_includes(planted) == [
        "python/board.c includes board.h (only machine.c, api*.c and cpu/ may)",
        "vboard/dma/sg.c includes board.h (only machine.c, api*.c and cpu/ may)",
        "vboard/pl/dac.c includes board.h"]


def test_csrc_check_catches_a_planted_upward_call_and_circle():
    texts = _csrc_texts()
    assert not _c_violations(texts, C_KNOTS_ELSEWHERE)
    planted = dict(texts)
    # a device calling the board's API (up, and a time mover), and the DRAM calling the controller (a circle)
    planted["vboard/pl/csm.c"] += "\nstatic void planted(vb_board *b) { vb_sync(b); }\n"
    planted["vboard/mem/dram.c"] += "\nstatic void planted2(void) { vb_ddrc_init(0); }\n"
    planted["vboard/pcie/pcie.c"] += "\nstatic void planted3(vb_board *b) { b->sched.now += 5; }\n"
    # the scheduler's header including the DMA's, whose headers include it: a circle of includes alone
    planted["vboard/base/sched.h"] = '#include "dma/dma.h"\n' + planted["vboard/base/sched.h"]
    bad = _c_violations(planted, C_KNOTS_ELSEWHERE)
    assert any(b.startswith("upward call: vboard/pl/csm (rank 3) -> vboard/api (rank 6): vb_sync") for b in bad), bad
    assert any(b.startswith("a device moves time: vboard/pl/csm calls vb_sync") for b in bad), bad
    assert any(b.startswith("circle:") and "vboard/mem/dram -> vboard/mem/ddrc" in b for b in bad), bad
    assert "a device moves time: vboard/pcie/pcie writes sched.now (only api.c and cpu/ may)" in bad, bad
    assert any(b.startswith("include circle:") and "vboard/base/sched -> vboard/dma/dma" in b for b in bad), bad


# ---- file-level circles (issue 27): a header that declares other files' functions and defines inlines they use ---
# The module check above pairs a .c with its .h; at file level a header is a node of its own, and naming a function
# (a call or a prototype) points at the one file that defines it.  A header holding both the subsystem's inlines and
# every file's prototypes (RTIO's rtio_types.h did) ties all its users into one circle.
C_FILE_CIRCLE_FREE = ("vboard/pl/rtio", "vboard/cpu/rtio_kernel")   # files no circle may include


def _c_file_circles(texts):
    """Circles among files: each file -> the file that defines a name it mentions (function or function macro)."""
    texts = {p: _c_strip(t) for p, t in texts.items()}
    defs = {}
    for p, t in texts.items():
        for m in _C_DEF.finditer(t):
            if m.group(2) not in _KEYWORDS:
                defs.setdefault(m.group(2), set()).add(p)
        for m in re.finditer(r"^\s*#\s*define\s+([A-Za-z_]\w*)\(", t, re.M):
            defs.setdefault(m.group(1), set()).add(p)
    edges = {p: {} for p in texts}
    for p, t in texts.items():
        for name in set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", t)):
            owners = defs.get(name, ())
            if len(owners) == 1 and p not in owners:
                edges[p].setdefault(next(iter(owners)), []).append("calls " + name)
    return [sorted(c) for c in _c_cycles(edges)]


def test_rtio_files_call_one_way():
    circles = [c for c in _c_file_circles(_csrc_texts()) if any(f.startswith(C_FILE_CIRCLE_FREE) for f in c)]
    assert not circles, "\n".join(" <-> ".join(c) for c in circles)


def test_file_circle_check_catches_a_header_declaring_its_users():
    texts = _csrc_texts()
    planted = dict(texts)
    # the SED's prototype back in the types header whose inlines rtio_sed.c calls
    planted["vboard/pl/rtio_types.h"] = planted["vboard/pl/rtio_types.h"].replace(
        "#endif", "bool rtio_behind_margin(const struct vb_rtio *r, int64_t ts, uint64_t t);\n#endif")
    circles = _c_file_circles(planted)
    assert any({"vboard/pl/rtio_sed.c", "vboard/pl/rtio_types.h"} <= set(c) for c in circles), circles
