"""Focal crossentropies (Lin et al., 2017): crossentropy scaled by ``(1 - p_t) ** gamma`` so
that confident, correct predictions count less (Keras 3's formulas)."""
from __future__ import annotations

from .. import ops
from ..registry import register_builtin
from .checks import check_axis, check_bool, check_number, class_axis, prepare
from .crossentropy import smooth_categorical_labels, warn_single_class
from .loss import BuiltinLoss
from .numerics import (binary_crossentropy_from_probabilities, clip_probabilities,
                       normalized_probabilities, sigmoid_crossentropy_with_logits)
from .reduction import convert_like


def _modulating(x, gamma: float):
    """``x ** gamma``; 1 for ``gamma == 0`` (plain crossentropy, with no 0 * inf gradient
    where ``x == 0``)."""
    return ops.power(x, gamma) if gamma else ops.ones_like(x)


@register_builtin
def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25,
                              gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1):
    """Compute the focal crossentropy between binary labels and predictions.

    The binary crossentropy weighted to focus on hard examples (Lin et al., 2017):
    ``loss = mean(w * (1 - p_t) ** gamma * bce, axis)`` where
    ``p_t = z p + (1 - z)(1 - p)``, ``bce`` is :func:`binary_crossentropy`'s elementwise
    term and, with ``apply_class_balancing``, ``w = z alpha + (1 - z)(1 - alpha)`` (else 1).

    Args:
        y_true: The labels, 0 or 1, of shape ``(batch, ..., d)``.
        y_pred: The predicted probabilities (or logits), of the same shape.
        apply_class_balancing: If ``True``, weight the positive labels by ``alpha``
            and the negative ones by ``1 - alpha``. Defaults to ``False``.
        alpha: The weight of the positive class with ``apply_class_balancing``.
            Defaults to 0.25.
        gamma: The focusing parameter: larger values lower the loss of well-classified
            examples more. Defaults to 2.0.
        from_logits: Whether ``y_pred`` holds logits instead of probabilities.
            Defaults to ``False``.
        label_smoothing: A float in [0, 1]; squeezes the labels towards 0.5. Defaults to 0.
        axis: The axis the elementwise losses are averaged over. Defaults to -1.

    Returns:
        The loss per sample: a tensor of the shape of ``y_true`` without ``axis``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> lamina.losses.binary_focal_crossentropy(y_true, y_pred).numpy().round(4)
    array([0.3299, 0.2058])
    """
    name = "binary_focal_crossentropy"
    apply_class_balancing = check_bool(name, "apply_class_balancing", apply_class_balancing)
    alpha = check_number(name, "alpha", alpha, 0.0, 1.0)
    gamma = check_number(name, "gamma", gamma, 0.0)
    from_logits = check_bool(name, "from_logits", from_logits)
    label_smoothing = check_number(name, "label_smoothing", label_smoothing, 0.0, 1.0)
    y_true, y_pred = prepare(name, y_true, y_pred)
    axis = class_axis(name, check_axis(name, axis), y_pred)
    if label_smoothing:
        y_true = ops.add(ops.multiply(y_true, 1.0 - label_smoothing), 0.5 * label_smoothing)
    if from_logits:
        bce = sigmoid_crossentropy_with_logits(y_true, y_pred)
        y_pred = ops.sigmoid(y_pred)
    else:
        bce = binary_crossentropy_from_probabilities(y_true, y_pred)
    not_true = ops.subtract(1.0, y_true)
    p_t = ops.add(ops.multiply(y_true, y_pred),
                  ops.multiply(not_true, ops.subtract(1.0, y_pred)))
    focal = ops.multiply(_modulating(ops.subtract(1.0, p_t), gamma), bce)
    if apply_class_balancing:
        weight = ops.add(ops.multiply(y_true, alpha), ops.multiply(not_true, 1.0 - alpha))
        focal = ops.multiply(weight, focal)
    return ops.mean(focal, axis=axis)


def _check_alpha(owner: str, alpha):
    """A number, or one number per class (a list or tuple), as Keras accepts."""
    if isinstance(alpha, (list, tuple)):
        return [check_number(owner, "alpha", a) for a in alpha]
    return check_number(owner, "alpha", alpha)


@register_builtin
def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False,
                                   label_smoothing=0.0, axis=-1):
    """Compute the focal crossentropy between one-hot labels and predictions.

    The categorical crossentropy weighted to focus on hard examples:
    ``loss = sum(alpha * (1 - p) ** gamma * -y_true * log(p), axis)`` with ``p`` the
    normalized, clipped probabilities (``softmax`` of logits with ``from_logits``).

    Args:
        y_true: One-hot labels, of shape ``(batch, ..., num_classes)``.
        y_pred: The predicted probabilities (or logits), of the same shape.
        alpha: The weight of the loss: a number, or one weight per class. Defaults to
            0.25.
        gamma: The focusing parameter: larger values lower the loss of well-classified
            examples more. Defaults to 2.0.
        from_logits: Whether ``y_pred`` holds logits instead of probabilities.
            Defaults to ``False``.
        label_smoothing: A float in [0, 1], as in :func:`categorical_crossentropy`.
            Defaults to 0.
        axis: The class axis. Defaults to -1.

    Returns:
        The loss per sample: a tensor of the shape of ``y_true`` without ``axis``.

    Example:

    >>> y_true = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    >>> y_pred = np.array([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]])
    >>> lamina.losses.categorical_focal_crossentropy(y_true, y_pred).numpy().round(4)
    array([0.    , 0.4663])
    """
    name = "categorical_focal_crossentropy"
    alpha = _check_alpha(name, alpha)
    gamma = check_number(name, "gamma", gamma, 0.0)
    from_logits = check_bool(name, "from_logits", from_logits)
    label_smoothing = check_number(name, "label_smoothing", label_smoothing, 0.0, 1.0)
    y_true, y_pred = prepare(name, y_true, y_pred)
    axis = class_axis(name, check_axis(name, axis), y_pred)
    warn_single_class(name, y_pred, axis)
    if label_smoothing:
        y_true = smooth_categorical_labels(y_true, label_smoothing, axis)
    if from_logits:
        log_p = ops.log_softmax(y_pred, axis=axis)
        p = clip_probabilities(ops.exp(log_p))
    else:
        p = normalized_probabilities(y_pred, axis)
        log_p = ops.log(p)
    if isinstance(alpha, list):
        alpha = _per_class(name, alpha, y_pred, axis)
    weight = ops.multiply(_modulating(ops.subtract(1.0, p), gamma), alpha)
    return ops.sum(ops.multiply(weight, ops.negative(ops.multiply(y_true, log_p))), axis=axis)


