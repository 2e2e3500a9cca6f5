"""The conformance runner's own tests: the shim, the classes of failure, the table."""
import subprocess
import sys
import textwrap

import pytest

from tests.keras_conformance import report
from tests.keras_conformance.classify import reason
from tests.keras_conformance.run import REPO


def _in_child(code: str) -> str:
    """Run code with the shim installed in a fresh interpreter (the shim takes over every
    ``keras`` import of its process)."""
    prelude = "from tests.keras_conformance import shim; shim.install()\n"
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_shim_gives_lamina_objects_for_keras_public_names():
    out = _in_child("""
        import lamina
        from keras.src import layers, ops
        from keras.src.ops import numpy as knp
        from keras.src.backend.common import dtypes
        import keras
        assert layers.Dense is lamina.layers.Dense and knp.add is lamina.ops.add
        assert ops.conv is lamina.ops.conv and keras.layers is lamina.layers
        assert "float32" in dtypes.ALLOWED_DTYPES           # Keras's own constant
        from keras.src import backend
        print(backend.backend())
    """)
    assert out.strip() == "lamina"


def test_keras_remat_module_is_the_module_lamina_calls_remat_from():
    # Keras's layer tests patch keras.src.backend.common.remat.remat and count the calls
    # of layers made in a RematScope: the patch must reach Lamina's RematScope.
    out = _in_child("""
        from unittest import mock
        import numpy as np
        import lamina
        from keras.src.backend.common.remat import RematScope
        seen = []
        def spy(f):
            seen.append(f)
            return f
        with mock.patch("keras.src.backend.common.remat.remat", wraps=spy):
            with RematScope(mode="full"):
                layer = lamina.layers.Dense(2)
            layer(np.ones((1, 3), "float32"))
        assert RematScope is lamina.RematScope
        print(len(seen))
    """)
    assert out.strip() == "1"


def test_a_keras_internal_imports_but_fails_when_used():
    out = _in_child("""
        from keras.src.ops.numpy import Add                 # Keras's op class: internal
        try:
            Add()
        except AttributeError as e:
            print(type(e).__name__, e)
    """)
    assert out.startswith("KerasInternal keras-internal: keras.src.ops.numpy.Add")
    assert reason("failed", out) == "uses Keras internals or another framework"


def test_keras_test_modules_run_from_keras_source():
    out = _in_child("""
        from keras.src.testing.test_utils import named_product
        from keras.src.testing import TestCase
        import keras.src.losses.losses_test as t
        print(t.__file__, TestCase.__module__)
    """)
    path, module = out.split()
    assert path.endswith("keras/src/losses/losses_test.py")
    assert module == "tests.keras_conformance.keras_test_case"


def test_trainer_test_imports_with_lamina_trainer_as_the_jax_trainer():
    out = _in_child("""
        import lamina
        from keras.src import backend
        import keras.src.trainers.trainer_test as t        # its import-time backend check
        from keras.src.backend.jax.trainer import JAXTrainer
        assert t.Trainer is JAXTrainer is lamina.trainers.Trainer
        model = t.ExampleModel(units=3)                     # Trainer mixed into Dense
        assert model.units == 3 and not model.compiled
        def module_level_elsewhere():
            return backend.backend()
        print(backend.backend(), module_level_elsewhere())
    """)
    # "jax" only for trainer_test's module-level code; everyone else still sees Lamina
    assert out.split() == ["lamina", "lamina"]


@pytest.mark.parametrize("outcome, detail, expected", [
    ("passed", "", "passed"),
    ("failed", 'AssertionError: "Invalid value" does not match "ExampleLoss: bad"',
     "message differs"),
    ("failed", "AssertionError: ValueError not raised", "no error raised"),
    ("failed", "AssertionError: \nNot equal to tolerance rtol=1e-06", "numbers differ"),
    ("failed", "lamina.errors.ShapeError: accuracy: argument ... @ lamina/metrics/x.py:3",
     "raises ShapeError"),
    ("failed", "missing-in-lamina: keras.ops.foo (reached as keras.src.ops.foo)",
     "missing in Lamina"),
    ("skipped", "requires jax", "skipped on Lamina"),
])
def test_failures_are_classified(outcome, detail, expected):
    assert reason(outcome, detail) == expected


def test_the_table_counts_internals_apart():
    baseline = {"keras/src/a/x_test.py::T::t1": "passed", "keras/src/a/x_test.py::T::t2":
                "passed", "keras/src/a/x_test.py::T::t3": "passed",
                "keras/src/a/x_test.py::T::t4": "failed"}
    results = {"keras/src/a/x_test.py::T::t1": ["passed", ""],
               "keras/src/a/x_test.py::T::t2": ["failed", "KerasInternal: keras-internal: x"],
               "keras/src/a/x_test.py::T::t3": ["failed", "AssertionError: x not raised"]}
    row = report.total(report.classify_all(baseline, results))
    assert (row.baseline, row.public, row.passed) == (3, 2, 1)
    assert row.share == 0.5


def test_a_keras_skip_of_a_backend_specific_test_counts_as_another_framework():
    from tests.keras_conformance.classify import INTERNAL, reason
    assert reason("skipped", "('x_test.py', 20, 'Skipped: JAX only')") == INTERNAL
    assert reason("skipped", "('x.py', 3, 'Skipped: This test requires `jax` as the "
                             "backend.')") == INTERNAL
    assert reason("skipped", "('x.py', 3, 'Skipped: needs a GPU')") == "skipped on Lamina"


def test_absent_frameworks_stand_in_for_keras_code_only():
    out = _in_child("""
        import sys
        if "torch" in sys.modules or __import__("importlib").util.find_spec("torch"):
            print("torch installed"); raise SystemExit
        code = compile("import torch", "/x/site-packages/otherlib/__init__.py", "exec")
        try:                     # another library's optional import fails as without shim
            exec(code, {"__name__": "otherlib"})
        except ImportError:
            print("ImportError", "torch" in sys.modules)
        import torch             # a Keras test's import gets the stand-in
        print(issubclass(float, torch.Tensor), isinstance(1.0, torch.Tensor))
        try:
            torch.Tensor([1.0])
        except Exception as e:
            print(type(e).__name__, e)
    """)
    if out.strip() != "torch installed":
        assert out.splitlines() == ["ImportError False", "False False",
                                    "KerasInternal needs torch: the keras test calls "
                                    "torch.Tensor"]
