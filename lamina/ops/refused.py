"""Results that Keras 3's symbolic shape rules accept but that no backend can compute.

Keras infers an op's output shape from its arguments' shapes alone and leaves most checks
to the backend, so ``ops.psnr(KerasTensor((1, 2, 3)), KerasTensor((5, 6, 7)))`` is a
symbolic scalar there, and the error comes only when a value is computed. Lamina's ops run
the same checks in eager mode at once; on symbolic tensors, where Keras gives a shape, they
give a :func:`refused` tensor instead: it has Keras's shape and dtype, and running it, in a
compiled graph or by replaying a functional model eagerly, raises the error that eager
mode would have raised (the same type and message). So a model that cannot run still
builds, as in Keras, and eager and graph mode refuse it with one error.

It also stands for results whose size depends on values (``slice`` with ``-1`` sizes and
tensor starts, ``segment_sum`` without ``num_segments``): Keras gives None for that size;
a compiled graph cannot size such a buffer, so running it raises the error that says which
argument to give.
"""
from __future__ import annotations

from ..core.op import Op, Spec, register_op
from ..core.symbolic import SymbolicTensor
from ..core.tensor import TensorBase
from ..errors import ArgumentTypeError, DTypeError, IndexRangeError, ShapeError

__all__: list[str] = []

# The error types a refused result may raise, by name (attributes are static values):
# Lamina's, which a compiled graph's GraphExecutionError keeps (graph/errors.py).
ERRORS = {cls.__name__: cls for cls in (ShapeError, DTypeError, ArgumentTypeError,
                                        IndexRangeError)}


@register_op
class Refused(Op):
    """A result of shape ``shapes[i]`` and dtype ``dtypes[i]`` whose computation raises
    ``ERRORS[error](message)``; one output unless ``several``."""
    name = "refuse_when_run"
    differentiable = False
    stateful = True                 # never folded or merged: it must raise where it runs

    def output_spec(self, *inputs, shapes, dtypes, error, message, several=False):
        if error not in ERRORS:
            raise ValueError(f"refuse_when_run: argument 'error' must be one of "
                             f"{sorted(ERRORS)}; received {error!r}")
        specs = tuple(Spec(tuple(s), d) for s, d in zip(shapes, dtypes))
        return specs if several else specs[0]

    def forward(self, backend, *arrays, out=None, shapes, dtypes, error, message,
                several=False):
        raise ERRORS[error](message)


def is_symbolic(*tensors) -> bool:
    """Whether any of ``tensors`` (nested lists and tuples allowed) is symbolic."""
    for t in tensors:
        if isinstance(t, (list, tuple)):
            if is_symbolic(*t):
                return True
        elif isinstance(t, SymbolicTensor):
            return True
    return False


def refused(error: type, message: str, inputs, specs):
    """Raise ``error(message)`` now unless one of ``inputs`` is symbolic; then a symbolic
    result (a tuple when ``specs`` is a list of ``(shape, dtype)`` pairs, else one tensor
    for one pair) that raises it when run."""
    if not is_symbolic(*inputs):
        raise error(message)
    several = isinstance(specs, list)
    pairs = specs if several else [specs]
    tensors = tuple(t for t in _flat(inputs) if isinstance(t, TensorBase))
    return Refused(*tensors, shapes=tuple(tuple(s) for s, _ in pairs),
                   dtypes=tuple(str(d) for _, d in pairs), error=error.__name__,
                   message=str(message), several=several)


def _flat(items):
    for t in items:
        if isinstance(t, (list, tuple)):
            yield from _flat(t)
        else:
            yield t
