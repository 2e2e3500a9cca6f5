"""``to_categorical``: integer class labels as one-hot rows (Keras's
``keras.utils.to_categorical``)."""
from __future__ import annotations

import numbers

import numpy

from .. import ops
from ..core.tensor import TensorBase
from ..dtypes import is_int


def _check_num_classes(num_classes) -> int | None:
    if num_classes is None:
        return None
    if isinstance(num_classes, bool) or not isinstance(num_classes, numbers.Integral) \
            or num_classes < 1:
        raise ValueError(f"to_categorical: argument 'num_classes' must be a positive int or "
                         f"None; received {num_classes!r}")
    return int(num_classes)


def _labels_out_of_range(low: int, high: int, num_classes: int) -> ValueError:
    return ValueError(f"to_categorical: labels must be in [0, num_classes={num_classes}); "
                      f"received labels from {low} to {high}")


def to_categorical(x, num_classes: int | None = None):
    """One-hot encode the integer labels ``x``: shape ``x.shape + (num_classes,)``.

    A trailing axis of size 1 is dropped first, as in Keras (labels of shape (n, 1) give
    (n, num_classes)). ``num_classes`` defaults to ``max(x) + 1``. Host data (lists,
    numpy arrays) gives a float32 numpy array; a Lamina tensor gives a tensor of
    ``floatx()`` on its backend.

    Args:
        x: integer labels (array-like or tensor).
        num_classes: int, the number of classes (None: ``max(x) + 1``).

    Returns:
        A one-hot array of shape ``x.shape + (num_classes,)``.

    Example:

    >>> import lamina as keras
    >>> keras.utils.to_categorical([0, 2], num_classes=3)
    array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    num_classes = _check_num_classes(num_classes)
    if isinstance(x, TensorBase):
        return _tensor_to_categorical(x, num_classes)
    labels = numpy.asarray(x)
    if labels.dtype.kind not in "iub" and not (
            labels.dtype.kind == "f" and numpy.all(numpy.mod(labels, 1) == 0)):
        raise ValueError(f"to_categorical: argument 'x' must hold integer class labels; "
                         f"received dtype {labels.dtype} with values such as "
                         f"{labels.reshape(-1)[:3].tolist()}")
    labels = labels.astype("int64")
    shape = labels.shape
    if len(shape) > 1 and shape[-1] == 1:
        shape = shape[:-1]
    flat = labels.reshape(-1)
    if num_classes is None:
        if flat.size == 0:
            raise ValueError("to_categorical: argument 'num_classes' is required when 'x' "
                             "is empty")
        num_classes = int(flat.max()) + 1
    if flat.size and (flat.min() < 0 or flat.max() >= num_classes):
        raise _labels_out_of_range(int(flat.min()), int(flat.max()), num_classes)
    categorical = numpy.zeros((flat.size, num_classes), dtype="float32")
    categorical[numpy.arange(flat.size), flat] = 1.0
    return categorical.reshape(shape + (num_classes,))


def _tensor_to_categorical(x, num_classes: int | None):
    if x.ndim > 1 and x.shape[-1] == 1:
        x = ops.squeeze(x, axis=-1)
    if not (is_int(x.dtype) or x.dtype == "bool"):
        raise ValueError(f"to_categorical: argument 'x' must hold integer class labels; "
                         f"received a tensor of dtype {x.dtype}")
    if x.size:
        low, high = int(ops.min(x).item()), int(ops.max(x).item())
        num_classes = high + 1 if num_classes is None else num_classes
        if low < 0 or high >= num_classes:
            raise _labels_out_of_range(low, high, num_classes)
    elif num_classes is None:
        raise ValueError("to_categorical: argument 'num_classes' is required when 'x' is "
                         "empty")
    return ops.one_hot(x if is_int(x.dtype) else ops.cast(x, "int32"), num_classes)
