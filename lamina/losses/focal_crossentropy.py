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
    """``mean(w * (1 - p_t) ** gamma * bce, axis)`` where ``p_t = z p + (1 - z)(1 - p)``,
    ``bce`` is :func:`~lamina.losses.binary_crossentropy`'s elementwise term and, with
    ``apply_class_balancing``, ``w = z alpha + (1 - z)(1 - alpha)`` (else 1)."""
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
    """``sum(alpha * (1 - p) ** gamma * -y_true * log(p), axis)`` with ``p`` the normalized,
    clipped probabilities (``softmax`` of logits when ``from_logits``); ``alpha`` is a number
    or one weight per class."""
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
    """:func:`binary_focal_crossentropy` as a loss object."""

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
    """:func:`categorical_focal_crossentropy` as a loss object."""

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
