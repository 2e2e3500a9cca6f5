"""Choosing a backend: set_backend, use(), LAMINA_BACKEND, lazy cupy, Keras's utilities.

Runs without a GPU. The cupy backend's start-up checks are exercised with stand-in
``cupy`` modules, so each of its error messages is tested here too.
"""
import builtins
import os
import pathlib
import subprocess
import sys
import types

import numpy as np
import pytest

import lamina
from lamina import backend as lb
from lamina import ops
from lamina.backend.cupy_backend import CupyBackend
from lamina.backend.numpy_backend import NumpyBackend
from lamina.errors import BackendError, DTypeError
from tests.conftest import cupy_unavailable_reason
from lamina.ops.core import to_backend_tensor

ROOT = pathlib.Path(lamina.__file__).parent.parent
INSTALL_HINT = 'pip install "lamina[gpu]"'
EXACT_IMPORT_MESSAGE = ('The cupy backend needs CuPy: pip install "lamina[gpu]" (CUDA 12; '
                        'see https://docs.cupy.dev/en/stable/install.html)')
needs_no_cupy = pytest.mark.skipif(cupy_unavailable_reason() is None,
                                   reason="cupy and a GPU are present here")


def run_python(code: str, **env_vars) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter with Lamina importable and LAMINA_BACKEND unset."""
    env = {k: v for k, v in os.environ.items() if k != "LAMINA_BACKEND"}
    env.update(env_vars)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(autouse=True)
def _numpy_default_backend():
    """Each test starts with numpy as the default and leaves the default as it found it."""
    previous = lb.get_backend()
    lb.set_backend("numpy")
    yield
    lb.set_backend(previous.name)


# ----------------------------------------------------------------- set_backend and use
def test_set_backend_numpy_makes_it_the_default():
    chosen = lb.set_backend("numpy")
    assert chosen is lb.get_backend() is lb.get_backend("numpy")
    assert chosen.name == "numpy" and chosen.device == "cpu"
    assert lb.backend() == "numpy"
    assert ops.ones((2,)).backend is chosen


def test_one_instance_per_backend_name():
    assert lb.get_backend("numpy") is lb.get_backend("numpy")
    assert isinstance(lb.get_backend("numpy"), NumpyBackend)
    assert repr(lb.get_backend("numpy")) == "<lamina backend 'numpy' on cpu>"


def test_get_backend_passes_a_backend_object_through():
    other = NumpyBackend()
    assert lb.get_backend(other) is other


def test_use_nests_and_restores_the_previous_backend():
    outer_default = lb.get_backend()
    other = NumpyBackend()                      # a second, distinct backend object
    with lb.use(other) as active:
        assert active is other and lb.get_backend() is other
        assert ops.ones((2,)).backend is other
        with lb.use("numpy") as inner:
            assert inner is lb.get_backend("numpy") is lb.get_backend()
            assert ops.ones((2,)).backend is inner
        assert lb.get_backend() is other
    assert lb.get_backend() is outer_default


def test_use_restores_the_previous_backend_after_an_exception():
    before = lb.get_backend()
    with pytest.raises(KeyError):
        with lb.use(NumpyBackend()):
            raise KeyError("inside")
    assert lb.get_backend() is before


def test_use_does_not_change_the_default():
    default = lb.get_backend()
    with lb.use(NumpyBackend()):
        assert lb.get_backend() is not default
    assert lb.get_backend() is default is lb.get_backend("numpy")


@pytest.mark.parametrize("choose", [lb.get_backend, lb.set_backend,
                                    lambda name: lb.use(name).__enter__()],
                         ids=["get_backend", "set_backend", "use"])
def test_unknown_backend_name_lists_the_choices(choose):
    before = lb.get_backend()
    with pytest.raises(ValueError, match=r"unknown backend 'tpu'; expected one of "
                                         r"\('numpy', 'cupy'\)"):
        choose("tpu")
    assert lb.get_backend() is before


# ----------------------------------------------------------------- LAMINA_BACKEND
def test_lamina_backend_env_var_picks_the_default():
    code = ("import lamina; from lamina import ops; "
            "print(lamina.backend.backend(), ops.ones((2,)).backend.name)")
    for value in ("numpy", " NumPy "):
        result = run_python(code, LAMINA_BACKEND=value)
        assert result.returncode == 0, result.stderr
        assert result.stdout.split() == ["numpy", "numpy"]


def test_without_lamina_backend_the_default_is_numpy():
    result = run_python("import lamina; print(lamina.backend.backend())")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "numpy"


def test_unknown_lamina_backend_value_raises_listing_the_choices():
    code = ("import lamina\n"
            "try:\n"
            "    lamina.backend.get_backend()\n"
            "except ValueError as exc:\n"
            "    print(exc)\n")
    result = run_python(code, LAMINA_BACKEND="tpu")
    assert result.returncode == 0, result.stderr
    assert "unknown backend 'tpu'; expected one of ('numpy', 'cupy')" in result.stdout


@needs_no_cupy
def test_lamina_backend_cupy_without_a_gpu_explains_how_to_install():
    code = ("import lamina\n"
            "from lamina import ops\n"
            "try:\n"
            "    ops.ones((2,))\n"
            "except (ImportError, RuntimeError) as exc:\n"
            "    print(type(exc).__name__, exc)\n")
    result = run_python(code, LAMINA_BACKEND="cupy")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[0] in ("ImportError", "RuntimeError")
    assert INSTALL_HINT in result.stdout


# ----------------------------------------------------------------- cupy stays lazy
def test_importing_lamina_and_computing_never_imports_cupy():
    code = ("import sys, lamina\n"
            "from lamina import ops\n"
            "assert 'cupy' not in sys.modules, 'import lamina imported cupy'\n"
            "x = ops.convert_to_tensor([[1.0, 2.0], [3.0, 4.0]])\n"
            "w = lamina.Variable([[1.0], [2.0]])\n"
            "with lamina.GradientTape() as tape:\n"
            "    loss = ops.sum(ops.multiply(ops.exp(x), x) * 2.0 - 1.0)\n"
            "tape.gradient(loss, x)\n"
            "lamina.backend.backend(); lamina.backend.floatx()\n"
            "assert 'cupy' not in sys.modules, 'computing imported cupy'\n"
            "assert 'cupyx' not in sys.modules\n")
    result = run_python(code)
    assert result.returncode == 0, result.stderr


def test_the_cupy_backend_modules_import_without_cupy():
    code = ("import sys\n"
            "import lamina.backend.cupy_backend, lamina.backend.cupy_kernels\n"
            "assert 'cupy' not in sys.modules\n")
    result = run_python(code)
    assert result.returncode == 0, result.stderr


@needs_no_cupy
@pytest.mark.parametrize("ask", [
    lambda: lb.get_backend("cupy"),
    lambda: lb.set_backend("cupy"),
    lambda: lb.use("cupy").__enter__(),
    lambda: ops.convert_to_tensor([1.0]).to("cupy"),
    lambda: to_backend_tensor([1.0], backend="cupy"),
], ids=["get_backend", "set_backend", "use", "Tensor.to", "convert_to_tensor"])
def test_asking_for_cupy_without_a_gpu_explains_how_to_install(ask):
    before = lb.get_backend()
    with pytest.raises((ImportError, RuntimeError)) as info:
        ask()
    assert INSTALL_HINT in str(info.value)
    assert lb.get_backend() is before
    assert lb.available_backends() == ["numpy"]


# ----------------------------------------------------------------- cupy start-up checks
class _FakeCudaError(RuntimeError):
    """Stands in for cupy.cuda.runtime.CUDARuntimeError."""


def _fake_cupy(device_count=1, count_error=None, kernel_error=None):
    """A stand-in ``cupy`` module with just what CupyBackend's start-up checks touch."""
    def get_device_count():
        if count_error is not None:
            raise count_error
        return device_count

    def arange(*args, **kwargs):
        if kernel_error is not None:
            raise kernel_error
        return np.arange(*args, **kwargs)

    runtime = types.SimpleNamespace(getDeviceCount=get_device_count, getDevice=lambda: 0)
    module = types.ModuleType("cupy")
    module.cuda = types.SimpleNamespace(runtime=runtime)
    module.arange = arange
    module.float32 = np.float32
    module.asnumpy = np.asarray
    return module


