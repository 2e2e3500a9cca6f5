"""Crossentropies: categorical (one-hot labels), sparse categorical (integer labels) and
binary, each a function returning per-sample losses and a class (Keras 3's formulas; the
numerics are in :mod:`lamina.losses.numerics`)."""
from __future__ import annotations

import warnings

from .. import ops
from ..core.tensor import Tensor, TensorBase
from ..dtypes import is_int
from ..errors import ShapeError, describe_shape
from ..ops.core import to_backend_tensor
from ..ops.indexing import checked_take_along_axis
from ..registry import register_builtin
from .checks import (as_prediction, check_axis, check_bool, check_number, check_optional_int,
                     class_axis, prepare)
from .loss import BuiltinLoss
from .numerics import (binary_crossentropy_from_probabilities, log_probabilities,
                       sigmoid_crossentropy_with_logits)

_ONE_HOT_HINT = " (integer class labels need sparse_categorical_crossentropy)"


def smooth_categorical_labels(y_true, label_smoothing: float, axis: int):
    """``y_true * (1 - s) + s / num_classes``."""
    num_classes = y_true.shape[axis]
    if num_classes is None:
        num_classes = ops.sum(ops.ones_like(y_true), axis=axis, keepdims=True)
    return ops.add(ops.multiply(y_true, 1.0 - label_smoothing),
                   ops.divide(ops.full_like(y_true, label_smoothing), num_classes))


def warn_single_class(name: str, y_pred, axis: int) -> None:
    if y_pred.shape[axis] == 1:
        warnings.warn(f"{name}: y_pred has a single class (shape "
                      f"{describe_shape(y_pred.shape)}), so the loss is always 0; use "
                      f"binary_crossentropy for two classes", UserWarning, stacklevel=3)


@register_builtin
def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Compute the crossentropy between one-hot labels and predicted class probabilities.

    ``loss = -sum(y_true * log(p), axis)``: ``p`` is ``softmax(y_pred)`` with
    ``from_logits``, else ``y_pred`` rescaled to sum to 1 and clipped to
    ``[1e-7, 1 - 1e-7]``. For integer labels use :func:`sparse_categorical_crossentropy`.

    Args:
        y_true: One-hot (or soft) labels, of shape ``(batch, ..., num_classes)``.
        y_pred: The predicted probabilities (or logits), of the same shape.
        from_logits: Whether ``y_pred`` holds logits instead of probabilities.
            Defaults to ``False``.
        label_smoothing: A float in [0, 1]; ``s`` replaces the labels by
            ``y_true * (1 - s) + s / num_classes``. Defaults to 0.
        axis: The class axis. Defaults to -1.

    Returns:
        The loss per sample: a tensor of the shape of ``y_true`` without ``axis``.

    Example:

    >>> y_true = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    >>> y_pred = np.array([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]])
    >>> lamina.losses.categorical_crossentropy(y_true, y_pred).numpy().round(4)
    array([0.0513, 2.3026])
    """
    name = "categorical_crossentropy"
    from_logits = check_bool(name, "from_logits", from_logits)
    label_smoothing = check_number(name, "label_smoothing", label_smoothing, 0.0, 1.0)
    y_true, y_pred = prepare(name, y_true, y_pred, hint=_ONE_HOT_HINT)
    axis = class_axis(name, check_axis(name, axis), y_pred)
    warn_single_class(name, y_pred, axis)
    if label_smoothing:
        y_true = smooth_categorical_labels(y_true, label_smoothing, axis)
    log_p = log_probabilities(y_pred, from_logits, axis)
    return ops.negative(ops.sum(ops.multiply(y_true, log_p), axis=axis))


def _integer_labels(name: str, y_true, y_pred, axis: int, given_axis: int):
    """``y_true`` as integer labels with ``y_pred``'s shape minus the class axis."""
    if not isinstance(y_true, TensorBase):
        backend = y_pred.backend if isinstance(y_pred, Tensor) else None
        y_true = to_backend_tensor(y_true, backend=backend)
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape[-1] == 1:
        y_true = ops.squeeze(y_true, -1)
    expected = y_pred.shape[:axis] + y_pred.shape[axis + 1:]
    if len(y_true.shape) != len(expected) or any(
            a is not None and b is not None and a != b for a, b in zip(y_true.shape, expected)):
        hint = " (one-hot labels need categorical_crossentropy)" \
            if tuple(y_true.shape) == tuple(y_pred.shape) else ""
        raise ShapeError(f"{name}: y_true must hold one integer label per sample, with shape "
                         f"{describe_shape(expected)} (y_pred's shape without the class axis "
                         f"{given_axis}); received y_true.shape={describe_shape(y_true.shape)} "
                         f"and y_pred.shape={describe_shape(y_pred.shape)}{hint}")
    return y_true if is_int(y_true.dtype) else ops.cast(y_true, "int32")


