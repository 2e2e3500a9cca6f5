"""Package-level rules: layering, import hygiene, metadata."""
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
