"""Backend capabilities are attributes of the backend class, never checks of its name.

Code that needs to know what a backend can do asks ``Backend.host_arrays``,
``fuses_elementwise``, ``sums_by_matmul``, ``atomic_scatter_add`` or ``device_counters``; only the registry in
``lamina/backend/__init__.py`` maps names to classes. The scan below fails when a
``backend.name == "cupy"``-style comparison (or an isinstance check of a backend class, or a
test of the array module's name) comes back anywhere else in the package.
"""
import re
from pathlib import Path

import numpy as np
import pytest

import lamina
from lamina.backend import get_backend, statistics
from lamina.backend.base import Backend
from lamina.backend.numpy_backend import NumpyBackend
from lamina.graph.passes import fuse_elementwise

PACKAGE = Path(lamina.__file__).parent
REGISTRY = PACKAGE / "backend" / "__init__.py"

_NAMES = r"[\"'](?:numpy|cupy|base)[\"']"
NAME_CHECKS = re.compile("|".join((
    r"\.name\s*(?:==|!=)\s*" + _NAMES,                       # backend.name == "cupy"
    _NAMES + r"\s*(?:==|!=)\s*[\w.()]*\.name\b",             # "cupy" == backend.name
    r"\.name\s+(?:not\s+)?in\s+[\(\[\{]\s*" + _NAMES,        # backend.name in ("cupy", ...)
    r"isinstance\([^)]*(?:Cupy|Numpy)Backend",               # isinstance(b, CupyBackend)
    r"type\([^)]*\)\s+is\s+(?:Cupy|Numpy)Backend",
    r"xp\.__name__\s*(?:==|!=)",                             # xp.__name__ != "numpy"
    r"\.device\s*(?:==|!=)\s*[\"'](?:cpu|gpu|cuda)",          # self.device == "cpu"
)))

# A ModuleNotFoundError's ``name`` is the missing module, not a backend.
ALLOWED = {("backend/cupy_backend.py", 'exc.name == "cupy"')}


def _name_checks(path: Path) -> list:
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = NAME_CHECKS.search(line)
        relative = path.relative_to(PACKAGE).as_posix()
        if match and not any(relative == p and text in line for p, text in ALLOWED):
            found.append(f"{relative}:{number}: {line.strip()}")
    return found


def test_no_backend_name_checks_outside_the_registry():
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) if path != REGISTRY
             for hit in _name_checks(path)]
    assert found == [], ("branch on a Backend capability attribute, not on the backend's "
                         "name or class:\n" + "\n".join(found))


@pytest.mark.parametrize("line", [
    'return force or get_backend().name == "cupy"',
    "if backend.name != 'numpy':",
    'if "cupy" == x.backend.name:',
    'if backend.name in ("cupy", "other"):',
    "if isinstance(backend, CupyBackend):",
    'on_host = method == "inverted_cdf" and xp.__name__ != "numpy"',
    'if fn in ("sum", "mean") and self.device == "cpu":',
])
def test_the_scan_recognises_name_checks(line):
    assert NAME_CHECKS.search(line)


@pytest.mark.parametrize("line", [
    'if op.name != "add":', 'f.attrs["backend"] = get_backend().name',
    "if backend.fuses_elementwise:", 'return (backend.name, tuple(parts))',
])
def test_the_scan_leaves_other_uses_of_names_alone(line):
    assert not NAME_CHECKS.search(line)


CAPABILITIES = {"host_arrays": True, "fuses_elementwise": False, "sums_by_matmul": True,
                "atomic_scatter_add": False, "device_counters": False}


@pytest.mark.parametrize("capability,value", sorted(CAPABILITIES.items()))
def test_numpy_backend_capabilities(capability, value):
    assert getattr(get_backend("numpy"), capability) is value
    assert getattr(Backend, capability) is value          # the documented CPU defaults


def test_cupy_backend_capabilities():
    """Read off the class: no GPU is needed to check what it declares."""
    from lamina.backend.cupy_backend import CupyBackend
    assert {c: getattr(CupyBackend, c) for c in CAPABILITIES} == \
        {c: not value for c, value in CAPABILITIES.items()}


