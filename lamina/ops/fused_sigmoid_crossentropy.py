"""Binary crossentropy fused with its sigmoid, for the graph optimizer (see
:mod:`lamina.ops.fused_crossentropy` for the idea and the clip bounds).

``sigmoid_crossentropy(labels, logits, axis, bounds)`` is the per-sample mean over ``axis``
of ``-(z log(c) + (1 - z) log(1 - c))`` with ``c = clip(sigmoid(x), *bounds)``: the kernels
eager mode runs, in its order, so the loss has eager's bits. (Computing the logs from the
logits, ``-softplus(-x)`` and ``-softplus(x)``, would be more accurate than ``1 - c`` in
float32, but a graph must give what eager gives; the fuzzer's seed 3822 saw 0.17%.) Its
logits' gradient is ``sigmoid_crossentropy_grad``: ``(sigmoid(x) - z) * mask * g / n``,
the chain's gradient simplified, equal to eager's up to rounding.
"""
from __future__ import annotations

from ..errors import GradientError, ShapeError, describe_shape
from .reshaping import expand_dims
from .fused_crossentropy import _check, _inside, _keep_axis
from .math import log, multiply, sigmoid, subtract
from .where_clip import clip
from ..core.op import Op, Spec, register_op


def _log_probabilities(backend, x, bounds, dtype):
    """``log(c)`` and ``log(1 - c)`` with ``c = clip(sigmoid(x), *bounds)``, as eager mode
    computes them (``losses/numerics.py``: binary_crossentropy_from_probabilities)."""
    c = backend.unary("sigmoid", x)
    if bounds is not None:
        lo, hi = (backend.asarray(b, dtype=dtype) for b in bounds)
        c = backend.clip(c, lo, hi, out=c)
    one = backend.asarray(1, dtype=dtype)
    return backend.unary("log", c), backend.unary("log", backend.binary("subtract", one, c))


@register_op
class SigmoidCrossentropy(Op):
    name = "sigmoid_crossentropy"

    def output_spec(self, labels, logits, axis=-1, bounds=None):
        shape, _ = _check(self.name, labels, logits, axis, False)
        return Spec(shape, logits.dtype)

    def forward(self, backend, labels, logits, out=None, axis=-1, bounds=None):
        dtype = logits.dtype
        log_p, log_q = _log_probabilities(backend, logits, bounds, dtype)
        one = backend.asarray(1, dtype=dtype)
        terms = backend.binary("add", backend.binary("multiply", labels, log_p, out=log_p),
                               backend.binary("multiply", backend.binary("subtract", one,
                                                                         labels),
                                              log_q, out=log_q))
        terms = backend.unary("negative", terms, out=terms)
        return backend.reduce("mean", terms, (axis,), False, out=out)

    def gradient(self, ctx, g):
        labels, logits = ctx.inputs
        axis, bounds = ctx.attrs.get("axis"), ctx.attrs.get("bounds")
        g_logits = SigmoidCrossentropyGrad(g, labels, logits, **ctx.attrs) \
            if ctx.needs_grad[1] else None
        g_labels = None
        if ctx.needs_grad[0]:
            c = sigmoid(logits)
            if bounds is not None:
                c = clip(c, *bounds)
            log_p, log_q = log(c), log(subtract(1.0, c))
            scale = 1.0 / logits.shape[axis]
            g_labels = multiply(expand_dims(multiply(g, scale), axis), subtract(log_q, log_p))
        return g_labels, g_logits


@register_op
class SigmoidCrossentropyGrad(Op):
    name = "sigmoid_crossentropy_grad"
    differentiable = False

    def output_spec(self, g, labels, logits, axis=-1, bounds=None):
        shape, _ = _check(self.name, labels, logits, axis, False)
        if tuple(g.shape) != shape or g.dtype != logits.dtype:
            raise ShapeError(f"{self.name}: argument 'g' must have shape "
                             f"{describe_shape(shape)} and dtype {logits.dtype}; received "
                             f"{describe_shape(g.shape)} {g.dtype}")
        return Spec(tuple(logits.shape), logits.dtype)

    def forward(self, backend, g, labels, logits, out=None, axis=-1, bounds=None):
        dtype, shape = logits.dtype, logits.shape
        p = backend.unary("sigmoid", logits)
        scale = backend.asarray(1.0 / shape[axis], dtype=dtype)
        weight = backend.binary("multiply", _keep_axis(backend, g, shape, axis), scale)
        if bounds is not None:
            weight = backend.binary("multiply", weight, _inside(backend, p, bounds, dtype))
        diff = backend.binary("subtract", p, labels, out=p)
        return backend.binary("multiply", diff, weight, out=out)

    def gradient(self, ctx, *grads):
        raise GradientError(f"{self.name} is created by graph optimization after autodiff "
                            f"and has no gradient")


__all__: list = []
