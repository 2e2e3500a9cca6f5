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
    """Compute the connectionist temporal classification (CTC) loss.

    For sequence labelling without alignment (speech, handwriting): every sample uses
    all ``time_steps``; label 0 is the blank and pads ``y_true``.

    Args:
        y_true: Integer labels, of shape ``(batch, max_length)``, padded with 0.
        y_pred: Logits, of shape ``(batch, time_steps, num_classes)``.

    Returns:
        The loss per sample: a tensor of shape ``(batch,)``.

    Raises:
        ShapeError: If ``y_true`` is not 2-D or ``y_pred`` not 3-D.

    Example:

    >>> y_true = np.array([[1, 2]])
    >>> y_pred = np.zeros((1, 4, 3))
    >>> lamina.losses.ctc(y_true, y_pred).numpy().round(4)
    array([1.6864])
    """
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
    """Compute the connectionist temporal classification (CTC) loss.

    The loss object of :func:`ctc`, reduced over the batch.

    For sequence labelling without alignment (speech, handwriting): every sample uses
    all ``time_steps``; label 0 is the blank and pads ``y_true``.

    Args:
        reduction: How the per-sample losses are reduced: ``"sum_over_batch_size"``
            (default: their mean), ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``
            (the weighted sum over the sum of the weights), or ``"none"``/``None`` (no
            reduction).
        name: The loss's name. Defaults to ``"ctc"``.
        dtype: The dtype the loss is computed in, or a dtype policy (its compute dtype);
            ``None`` (default) takes ``floatx()``.

    Example:

    >>> y_true = np.array([[1, 2]])
    >>> y_pred = np.zeros((1, 4, 3))
    >>> loss = lamina.losses.CTC()
    >>> round(float(loss(y_true, y_pred)), 4)
    1.6864
    >>> model.compile(optimizer="adam", loss=lamina.losses.CTC())
    """

    def __init__(self, reduction="sum_over_batch_size", name="ctc", dtype=None):
        super().__init__(ctc, name, reduction, dtype)
