"""The CUDA bodies of the elementwise kernels replayed on the CPU against NumpyBackend.

Each kernel body (``cuda_sources``' specs, the very text CuPy compiles) is wrapped in a
host C++ loop over ``i``, built with the system C++ compiler and run through ctypes on
same-shape inputs. This checks the *numbers* of every elementwise_chain expression and of
the sigmoid kernel without a GPU; the image and Philox kernels are not replayed here.
Skips with the reason where no C++ compiler is found.
"""
import atexit
import ctypes
import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

import lamina
from lamina.backend import cuda_sources
from tests.backend.test_cuda_kernels_compile import PROGRAMS

_CXX = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("c++")
pytestmark = pytest.mark.skipif(_CXX is None, reason="no C++ compiler (g++/c++) on PATH")

_C_TYPES = {"float32": ("float", ctypes.c_float), "float64": ("double", ctypes.c_double)}
TOLERANCES = {"float64": dict(rtol=1e-12, atol=1e-14), "float32": dict(rtol=1e-5, atol=1e-6)}
_built: dict = {}


def _host_function(spec, dtype, name):
    """``spec``'s body as ``extern "C" void name(...)`` in a namespace of its own (its
    ``T`` and preamble stay apart from the other kernels' in one translation unit)."""
    params, bindings = [], []
    for is_output, group in ((False, spec.in_params), (True, spec.out_params)):
        for dtype_name, arg, raw in cuda_sources.parse_params(group):
            assert dtype_name == "T" and not raw, f"{spec.name}: only elementwise T arrays"
            const = "" if is_output else "const "
            params.append(f"{const}T* _raw_{arg}")
            bindings.append(f"{const}T& {arg} = _raw_{arg}[i];")
    body = "\n".join(bindings + [spec.operation])
    return (f"namespace ns_{name} {{\ntypedef {_C_TYPES[dtype][0]} T;\n{spec.preamble}\n"
            f"extern \"C\" void {name}({', '.join(params)}, ptrdiff_t _n) {{\n"
            f"for (ptrdiff_t i = 0; i < _n; ++i) {{\n{body}\n}}\n}}\n}}\n")


def _compile(kernels):
    """One shared library holding ``kernels`` ((spec, dtype) pairs) as run_0, run_1, ...:
    one compiler run (about 0.2 s each, 17 s for this file's 76 kernels one by one)."""
    folder = tempfile.mkdtemp(prefix="lamina_replay_")
    atexit.register(shutil.rmtree, folder, True)
    source, library = os.path.join(folder, "k.cpp"), os.path.join(folder, "k.so")
    with open(source, "w") as handle:
        handle.write("#include <cmath>\n#include <cstddef>\nusing namespace std;\n"
                     "#define __device__\n")
        handle.writelines(_host_function(spec, dtype, f"run_{k}")
                          for k, (spec, dtype) in enumerate(kernels))
    subprocess.run([_CXX, "-O1", "-shared", "-fPIC", "-o", library, source], check=True,
                   capture_output=True)
    compiled = ctypes.CDLL(library)
    return {key: getattr(compiled, f"run_{k}") for k, key in enumerate(kernels)}


def _build(spec, dtype):
    """The host function of (spec, dtype). The first call builds every kernel this file
    replays (``_replayed``) in one library; a kernel outside that list, or all of them
    when that build fails, is built alone, so a failure names its own kernel."""
    key = (spec, dtype)
    if not _built:
        try:
            _built.update(_compile(_replayed()))
        except subprocess.CalledProcessError:
            _built[None] = None             # not again; each kernel alone from here
    if key not in _built:
        _built.update(_compile([key]))
    return _built[key]


def _replayed() -> list:
    specs = [cuda_sources.chain_kernel(program) for program in PROGRAMS.values()]
    specs += [cuda_sources.chain_kernel(((fn, _signed_refs(fn)),)) for fn in SIGNED]
    specs.append(cuda_sources.backend_kernels()["sigmoid"])
    return [(spec, dtype) for spec in specs for dtype in _C_TYPES]


def _replay(spec, dtype, inputs):
    y = np.empty_like(inputs[0])
    pointer = ctypes.POINTER(_C_TYPES[dtype][1])
    _build(spec, dtype)(*(a.ctypes.data_as(pointer) for a in (*inputs, y)),
                        ctypes.c_ssize_t(y.size))
    return y


def _inputs(program, dtype, seed=7):
    arity = 1 + max(ref[1] for _, refs in program for ref in refs if ref[0] == "x")
    rng = np.random.default_rng(seed)
    # positive, away from 0 so that log/sqrt/reciprocal/power stay finite; a few exact
    # halves and integers for round/floor/ceil/sign.
    values = [rng.uniform(0.05, 2.5, size=64) for _ in range(arity)]
    for v in values:
        v[:8] = [0.5, 1.5, 2.5, 1.0, 2.0, 0.25, 1.25, 0.75]
    return [v.astype(dtype) for v in values]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_chain_body_matches_numpy_backend(program, dtype):
    inputs = _inputs(PROGRAMS[program], dtype)
    expected = lamina.backend.get_backend("numpy").elementwise_chain(PROGRAMS[program], inputs)
    actual = _replay(cuda_sources.chain_kernel(PROGRAMS[program]), dtype, inputs)
    np.testing.assert_allclose(actual, expected, **TOLERANCES[dtype])


SIGNED = ("sign", "round", "relu", "abs", "negative", "floor", "ceil", "maximum", "minimum")


def _signed_refs(fn):
    return (("x", 0), ("x", 1)) if fn in ("maximum", "minimum") else (("x", 0),)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_signed_and_nan_operands_match_numpy_backend(dtype):
    x = np.array([-2.5, -0.5, 0.0, -0.0, 0.5, 3.5, np.nan, -1.0], dtype=dtype)
    other = np.array([1.0, np.nan, -1.0, 0.0, 0.5, 4.0, 1.0, -3.0], dtype=dtype)
    numpy_backend = lamina.backend.get_backend("numpy")
    for fn in SIGNED:
        refs = _signed_refs(fn)
        program = ((fn, refs),)
        inputs = [x] if len(refs) == 1 else [x, other]
        expected = numpy_backend.elementwise_chain(program, inputs)
        actual = _replay(cuda_sources.chain_kernel(program), dtype, inputs)
        np.testing.assert_array_equal(actual, expected, err_msg=fn)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sigmoid_kernel_matches_numpy_backend(dtype):
    x = np.linspace(-30, 30, 121).astype(dtype)
    expected = lamina.backend.get_backend("numpy").unary("sigmoid", x)
    actual = _replay(cuda_sources.backend_kernels()["sigmoid"], dtype, [x])
    np.testing.assert_allclose(actual, expected, **TOLERANCES[dtype])
