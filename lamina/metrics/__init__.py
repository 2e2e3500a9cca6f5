"""Metrics: stateful running statistics reported by ``fit``/``evaluate`` (Keras 3's
``keras.metrics``).

``get`` turns what a user writes in ``compile(metrics=[...])`` (a name such as "mse" or
"auc", a config dict, an instance, a class) into a metric; ``serialize``/``deserialize``
are its config round trip in Keras's file format. The string "accuracy" is resolved by
``compile`` from the shapes of labels and outputs: see :func:`resolve_accuracy`.
"""
from __future__ import annotations

from typing import Any

from ..core.naming import to_snake_case
from ..registry import UnknownObjectError, register_family, serialize_keras_object
from ..registry.lookup import deserialize_from, get_from
from .accuracy_functions import (binary_accuracy, categorical_accuracy,
                                 sparse_categorical_accuracy,
                                 sparse_top_k_categorical_accuracy, top_k_categorical_accuracy)
from .accuracy_functions import accuracy as _accuracy
from .accuracy_metrics import (Accuracy, BinaryAccuracy, CategoricalAccuracy,
                               SparseCategoricalAccuracy, SparseTopKCategoricalAccuracy,
                               TopKCategoricalAccuracy)
from .accuracy_resolution import resolve_accuracy
from .auc import AUC
from .confusion_metrics import (FalseNegatives, FalsePositives, Precision, Recall,
                                TrueNegatives, TruePositives)
from .metric import Metric
from .reduction_metrics import Mean, MeanMetricWrapper, Sum
from .at_threshold_metrics import (PrecisionAtRecall, RecallAtPrecision,
                                   SensitivityAtSpecificity, SpecificityAtSensitivity)
from .correlation_metrics import (ConcordanceCorrelation, PearsonCorrelation,
                                  concordance_correlation, pearson_correlation)
from .crossentropy_metrics import (BinaryCrossentropy, CategoricalCrossentropy, KLDivergence,
                                   Poisson, SparseCategoricalCrossentropy)
from .f_score_metrics import F1Score, FBetaScore
from .hinge_metrics import CategoricalHinge, CosineSimilarity, Hinge, LogCoshError, SquaredHinge
from .iou_metrics import IoU, BinaryIoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from .r2_score import R2Score
from ..losses.crossentropy import (binary_crossentropy, categorical_crossentropy,
                                   sparse_categorical_crossentropy)
from ..losses.focal_crossentropy import (binary_focal_crossentropy,
                                         categorical_focal_crossentropy)
from ..losses.hinge import categorical_hinge, hinge, squared_hinge
from ..losses.probabilistic import kl_divergence, poisson
from ..losses.robust import huber, log_cosh
from .regression_metrics import (MeanAbsoluteError, MeanAbsolutePercentageError,
                                 MeanSquaredError, MeanSquaredLogarithmicError,
                                 RootMeanSquaredError, mean_absolute_error,
                                 mean_absolute_percentage_error, mean_squared_error,
                                 mean_squared_logarithmic_error)

_CLASSES = (Metric, Mean, Sum, MeanMetricWrapper, MeanSquaredError, RootMeanSquaredError,
            MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredLogarithmicError,
            AUC, FalseNegatives, FalsePositives, Precision, Recall, TrueNegatives,
            TruePositives, Accuracy, BinaryAccuracy, CategoricalAccuracy,
            SparseCategoricalAccuracy, TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy,
            BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy,
            KLDivergence, Poisson, Hinge, SquaredHinge, CategoricalHinge, CosineSimilarity,
            LogCoshError, PearsonCorrelation, ConcordanceCorrelation, R2Score, F1Score,
            FBetaScore, IoU, BinaryIoU, MeanIoU, OneHotIoU, OneHotMeanIoU, PrecisionAtRecall,
            RecallAtPrecision, SensitivityAtSpecificity, SpecificityAtSensitivity)

# Keras's table: class names, their snake-case forms ("auc", "precision",
# "sparse_categorical_accuracy", ...) and the short aliases of the regression metrics.
ALL_OBJECTS: dict[str, type] = {cls.__name__: cls for cls in _CLASSES}
ALL_OBJECTS.update({to_snake_case(cls.__name__): cls for cls in _CLASSES})
ALL_OBJECTS.update({
    "mse": MeanSquaredError, "MSE": MeanSquaredError,
    "mae": MeanAbsoluteError, "MAE": MeanAbsoluteError,
    "mape": MeanAbsolutePercentageError, "MAPE": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError, "MSLE": MeanSquaredLogarithmicError,
    "bce": BinaryCrossentropy, "BCE": BinaryCrossentropy,
})

# The per-sample functions a MeanMetricWrapper config may name.
METRIC_FUNCTIONS: dict[str, Any] = {fn.__name__: fn for fn in (
    _accuracy, binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
    top_k_categorical_accuracy, sparse_top_k_categorical_accuracy, mean_squared_error,
    mean_absolute_error, mean_absolute_percentage_error, mean_squared_logarithmic_error,
    binary_crossentropy, binary_focal_crossentropy, categorical_crossentropy,
    categorical_focal_crossentropy, categorical_hinge, concordance_correlation, hinge, huber,
    kl_divergence, log_cosh, pearson_correlation, poisson, sparse_categorical_crossentropy,
    squared_hinge)}

_COMPILE_ONLY = ("acc",)


def serialize(metric) -> Any:
    """``{"module": "keras.metrics", "class_name", "config", "registered_name"}``; a
    metric function becomes its name.

    Args:
        metric: a ``Metric`` instance or a metric function.

    Returns:
        A JSON-ready dict (or, for a function, its name).
    """
    return serialize_keras_object(metric)


def deserialize(config, custom_objects: dict | None = None) -> Any:
    """A metric from its config dict (or the class a name stands for).

    Args:
        config: the dict ``serialize`` returned, or a metric's name.
        custom_objects: a dict ``{name: class or function}`` for custom metrics.

    Returns:
        A ``Metric`` instance or a metric function.
    """
    return deserialize_from("metric", config, ALL_OBJECTS, custom_objects)


def get(identifier) -> Metric | Any:
    """A metric from None (returned as None), a name such as "mse" or "auc", a config
    dict, an instance, a Metric class (instantiated) or a function ``(y_true, y_pred)``.

    "acc" is not a metric on its own: ``compile`` resolves it (and "accuracy") from the
    shapes with :func:`resolve_accuracy`, as Keras 3 does.

    Args:
        identifier: None, a name, a config dict, a ``Metric`` (instance or class) or a
            function.

    Returns:
        A ``Metric`` instance, a metric function or None.

    Raises:
        ValueError: ``identifier`` names no metric.
    """
    if identifier is None:
        return None
    if isinstance(identifier, str) and identifier in _COMPILE_ONLY:
        raise UnknownObjectError(
            f"metrics.get: {identifier!r} (argument 'identifier') is resolved by "
            f"Model.compile from the shapes of labels and outputs; outside compile use "
            f"lamina.metrics.resolve_accuracy(y_true_shape, y_pred_shape) or a class such as "
            f"BinaryAccuracy")
    return get_from("metric", identifier, ALL_OBJECTS)


register_family("keras.metrics", lambda: ALL_OBJECTS)

__all__ = ["get", "serialize", "deserialize", "resolve_accuracy", "ALL_OBJECTS",
           "METRIC_FUNCTIONS", *(cls.__name__ for cls in _CLASSES),
           *(name for name in METRIC_FUNCTIONS if name != "accuracy")]
