"""Every CUDA kernel the cupy backend generates, as CUDA C source, without a GPU.

The backend hands CuPy ``ElementwiseKernel(in_params, out_params, operation, name,
preamble)`` specs (``cupy_kernels.SOURCES`` and ``cupy_chain.cuda_source``); CuPy wraps
the operation in a ``__global__`` function and compiles it with NVRTC when the kernel is
first called on a device. :func:`translation_unit` does the same wrapping here, so that a
test can compile every kernel with NVRTC on a machine without a GPU or driver (see
``nvrtc.py``). The wrapper mirrors CuPy's: ``T`` is a typedef, ``raw`` parameters are
pointers indexed by the flat C-order index, the other array parameters are references to
element ``i``, and scalar parameters are passed by value. Nothing here imports cupy and
the GPU path does not use this module.
"""
from __future__ import annotations

from typing import NamedTuple

from . import cupy_chain, cupy_kernels

# The C type of each ``T`` instantiation (``float16`` is CuPy's class, cupy/float16.cuh).
C_TYPES = {"float16": "float16", "float32": "float", "float64": "double"}
# The C type of each fixed-type parameter the specs use.
_FIXED_TYPES = {"int32": "int", "int64": "long long", "uint64": "unsigned long long",
                "float32": "float", "float64": "double"}
# ``T`` parameters that the backend passes as scalars (CuPy passes those by value).
_SCALAR_T_PARAMS = {"max_pool": {"fill"}, "max_pool_backprop": {"fill"}}


class KernelSpec(NamedTuple):
    """The arguments of ``cupy.ElementwiseKernel`` for one kernel."""
    name: str
    in_params: str
    out_params: str
    operation: str
    preamble: str


def backend_kernels() -> dict:
    """name -> :class:`KernelSpec` for every kernel of ``cupy_kernels.SOURCES``."""
    return {name: KernelSpec(f"lamina_{name}", *spec)
            for name, spec in cupy_kernels.SOURCES.items()}


def chain_kernel(program) -> KernelSpec:
    """The :class:`KernelSpec` of the elementwise_chain kernel for ``program``.

    The body is dtype-independent (it is written in ``T``), so it is generated for float32
    inputs; :func:`translation_unit` instantiates ``T``.
    """
    arity = 1 + max((ref[1] for _, refs in program for ref in refs if ref[0] == "x"),
                    default=0)
    source = cupy_chain.cuda_source(program, ("float32",) * arity)
    return KernelSpec(source.name, source.in_params, source.out_params, source.body, "")


def parse_params(params: str):
    """(type, name, is_raw) for each comma-separated parameter."""
    parsed = []
    for param in (p.split() for p in params.split(",") if p.strip()):
        raw = param[0] == "raw"
        dtype, name = param[1:] if raw else param
        parsed.append((dtype, name, raw))
    return parsed


def translation_unit(spec: KernelSpec, dtype: str, scalar_t_params=()) -> str:
    """The CUDA C translation unit CuPy would compile for ``spec`` with ``T`` = ``dtype``.

    ``scalar_t_params`` names the ``T`` inputs passed as scalars (defaults to those the
    backend passes for this kernel).
    """
    if dtype not in C_TYPES:
        raise ValueError(f"translation_unit: dtype must be one of {sorted(C_TYPES)}; "
                         f"received {dtype!r}")
    short = spec.name[len("lamina_"):] if spec.name.startswith("lamina_") else spec.name
    scalars = set(scalar_t_params) | _SCALAR_T_PARAMS.get(short, set())
    params, bindings = [], []
    for is_output, group in ((False, spec.in_params), (True, spec.out_params)):
        for dtype_name, name, raw in parse_params(group):
            ctype = "T" if dtype_name == "T" else _FIXED_TYPES[dtype_name]
            const = "" if is_output else "const "
            if raw:
                params.append(f"{const}{ctype}* __restrict__ {name}")
            elif is_output or (dtype_name == "T" and name not in scalars):
                params.append(f"{const}{ctype}* __restrict__ _raw_{name}")
                bindings.append(f"{const}{ctype}& {name} = _raw_{name}[i];")
            else:
                params.append(f"const {ctype} {name}")
    body = "\n".join(bindings + [spec.operation.strip()])
    indented = "\n".join("        " + line if line else "" for line in body.splitlines())
    return (f"#include <cupy/carray.cuh>\n#include <cupy/float16.cuh>\n"
            f"typedef {C_TYPES[dtype]} T;\n{spec.preamble}\n"
            f"extern \"C\" __global__ void {spec.name}({', '.join(params)}, ptrdiff_t _n) {{\n"
            f"    for (ptrdiff_t i = (ptrdiff_t)blockIdx.x * blockDim.x + threadIdx.x; "
            f"i < _n;\n         i += (ptrdiff_t)blockDim.x * gridDim.x) {{\n"
            f"{indented}\n    }}\n}}\n")