def test_every_capability_is_documented_in_the_base_class():
    source = (PACKAGE / "backend" / "base.py").read_text(encoding="utf-8")
    for capability in CAPABILITIES:
        assert re.search(rf"^    {capability}: bool = \w+\n    \"\"\"\S", source, re.M), \
            capability


class _DeviceLike(NumpyBackend):
    """numpy arrays behind the capabilities of a GPU backend: every branch takes the
    other path, which must give the same values."""
    name = "device-like"
    host_arrays = False
    fuses_elementwise = True
    sums_by_matmul = False
    atomic_scatter_add = True
    device_counters = True
    compiled_chains = False


def test_fusion_applies_by_capability(monkeypatch):
    monkeypatch.setattr(get_backend("numpy"), "compiled_chains", False)
    assert not fuse_elementwise.applies()
    assert fuse_elementwise.applies(force=True)
    monkeypatch.setattr(fuse_elementwise, "get_backend", lambda: _DeviceLike())
    assert fuse_elementwise.applies()


def test_sum_by_matmul_only_where_the_backend_says_so(monkeypatch):
    x = np.random.default_rng(1).standard_normal((64, 8)).astype("float32")
    calls = []
    original = Backend._sum_by_matmul

    def spy(self, *args, **kwargs):
        calls.append(type(self).__name__)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Backend, "_sum_by_matmul", spy)
    cpu, other = get_backend("numpy").reduce("sum", x, 0, False), \
        _DeviceLike().reduce("sum", x, 0, False)
    assert calls == ["NumpyBackend"]
    np.testing.assert_allclose(other, x.sum(axis=0), rtol=1e-5)
    np.testing.assert_allclose(cpu, x.sum(axis=0), rtol=1e-5)


def test_scatter_add_gives_the_same_sums_on_both_paths():
    updates = np.arange(24, dtype="float64").reshape(6, 4)
    indices = np.array([2, 0, 2, -1, 0, 2])
    expected = np.zeros((5, 4))
    np.add.at(expected, indices % 5, updates)
    for backend in (get_backend("numpy"), _DeviceLike()):
        np.testing.assert_array_equal(backend.scatter_add((5, 4), indices, updates, 0),
                                      expected)


class _NoInvertedCdf:
    """An array module whose quantile lacks "inverted_cdf" (like older CuPy)."""
    ndarray = np.ndarray
    asarray = staticmethod(np.asarray)

    @staticmethod
    def quantile(*args, **kwargs):
        raise AssertionError("inverted_cdf must be computed on the host")


def test_quantile_goes_to_the_host_when_arrays_are_not_host_arrays():
    backend = _DeviceLike()
    backend.xp = _NoInvertedCdf
    x = np.array([[3.0, 1.0, 4.0, 1.0, 5.0], [9.0, 2.0, 6.0, 5.0, 3.0]])
    got = statistics.quantile(backend, x, 0.4, (1,), "inverted_cdf", False, False)
    np.testing.assert_array_equal(got, [1.0, 3.0])
    host = statistics.quantile(get_backend("numpy"), x, 0.4, (1,), "inverted_cdf", False,
                               False)
    np.testing.assert_array_equal(host, [1.0, 3.0])


def test_random_draws_read_the_counter_array_where_the_backend_says_so(monkeypatch):
    """On a device_counters backend the op hands the kernel the SeedGenerator's state array
    (no read-back per draw); the values are the same as from the counter as an int."""
    seen = []
    original = NumpyBackend.random_uniform

    def spy(self, shape, dtype, key, counter):
        seen.append((type(self).__name__, type(counter).__name__))
        return original(self, shape, dtype, key, counter)

    monkeypatch.setattr(NumpyBackend, "random_uniform", spy)
    values = {}
    for backend in (get_backend("numpy"), _DeviceLike()):
        with lamina.backend.use(backend):
            generator = lamina.random.SeedGenerator(7)
            generator.next()                                    # counter 1
            drawn = [lamina.random.uniform((3, 5), seed=generator).numpy(),
                     lamina.random.dropout(np.ones((4, 6), "float32"), 0.5,
                                           seed=generator).numpy()]
            values[backend.name] = drawn
    assert seen[0] == ("NumpyBackend", "int") and seen[-1] == ("_DeviceLike", "ndarray")
    for ours, theirs in zip(values["numpy"], values["device-like"]):
        np.testing.assert_array_equal(ours, theirs)