def test_cupy_not_installed_raises_import_error_with_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)       # makes `import cupy` fail
    with pytest.raises(ImportError) as info:
        CupyBackend()
    assert str(info.value) == EXACT_IMPORT_MESSAGE


def test_a_broken_cupy_install_names_the_import_failure(monkeypatch):
    real_import = builtins.__import__

    def failing_import(name, *args, **kwargs):
        if name == "cupy":
            raise ImportError("libcudart.so.12: cannot open shared object file")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", failing_import)
    with pytest.raises(ImportError, match=r"(?s)needs CuPy: pip install \"lamina\[gpu\]\".*"
                                          r"importing cupy failed: libcudart\.so\.12"):
        CupyBackend()


def test_no_cuda_device_raises_runtime_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(device_count=0))
    with pytest.raises(RuntimeError, match=r"found no usable GPU: CUDA reports 0 devices\. "
                                           r"CuPy: pip install \"lamina\[gpu\]\""):
        CupyBackend()


def test_a_cuda_runtime_error_is_reported_with_its_reason(monkeypatch):
    error = _FakeCudaError("cudaErrorInsufficientDriver: CUDA driver version is insufficient")
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(count_error=error))
    with pytest.raises(RuntimeError, match=r"found no usable GPU: CUDA could not list devices "
                                           r"\(_FakeCudaError: cudaErrorInsufficientDriver.*"
                                           r"pip install \"lamina\[gpu\]\""):
        CupyBackend()


