"""Users' own ops: ``custom_op`` registers a forward and its gradient, like TensorFlow's
kernel + gradient registration. Both eager mode and (later) graph mode pick it up, because
it becomes an ordinary :class:`~lamina.core.op.Op`.
"""
from __future__ import annotations

from typing import Callable

from .core import as_tensor
from ..core.op import Op, Spec, register_op

__all__ = ["custom_op"]


def custom_op(name: str, forward: Callable, gradient: Callable | None = None,
              output_spec: Callable | None = None) -> Callable:
    """Register an op called ``name`` and return a function that applies it.

    Args:
        name: the registry key; must be new.
        forward: ``forward(xp, *arrays, **attrs) -> array`` computed with the backend's
            array module ``xp`` (numpy or cupy), so one definition serves both devices.
        gradient: ``gradient(inputs, output, grad, **attrs) -> tuple`` of one gradient per
            input, written with ``lamina.ops`` (so it is itself differentiable). None makes
            the op non-differentiable.
        output_spec: ``output_spec(*inputs, **attrs) -> (shape, dtype)``; by default the
            output has the first input's shape and dtype.

    Example::

        cube = custom_op("cube", lambda xp, x: x ** 3,
                         gradient=lambda inputs, y, g: (g * 3.0 * inputs[0] ** 2,))
    """
    def spec(self, *inputs, **attrs):
        if output_spec is None:
            return Spec(tuple(inputs[0].shape), inputs[0].dtype)
        shape, dtype = output_spec(*inputs, **attrs)
        return Spec(tuple(shape), dtype)

    def run(self, backend, *arrays, out=None, **attrs):
        result = forward(backend.xp, *arrays, **attrs)
        if out is not None:
            backend.copy_(out, result)
            return out
        return result

    def grad(self, ctx, g):
        result = gradient(ctx.inputs, ctx.outputs[0], g, **ctx.attrs)
        return tuple(result) if isinstance(result, (tuple, list)) else (result,)

    cls = type(f"CustomOp_{name}", (Op,), {
        "name": name, "differentiable": gradient is not None, "output_spec": spec,
        "forward": run, "gradient": grad, "__doc__": forward.__doc__})
    op = register_op(cls)

    def apply_op(*inputs, **attrs):
        return op(*[as_tensor(name, x) for x in inputs], **attrs)
    apply_op.__name__ = name
    apply_op.op = op
    return apply_op
