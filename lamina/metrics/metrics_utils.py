"""Shape and weighting helpers shared by the metrics (Keras 3's loss/metric utilities).

``squeeze_or_expand_to_same_rank`` is how Keras lets labels of shape ``(batch,)`` meet
predictions of shape ``(batch, 1)``; ``reduce_to_samplewise_values`` is how ``Mean`` and
``Sum`` apply a ``sample_weight`` of rank 0, 1 or more to per-sample values.
"""
from __future__ import annotations

from .. import ops
from ..core.tensor import Tensor, TensorBase
from ..backend import Backend
from ..dtypes import floatx, is_float
from ..errors import ShapeError, describe_shape
# re-exported for the metric modules: one implementation, shared with the losses
from ..losses.reduction import divide_no_nan, squeeze_or_expand_to_same_rank  # noqa: F401
from ..core.op import broadcast_shapes
from ..ops.core import to_backend_tensor


def to_tensor(x, dtype=None, like=None):
    """``x`` as a tensor; host data goes to ``like``'s backend (``like`` is a tensor, a
    variable or a Backend) so that a metric's inputs meet its state on one device."""
    if isinstance(x, TensorBase):
        return x if dtype is None else ops.cast(x, dtype)
    backend = like.backend if isinstance(like, Tensor) else like
    if backend is not None and not isinstance(backend, Backend):
        backend = None
    if dtype is None and isinstance(x, (list, tuple)) and _has_float(x):
        dtype = floatx()      # [0, 0.5] is float data (convert_to_tensor reads only x[0])
    return to_backend_tensor(x, dtype=dtype, backend=backend)


def _has_float(data) -> bool:
    return any(_has_float(v) if isinstance(v, (list, tuple)) else isinstance(v, float)
               for v in data)


def float_tensor(x, like=None):
    """``x`` as a tensor, integers and bools cast to ``floatx()`` (predictions, errors)."""
    x = to_tensor(x, like=like)
    return x if is_float(x.dtype) else ops.cast(x, floatx())


def reduce_to_samplewise_values(owner: str, values, sample_weight, reduce_fn, dtype: str):
    """Per-sample values (rank <= 1) and the matching per-sample weights.

    ``values`` is reduced with ``reduce_fn`` over the axes ``sample_weight`` lacks, then
    weighted; weights of rank > 1 are reduced the same way, so ``sum(values) / sum(weights)``
    is the weighted mean over every weighted element. ``owner`` names the metric in errors.
    A ``_keras_mask`` on ``values`` zeroes the weights of masked entries (only when there
    are weights, as in Keras).
    """
    mask = getattr(values, "_keras_mask", None)
    values = ops.cast(to_tensor(values), dtype)
    if sample_weight is not None:
        sample_weight = to_tensor(sample_weight, dtype=dtype, like=values)
        if mask is not None:
            # As Keras: a mask on the values (labels equal to ignore_class) zeroes their
            # weights; without weights it is not applied.
            mask, sample_weight = squeeze_or_expand_to_same_rank(ops.cast(mask, dtype),
                                                                 sample_weight)
            sample_weight = ops.multiply(sample_weight, mask)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        weight_ndim, values_ndim = sample_weight.ndim, values.ndim
        if values_ndim > weight_ndim:
            values = reduce_fn(values, axis=tuple(range(weight_ndim, values_ndim)))
        try:
            shape = broadcast_shapes(owner, values.shape, sample_weight.shape)
        except ShapeError:
            shape = None
        if shape != tuple(values.shape):
            raise ShapeError(f"{owner}: argument 'sample_weight' of shape "
                             f"{describe_shape(sample_weight.shape)} does not broadcast to "
                             f"the per-sample values of shape {describe_shape(values.shape)}")
        sample_weight = ops.broadcast_to(sample_weight, values.shape)
        values = ops.multiply(values, sample_weight)
        if weight_ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=tuple(range(1, weight_ndim)))
    if values.ndim > 1:
        values = reduce_fn(values, axis=tuple(range(1, values.ndim)))
    return values, sample_weight


def as_pair(y_true, y_pred, true_dtype_from_pred: bool = True):
    """``(y_true, y_pred)`` as tensors on one backend; ``y_true`` takes ``y_pred``'s dtype
    unless ``true_dtype_from_pred`` is False (labels that stay integer)."""
    y_pred = to_tensor(y_pred, like=y_true)
    y_true = to_tensor(y_true, dtype=y_pred.dtype if true_dtype_from_pred else None,
                       like=y_pred)
    return y_true, y_pred


def check_positive_int(owner: str, arg: str, value) -> int:
    """``value`` as an int >= 1, or a ValueError naming ``owner`` and ``arg``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{owner}: argument '{arg}' must be a positive integer; received "
                         f"{value!r}")
    return value


def check_matching(owner: str, expected: str, a, b, true_shape, pred_shape) -> None:
    """A ShapeError unless tensors ``a`` and ``b`` (labels and predictions after argmax or
    squeezing) have one shape; the message gives the shapes the user passed."""
    if tuple(a.shape) != tuple(b.shape):
        raise ShapeError(f"{owner}: expected {expected}; received y_true of shape "
                         f"{describe_shape(true_shape)} and y_pred of shape "
                         f"{describe_shape(pred_shape)}")


def check_two_dimensional(owner: str, true_shape, pred_shape) -> None:
    """A ShapeError unless both shapes are ``(batch_size, output_dim)`` with ``output_dim``
    known (R2Score and the F-scores; Keras's text, with the metric's name)."""
    received = (f"Received input shapes: y_pred.shape={describe_shape(pred_shape)} and "
                f"y_true.shape={describe_shape(true_shape)}.")
    if len(pred_shape) != 2 or len(true_shape) != 2:
        raise ShapeError(f"{owner} expects 2D inputs with shape (batch_size, output_dim). "
                         f"{received}")
    if pred_shape[-1] is None or true_shape[-1] is None:
        raise ShapeError(f"{owner} expects 2D inputs with shape (batch_size, output_dim), "
                         f"with output_dim fully defined (not None). {received}")