def _label_range_message(name: str, axis: int, ignore_class) -> str:
    """The gather's error for a label outside ``[0, num_classes)``: the ops check it in
    eager and graph mode alike (``lamina.ops.take_along_axis``'s ``range_message``)."""
    skip = "" if ignore_class is not None else \
        "; to skip a padding label, pass ignore_class=<that label>"
    return (f"{name}: y_true holds the label {{bad}}, outside the valid range [0, {{size}}) "
            f"for y_pred with {{size}} classes on axis {axis} (labels must be in "
            f"[0, num_classes); received labels from {{low}} to {{high}}){skip}")


@register_builtin
def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None,
                                    axis=-1):
    """Compute the crossentropy between integer labels and predicted class probabilities.

    ``loss = -log(p[label])``, ``p`` as in :func:`categorical_crossentropy`. Labels
    outside ``[0, num_classes)`` (other than ``ignore_class``) raise an
    ``IndexRangeError`` (a ``ValueError``), in eager and graph mode alike (Keras trains on
    them silently).

    Args:
        y_true: Integer labels, of shape ``(batch,)`` or ``(batch, 1)`` (or ``y_pred``'s
            shape without the class axis).
        y_pred: The predicted probabilities (or logits), of shape
            ``(batch, ..., num_classes)``.
        from_logits: Whether ``y_pred`` holds logits instead of probabilities.
            Defaults to ``False``.
        ignore_class: A label whose samples give 0 and are left out of the average
            (such as a padding class); ``None`` (default) for none.
        axis: The class axis. Defaults to -1.

    Returns:
        The loss per sample: a tensor of the shape of ``y_pred`` without ``axis``.

    Raises:
        IndexRangeError: If a label is outside ``[0, num_classes)``.

    Example:

    >>> y_true = np.array([1, 2])
    >>> y_pred = np.array([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]])
    >>> lamina.losses.sparse_categorical_crossentropy(y_true, y_pred).numpy().round(4)
    array([0.0513, 2.3026])
    """
    name = "sparse_categorical_crossentropy"
    from_logits = check_bool(name, "from_logits", from_logits)
    ignore_class = check_optional_int(name, "ignore_class", ignore_class)
    y_pred = as_prediction(y_pred)
    given_axis = check_axis(name, axis)
    axis = class_axis(name, given_axis, y_pred)
    labels = _integer_labels(name, y_true, y_pred, axis, given_axis)
    valid = None
    if ignore_class is not None:
        valid = ops.not_equal(labels, ignore_class)
        labels = ops.where(valid, labels, ops.zeros_like(labels))
    log_p = log_probabilities(y_pred, from_logits, axis)
    picked = checked_take_along_axis(log_p, ops.expand_dims(labels, axis), axis=axis,
                                     range_message=_label_range_message(name, given_axis,
                                                                        ignore_class))
    result = ops.negative(ops.squeeze(picked, axis))
    if valid is not None:
        result = ops.where(valid, result, ops.zeros_like(result))
        result._keras_mask = valid          # averaged over the valid labels only
    return result


