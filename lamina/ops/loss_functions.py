"""Loss-like ops of Keras 3's ``keras.ops`` / ``keras.ops.nn``: the elementwise and per-
sample crossentropies (``binary_crossentropy``, ``categorical_crossentropy``,
``sparse_categorical_crossentropy``; no reduction, no label smoothing) and ``psnr``.

The numerics are those of :mod:`lamina.ops.crossentropy_numerics` (probabilities clipped to
``[epsilon, 1 - epsilon]``; logits through ``log_softmax`` or a stable softplus), shared
with the loss classes. Integer inputs give ``floatx()``; ``target`` takes ``output``'s dtype.
"""
from __future__ import annotations

import math as _math

from ..dtypes import floatx, is_float, is_int
from ..errors import ShapeError, describe_shape
from . import crossentropy_numerics as numerics
from .reshaping import expand_dims, squeeze
from .core import as_tensor, cast
from .indexing import checked_take_along_axis
from .math import log, multiply, negative, square, subtract
from ..core.op import normalize_axis
from .reduction import mean, sum as reduce_sum
from .refused import refused

__all__ = ["binary_crossentropy", "categorical_crossentropy",
           "sparse_categorical_crossentropy", "psnr"]

_INV_LN10 = 1.0 / _math.log(10.0)


def _pair(op_name: str, target, output):
    output = as_tensor(op_name, output)
    if not is_float(output.dtype):
        output = cast(output, floatx())
    target = as_tensor(op_name, target)
    if target.dtype != output.dtype:
        target = cast(target, output.dtype)
    if tuple(target.shape) != tuple(output.shape):
        raise ShapeError(f"{op_name}: arguments 'target' and 'output' must have the same "
                         f"shape; received target.shape={describe_shape(target.shape)}, "
                         f"output.shape={describe_shape(output.shape)}")
    return target, output


def binary_crossentropy(target, output, from_logits=False):
    """Elementwise ``-t log(p) - (1 - t) log(1 - p)``, ``p = sigmoid(output)`` with
    ``from_logits``, else ``output`` clipped to ``[epsilon, 1 - epsilon]``.

    Args:
        target: The true labels, 0 or 1 (or probabilities), of ``output``'s shape.
        output: The predictions: probabilities, or logits when ``from_logits``.
        from_logits: Whether ``output`` holds logits rather than probabilities. Defaults to
            False.

    Returns:
        The elementwise loss, of ``output``'s shape (no reduction).

    Example:

    >>> lamina.ops.binary_crossentropy(np.array([1.0, 0.0]), np.array([0.9, 0.2])).numpy()
    array([0.10536052, 0.22314355])
    """
    target, output = _pair("binary_crossentropy", target, output)
    if from_logits:
        return numerics.sigmoid_crossentropy_with_logits(target, output)
    return numerics.binary_crossentropy_from_probabilities(target, output)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Per-sample ``-sum(target * log(p), axis)``, ``p = softmax(output)`` with
    ``from_logits``, else ``output`` rescaled to sum to 1 and clipped.

    Args:
        target: One-hot (or probability) targets, of ``output``'s shape.
        output: The predictions: probabilities, or logits when ``from_logits``.
        from_logits: Whether ``output`` holds logits rather than probabilities. Defaults to
            False.
        axis: The class axis. Defaults to -1.

    Returns:
        The loss per sample: ``output``'s shape without ``axis``.
    """
    target, output = _pair("categorical_crossentropy", target, output)
    if output.ndim < 1:
        raise ShapeError("categorical_crossentropy: arguments 'target' and 'output' must be "
                         "at least rank 1; received scalars")
    axis = normalize_axis("categorical_crossentropy", axis, output.ndim)
    log_p = numerics.log_probabilities(output, bool(from_logits), axis)
    return negative(reduce_sum(multiply(target, log_p), axis=axis))


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Per-sample ``-log(p[target])`` for integer class labels ``target`` (``output``'s
    shape without ``axis``, or with a trailing 1); ``p`` as in ``categorical_crossentropy``.
    A label outside ``[0, classes)`` is an error.

    Args:
        target: Integer class labels.
        output: The predictions: probabilities, or logits when ``from_logits``.
        from_logits: Whether ``output`` holds logits rather than probabilities. Defaults to
            False.
        axis: The class axis of ``output``. Defaults to -1.

    Returns:
        The loss per sample: ``output``'s shape without ``axis``.

    Raises:
        ValueError: If a label lies outside ``[0, classes)``.
    """
    name = "sparse_categorical_crossentropy"
    output = as_tensor(name, output)
    if not is_float(output.dtype):
        output = cast(output, floatx())
    if output.ndim < 1:
        raise ShapeError(f"{name}: argument 'output' must be at least rank 1; received a "
                         f"scalar")
    axis = normalize_axis(name, axis, output.ndim)
    target = as_tensor(name, target)
    if not is_int(target.dtype):
        target = cast(target, "int32")
    if target.ndim == output.ndim and target.shape[-1] == 1:
        target = squeeze(target, -1)
    expected = tuple(output.shape[:axis]) + tuple(output.shape[axis + 1:])
    if len(target.shape) != len(expected) or any(
            a is not None and b is not None and a != b for a, b in zip(target.shape, expected)):
        raise ShapeError(f"{name}: argument 'target' must have the shape of 'output' without "
                         f"axis {axis} {describe_shape(expected)}; received "
                         f"target.shape={describe_shape(target.shape)}, "
                         f"output.shape={describe_shape(output.shape)}")
    log_p = numerics.log_probabilities(output, bool(from_logits), axis)
    message = (f"{name}: 'target' holds the label {{bad}}, outside the valid range "
               f"[0, {{size}}) for 'output' with {{size}} classes on axis {axis} (received "
               f"labels from {{low}} to {{high}})")
    picked = checked_take_along_axis(log_p, expand_dims(target, axis), axis=axis,
                                     range_message=message)
    return negative(squeeze(picked, axis))


def _same_sizes(s1, s2) -> bool:
    """Whether two shapes of one rank agree where both sizes are known."""
    return all(d1 is None or d2 is None or d1 == d2 for d1, d2 in zip(s1, s2))


def psnr(x1, x2, max_val):
    """Peak signal-to-noise ratio in decibels: ``20 log10(max_val) - 10 log10(mse)`` with
    the mean squared error over all elements; a scalar.

    Args:
        x1: The first image (or batch).
        x2: The second image, of ``x1``'s shape.
        max_val: The largest possible pixel value (e.g. 1.0 or 255).

    Returns:
        The peak signal-to-noise ratio in decibels, a scalar.

    Raises:
        ShapeError: If ``x1`` and ``x2`` differ in shape (symbolic inputs of one rank, as
            Keras's give a scalar, raise it when the result is computed).
    """
    a = as_tensor("psnr", x1)
    if not is_float(a.dtype):
        a = cast(a, floatx())
    b = as_tensor("psnr", x2)
    if b.dtype != a.dtype:
        b = cast(b, a.dtype)
    if len(a.shape) != len(b.shape) or not _same_sizes(a.shape, b.shape):
        message = (f"psnr: arguments 'x1' and 'x2' must have the same shape; received "
                   f"{describe_shape(a.shape)} and {describe_shape(b.shape)}")
        if len(a.shape) != len(b.shape):          # Keras refuses this symbolically too
            raise ShapeError(message)
        return refused(ShapeError, message, (a, b), ((), a.dtype))
    mse = mean(square(subtract(a, b)))
    peak = log(cast(as_tensor("psnr", max_val), a.dtype))
    return multiply(subtract(multiply(peak, 2.0), log(mse)), 10.0 * _INV_LN10)
