"""Binary crossentropy fused with its sigmoid, for the graph optimizer (see
:mod:`lamina.ops.fused_crossentropy` for the idea and the clip bounds).

``sigmoid_crossentropy(labels, logits, axis, bounds)`` is the per-sample mean over ``axis``
of ``-(z log(sigmoid(x)) + (1 - z) log(1 - sigmoid(x)))``, with both logs computed from the
logits (``log(sigmoid(x)) = -softplus(-x)``, ``log(1 - sigmoid(x)) = -softplus(x)``) and
clipped as eager mode clips the probability. Its logits' gradient is
``sigmoid_crossentropy_grad``: ``(sigmoid(x) - z) * mask * g / n``.
"""
from __future__ import annotations

from ..errors import GradientError, ShapeError, describe_shape
from .activations import log_sigmoid
from .array import expand_dims
from .fused_crossentropy import _check, _clipped, _inside, _keep_axis, log_bounds
from .math import clip, multiply, negative, subtract
from .op import Op, Spec, register_op


def _log_sigmoids(backend, x, bounds, dtype):
    """``log(sigmoid(x))`` and ``log(1 - sigmoid(x))``, clipped: ``-softplus(-x)`` and
    ``-softplus(x)`` with ``softplus(t) = max(t, 0) + log1p(exp(-|t|))``."""
    tail = backend.unary("log1p", backend.unary("exp", backend.unary("negative",
                                                                      backend.unary("abs", x))))
    zero = backend.asarray(0, dtype=dtype)
    pos = backend.binary("add", backend.binary("maximum", x, zero), tail)
    neg = backend.binary("add", backend.binary("maximum", backend.unary("negative", x), zero),
                         tail)
    log_p = _clipped(backend, backend.unary("negative", neg, out=neg), bounds, dtype)
    log_q = _clipped(backend, backend.unary("negative", pos, out=pos), bounds, dtype,
                     complement=True)
    return log_p, log_q


@register_op
class SigmoidCrossentropy(Op):
    name = "sigmoid_crossentropy"

    def output_spec(self, labels, logits, axis=-1, bounds=None):
        shape, _ = _check(self.name, labels, logits, axis, False)
        return Spec(shape, logits.dtype)

    def forward(self, backend, labels, logits, out=None, axis=-1, bounds=None):
        dtype = logits.dtype
        log_p, log_q = _log_sigmoids(backend, logits, bounds, dtype)
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
            log_p, log_q = log_sigmoid(logits), log_sigmoid(negative(logits))
            if bounds is not None:
                log_p = clip(log_p, *log_bounds(bounds, logits))
                log_q = clip(log_q, *log_bounds(bounds, logits, complement=True))
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
