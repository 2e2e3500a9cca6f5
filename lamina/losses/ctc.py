"""Connectionist temporal classification loss (Keras 3's ``keras.losses.ctc`` / ``CTC``).

The loss is ``lamina.ops.ctc_loss`` with Keras's lengths: every time step, and the labels
up to the padding (label 0, also the blank).
"""
from __future__ import annotations

from .. import ops
from ..errors import ShapeError, describe_shape
from ..registry import register_builtin
from .checks import as_prediction
from .loss import BuiltinLoss
from .reduction import convert_like

@register_builtin
def ctc(y_true, y_pred):
    """The CTC loss per sample: ``y_true`` integer labels ``(batch, max_length)`` padded
    with 0 (class 0 is the blank), ``y_pred`` logits ``(batch, time_steps, classes)``; every
    sample uses all ``time_steps``."""
    y_pred = as_prediction(y_pred)
    y_true = convert_like(y_true, y_pred)
    if len(y_true.shape) != 2:
        raise ShapeError(f"ctc: y_true must be integer targets of shape (batch_size, "
                         f"max_length); received y_true.shape={describe_shape(y_true.shape)}")
    if len(y_pred.shape) != 3:
        raise ShapeError(f"ctc: y_pred must be logits of shape (batch_size, time_steps, "
                         f"num_classes); received y_pred.shape={describe_shape(y_pred.shape)}")
    y_true = ops.cast(y_true, "int32")
    label_length = ops.sum(ops.cast(ops.not_equal(y_true, 0), "int32"), axis=1)
    steps = ops.ones_like(label_length) * y_pred.shape[1]
    return ops.ctc_loss(y_true, y_pred, label_length, steps, mask_index=0)


@register_builtin
class CTC(BuiltinLoss):
    """:func:`ctc` as a loss object."""

    def __init__(self, reduction="sum_over_batch_size", name="ctc", dtype=None):
        super().__init__(ctc, name, reduction, dtype)
