"""Crossentropies fused with their softmax or sigmoid, for the graph optimizer.

``lamina.losses`` traces a crossentropy on probabilities as several ops (softmax, the
normalization, the clip to ``[eps, 1 - eps]``, the log, the label product, the sum); the
simplify pass (``graph/passes/simplify_losses.py``) puts one of these ops in place of such a
chain, and their ``*_grad`` companions in place of its gradient. They compute the same
function from the *logits*, stably, keeping the clip: the log-probability is clipped to
``[log(lo), log(hi)]`` (``bounds=(lo, hi)``; None: no clip), so a saturated prediction
costs what it costs in eager mode and passes no gradient, as there.

* ``softmax_crossentropy(labels, logits, axis, sparse, bounds)``: per-sample
  ``-sum(labels * log_softmax(logits), axis)``; with ``sparse=True`` the labels are
  ``take_along_axis`` indices (size 1 on ``axis``) and the loss is ``-log_softmax`` there.
  Gradient for the logits: ``p * sum(w) - w`` with ``w = labels * mask * g``. Sparse labels
  are range-checked as ``take_along_axis`` checks them (its ``range_message`` is kept).
* ``sigmoid_crossentropy(labels, logits, axis, bounds)``: per-sample mean over ``axis`` of
  ``-(z log(c) + (1 - z) log(1 - c))``, ``c = clip(sigmoid(x))`` computed as eager mode
  computes it. Gradient: ``(sigmoid(x) - z) * mask * g / n``.

The ``*_grad`` ops are only created by the optimizer, after autodiff: they have no
gradient themselves (``differentiable = False``).
"""
from __future__ import annotations

from ..core.tensor import Tensor
from ..dtypes import is_int
from ..errors import DTypeError, GradientError, ShapeError, describe_shape
from .reshaping import expand_dims
from .core import convert_to_tensor, require_float, to_backend_tensor
from .indexing import check_indices
from .math import log, multiply, negative
from .where_clip import clip
from ..core.op import Op, Spec, normalize_axis, register_op
from .softmax import LogSoftmax


def _check(op: str, labels, logits, axis: int, sparse: bool) -> tuple:
    require_float(op, "logits", logits)
    axis = normalize_axis(op, axis, len(logits.shape))
    expected = tuple(1 if i == axis else d for i, d in enumerate(logits.shape)) \
        if sparse else tuple(logits.shape)
    if tuple(labels.shape) != expected:
        raise ShapeError(f"{op}: argument 'labels' must have shape {describe_shape(expected)} "
                         f"for logits of shape {describe_shape(logits.shape)}; received "
                         f"{describe_shape(labels.shape)}")
    if sparse and not is_int(labels.dtype):
        raise DTypeError(f"{op}: sparse labels must be integer indices; received dtype "
                         f"{labels.dtype}")
    if not sparse and labels.dtype != logits.dtype:
        raise DTypeError(f"{op}: arguments 'labels' and 'logits' must have one dtype; "
                         f"received {labels.dtype} and {logits.dtype}")
    return tuple(d for i, d in enumerate(logits.shape) if i != axis), axis


def _clipped(backend, values, bounds, dtype):
    """``values`` clipped to the logs of ``bounds``."""
    if bounds is None:
        return values
    lo, hi = (backend.asarray(b, dtype=dtype) for b in bounds)
    log_lo, log_hi = backend.unary("log", lo), backend.unary("log", hi)
    return backend.clip(values, log_lo, log_hi, out=values)


def _inside(backend, p, bounds, dtype):
    """1 where ``lo <= p <= hi``, else 0, in ``dtype``: the clip's gradient mask."""
    lo, hi = (backend.asarray(b, dtype=dtype) for b in bounds)
    inside = backend.binary("logical_and", backend.binary("greater_equal", p, lo),
                            backend.binary("less_equal", p, hi))
    return backend.cast(inside, dtype)


def _keep_axis(backend, g, shape, axis):
    return backend.reshape(g, tuple(1 if i == axis else d for i, d in enumerate(shape)))


