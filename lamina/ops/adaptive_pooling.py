"""Adaptive pooling (Keras 3's ``keras.ops.adaptive_average_pool`` / ``adaptive_max_pool``):
pool a 1-D, 2-D or 3-D input to a fixed output size, whatever its spatial size.

Output position ``i`` of an axis of length ``L`` pooled to ``n`` reads the window
``[floor(i * L / n), ceil((i + 1) * L / n))`` (PyTorch's and Keras's bins; neighbouring
windows may overlap by one). Compositions of slicing, reshapes and reductions, so the
gradients come from those ops.
"""
from __future__ import annotations

from ..settings import image_data_format
from ..errors import ShapeError, describe_shape
from .reshaping import concatenate, reshape
from .core import as_tensor, require_float
from .reduction import max as reduce_max
from .reduction import mean

__all__ = ["adaptive_average_pool", "adaptive_max_pool"]


def _windows(length: int, size: int) -> list[tuple[int, int]]:
    return [((i * length) // size, -((-(i + 1) * length) // size)) for i in range(size)]


def _pool_axis(x, axis: int, size: int, reduce):
    length = x.shape[axis]
    if length % size == 0:                         # equal, disjoint windows: one reduction
        window = length // size
        shape = tuple(x.shape)
        grouped = reshape(x, (-1, *shape[1:axis], size, window, *shape[axis + 1:]))
        return reduce(grouped, axis=axis + 1)
    lead = (slice(None),) * axis
    parts = [reduce(x[lead + (slice(start, end),)], axis=axis, keepdims=True)
             for start, end in _windows(length, size)]
    return concatenate(parts, axis=axis)


def _adaptive_pool(op: str, reduce, inputs, output_size, data_format):
    x = as_tensor(op, inputs)
    data_format = image_data_format() if data_format is None else data_format
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{op}: argument 'data_format' must be 'channels_last' or "
                         f"'channels_first'; received {data_format!r}")
    rank = len(x.shape) - 2
    if rank not in (1, 2, 3):
        raise ShapeError(f"{op}: argument 'inputs' must have rank 3, 4 or 5 (batch, spatial "
                         f"axes, channels); received shape {describe_shape(x.shape)}")
    sizes = (output_size,) * rank if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) != rank or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0
                                     for s in sizes):
        raise ValueError(f"{op}: argument 'output_size' must be a positive int or a tuple of "
                         f"{rank} positive ints for an input of rank {rank + 2}; received "
                         f"{output_size!r}")
    first = 2 if data_format == "channels_first" else 1
    spatial = tuple(x.shape[first:first + rank])
    if any(d is None for d in spatial):
        raise ShapeError(f"{op}: the input's spatial size must be known; received shape "
                         f"{describe_shape(x.shape)}")
    for axis, size in enumerate(sizes):
        x = _pool_axis(x, first + axis, size, reduce)
    return x


def adaptive_average_pool(inputs, output_size, data_format=None):
    """The mean over each adaptive window (see the module docstring); ``output_size`` an
    int or one int per spatial axis; ``data_format`` defaults to the image data format.

    Args:
        inputs: A 3-D, 4-D or 5-D tensor (batch, *spatial, channels), or channels first.
        output_size: The size of each spatial axis of the result: an int (the same for every
            axis) or one int per spatial axis.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        A tensor with the spatial axes of size ``output_size``; batch and channels
        unchanged.

    Example:

    >>> x = np.arange(8.0).reshape(1, 8, 1)
    >>> lamina.ops.adaptive_average_pool(x, 2).numpy().ravel()
    array([1.5, 5.5])
    """
    op = "adaptive_average_pool"
    require_float(op, "inputs", as_tensor(op, inputs))
    return _adaptive_pool(op, mean, inputs, output_size, data_format)


def adaptive_max_pool(inputs, output_size, data_format=None):
    """The maximum over each adaptive window (see the module docstring).

    Args:
        inputs: A 3-D, 4-D or 5-D tensor (batch, *spatial, channels), or channels first.
        output_size: The size of each spatial axis of the result: an int (the same for every
            axis) or one int per spatial axis.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        A tensor with the spatial axes of size ``output_size``; batch and channels
        unchanged.
    """
    return _adaptive_pool("adaptive_max_pool", reduce_max, inputs, output_size, data_format)