def test_a_gpu_that_cannot_run_kernels_is_reported(monkeypatch):
    error = RuntimeError("nvrtc: error: failed to load builtins")
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(kernel_error=error))
    with pytest.raises(RuntimeError, match=r"cannot run kernels on the GPU \(RuntimeError: "
                                           r"nvrtc: error.*pip install \"lamina\[gpu\]\""):
        CupyBackend()


@needs_no_cupy
def test_a_failed_cupy_backend_is_not_cached(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(device_count=0))
    for _ in range(2):
        with pytest.raises(RuntimeError, match="CUDA reports 0 devices"):
            lb.get_backend("cupy")
    assert lb.available_backends() == ["numpy"]


# ----------------------------------------------------------------- tensors and arrays
def test_tensors_carry_their_backend():
    t = ops.convert_to_tensor([1.0, 2.0])
    assert t.backend.name == "numpy" and t.device == "cpu"
    assert (t + 1.0).backend is t.backend
    other = NumpyBackend()
    with lb.use(other):
        u = ops.convert_to_tensor([1.0, 2.0])
    assert u.backend is other
    assert ops.exp(u).backend is other           # results follow their inputs, not use()


def test_tensor_to_its_own_backend_is_the_identity():
    t = ops.convert_to_tensor([1.0, 2.0])
    assert t.to("numpy") is t
    assert t.to(lb.get_backend("numpy")) is t


def test_tensor_to_another_backend_copies():
    other = NumpyBackend()
    t = ops.convert_to_tensor([1.0, 2.0])
    moved = t.to(other)
    assert moved.backend is other and moved is not t
    np.testing.assert_array_equal(moved.numpy(), t.numpy())


def test_mixing_tensors_of_two_backends_raises_backend_error():
    a = ops.convert_to_tensor([1.0, 2.0])
    with lb.use(NumpyBackend()):
        b = ops.convert_to_tensor([3.0, 4.0])
    with pytest.raises(BackendError, match=r"add: inputs live on different backends "
                                           r"\(numpy and numpy\); move one explicitly"):
        ops.add(a, b)


def test_backend_of_numpy_arrays_and_scalars():
    numpy_backend = lb.get_backend("numpy")
    assert lb.backend_of(np.zeros(3)) is numpy_backend
    assert lb.backend_of(np.float32(1.0)) is numpy_backend


def test_backend_of_something_else_raises():
    with pytest.raises(BackendError, match=r"backend_of: expected a numpy or cupy array; "
                                           r"received list"):
        lb.backend_of([1.0])


def test_available_backends_lists_numpy():
    names = lb.available_backends()
    assert names[0] == "numpy"
    assert set(names) <= {"numpy", "cupy"}
    if cupy_unavailable_reason() is not None:
        assert names == ["numpy"]


# ----------------------------------------------------------------- Keras's utilities
def test_floatx_and_set_floatx():
    assert lb.floatx() == "float32"
    try:
        lb.set_floatx("float64")
        assert lb.floatx() == "float64"
    finally:
        lb.set_floatx("float32")
    with pytest.raises(DTypeError, match=r"set_floatx: expected a float dtype"):
        lb.set_floatx("int32")


def test_epsilon_and_set_epsilon():
    assert lb.epsilon() == 1e-7
    try:
        lb.set_epsilon(1e-5)
        assert lb.epsilon() == 1e-5
    finally:
        lb.set_epsilon(1e-7)


def test_image_data_format_defaults_to_channels_last_and_can_be_set():
    assert lb.image_data_format() == "channels_last"
    try:
        lb.set_image_data_format("Channels_First")
        assert lb.image_data_format() == "channels_first"
        assert lamina.layers.Conv2D(2, 3).data_format == "channels_first"
        with pytest.raises(ValueError, match=r"set_image_data_format: the `data_format` "
                                             r"argument must be one of 'channels_last', "
                                             r"'channels_first'; received 'nhwc'"):
            lb.set_image_data_format("nhwc")
        assert lb.image_data_format() == "channels_first"
    finally:
        lb.set_image_data_format("channels_last")
    assert lb.image_data_format() == "channels_last"


def test_backend_names_the_active_backend():
    assert lb.backend() == lb.get_backend().name == "numpy"


def test_clear_session_runs_the_registered_hooks(monkeypatch):
    monkeypatch.setattr(lamina.settings, "_clear_hooks", [])
    calls = []
    lb.register_clear_hook(lambda: calls.append("cleared"))
    lb.clear_session()
    lb.clear_session()
    assert calls == ["cleared", "cleared"]
