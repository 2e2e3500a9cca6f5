"""Probabilistic metrics: the weighted mean of a crossentropy, the KL divergence or the
Poisson loss over every batch seen (Keras 3's ``keras.metrics.BinaryCrossentropy`` ...)."""
from __future__ import annotations

from ..losses.crossentropy import (binary_crossentropy, categorical_crossentropy,
                                   sparse_categorical_crossentropy)
from ..losses.probabilistic import kl_divergence, poisson
from .loss_wrappers import FixedFunctionMetric, register_metric


@register_metric
class BinaryCrossentropy(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.binary_crossentropy`.

    Args:
        name: the metric's name (default ``"binary_crossentropy"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        from_logits: bool; whether ``y_pred`` holds logits rather than probabilities
            (default False).
        label_smoothing: float in [0, 1]; smooth the labels towards 0.5 (binary) or
            ``1 / classes`` (default 0).
    """

    config_keys = ("from_logits", "label_smoothing")

    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0):
        super().__init__(binary_crossentropy, name, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)


@register_metric
class CategoricalCrossentropy(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.categorical_crossentropy` (one-hot labels).

    Args:
        name: the metric's name (default ``"categorical_crossentropy"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        from_logits: bool; whether ``y_pred`` holds logits rather than probabilities
            (default False).
        label_smoothing: float in [0, 1]; smooth the labels towards 0.5 (binary) or
            ``1 / classes`` (default 0).
        axis: the class axis (default -1).
    """

    config_keys = ("from_logits", "label_smoothing", "axis")

    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0, axis=-1):
        super().__init__(categorical_crossentropy, name, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


@register_metric
class SparseCategoricalCrossentropy(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.sparse_categorical_crossentropy` (integer
    labels). As in Keras, a label equal to ``ignore_class`` adds a 0 to the mean (the
    metric weighs it like any other sample).

    Args:
        name: the metric's name (default ``"sparse_categorical_crossentropy"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        from_logits: bool; whether ``y_pred`` holds logits rather than probabilities
            (default False).
        ignore_class: int or None; a label value that contributes 0 (default None).
        axis: the class axis (default -1).
    """

    config_keys = ("from_logits", "ignore_class", "axis")

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False,
                 ignore_class=None, axis=-1):
        super().__init__(sparse_categorical_crossentropy, name, dtype, from_logits=from_logits,
                         ignore_class=ignore_class, axis=axis)


@register_metric
class KLDivergence(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.kl_divergence`.

    Args:
        name: the metric's name (default ``"kl_divergence"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, name, dtype)


@register_metric
class Poisson(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.poisson`.

    Args:
        name: the metric's name (default ``"poisson"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, name="poisson", dtype=None):
        super().__init__(poisson, name, dtype)
