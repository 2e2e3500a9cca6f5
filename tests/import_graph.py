"""The import graph of ``lamina/``, read from the source (no import runs): which Lamina
modules each module imports at module level and inside functions. Used by
``tests/test_package.py`` and runnable as ``python -m tests.import_graph`` for a report."""
import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "lamina"


def module_name(path: pathlib.Path) -> str:
    parts = ("lamina",) + path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def all_modules():
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _resolve(node, here, modules):
    """The Lamina modules one import statement loads (the module itself, or for
    ``from pkg import name`` the submodule ``pkg.name`` when there is one)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "lamina"]
    if node.level:
        base = here.split(".")[:len(here.split(".")) - node.level + 1]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    if prefix.split(".")[0] != "lamina":
        return []
    out = []
    for a in node.names:
        sub = f"{prefix}.{a.name}"
        out.append(sub if sub in modules else prefix)
    return out


def imports(modules=None):
    """{module: (set of module-level imports, [(line, module) function-level imports])}.
    Imports under ``if TYPE_CHECKING`` are left out; ones in a module-level ``try`` count as
    module level."""
    modules = modules or all_modules()
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        here = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        top, lazy = set(), []

        def visit(node, in_function):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    continue
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _resolve(child, here, modules):
                        # a package import also runs the parent packages' __init__
                        if in_function:
                            lazy.append((child.lineno, target))
                        else:
                            top.add(target)
                visit(child, in_function or isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))
        visit(tree, False)
        graph[name] = (top, lazy)
    return graph


def _with_parents(target, modules):
    """Importing ``lamina.a.b`` runs ``lamina/a/__init__`` first. ``lamina/__init__`` is left
    out: it is the public face, running already whenever any part is imported, so it is an
    edge only for code that imports ``lamina`` itself."""
    parts = target.split(".")
    found = [".".join(parts[:i]) for i in range(2, len(parts) + 1)
             if ".".join(parts[:i]) in modules]
    return found or (["lamina"] if target == "lamina" else [])


def edges(graph, modules, lazy=True):
    out = {}
    for name, (top, fn) in graph.items():
        targets = set(top) | ({t for _, t in fn} if lazy else set())
        out[name] = {p for t in targets for p in _with_parents(t, modules) if p != name}
    return out


def closure(start, graph, modules):
    """The modules that ``import start`` loads, module-level imports only."""
    e = edges(graph, modules, lazy=False)
    seen, todo = set(), list(_with_parents(start, modules))
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        todo += e.get(m, ())
    return seen


def cycles(graph, modules, lazy=True):
    """Strongly connected components (more than one module) of the import graph."""
    e = edges(graph, modules, lazy)
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in e.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in e:
        if v not in index:
            strong(v)
    return out


def folder(module):
    """The folder of a module: ``lamina.ops.nn`` -> ``ops``; top-level files are their own."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "lamina"


# The ten parts of issue 21's layering, bottom to top; a module may import only modules of
# its own part or of parts below it. Keys are folders (``lamina/<folder>``) or top-level
# files; ``lamina`` is ``lamina/__init__.py``.
PARTS = {
    "ground": ("errors", "dtypes", "dtype_lattice", "tree", "settings", "h5_guard",
               "traceback_filter"),
    "backend": ("backend",),
    "core": ("core",),
    "registry": ("registry",),
    "ops": ("ops", "random"),
    "engines": ("autograd", "graph"),
    "building blocks": ("distribution", "initializers", "regularizers", "constraints",
                        "activations", "dtype_policies", "quantizers"),
    "layers": ("layers",),
    "training objects": ("losses", "metrics", "optimizers"),
    "files and training": ("saving", "callbacks", "trainers", "data_adapters", "models"),
    "public face": ("utils", "applications", "export", "datasets", "visualization",
                    "preprocessing", "distillation", "config", "mixed_precision", "lamina"),
}
RANK = {folder: rank for rank, folders in enumerate(PARTS.values()) for folder in folders}


def upward_imports(graph):
    """(module, line or None, imported module) for each import of a higher part; line is
    None for module-level imports. autograd and graph share a part but may not import each
    other."""
    out = []
    for name, (top, lazy) in graph.items():
        here = folder(name)
        for line, target in [(None, t) for t in sorted(top)] + list(lazy):
            there = folder(target)
            if RANK[there] > RANK[here] or (here != there and {here, there} ==
                                             {"autograd", "graph"}):
                out.append((name, line, target))
    return out


if __name__ == "__main__":
    mods = all_modules()
    g = imports(mods)
    statements = sorted({(n, line) for n, (_, fn) in g.items() for line, _ in fn})
    print(f"{len(mods)} modules, {len(statements)} function-level imports of Lamina modules")
    for n, line in statements:
        print(f"  {n}:{line}")
    for comp in cycles(g, mods):
        folders = sorted({folder(m) for m in comp})
        print(f"circle of {len(comp)} modules in {', '.join(folders)}")
    for n, line, target in upward_imports(g):
        print(f"upward: {n}:{line or 'top'} imports {target}")
