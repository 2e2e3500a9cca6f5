"""``multi_hot``: integer labels as multi-hot vectors (Keras 3's ``keras.ops.multi_hot``)."""
from __future__ import annotations

from .core import as_tensor, cast
from .indexing import one_hot
from .reduction import any as reduce_any, max as reduce_max

__all__ = ["multi_hot"]


def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """Per sample (row of a 2-D ``inputs``; the whole of a 1-D one), a vector of
    ``num_classes`` with 1 at every label it holds (labels outside [0, num_classes) are
    ignored): Keras's rule, the maximum of ``one_hot(inputs, num_classes, axis)`` over axis
    1 (axis 0 for 1-D inputs). ``num_tokens`` is Keras's old name for ``num_classes``.

    Args:
        inputs: Integer labels: 1-D (one sample) or 2-D (one row per sample).
        num_classes: The length of each encoded vector (required).
        axis: Where the class axis goes. Defaults to -1.
        dtype: The dtype of the result; None means floatx().
        sparse: Must be False: Lamina tensors are dense and a sparse result is refused.
        **kwargs: Only ``num_tokens``, Keras's old name for ``num_classes``.

    Returns:
        A tensor of shape (batch, num_classes) (or (num_classes,) for 1-D input) with 1 at
        every label present.

    Raises:
        ValueError: If ``num_classes`` is missing or ``sparse`` is True.
    """
    if num_classes is None and "num_tokens" in kwargs:
        num_classes = kwargs.pop("num_tokens")
    if kwargs:
        raise TypeError(f"multi_hot: unexpected keyword arguments {sorted(kwargs)}")
    if num_classes is None:
        raise ValueError("multi_hot: argument 'num_classes' must be specified")
    if sparse:
        raise ValueError("multi_hot: sparse=True is not supported; Lamina tensors are dense")
    x = cast(as_tensor("multi_hot", inputs), "int32")
    encoded = one_hot(x, num_classes, axis=axis, dtype=dtype)
    reduce = reduce_any if encoded.dtype == "bool" else reduce_max
    return reduce(encoded, axis=1 if x.ndim > 1 else 0)
