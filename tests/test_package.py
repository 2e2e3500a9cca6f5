"""Package-level rules: layering, import hygiene, metadata."""
import os
import json
import pathlib
import re
import subprocess
import sys

import lamina
from tests import import_graph

ROOT = pathlib.Path(lamina.__file__).parent
# Only the backends and the I/O edges may touch an array library directly (DESIGN.md); the
# registry is the edge where configs hold numpy values ("__numpy__", "__tensor__").
ALLOWED = ("backend", "datasets", "saving", "utils", "data_adapters", "registry")


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


GRAPH = import_graph.imports()


def test_each_part_imports_only_the_parts_below_it():
    """Issue 21's ten parts (tests/import_graph.py PARTS), function-level imports counted;
    autograd and graph sit side by side and import neither the other."""
    offenders = [f"{module}:{line or 'top'} imports {target}"
                 for module, line, target in import_graph.upward_imports(GRAPH)]
    assert offenders == [], "imports of a higher part:\n" + "\n".join(offenders)
    assert set(import_graph.RANK) >= {import_graph.folder(m) for m in GRAPH}, \
        "a folder of lamina/ is in no part: add it to PARTS in tests/import_graph.py"


def test_no_import_circle_spans_two_folders():
    spanning = [sorted({import_graph.folder(m) for m in circle})
                for circle in import_graph.cycles(GRAPH, import_graph.all_modules())
                if len({import_graph.folder(m) for m in circle}) > 1]
    assert spanning == [], f"import circles across folders: {spanning}"


def test_function_level_imports_are_few_and_each_says_why():
    """At most 40 function-level imports of Lamina's own modules, each with a comment on
    its line or the line above saying why it cannot be at the top (optional packages such
    as h5py or onnx are not counted)."""
    statements = sorted({(module, line) for module, (_, lazy) in GRAPH.items()
                         for line, _ in lazy})
    assert len(statements) <= 40, f"{len(statements)} function-level imports: {statements}"
    files = import_graph.all_modules()
    silent = []
    for module, line in statements:
        lines = files[module].read_text().splitlines()
        if "#" not in lines[line - 1] and not lines[line - 2].strip().startswith("#"):
            silent.append(f"{module}:{line}")
    assert silent == [], f"function-level imports without a comment saying why: {silent}"


def test_the_import_closure_of_ops_is_ground_backend_core_registry_and_ops():
    """``import lamina.ops`` with an empty ``lamina`` package (so the public face does not
    load everything first) loads only the parts below ops, and no h5py or urllib."""
    code = ("import json, sys, types; pkg = types.ModuleType('lamina'); "
            f"pkg.__path__ = [{str(ROOT)!r}]; sys.modules['lamina'] = pkg; "
            "import lamina.ops; print(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, cwd=ROOT.parent).stdout
    loaded = json.loads(out.strip().splitlines()[-1])
    allowed = {"ground", "backend", "core", "registry", "ops"}
    parts = {f: part for part, folders in import_graph.PARTS.items() for f in folders}
    ours = [m for m in loaded if m.startswith("lamina.")]
    outside = [m for m in ours if parts[import_graph.folder(m)] not in allowed]
    assert outside == [], f"import lamina.ops loads modules above ops: {outside}"
    assert "lamina.ops.math" in ours and "lamina.core.op" in ours
    foreign = [m for m in ("h5py", "urllib.request", "matplotlib", "onnx", "mpi4py", "cupy")
               if m in loaded]
    assert foreign == [], f"import lamina.ops loads {foreign}"


def test_import_lamina_loads_no_optional_or_file_package():
    code = ("import json, sys, lamina; print(json.dumps([m for m in ('h5py', 'matplotlib', "
            "'onnx', 'onnxruntime', 'mpi4py', 'cupy', 'tensorboard', 'PIL') "
            "if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, cwd=ROOT.parent).stdout
    assert json.loads(out.strip().splitlines()[-1]) == []


def test_the_symbolic_tensor_lives_in_core_and_keeps_its_public_names():
    from lamina.core.symbolic import Node, SymbolicTensor
    assert lamina.graph.SymbolicTensor is SymbolicTensor
    assert lamina.graph.Node is Node
    assert lamina.KerasTensor is SymbolicTensor
    x = SymbolicTensor((None, 3), "float32")
    assert isinstance(lamina.ops.add(x, 1.0), SymbolicTensor)   # ops dispatches to core


def test_no_module_is_over_600_lines():
    """Issue 21: each file small and named for what it does."""
    root = os.path.join(os.path.dirname(__file__), "..", "lamina")
    long = []
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    count = sum(1 for _ in f)
                if count > 600:
                    long.append(f"{os.path.relpath(path, root)}: {count}")
    assert not long, long
