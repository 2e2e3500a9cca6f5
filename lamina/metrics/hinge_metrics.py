"""Hinge metrics, and the cosine-similarity and log-cosh metrics: the weighted mean of a
per-sample function over every batch seen (Keras 3's formulas)."""
from __future__ import annotations

from .. import ops
from ..losses.hinge import categorical_hinge, hinge, squared_hinge
from ..losses.robust import log_cosh
from ..losses.similarity import cosine_similarity as _negative_cosine
from .loss_wrappers import FixedFunctionMetric, register_metric


@register_metric
class Hinge(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.hinge`.

    Args:
        name: the metric's name (default ``"hinge"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, name="hinge", dtype=None):
        super().__init__(hinge, name, dtype)


@register_metric
class SquaredHinge(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.squared_hinge`.

    Args:
        name: the metric's name (default ``"squared_hinge"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, name, dtype)


@register_metric
class CategoricalHinge(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.categorical_hinge`.

    Args:
        name: the metric's name (default ``"categorical_hinge"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, name="categorical_hinge", dtype=None):
        super().__init__(categorical_hinge, name, dtype)


def cosine_similarity(y_true, y_pred, axis=-1):
    """``sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``: the cosine itself (the
    loss of the same name is its negative)."""
    return ops.negative(_negative_cosine(y_true, y_pred, axis=axis))


@register_metric
class CosineSimilarity(FixedFunctionMetric):
    """The weighted mean cosine between labels and predictions along ``axis``. As in Keras,
    the config holds only ``name`` and ``dtype``.

    Args:
        name: the metric's name (default ``"cosine_similarity"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
        axis: the axis along which each sample is compared (default -1).
    """

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(cosine_similarity, name, dtype, direction="up", axis=axis)


@register_metric
class LogCoshError(FixedFunctionMetric):
    """The weighted mean of :func:`lamina.losses.log_cosh`.

    Args:
        name: the metric's name (default ``"logcosh"``).
        dtype: the dtype of the metric's state and result (default: the float type,
            ``keras.config.floatx()``).
    """

    def __init__(self, name="logcosh", dtype=None):
        super().__init__(log_cosh, name, dtype)
