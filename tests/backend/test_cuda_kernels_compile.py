"""Every CUDA kernel the cupy backend generates compiles with NVRTC, without a GPU.

The sources come from ``lamina.backend.cuda_sources`` (the backend's ElementwiseKernel
specs wrapped as CuPy wraps them); ``lamina.backend.nvrtc`` compiles them to PTX through
libnvrtc, with no driver. The compile tests need the ``cuda-compile`` extra and skip
with the precise reason where it is not installed; the source tests always run.
"""
import pytest

from lamina.backend import cuda_sources, cupy_chain, nvrtc
from lamina.backend.nvrtc import CudaCompileError

DTYPES = ["float16", "float32", "float64"]
_REASON = nvrtc.unavailable_reason()
needs_nvrtc = pytest.mark.skipif(_REASON is not None, reason=f"NVRTC unavailable: {_REASON}")

UNARY = [fn for fn, template in cupy_chain.EXPRESSIONS.items() if "{1}" not in template]
BINARY = [fn for fn, template in cupy_chain.EXPRESSIONS.items() if "{1}" in template]

# Every expression as a one-step program, plus programs mixing inputs, steps and constants.
PROGRAMS = {f"unary_{fn}": ((fn, (("x", 0),)),) for fn in UNARY}
PROGRAMS.update({f"binary_{fn}": ((fn, (("x", 0), ("x", 1))),) for fn in BINARY})
PROGRAMS.update({f"constant_{fn}": ((fn, (("x", 0), ("c", -0.1))),) for fn in BINARY})
PROGRAMS["gelu_like"] = (("multiply", (("x", 0), ("c", 0.7071067811865476))),
                         ("erf", (("t", 0),)),
                         ("add", (("t", 1), ("c", 1.0))),
                         ("multiply", (("x", 0), ("t", 2))),
                         ("multiply", (("t", 3), ("c", 0.5))))
PROGRAMS["three_inputs"] = (("multiply", (("x", 0), ("x", 1))),
                            ("add", (("t", 0), ("x", 2))),
                            ("relu", (("t", 1),)),
                            ("maximum", (("t", 2), ("c", 1e-30))),
                            ("rsqrt", (("t", 3),)))


def test_every_chain_expression_is_covered():
    covered = {fn for program in PROGRAMS.values() for fn, _ in program}
    assert covered == set(cupy_chain.EXPRESSIONS)


def test_every_backend_kernel_is_listed():
    assert sorted(cuda_sources.backend_kernels()) == [
        "avg_pool", "avg_pool_backprop", "col2im", "im2col", "max_pool",
        "max_pool_backprop", "normal", "normal_device_counter", "philox_raw", "sigmoid",
        "uniform", "uniform_device_counter"]


def test_translation_unit_wraps_like_cupy():
    source = cuda_sources.translation_unit(cuda_sources.backend_kernels()["max_pool"],
                                           "float64")
    assert "typedef double T;" in source
    assert 'extern "C" __global__ void lamina_max_pool(const T* __restrict__ x, ' in source
    assert "const long long height" in source and "const T fill," in source
    assert "T& y = _raw_y[i];" in source and "y = best;" in source
    chain = cuda_sources.translation_unit(cuda_sources.chain_kernel(PROGRAMS["three_inputs"]),
                                          "float16")
    assert "typedef float16 T;" in chain
    assert "const T& x2 = _raw_x2[i];" in chain
    assert "y = (T)1 / sqrt(t3);" in chain


def test_translation_unit_rejects_an_unknown_dtype():
    spec = cuda_sources.backend_kernels()["sigmoid"]
    with pytest.raises(ValueError, match=r"dtype must be one of .*received 'int32'"):
        cuda_sources.translation_unit(spec, "int32")


@needs_nvrtc
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(cuda_sources.backend_kernels()))
def test_backend_kernel_compiles(name, dtype):
    spec = cuda_sources.backend_kernels()[name]
    ptx = nvrtc.compile_ptx(cuda_sources.translation_unit(spec, dtype), f"{name}.cu")
    assert f".entry lamina_{name}(" in ptx


@needs_nvrtc
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_chain_program_compiles(program, dtype):
    spec = cuda_sources.chain_kernel(PROGRAMS[program])
    ptx = nvrtc.compile_ptx(cuda_sources.translation_unit(spec, dtype), f"{program}.cu")
    assert f".entry {cupy_chain.KERNEL_NAME}(" in ptx


@needs_nvrtc
def test_a_broken_source_raises_with_nvrtcs_log():
    spec = cuda_sources.KernelSpec("lamina_broken", "T x", "T y", "y = undefined_name(x);", "")
    with pytest.raises(CudaCompileError, match=r"(?s)NVRTC failed on broken\.cu .*"
                                               r"identifier \"undefined_name\" is undefined"):
        nvrtc.compile_ptx(cuda_sources.translation_unit(spec, "float32"), "broken.cu")


@needs_nvrtc
def test_a_warning_counts_as_a_failure():
    spec = cuda_sources.KernelSpec("lamina_warns", "T x", "T y", "int unused; y = x;", "")
    with pytest.raises(CudaCompileError, match=r"NVRTC warned about warns\.cu"):
        nvrtc.compile_ptx(cuda_sources.translation_unit(spec, "float32"), "warns.cu")


def test_unavailable_nvrtc_says_why(monkeypatch):
    monkeypatch.setattr(nvrtc, "_toolchain", lambda: "no libnvrtc.so in /nowhere")
    assert nvrtc.unavailable_reason() == "no libnvrtc.so in /nowhere"
    with pytest.raises(nvrtc.BackendError, match=r"NVRTC is unavailable: no libnvrtc\.so"):
        nvrtc.compile_ptx("")
