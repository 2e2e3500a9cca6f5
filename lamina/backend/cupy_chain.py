"""The cupy backend's ``elementwise_chain``: a program of unary/binary steps (see
``lamina/ops/elementwise_chain.py``) as the body of one generated ``cupy.ElementwiseKernel``.

:func:`cuda_source` is a pure function (tested without a GPU). The kernel takes the chain's
inputs as ``T x0, T x1, ...`` and writes ``T y``; CuPy broadcasts the inputs to the output's
shape and instantiates ``T`` per dtype. Each step becomes one ``const T tK = ...;`` line
and the last assigns ``y``, so every operand in an expression is a name or a parenthesized
constant and no precedence can go wrong. The expressions follow the numpy kernels' numbers:
``maximum``/``minimum`` propagate NaN, ``round`` rounds half to even (``rint``), ``relu`` is
``x * (x > 0)`` as the relu op computes it, ``sigmoid`` is the cupy backend's own formula.

Kernels are compiled on first use and cached per (program, dtype) here (CuPy also caches
the compiled binaries on disk). Nothing imports cupy until a kernel is first asked for.
"""
from __future__ import annotations

from typing import NamedTuple

from ..errors import DTypeError

KERNEL_NAME = "lamina_elementwise_chain"
DTYPES = ("float32", "float64")

EXPRESSIONS = {
    # unary: {0} is the operand
    "negative": "-{0}",
    "abs": "fabs({0})",
    "sign": "({0} > (T)0 ? (T)1 : ({0} < (T)0 ? (T)-1 : {0}))",
    "exp": "exp({0})",
    "log": "log({0})",
    "log1p": "log1p({0})",
    "expm1": "expm1({0})",
    "sqrt": "sqrt({0})",
    "rsqrt": "(T)1 / sqrt({0})",
    "square": "{0} * {0}",
    "reciprocal": "(T)1 / {0}",
    "tanh": "tanh({0})",
    "sigmoid": "(T)1 / ((T)1 + exp(-{0}))",
    "erf": "erf({0})",
    "sin": "sin({0})",
    "cos": "cos({0})",
    "floor": "floor({0})",
    "ceil": "ceil({0})",
    "round": "rint({0})",
    "relu": "{0} * (T)({0} > (T)0)",
    # binary: {0} and {1}
    "add": "{0} + {1}",
    "subtract": "{0} - {1}",
    "multiply": "{0} * {1}",
    "divide": "{0} / {1}",
    "power": "pow({0}, {1})",
    "maximum": "({0} > {1} || {0} != {0}) ? {0} : {1}",
    "minimum": "({0} < {1} || {0} != {0}) ? {0} : {1}",
}

_kernels: dict = {}


class ChainSource(NamedTuple):
    """The arguments of ``cupy.ElementwiseKernel(in_params, out_params, body, name)``."""
    in_params: str
    out_params: str
    body: str
    name: str


def _operand(ref) -> str:
    kind, value = ref
    if kind == "x":
        return f"x{value}"
    if kind == "t":
        return f"t{value}"
    return f"((T){float(value)!r})"     # repr round-trips the double; exact for float32


def cuda_source(program, dtypes) -> ChainSource:
    """The ElementwiseKernel for ``program`` over inputs of ``dtypes`` (one float dtype)."""
    dtypes = tuple(str(d) for d in dtypes)
    if not dtypes or any(d != dtypes[0] for d in dtypes) or dtypes[0] not in DTYPES:
        raise DTypeError(f"elementwise_chain: the CUDA kernel takes inputs of one dtype in "
                         f"{DTYPES}; received {dtypes}")
    lines = []
    last = len(program) - 1
    for k, (fn, refs) in enumerate(program):
        template = EXPRESSIONS.get(fn)
        if template is None:
            raise ValueError(f"elementwise_chain: no CUDA expression for step {k} ({fn!r}); "
                             f"supported: {sorted(EXPRESSIONS)}")
        expression = template.format(*(_operand(ref) for ref in refs))
        lines.append(f"y = {expression};" if k == last else f"const T t{k} = {expression};")
    in_params = ", ".join(f"T x{i}" for i in range(len(dtypes)))
    return ChainSource(in_params, "T y", "\n".join(lines), KERNEL_NAME)


def kernel(program, dtypes):
    """The compiled ElementwiseKernel for ``program`` and ``dtypes`` (cached)."""
    key = (program, tuple(str(d) for d in dtypes))
    compiled = _kernels.get(key)
    if compiled is None:
        import cupy
        compiled = _kernels[key] = cupy.ElementwiseKernel(*cuda_source(program, dtypes))
    return compiled
