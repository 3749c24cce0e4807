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
