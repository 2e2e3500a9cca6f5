"""Losses (Keras 3's ``keras.losses``): functions returning one loss per sample, and
``Loss`` classes that weight and reduce them.

``get`` turns what a user writes in ``compile(loss=...)`` into a loss: a name ("mse" and
"categorical_crossentropy" give the functions, "MeanSquaredError" an instance), a config
dict, an instance, a class or any callable ``(y_true, y_pred)``. ``serialize`` and
``deserialize`` are the config round trip, in Keras's format.
"""
from __future__ import annotations

from typing import Any, Callable

from ..registry import UnknownObjectError, register_family, serialize_keras_object
from ..registry.lookup import deserialize_from, get_from
from .auto_crossentropy import AutoCrossentropy, is_crossentropy_alias
from .crossentropy import (BinaryCrossentropy, CategoricalCrossentropy,
                           SparseCategoricalCrossentropy, binary_crossentropy,
                           categorical_crossentropy, sparse_categorical_crossentropy)
from .focal_crossentropy import (BinaryFocalCrossentropy, CategoricalFocalCrossentropy,
                                 binary_focal_crossentropy, categorical_focal_crossentropy)
from .hinge import (CategoricalHinge, Hinge, SquaredHinge, categorical_hinge, hinge,
                    squared_hinge)
from .loss import Loss, LossFunctionWrapper
from .circle import Circle, circle
from .ctc import CTC, ctc
from .generalized_crossentropy import (CategoricalGeneralizedCrossEntropy,
                                       categorical_generalized_cross_entropy)
from .overlap import Dice, Tversky, dice, tversky
from .probabilistic import KLDivergence, Poisson, kl_divergence, poisson
from .reduction import reduce_weighted_values, squeeze_or_expand_to_same_rank
from .regression import (MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredError,
                         MeanSquaredLogarithmicError, mean_absolute_error,
                         mean_absolute_percentage_error, mean_squared_error,
                         mean_squared_logarithmic_error)
from .robust import Huber, LogCosh, huber, log_cosh
from .similarity import CosineSimilarity, cosine_similarity

_CLASSES = (Loss, LossFunctionWrapper, KLDivergence, Poisson, BinaryCrossentropy,
            BinaryFocalCrossentropy, CategoricalCrossentropy, CategoricalFocalCrossentropy,
            SparseCategoricalCrossentropy, MeanSquaredError, MeanAbsoluteError,
            MeanAbsolutePercentageError, MeanSquaredLogarithmicError, CosineSimilarity,
            LogCosh, Huber, Hinge, SquaredHinge, CategoricalHinge, CTC,
            CategoricalGeneralizedCrossEntropy, Circle, Dice, Tversky)
_FUNCTIONS = (kl_divergence, poisson, binary_crossentropy, binary_focal_crossentropy,
              categorical_crossentropy, categorical_focal_crossentropy,
              sparse_categorical_crossentropy, mean_squared_error, mean_absolute_error,
              mean_absolute_percentage_error, mean_squared_logarithmic_error,
              cosine_similarity, log_cosh, huber, hinge, squared_hinge, categorical_hinge,
              categorical_generalized_cross_entropy, circle, ctc, dice, tversky)

# Keras's short and upper-case aliases, and names older Keras versions wrote.
bce = BCE = binary_crossentropy
kld = KLD = kullback_leibler_divergence = kl_divergence
mae = MAE = mean_absolute_error
mse = MSE = mean_squared_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
logcosh = log_cosh

ALL_OBJECTS: dict[str, Any] = {obj.__name__: obj for obj in _CLASSES + _FUNCTIONS}
ALL_OBJECTS.update({
    "bce": binary_crossentropy, "BCE": binary_crossentropy,
    "kld": kl_divergence, "KLD": kl_divergence,
    "kullback_leibler_divergence": kl_divergence,
    "mae": mean_absolute_error, "MAE": mean_absolute_error,
    "mse": mean_squared_error, "MSE": mean_squared_error,
    "mape": mean_absolute_percentage_error, "MAPE": mean_absolute_percentage_error,
    "msle": mean_squared_logarithmic_error, "MSLE": mean_squared_logarithmic_error,
    "logcosh": log_cosh, "huber_loss": huber,
    # What "crossentropy" / "ce" give (see get): in the table so its config reads back.
    "AutoCrossentropy": AutoCrossentropy,
})


def _plural(exc: Exception) -> Exception:
    # The shared lookup helpers pluralize the kind by adding "s" ("losss"); say "losses".
    return type(exc)(str(exc).replace("losss", "losses"))


def serialize(loss) -> str | dict:
    """Return the serialized form of a loss, as Keras 3 writes it.

    Args:
        loss: A ``Loss`` instance or a loss function.

    Returns:
        A built-in function's name, or ``{"module": "keras.losses", "class_name",
        "config", "registered_name"}`` for a ``Loss``.

    Example:

    >>> lamina.losses.serialize(lamina.losses.Huber(delta=2.0))["config"]["delta"]
    2.0
    """
    return serialize_keras_object(loss)


def deserialize(name, custom_objects: dict | None = None) -> Loss | Callable:
    """Rebuild a loss from its name or config.

    A class name with its config gives an instance; a function name gives the function.

    Args:
        name: A loss name (``"mse"``, ``"binary_crossentropy"``, ...) or a config dict
            made by :func:`serialize`.
        custom_objects: An optional dict of name -> class or function for the user's own
            losses.

    Returns:
        The ``Loss`` instance or loss function.

    Example:

    >>> lamina.losses.deserialize("mse") is lamina.losses.mean_squared_error
    True
    """
    try:
        return deserialize_from("loss", name, ALL_OBJECTS, custom_objects)
    except (UnknownObjectError, TypeError) as exc:
        if "losss" not in str(exc):
            raise
        raise _plural(exc) from None


def get(identifier) -> Loss | Callable | None:
    """Return a loss from an identifier.

    ``"crossentropy"`` and ``"ce"`` (any case) give an ``AutoCrossentropy``: the
    binary, sparse or categorical crossentropy the shapes call for, as ``compile`` does
    with these names in Keras.

    Args:
        identifier: ``None`` (returned as ``None``), a name, a config dict, an instance, a
            ``Loss`` class (instantiated with its defaults) or any callable
            ``(y_true, y_pred)``.

    Returns:
        The ``Loss`` instance or loss function, or ``None``.

    Raises:
        ValueError: If ``identifier`` names no loss.

    Example:

    >>> lamina.losses.get("mae") is lamina.losses.mean_absolute_error
    True
    """
    if identifier is None:
        return None
    if is_crossentropy_alias(identifier):
        return AutoCrossentropy()
    try:
        return get_from("loss", identifier, ALL_OBJECTS)
    except (UnknownObjectError, TypeError) as exc:
        if "losss" not in str(exc):
            raise
        raise _plural(exc) from None


register_family("keras.losses", lambda: ALL_OBJECTS)

__all__ = ["get", "serialize", "deserialize", "ALL_OBJECTS", "reduce_weighted_values",
           "squeeze_or_expand_to_same_rank", *(obj.__name__ for obj in _CLASSES + _FUNCTIONS),
           "bce", "BCE", "kld", "KLD", "kullback_leibler_divergence", "mae", "MAE", "mse",
           "MSE", "mape", "MAPE", "msle", "MSLE", "logcosh"]
