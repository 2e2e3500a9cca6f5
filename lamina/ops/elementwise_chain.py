"""A chain (a tree) of elementwise ops run as one kernel, for the graph optimizer.

The ``fuse_elementwise`` pass (``lamina/graph/passes/fuse_elementwise.py``) replaces a tree
of unary/binary ops whose intermediate values nobody else reads by one ``elementwise_chain``
node. Its attributes are a static *program* and the dtype:

- ``program``: a tuple of steps ``(op name, refs)``, evaluated in order; the last step is
  the result. Each ref is ``("x", i)`` (the node's ``i``-th input), ``("t", j)`` (the value
  of step ``j < this step``) or ``("c", value)`` (a finite scalar constant, a Python float);
- ``dtype``: the dtype of every input and of the result (float32 or float64).

The result's shape is the broadcast of the inputs' shapes, as for the ops it replaces. The
backend kernel ``elementwise_chain(program, inputs, out)`` runs it: step by step with the
unary/binary kernels (numpy, the reference), or as one generated CUDA kernel (cupy).

The op is created only after autodiff, so it has no gradient (``differentiable = False``).
"""
from __future__ import annotations

import math

from ..errors import DTypeError, GradientError
from .core import as_tensors
from ..core.op import Op, Spec, broadcast_shapes, register_op

UNARY_STEPS = ("negative", "abs", "sign", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt",
               "square", "reciprocal", "tanh", "sigmoid", "erf", "sin", "cos", "floor",
               "ceil", "round", "relu")
BINARY_STEPS = ("add", "subtract", "multiply", "divide", "power", "maximum", "minimum")
STEP_ARITY = {**{name: 1 for name in UNARY_STEPS}, **{name: 2 for name in BINARY_STEPS}}
CHAIN_DTYPES = ("float32", "float64")


def check_program(program, n_inputs: int) -> None:
    """Raise ValueError unless ``program`` is a well-formed program over ``n_inputs``."""
    where = "elementwise_chain: argument 'program'"
    if not isinstance(program, tuple) or not program:
        raise ValueError(f"{where} must be a non-empty tuple of (op name, refs) steps; "
                         f"received {program!r:.80}")
    for k, step in enumerate(program):
        if not (isinstance(step, tuple) and len(step) == 2 and isinstance(step[1], tuple)):
            raise ValueError(f"{where}: step {k} must be (op name, refs); received {step!r}")
        name, refs = step
        if name not in STEP_ARITY:
            raise ValueError(f"{where}: step {k} names op {name!r}; expected one of "
                             f"{sorted(STEP_ARITY)}")
        if len(refs) != STEP_ARITY[name]:
            raise ValueError(f"{where}: step {k} ({name}) takes {STEP_ARITY[name]} refs; "
                             f"received {len(refs)}")
        for ref in refs:
            _check_ref(where, k, ref, n_inputs)
    used = {ref[1] for _, refs in program for ref in refs if ref[0] == "x"}
    if len(used) != n_inputs:       # the result's shape is the broadcast of every input's
        unused = sorted(set(range(n_inputs)) - used)
        raise ValueError(f"{where} never reads input(s) {unused}; every input must be used")


def _check_ref(where: str, k: int, ref, n_inputs: int) -> None:
    ok = isinstance(ref, tuple) and len(ref) == 2
    if ok and ref[0] == "x":
        ok = isinstance(ref[1], int) and 0 <= ref[1] < n_inputs
    elif ok and ref[0] == "t":
        ok = isinstance(ref[1], int) and 0 <= ref[1] < k
    elif ok and ref[0] == "c":
        ok = isinstance(ref[1], float) and math.isfinite(ref[1])
    else:
        ok = False
    if not ok:
        raise ValueError(f"{where}: step {k} has ref {ref!r}; expected ('x', input index < "
                         f"{n_inputs}), ('t', earlier step index) or ('c', finite float)")


@register_op
class ElementwiseChain(Op):
    name = "elementwise_chain"
    differentiable = False
    # each output element is computed from the same element of every input, so ``out``
    # may be an input of the output's shape
    writes_out = inplace = True

    def output_spec(self, *inputs, program, dtype):
        if not inputs:
            raise ValueError("elementwise_chain: expected at least one input tensor")
        check_program(program, len(inputs))
        if dtype not in CHAIN_DTYPES:
            raise DTypeError(f"elementwise_chain: argument 'dtype' must be one of "
                             f"{CHAIN_DTYPES}; received {dtype!r}")
        for i, x in enumerate(inputs):
            if x.dtype != dtype:
                raise DTypeError(f"elementwise_chain: input {i} must have dtype {dtype} "
                                 f"(the chain's dtype); received {x.dtype}")
        return Spec(broadcast_shapes(self.name, *(x.shape for x in inputs)), dtype)

    def forward(self, backend, *inputs, out=None, program, dtype):
        return backend.elementwise_chain(program, inputs, out=out)

    def bind(self, backend, inputs, out=None, program=None, dtype=None):
        """A plan's kernel for this step (numba on numpy), or None (forward runs)."""
        return backend.bound_chain(program, dtype, out)

    def gradient(self, ctx, *grads):
        raise GradientError(f"{self.name} is created by graph optimization after autodiff "
                            f"and has no gradient")


def elementwise_chain(*inputs, program):
    """Run ``program`` over ``inputs`` (tensors of one float dtype) as one op."""
    inputs = as_tensors("elementwise_chain", *inputs)
    return ElementwiseChain(*inputs, program=program, dtype=inputs[0].dtype)


__all__: list = []
