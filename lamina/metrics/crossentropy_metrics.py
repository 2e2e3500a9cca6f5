"""Probabilistic metrics: the weighted mean of a crossentropy, the KL divergence or the
Poisson loss over every batch seen (Keras 3's ``keras.metrics.BinaryCrossentropy`` ...)."""
from __future__ import annotations

from ..losses.crossentropy import (binary_crossentropy, categorical_crossentropy,
                                   sparse_categorical_crossentropy)
from ..losses.probabilistic import kl_divergence, poisson
from .loss_wrappers import FixedFunctionMetric, register_metric


@register_metric
class BinaryCrossentropy(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.binary_crossentropy`."""

    config_keys = ("from_logits", "label_smoothing")

    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0):
        super().__init__(binary_crossentropy, name, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)


@register_metric
class CategoricalCrossentropy(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.categorical_crossentropy` (one-hot labels)."""

    config_keys = ("from_logits", "label_smoothing", "axis")

    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0, axis=-1):
        super().__init__(categorical_crossentropy, name, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


@register_metric
class SparseCategoricalCrossentropy(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.sparse_categorical_crossentropy` (integer
    labels). As in Keras, a label equal to ``ignore_class`` adds a 0 to the mean (the
    metric weighs it like any other sample)."""

    config_keys = ("from_logits", "ignore_class", "axis")

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False,
                 ignore_class=None, axis=-1):
        super().__init__(sparse_categorical_crossentropy, name, dtype, from_logits=from_logits,
                         ignore_class=ignore_class, axis=axis)


@register_metric
class KLDivergence(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.kl_divergence`."""

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, name, dtype)


@register_metric
class Poisson(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.poisson`."""

    def __init__(self, name="poisson", dtype=None):
        super().__init__(poisson, name, dtype)
