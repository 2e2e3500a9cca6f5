"""Batch renormalization (Ioffe 2017) for ``BatchNormalization(renorm=True)``, as Keras 3
does it.

While training, the batch statistics normalize ``x`` and the result is corrected towards
the moving statistics: ``x_hat * r + d`` with ``r = stddev / renorm_stddev`` and ``d =
(mean - renorm_mean) / renorm_stddev`` (no gradient through ``r`` and ``d``; ``renorm_stddev``
at least ``sqrt(epsilon)``), ``r`` clipped to ``[rmin, rmax]`` and ``d`` to ``[-dmax, dmax]``
where ``renorm_clipping`` gives them. The correction folds into ``gamma`` and ``beta``.
Each training step moves ``renorm_mean`` / ``renorm_stddev`` by ``renorm_momentum`` and
``moving_mean`` / ``moving_stddev`` by ``momentum``; ``moving_variance`` becomes
``relu(moving_stddev ** 2 - epsilon)``, so inference is plain batch normalization.

Extra weights (non-trainable, after ``moving_variance``): ``moving_stddev``,
``renorm_mean``, ``renorm_stddev``; the two standard deviations start at the square root
of ``moving_variance_initializer``'s values.
"""
from __future__ import annotations

import numbers

from ... import ops

CLIPPING_KEYS = ("rmax", "rmin", "dmax")


def check_clipping(layer, clipping) -> dict:
    """``renorm_clipping`` validated (Keras's checks and phrases); None becomes ``{}``."""
    clipping = {} if clipping is None else clipping
    if not isinstance(clipping, dict):
        raise ValueError(f"{layer.name}: argument 'renorm_clipping' must be a dict with keys "
                         f"among {list(CLIPPING_KEYS)} or None; received {clipping!r}")
    unknown = set(clipping) - set(CLIPPING_KEYS)
    if unknown:
        raise ValueError(f"{layer.name}: Received invalid keys for `renorm_clipping` "
                         f"argument: {clipping}. Supported values: {list(CLIPPING_KEYS)}.")
    for key, value in clipping.items():
        if value is not None and (isinstance(value, bool)
                                  or not isinstance(value, numbers.Real)):
            raise ValueError(f"{layer.name}: renorm_clipping['{key}'] must be a number or "
                             f"None; received {value!r}")
    rmax, rmin, dmax = (clipping.get(k) for k in CLIPPING_KEYS)
    if rmax is not None and rmin is not None and rmax < rmin:
        raise ValueError(f"{layer.name}: rmax should be greater than rmin in the "
                         f"`renorm_clipping` argument. Received: rmax={rmax}, rmin={rmin}.")
    if dmax is not None and dmax < 0:
        raise ValueError(f"{layer.name}: dmax should be non-negative in the "
                         f"`renorm_clipping` argument. Received: dmax={dmax}.")
    return clipping


def _clone(initializer):
    """A fresh copy of ``initializer`` (a seeded one then draws the same values again)."""
    if hasattr(initializer, "get_config") and hasattr(type(initializer), "from_config"):
        return type(initializer).from_config(initializer.get_config())
    return initializer


def build(layer, shape) -> None:
    """Create ``moving_stddev``, ``renorm_mean`` and ``renorm_stddev``."""
    def stddev_initializer(shape, dtype=None):
        return ops.sqrt(_clone(layer.moving_variance_initializer)(shape, dtype=dtype))

    mean_initializer = _clone(layer.moving_mean_initializer)
    for name, initializer in (("moving_stddev", stddev_initializer),
                              ("renorm_mean", mean_initializer),
                              ("renorm_stddev", stddev_initializer)):
        setattr(layer, name, layer.add_weight(shape=shape, name=name, initializer=initializer,
                                              trainable=False, autocast=False))


def corrected_scale_and_offset(layer, mean, variance, dtype):
    """``(gamma * r, gamma * d + beta)`` for this batch (``r`` and ``d`` alone when the
    layer has no gamma / beta)."""
    stddev = ops.sqrt(ops.add(variance, layer.epsilon))
    renorm_mean = ops.cast(layer.renorm_mean, dtype)
    renorm_stddev = ops.maximum(ops.cast(layer.renorm_stddev, dtype),
                                ops.sqrt(ops.cast(layer.epsilon, dtype)))
    r = ops.divide(stddev, renorm_stddev)
    d = ops.divide(ops.subtract(mean, renorm_mean), renorm_stddev)
    rmax, rmin, dmax = (layer.renorm_clipping.get(k) for k in CLIPPING_KEYS)
    if rmin is not None:
        r = ops.maximum(r, rmin)
    if rmax is not None:
        r = ops.minimum(r, rmax)
    if dmax is not None:
        d = ops.clip(d, -dmax, dmax)
    r, d = ops.stop_gradient(r), ops.stop_gradient(d)
    if layer.gamma is not None:
        gamma = ops.cast(layer.gamma, dtype)
        scale, offset = ops.multiply(r, gamma), ops.multiply(d, gamma)
    else:
        scale, offset = r, d
    if layer.beta is not None:
        offset = ops.add(offset, ops.cast(layer.beta, dtype))
    return scale, offset


def update_statistics(layer, mean, variance, dtype) -> None:
    """Move the renorm and inference statistics towards this batch's."""
    mean = ops.stop_gradient(mean)
    stddev = ops.stop_gradient(ops.sqrt(ops.add(variance, layer.epsilon)))

    def moved(variable, batch, momentum):
        return ops.add(ops.multiply(ops.cast(variable, dtype), momentum),
                       ops.multiply(batch, 1.0 - momentum))

    new_renorm_mean = moved(layer.renorm_mean, mean, layer.renorm_momentum)
    new_renorm_stddev = moved(layer.renorm_stddev, stddev, layer.renorm_momentum)
    new_moving_mean = moved(layer.moving_mean, mean, layer.momentum)
    new_moving_stddev = moved(layer.moving_stddev, stddev, layer.momentum)
    layer.renorm_mean.assign(new_renorm_mean)
    layer.renorm_stddev.assign(new_renorm_stddev)
    layer.moving_mean.assign(new_moving_mean)
    layer.moving_stddev.assign(new_moving_stddev)
    layer.moving_variance.assign(
        ops.relu(ops.subtract(ops.square(new_moving_stddev), layer.epsilon)))
