"""Keras's ``custom_gradient`` decorator: a function that computes its output and says
how to differentiate it.

``f(*args)`` returns ``(output, grad_fn)``. The output reaches the caller through one
``custom_gradient`` node whose inputs are the tensors among ``args`` and ``f``'s outputs;
its gradient calls ``grad_fn`` with the upstream gradient (written with ops: eager tapes and
graph autodiff both run it) and gives nothing to the outputs, so the ops inside ``f`` are
never differentiated.
"""
from __future__ import annotations

import functools
import inspect

from .. import tree
from ..core.tensor import TensorBase
from .core import zeros_like
from .loop_tracing import tensors_of
from ..core.op import Op, Spec, register_op

__all__ = ["custom_gradient"]


def custom_gradient(f):
    """Decorate ``f(*args) -> (output, grad_fn)``; ``grad_fn(upstream)`` (or
    ``grad_fn(*args, upstream=...)``) returns one gradient per flattened positional
    argument. Keyword arguments are passed to ``f`` and get no gradient.

    Args:
        f: The function to decorate (see above).

    Returns:
        A function computing ``f``'s output, differentiated with ``grad_fn``.
    """
    if not callable(f):
        raise TypeError(f"custom_gradient: argument 'f' must be callable; received {f!r}")

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        result = f(*args, **kwargs)
        if not isinstance(result, (tuple, list)) or len(result) != 2 or \
                not callable(result[1]):
            raise TypeError(f"custom_gradient: {_name(f)} must return a pair (output, "
                            f"grad_fn) with a callable grad_fn; received {result!r}")
        output, grad_fn = result
        leaves = tree.flatten(args)
        tensors = [i for i, x in enumerate(leaves) if isinstance(x, TensorBase)]
        outputs = tensors_of("custom_gradient", output)
        values = CustomGradient(*[leaves[i] for i in tensors], *outputs,
                                grad_fn=_Backward(grad_fn, output, len(leaves), tensors,
                                                  _name(f)))
        values = values if isinstance(values, (tuple, list)) else (values,)
        return tree.pack_sequence_as(output, list(values))
    return wrapped


def _name(f) -> str:
    return getattr(f, "__name__", type(f).__name__)


class _Backward:
    """``grad_fn`` with what it needs to map its result onto the node's inputs."""

    def __init__(self, grad_fn, output, n_args: int, tensors: list, name: str):
        self.grad_fn, self.output = grad_fn, output
        self.n_args, self.tensors, self.name = n_args, tensors, name
        params = inspect.signature(grad_fn).parameters.values() \
            if _has_signature(grad_fn) else ()
        self.by_keyword = any(p.name == "upstream" and p.kind is p.KEYWORD_ONLY and
                              p.default is p.empty for p in params)

    def __call__(self, grads: list) -> list:
        upstream = tree.pack_sequence_as(self.output, grads)
        result = self.grad_fn(upstream=upstream) if self.by_keyword else \
            self.grad_fn(upstream)
        flat = tree.flatten(result) if isinstance(result, (tuple, list)) else [result]
        if len(flat) != self.n_args:
            raise ValueError(f"custom_gradient: the grad_fn of {self.name} must return one "
                             f"gradient per argument ({self.n_args}); received {len(flat)}")
        return [flat[i] for i in self.tensors]


def _has_signature(fn) -> bool:
    try:
        inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    return True


@register_op
class CustomGradient(Op):
    """Inputs: the function's tensor arguments, then its outputs; outputs: those outputs;
    gradient: ``grad_fn``'s, for the arguments only."""
    name = "custom_gradient"

    def output_spec(self, *inputs, grad_fn=None):
        n = len(grad_fn.tensors)
        specs = tuple(Spec(tuple(x.shape), x.dtype) for x in inputs[n:])
        return specs[0] if len(specs) == 1 and not isinstance(grad_fn.output, (list, tuple,
                                                                               dict)) \
            else specs

    def forward(self, backend, *arrays, out=None, grad_fn=None):
        values = tuple(arrays[len(grad_fn.tensors):])
        return values[0] if len(values) == 1 and not isinstance(
            grad_fn.output, (list, tuple, dict)) else values

    def gradient(self, ctx, *grads):
        n = len(grad_fn_of(ctx).tensors)
        outputs = ctx.inputs[n:]
        grads = [zeros_like(o) if g is None else g for g, o in zip(grads, outputs)]
        found = grad_fn_of(ctx)(grads)
        return tuple(found) + (None,) * len(outputs)


def grad_fn_of(ctx) -> _Backward:
    return ctx.attrs["grad_fn"]