@register_builtin
def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Compute the crossentropy between binary labels and predicted probabilities.

    ``loss = mean(-z log(p) - (1 - z) log(1 - p), axis)`` for labels ``z`` in [0, 1]:
    ``p = sigmoid(y_pred)`` with ``from_logits`` (computed from the logits directly, so
    +-1e4 is fine), else ``y_pred`` clipped to ``[1e-7, 1 - 1e-7]``.

    Args:
        y_true: The labels, 0 or 1 (or in between), of shape ``(batch, ..., d)``.
        y_pred: The predicted probabilities (or logits), of the same shape.
        from_logits: Whether ``y_pred`` holds logits instead of probabilities.
            Defaults to ``False``.
        label_smoothing: A float in [0, 1]; ``s`` squeezes the labels towards 0.5:
            ``z * (1 - s) + s / 2``. Defaults to 0.
        axis: The axis the elementwise losses are averaged over. Defaults to -1.

    Returns:
        The loss per sample: a tensor of the shape of ``y_true`` without ``axis``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> lamina.losses.binary_crossentropy(y_true, y_pred).numpy().round(4)
    array([0.9163, 0.7136])
    """
    name = "binary_crossentropy"
    from_logits = check_bool(name, "from_logits", from_logits)
    label_smoothing = check_number(name, "label_smoothing", label_smoothing, 0.0, 1.0)
    y_true, y_pred = prepare(name, y_true, y_pred)
    axis = class_axis(name, check_axis(name, axis), y_pred)
    if label_smoothing:
        y_true = ops.add(ops.multiply(y_true, 1.0 - label_smoothing), 0.5 * label_smoothing)
    if from_logits:
        elementwise = sigmoid_crossentropy_with_logits(y_true, y_pred)
    else:
        elementwise = binary_crossentropy_from_probabilities(y_true, y_pred)
    return ops.mean(elementwise, axis=axis)


@register_builtin
class CategoricalCrossentropy(BuiltinLoss):
    """Compute the crossentropy between one-hot labels and predicted class probabilities.

    The loss object of :func:`categorical_crossentropy`, reduced over the batch.

    ``loss = -sum(y_true * log(p), axis)``: ``p`` is ``softmax(y_pred)`` with
    ``from_logits``, else ``y_pred`` rescaled to sum to 1 and clipped to
    ``[1e-7, 1 - 1e-7]``. For integer labels use :func:`sparse_categorical_crossentropy`.

    Args:
        from_logits: Whether ``y_pred`` holds logits instead of probabilities.
            Defaults to ``False``.
        label_smoothing: A float in [0, 1]; ``s`` replaces the labels by
            ``y_true * (1 - s) + s / num_classes``. Defaults to 0.
        axis: The class axis. Defaults to -1.
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"categorical_crossentropy"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    >>> y_pred = np.array([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]])
    >>> loss = lamina.losses.CategoricalCrossentropy()
    >>> round(float(loss(y_true, y_pred)), 4)
    1.1769
    >>> model.compile(optimizer="adam", loss=lamina.losses.CategoricalCrossentropy())
    """

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_crossentropy", dtype=None):
        owner = type(self).__name__
        super().__init__(categorical_crossentropy, name, reduction, dtype,
                         from_logits=check_bool(owner, "from_logits", from_logits),
                         label_smoothing=check_number(owner, "label_smoothing",
                                                      label_smoothing, 0.0, 1.0),
                         axis=check_axis(owner, axis))


@register_builtin
class SparseCategoricalCrossentropy(BuiltinLoss):
    """Compute the crossentropy between integer labels and predicted class probabilities.

    The loss object of :func:`sparse_categorical_crossentropy`, reduced over the batch.

    ``loss = -log(p[label])``, ``p`` as in :func:`categorical_crossentropy`. Labels
    outside ``[0, num_classes)`` (other than ``ignore_class``) raise an
    ``IndexRangeError`` (a ``ValueError``), in eager and graph mode alike (Keras trains on
    them silently).

    Args:
        from_logits: Whether ``y_pred`` holds logits instead of probabilities.
            Defaults to ``False``.
        ignore_class: A label whose samples give 0 and are left out of the average
            (such as a padding class); ``None`` (default) for none.
        axis: The class axis. Defaults to -1.
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"sparse_categorical_crossentropy"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([1, 2])
    >>> y_pred = np.array([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]])
    >>> loss = lamina.losses.SparseCategoricalCrossentropy()
    >>> round(float(loss(y_true, y_pred)), 4)
    1.1769
    >>> model.compile(optimizer="adam", loss=lamina.losses.SparseCategoricalCrossentropy())
    """

    def __init__(self, from_logits=False, ignore_class=None,
                 reduction="sum_over_batch_size", axis=-1,
                 name="sparse_categorical_crossentropy", dtype=None):
        owner = type(self).__name__
        super().__init__(sparse_categorical_crossentropy, name, reduction, dtype,
                         from_logits=check_bool(owner, "from_logits", from_logits),
                         ignore_class=check_optional_int(owner, "ignore_class", ignore_class),
                         axis=check_axis(owner, axis))


@register_builtin
class BinaryCrossentropy(BuiltinLoss):
    """Compute the crossentropy between binary labels and predicted probabilities.

    The loss object of :func:`binary_crossentropy`, reduced over the batch.

    ``loss = mean(-z log(p) - (1 - z) log(1 - p), axis)`` for labels ``z`` in [0, 1]:
    ``p = sigmoid(y_pred)`` with ``from_logits`` (computed from the logits directly, so
    +-1e4 is fine), else ``y_pred`` clipped to ``[1e-7, 1 - 1e-7]``.

    Args:
        from_logits: Whether ``y_pred`` holds logits instead of probabilities.
            Defaults to ``False``.
        label_smoothing: A float in [0, 1]; ``s`` squeezes the labels towards 0.5:
            ``z * (1 - s) + s / 2``. Defaults to 0.
        axis: The axis the elementwise losses are averaged over. Defaults to -1.
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"binary_crossentropy"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> loss = lamina.losses.BinaryCrossentropy()
    >>> round(float(loss(y_true, y_pred)), 4)
    0.8149
    >>> model.compile(optimizer="adam", loss=lamina.losses.BinaryCrossentropy())
    """

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="binary_crossentropy", dtype=None):
        owner = type(self).__name__
        super().__init__(binary_crossentropy, name, reduction, dtype,
                         from_logits=check_bool(owner, "from_logits", from_logits),
                         label_smoothing=check_number(owner, "label_smoothing",
                                                      label_smoothing, 0.0, 1.0),
                         axis=check_axis(owner, axis))