def _per_class(name: str, alpha: list, y_pred, axis: int):
    """The per-class weights shaped to broadcast along ``axis``."""
    num_classes = y_pred.shape[axis]
    if num_classes is not None and len(alpha) != num_classes:
        raise ValueError(f"{name}: argument 'alpha' must have one weight per class "
                         f"({num_classes}); received {len(alpha)} weights")
    shape = [1] * len(y_pred.shape)
    shape[axis] = len(alpha)
    return ops.reshape(convert_like(alpha, y_pred), tuple(shape))


@register_builtin
class BinaryFocalCrossentropy(BuiltinLoss):
    """Compute the focal crossentropy between binary labels and predictions.

    The loss object of :func:`binary_focal_crossentropy`, reduced over the batch.

    The binary crossentropy weighted to focus on hard examples (Lin et al., 2017):
    ``loss = mean(w * (1 - p_t) ** gamma * bce, axis)`` where
    ``p_t = z p + (1 - z)(1 - p)``, ``bce`` is :func:`binary_crossentropy`'s elementwise
    term and, with ``apply_class_balancing``, ``w = z alpha + (1 - z)(1 - alpha)`` (else 1).

    Args:
        apply_class_balancing: If ``True``, weight the positive labels by ``alpha``
            and the negative ones by ``1 - alpha``. Defaults to ``False``.
        alpha: The weight of the positive class with ``apply_class_balancing``.
            Defaults to 0.25.
        gamma: The focusing parameter: larger values lower the loss of well-classified
            examples more. Defaults to 2.0.
        from_logits: Whether ``y_pred`` holds logits instead of probabilities.
            Defaults to ``False``.
        label_smoothing: A float in [0, 1]; squeezes the labels towards 0.5. Defaults to 0.
        axis: The axis the elementwise losses are averaged over. Defaults to -1.
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"binary_focal_crossentropy"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0], [0.0, 0.0]])
    >>> y_pred = np.array([[0.6, 0.4], [0.4, 0.6]])
    >>> loss = lamina.losses.BinaryFocalCrossentropy()
    >>> round(float(loss(y_true, y_pred)), 4)
    0.2678
    >>> model.compile(optimizer="adam", loss=lamina.losses.BinaryFocalCrossentropy())
    """

    def __init__(self, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False,
                 label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="binary_focal_crossentropy", dtype=None):
        owner = type(self).__name__
        super().__init__(binary_focal_crossentropy, name, reduction, dtype,
                         apply_class_balancing=check_bool(owner, "apply_class_balancing",
                                                          apply_class_balancing),
                         alpha=check_number(owner, "alpha", alpha, 0.0, 1.0),
                         gamma=check_number(owner, "gamma", gamma, 0.0),
                         from_logits=check_bool(owner, "from_logits", from_logits),
                         label_smoothing=check_number(owner, "label_smoothing",
                                                      label_smoothing, 0.0, 1.0),
                         axis=check_axis(owner, axis))


@register_builtin
class CategoricalFocalCrossentropy(BuiltinLoss):
    """Compute the focal crossentropy between one-hot labels and predictions.

    The loss object of :func:`categorical_focal_crossentropy`, reduced over the batch.

    The categorical crossentropy weighted to focus on hard examples:
    ``loss = sum(alpha * (1 - p) ** gamma * -y_true * log(p), axis)`` with ``p`` the
    normalized, clipped probabilities (``softmax`` of logits with ``from_logits``).

    Args:
        alpha: The weight of the loss: a number, or one weight per class. Defaults to
            0.25.
        gamma: The focusing parameter: larger values lower the loss of well-classified
            examples more. Defaults to 2.0.
        from_logits: Whether ``y_pred`` holds logits instead of probabilities.
            Defaults to ``False``.
        label_smoothing: A float in [0, 1], as in :func:`categorical_crossentropy`.
            Defaults to 0.
        axis: The class axis. Defaults to -1.
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"categorical_focal_crossentropy"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    >>> y_pred = np.array([[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]])
    >>> loss = lamina.losses.CategoricalFocalCrossentropy()
    >>> round(float(loss(y_true, y_pred)), 4)
    0.2332
    >>> model.compile(optimizer="adam", loss=lamina.losses.CategoricalFocalCrossentropy())
    """

    def __init__(self, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_focal_crossentropy",
                 dtype=None):
        owner = type(self).__name__
        super().__init__(categorical_focal_crossentropy, name, reduction, dtype,
                         alpha=_check_alpha(owner, alpha),
                         gamma=check_number(owner, "gamma", gamma, 0.0),
                         from_logits=check_bool(owner, "from_logits", from_logits),
                         label_smoothing=check_number(owner, "label_smoothing",
                                                      label_smoothing, 0.0, 1.0),
                         axis=check_axis(owner, axis))