# --------------------------------------------------------------------------- softmax
@register_op
class SoftmaxCrossentropy(Op):
    name = "softmax_crossentropy"

    def output_spec(self, labels, logits, axis=-1, sparse=False, bounds=None,
                    range_message=None):
        shape, _ = _check(self.name, labels, logits, axis, sparse)
        return Spec(shape, logits.dtype)

    def forward(self, backend, labels, logits, out=None, axis=-1, sparse=False, bounds=None,
                range_message=None):
        if sparse:
            check_indices(backend, self.name, labels, logits.shape[axis], axis, range_message)
        logp = LogSoftmax.forward(backend, logits, axis=(axis,))
        logp = _clipped(backend, logp, bounds, logits.dtype)
        if sparse:
            picked = backend.take_along_axis(logp, labels, axis)
            shape = tuple(d for i, d in enumerate(logits.shape) if i != axis)
            return backend.unary("negative", backend.reshape(picked, shape), out=out)
        total = backend.reduce("sum", backend.binary("multiply", labels, logp, out=logp),
                               (axis,), False)
        return backend.unary("negative", total, out=out)

    def gradient(self, ctx, g):
        labels, logits = ctx.inputs
        axis, sparse, bounds = (ctx.attrs.get(k) for k in ("axis", "sparse", "bounds"))
        g_logits = SoftmaxCrossentropyGrad(g, labels, logits, **ctx.attrs) \
            if ctx.needs_grad[1] else None
        g_labels = None
        if ctx.needs_grad[0] and not sparse:
            logp = LogSoftmax(logits, axis=(axis % len(logits.shape),))
            if bounds is not None:
                logp = clip(logp, *log_bounds(bounds, logits))
            g_labels = multiply(negative(expand_dims(g, axis)), logp)
        return g_labels, g_logits


@register_op
class SoftmaxCrossentropyGrad(Op):
    name = "softmax_crossentropy_grad"
    differentiable = False

    def output_spec(self, g, labels, logits, axis=-1, sparse=False, bounds=None,
                    range_message=None):
        shape, _ = _check(self.name, labels, logits, axis, sparse)
        if tuple(g.shape) != shape or g.dtype != logits.dtype:
            raise ShapeError(f"{self.name}: argument 'g' must have shape "
                             f"{describe_shape(shape)} and dtype {logits.dtype}; received "
                             f"{describe_shape(g.shape)} {g.dtype}")
        return Spec(tuple(logits.shape), logits.dtype)

    def forward(self, backend, g, labels, logits, out=None, axis=-1, sparse=False,
                bounds=None, range_message=None):
        dtype, shape = logits.dtype, logits.shape
        if sparse:          # the forward may have been pruned from a gradient-only graph
            check_indices(backend, self.name, labels, shape[axis], axis, range_message)
        p = backend.unary("exp", LogSoftmax.forward(backend, logits, axis=(axis,)))
        weight = _keep_axis(backend, g, shape, axis)
        mask = None if bounds is None else _inside(backend, p, bounds, dtype)
        if sparse:
            if mask is not None:
                weight = backend.binary("multiply", weight,
                                        backend.take_along_axis(mask, labels, axis))
            w = backend.put_along_axis_add(tuple(shape), labels, weight, axis)
        else:
            w = backend.binary("multiply", labels, weight)
            if mask is not None:
                w = backend.binary("multiply", w, mask, out=w)
        total = backend.reduce("sum", w, (axis,), True)
        p = backend.binary("multiply", p, total, out=p)
        return backend.binary("subtract", p, w, out=out)

    def gradient(self, ctx, *grads):
        raise GradientError(f"{self.name} is created by graph optimization after autodiff "
                            f"and has no gradient")


def log_bounds(bounds, like) -> list:
    """``log(lo), log(hi)`` as constants of ``like``'s dtype and backend, rounded in that
    dtype as the eager chain rounds them."""
    backend = like.backend.name if isinstance(like, Tensor) else None
    lo, hi = (to_backend_tensor(b, dtype=like.dtype, backend=backend) for b in bounds)
    return [log(lo), log(hi)]


__all__: list = []
