"""What the string "accuracy" (or "acc") in ``compile(metrics=[...])`` means.

Keras 3 decides from the shapes of the labels and the model output, when the metric is
built (``keras/src/trainers/compile_utils.py``, ``get_metric``):

1. the output's last dimension is 1                               -> BinaryAccuracy;
2. else the labels have lower rank than the output, or the labels'
   last dimension is 1 while the output's is larger                -> SparseCategoricalAccuracy;
3. else                                                            -> CategoricalAccuracy.

Keras 3 does not look at the loss. We use the loss only where the shapes cannot decide
(unknown rank or unknown last dimensions), as Keras 2.2 did: binary crossentropy ->
binary, sparse categorical crossentropy -> sparse categorical. The metric keeps the name
the user wrote ("acc" logs as "acc").
"""
from __future__ import annotations

import operator

from ..errors import ShapeError
from ..core.naming import to_snake_case
from .accuracy_metrics import BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy

_BINARY_LOSSES = {"binary_crossentropy", "bce", "binary_focal_crossentropy"}
_SPARSE_LOSSES = {"sparse_categorical_crossentropy"}


def _loss_name(loss) -> str | None:
    """A loss's snake-case name: of a string, a Loss instance's class, or a function."""
    if loss is None:
        return None
    if isinstance(loss, str):
        return loss.lower()
    if isinstance(loss, type):
        return to_snake_case(loss.__name__)
    if hasattr(loss, "get_config") or not hasattr(loss, "__name__"):
        return to_snake_case(type(loss).__name__)
    return loss.__name__


def _shape(arg: str, shape):
    if shape is None:
        return None
    try:
        if isinstance(shape, str):
            raise TypeError
        shape = tuple(None if d is None else operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"resolve_accuracy: argument '{arg}' must be a shape (a tuple of ints "
                        f"or None) or None; received {shape!r}") from None
    if not shape:
        raise ShapeError(f"resolve_accuracy: argument '{arg}' must have rank >= 1 (a batch "
                         f"axis); received shape ()")
    return shape


def resolve_accuracy(y_true_shape, y_pred_shape, loss=None, name: str = "accuracy"):
    """The accuracy metric for these shapes (see the module docstring for the rule).

    >>> type(resolve_accuracy((None,), (None, 10))).__name__
    'SparseCategoricalAccuracy'
    """
    true, pred = _shape("y_true_shape", y_true_shape), _shape("y_pred_shape", y_pred_shape)
    loss_name = _loss_name(loss)
    pred_last = pred[-1] if pred is not None else None
    true_last = true[-1] if true is not None else None
    if pred_last == 1:
        return BinaryAccuracy(name=name)
    if true is not None and pred is not None:
        if len(true) < len(pred) or (true_last == 1 and pred_last is not None
                                     and pred_last > 1):
            return SparseCategoricalAccuracy(name=name)
    if pred_last is None or true is None:                 # the shapes cannot decide
        if loss_name in _BINARY_LOSSES:
            return BinaryAccuracy(name=name)
        if loss_name in _SPARSE_LOSSES:
            return SparseCategoricalAccuracy(name=name)
    return CategoricalAccuracy(name=name)
