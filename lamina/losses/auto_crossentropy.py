"""``compile(loss="crossentropy")`` (or ``"ce"``, any case): Keras 3's shorthand for the
crossentropy that the shapes of the labels and the model output call for.

Keras decides when the loss is first built (``keras/src/trainers/compile_utils.py``,
``get_loss`` and ``is_binary_or_sparse_categorical``):

1. the output's last dimension is 1                               -> binary_crossentropy;
2. else the labels have lower rank than the output, or the labels'
   last dimension is 1 while the output's is larger                -> sparse_categorical_;
3. else                                                            -> categorical_crossentropy.

``AutoCrossentropy`` applies that rule to the shapes of each call (a compiled step sees
one set of shapes, so it decides once), then computes the chosen function as Keras's
``LossFunctionWrapper`` would, under the loss name ``"crossentropy"``.
"""
from __future__ import annotations

from ..core.tensor import TensorBase
from ..registry import register_builtin
from .crossentropy import (binary_crossentropy, categorical_crossentropy,
                           sparse_categorical_crossentropy)
from .loss import Loss
from .reduction import squeeze_or_expand_to_same_rank

# The names compile() resolves from shapes (compared lower-cased, as Keras does).
COMPILE_ALIASES = ("crossentropy", "ce")


def is_crossentropy_alias(identifier) -> bool:
    return isinstance(identifier, str) and identifier.lower() in COMPILE_ALIASES


def crossentropy_for(y_true_shape, y_pred_shape):
    """The crossentropy function for labels and predictions of these shapes (the rule of
    the module docstring; an unknown size decides nothing)."""
    true_last, pred_last = y_true_shape[-1], y_pred_shape[-1]
    if pred_last == 1:
        return binary_crossentropy
    if len(y_true_shape) < len(y_pred_shape) or (
            true_last == 1 and pred_last is not None and pred_last > 1):
        return sparse_categorical_crossentropy
    return categorical_crossentropy


@register_builtin
class AutoCrossentropy(Loss):
    """The crossentropy the shapes call for (what ``loss="crossentropy"`` gives)."""

    def __init__(self, reduction="sum_over_batch_size", name: str = "crossentropy",
                 dtype=None) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)

    def call(self, y_true, y_pred):
        fn = crossentropy_for(tuple(y_true.shape), tuple(y_pred.shape))
        if isinstance(y_true, TensorBase) and isinstance(y_pred, TensorBase):
            y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return fn(y_true, y_pred)
