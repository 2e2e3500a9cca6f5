"""Gradient clipping as Keras 3 does it: by each gradient's norm (``clipnorm``), by the
joint norm of all gradients (``global_clipnorm``), or element-wise (``clipvalue``)."""
from __future__ import annotations

from .. import ops


def clip_by_norm(gradient, clip_norm: float):
    """``gradient * clip_norm / max(||gradient||, clip_norm)``: unchanged when its L2 norm
    is at most ``clip_norm``, otherwise rescaled to that norm."""
    norm = ops.sqrt(ops.sum(ops.square(gradient)))
    return ops.divide(ops.multiply(gradient, clip_norm), ops.maximum(norm, clip_norm))


def global_norm(gradients):
    """The L2 norm of all ``gradients`` together (None entries are skipped)."""
    squares = [ops.sum(ops.square(g)) for g in gradients if g is not None]
    return ops.sqrt(ops.sum(ops.stack(squares)))


def clip_by_global_norm(gradients, clip_norm: float) -> list:
    """Every gradient scaled by ``clip_norm / max(global_norm, clip_norm)``; a non-finite
    global norm makes every gradient NaN, as in Keras (the step is then visibly broken
    rather than silently skipped)."""
    norm = global_norm(gradients)
    scale = ops.divide(clip_norm, ops.maximum(norm, clip_norm))
    scale = ops.add(scale, ops.subtract(norm, norm))      # NaN when the norm is inf or NaN
    return [None if g is None else ops.multiply(g, ops.cast(scale, g.dtype))
            for g in gradients]


def clip_gradients(gradients, clipnorm=None, clipvalue=None, global_clipnorm=None) -> list:
    """Apply whichever one of the three clipping options is set."""
    if clipnorm is not None:
        return [None if g is None else clip_by_norm(g, clipnorm) for g in gradients]
    if global_clipnorm is not None:
        return clip_by_global_norm(gradients, global_clipnorm)
    if clipvalue is not None:
        return [None if g is None else ops.clip(g, -clipvalue, clipvalue) for g in gradients]
    return list(gradients)
