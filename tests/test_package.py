"""Package-level rules: layering, import hygiene, metadata."""
import ast
import pathlib
import re
import subprocess
import sys

import lamina

ROOT = pathlib.Path(lamina.__file__).parent
# Only the backends and the I/O edges may touch an array library directly (DESIGN.md).
ALLOWED = ("backend", "datasets", "saving", "utils", "data_adapters")


def test_numpy_and_cupy_are_imported_only_by_the_backend_and_io_edges():
    pattern = re.compile(r"^\s*(import|from)\s+(numpy|cupy|cupyx)\b", re.M)
    offenders = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                 if p.relative_to(ROOT).parts[0] not in ALLOWED
                 and pattern.search(p.read_text())]
    assert offenders == [], f"array libraries imported outside lamina/backend: {offenders}"


def test_importing_lamina_does_not_import_cupy():
    code = ("import sys, lamina; from lamina import ops; "
            "ops.add(ops.ones((2,)), 1.0); assert 'cupy' not in sys.modules, 'cupy imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT.parent)


def test_version_and_public_names():
    assert lamina.__version__
    for name in ("Tensor", "Variable", "GradientTape", "no_grad", "stop_gradient", "ops",
                 "backend"):
        assert hasattr(lamina, name), name


def _imports(package: str):
    """(file:line, imported lamina module) for every import in ``lamina/<package>``, at the
    top of a module or inside a function, relative or absolute."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = ("lamina",) + path.relative_to(ROOT).with_suffix("").parts
        here = parts[:-1]          # the package a relative import starts from
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = list(here[:len(here) - node.level + 1])
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module or ""
                # ``from . import x`` imports the module ``x`` of the package
                targets = [f"{prefix}.{a.name}" for a in node.names] if node.module is None \
                    else [prefix]
            else:
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            found += [(where, t) for t in targets if t == "lamina" or t.startswith("lamina.")]
    return found


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "lamina"


ABOVE_THE_COMPILER = ("layers", "models", "trainers", "callbacks", "saving", "optimizers",
                      "losses", "metrics", "data_adapters")


def test_ops_imports_neither_graph_nor_the_model_packages():
    offenders = [(where, module) for where, module in _imports("ops")
                 if _package(module) in ("graph",) + ABOVE_THE_COMPILER]
    assert offenders == [], f"lamina/ops imports packages above it: {offenders}"


def test_graph_imports_no_layer_model_training_or_saving_code():
    offenders = [(where, module) for where, module in _imports("graph")
                 if _package(module) in ABOVE_THE_COMPILER]
    assert offenders == [], f"lamina/graph (the compiler) imports packages above it: " \
                            f"{offenders}"


def test_core_imports_only_the_tensor_mixin_dtypes_and_errors():
    allowed = ("lamina.autograd.tensor", "lamina.dtypes", "lamina.errors", "lamina.backend",
               "lamina.tree")
    offenders = [(where, module) for where, module in _imports("core")
                 if not module.startswith("lamina.core")
                 and not any(module == a or module.startswith(a + ".") for a in allowed)]
    assert offenders == [], f"lamina/core imports more than {allowed}: {offenders}"
    assert _imports("core"), "lamina/core has no imports at all: the scan found no files"


def test_the_symbolic_tensor_lives_in_core_and_keeps_its_public_names():
    from lamina.core.symbolic import Node, SymbolicTensor
    assert lamina.graph.SymbolicTensor is SymbolicTensor
    assert lamina.graph.Node is Node
    assert lamina.KerasTensor is SymbolicTensor
    x = SymbolicTensor((None, 3), "float32")
    assert isinstance(lamina.ops.add(x, 1.0), SymbolicTensor)   # ops dispatches to core
