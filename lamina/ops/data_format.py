"""``data_format`` of Keras's convolution and pooling ops: the kernels run channels-last;
a ``"channels_first"`` call moves the channel axis in and out around them."""
from __future__ import annotations

from .core import as_tensor
from .reshaping import moveaxis

FORMATS = (None, "channels_last", "channels_first")


def check_data_format(op: str, data_format, allowed=FORMATS) -> None:
    if data_format not in allowed:
        names = " or ".join(repr(f) for f in allowed)
        raise ValueError(f"{op}: argument 'data_format' must be {names}; received "
                         f"{data_format!r}")


def channels_last(op: str, data_format, inputs, compute):
    """``compute`` (a function of channels-last inputs) applied to ``inputs`` given in
    ``data_format``; the result comes back in that format."""
    check_data_format(op, data_format)
    if data_format != "channels_first":
        return compute(inputs)
    x = as_tensor(op, inputs)
    return moveaxis(compute(moveaxis(x, 1, -1)), -1, 1)
