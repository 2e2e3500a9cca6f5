"""Connectionist temporal classification loss (Keras 3's ``keras.losses.ctc`` / ``CTC``).

``_ctc_negative_log_likelihood`` is the forward algorithm in log space written with lamina
ops (unrolled over the time steps, so it traces into a graph and differentiates through
the tape). It is private to the losses: a ``lamina.ops.ctc_loss`` op may replace it.
"""
from __future__ import annotations

from .. import ops
from ..errors import ShapeError, describe_shape
from ..saving.object_registration import register_builtin
from .checks import as_prediction
from .loss import BuiltinLoss
from .reduction import convert_like

_LOG_ZERO = -1e5          # "log 0" that keeps sums and gradients finite (as Keras's)


def _shift(alpha, by: int):
    """``alpha`` moved ``by`` places to the right along the last axis, "log 0" shifted in."""
    pad = ops.full_like(alpha[:, :by], _LOG_ZERO)
    return ops.concatenate([pad, alpha[:, :-by]], axis=1)


def _ctc_negative_log_likelihood(labels, logits, blank: int = 0):
    """``-log p(labels | logits)`` per sample for integer ``labels`` ``(batch, L)`` padded
    with ``blank`` and logits ``(batch, T, classes)`` (softmax over classes)."""
    steps, classes = logits.shape[1], logits.shape[2]
    width = labels.shape[1]
    log_p = ops.log_softmax(logits, axis=-1)
    # The extended sequence blank, l1, blank, l2, ..., blank (length 2L + 1).
    blanks = ops.full_like(labels, blank)
    extended = ops.reshape(ops.stack([blanks, labels], axis=-1), (-1, 2 * width))
    extended = ops.concatenate([extended, blanks[:, :1]], axis=1)
    hot = ops.one_hot(extended, classes, dtype=log_p.dtype)              # (B, S, C)
    emit = ops.matmul(log_p, ops.transpose(hot, (0, 2, 1)))              # (B, T, S)
    # A skip s-2 -> s is allowed onto a label that differs from the label two places back.
    back_two = ops.concatenate([ops.full_like(extended[:, :2], -1), extended[:, :-2]], axis=1)
    allowed = ops.logical_and(ops.not_equal(extended, blank),
                              ops.not_equal(extended, back_two))
    skip_penalty = ops.where(allowed, ops.zeros_like(emit[:, 0]),
                             ops.full_like(emit[:, 0], _LOG_ZERO))
    positions = ops.arange(2 * width + 1, dtype="int32")
    start = ops.multiply(ops.cast(ops.greater_equal(positions, 2), log_p.dtype), _LOG_ZERO)
    alpha = ops.add(emit[:, 0], start)
    for t in range(1, steps):
        paths = ops.stack([alpha, _shift(alpha, 1),
                           ops.add(_shift(alpha, 2), skip_penalty)], axis=0)
        alpha = ops.add(ops.logsumexp(paths, axis=0), emit[:, t])
    # A path ends on the last label or on the blank after it.
    length = ops.sum(ops.cast(ops.not_equal(labels, blank), "int32"), axis=1, keepdims=True)
    pos = ops.reshape(positions, (1, -1))
    end = ops.logical_or(ops.equal(pos, 2 * length), ops.equal(pos, 2 * length - 1))
    final = ops.where(end, alpha, ops.full_like(alpha, _LOG_ZERO))
    return ops.negative(ops.logsumexp(final, axis=1))


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
    return _ctc_negative_log_likelihood(ops.cast(y_true, "int32"), y_pred, blank=0)


@register_builtin
class CTC(BuiltinLoss):
    """:func:`ctc` as a loss object."""

    def __init__(self, reduction="sum_over_batch_size", name="ctc", dtype=None):
        super().__init__(ctc, name, reduction, dtype)
