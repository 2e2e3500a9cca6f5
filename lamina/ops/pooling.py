"""Max and average pooling over channels-last images (and sequences, as images of height 1).

'same' padding follows TensorFlow: ``ceil(size / stride)`` outputs, the odd padding element
after. Max pooling never picks a padded element; average pooling divides by the number of
real elements in each window (padding is not counted), as TensorFlow and Keras do.

The max-pool gradient goes to the *first* maximum of each window only, so tied inputs
(common after a ReLU) do not multiply the gradient. Its own gradient in ``dy`` reads ``g``
back at those same positions (``max_pool2d_select``), and the two are each other's
gradient, so the pair can be differentiated to any order.
"""
from __future__ import annotations

from ..errors import ShapeError, describe_shape
from .conv import image_from_sequence, sequence_from_image, spatial_rank
from .conv_arguments import normalize_padding, normalize_tuple, resolve_pads, spatial_output
from .core import as_tensor, require_float
from .data_format import channels_last
from ..core.op import Op, Spec, check_rank, register_op

__all__ = ["average_pool", "avg_pool1d", "avg_pool2d", "max_pool", "max_pool1d",
           "max_pool2d"]

_IMAGE = "(batch, height, width, channels)"
_ONES = (1, 1)


class _PoolOp(Op):
    """Attributes: pool_size, strides (2-tuples) and padding ('valid' or 'same')."""

    @staticmethod
    def pool_attrs(ctx) -> dict:
        return {k: ctx.attrs[k] for k in ("pool_size", "strides", "padding")}

    @staticmethod
    def out_shape(op, x_shape, pool_size, strides, padding) -> tuple:
        out_hw = spatial_output(op, "pool_size", x_shape[1:3], pool_size, strides, _ONES,
                                padding)
        return (x_shape[0],) + out_hw + (x_shape[3],)

    @staticmethod
    def pads(in_hw, pool_size, strides, padding):
        return resolve_pads(padding, in_hw, pool_size, strides, _ONES)


@register_op
class MaxPool2D(_PoolOp):
    onednn_primitives = True
    name = "max_pool2d"
    writes_out = True

    def output_spec(self, x, pool_size, strides, padding):
        check_rank(self.name, "x", x, 4, _IMAGE)
        return Spec(self.out_shape(self.name, x.shape, pool_size, strides, padding), x.dtype)

    def forward(self, backend, x, out=None, pool_size=None, strides=None, padding=None):
        pads = self.pads(x.shape[1:3], pool_size, strides, padding)
        return backend.pool2d(x, "max", pool_size, strides, pads, out=out)

    def gradient(self, ctx, g):
        return (MaxPool2DBackprop(ctx.inputs[0], ctx.outputs[0], g, **self.pool_attrs(ctx)),)


@register_op
class AvgPool2D(_PoolOp):
    onednn_primitives = True
    name = "avg_pool2d"
    writes_out = True

    def output_spec(self, x, pool_size, strides, padding):
        check_rank(self.name, "x", x, 4, _IMAGE)
        return Spec(self.out_shape(self.name, x.shape, pool_size, strides, padding), x.dtype)

    def forward(self, backend, x, out=None, pool_size=None, strides=None, padding=None):
        pads = self.pads(x.shape[1:3], pool_size, strides, padding)
        return backend.pool2d(x, "avg", pool_size, strides, pads, out=out)

    def gradient(self, ctx, g):
        return (AvgPool2DBackprop(g, input_shape=ctx.inputs[0].shape,
                                  **self.pool_attrs(ctx)),)


def _check_pooled(op, name, t, x_shape, pool_size, strides, padding):
    expected = _PoolOp.out_shape(op, x_shape, pool_size, strides, padding)
    if any(e is not None and d is not None and e != d for e, d in zip(expected, t.shape)):
        raise ShapeError(f"{op}: argument '{name}' must have shape "
                         f"{describe_shape(expected)} (the pooled shape); received "
                         f"{describe_shape(t.shape)}")


@register_op
class MaxPool2DBackprop(_PoolOp):
    """``dx``: each ``dy`` routed to the first maximum of its window (``y`` = the pooled x)."""
    onednn_primitives = True
    name = "max_pool2d_backprop"
    writes_out = True

    def output_spec(self, x, y, dy, pool_size, strides, padding):
        check_rank(self.name, "x", x, 4, _IMAGE)
        for name, t in (("y", y), ("dy", dy)):
            check_rank(self.name, name, t, 4, _IMAGE)
            _check_pooled(self.name, name, t, x.shape, pool_size, strides, padding)
        return Spec(tuple(x.shape), dy.dtype)

    def forward(self, backend, x, y, dy, out=None, pool_size=None, strides=None,
                padding=None):
        pads = self.pads(x.shape[1:3], pool_size, strides, padding)
        return backend.max_pool2d_backprop(x, y, dy, pool_size, strides, pads, out=out)

    def gradient(self, ctx, g):
        # Linear in dy; moving x (or y) moves no maximum except at ties: zero a.e.
        x, y, _ = ctx.inputs
        return None, None, MaxPool2DSelect(x, y, g, **self.pool_attrs(ctx))


@register_op
class MaxPool2DSelect(_PoolOp):
    """``g`` (shaped like x) read at each window's first maximum: the adjoint of the above."""
    name = "max_pool2d_select"

    def output_spec(self, x, y, g, pool_size, strides, padding):
        check_rank(self.name, "x", x, 4, _IMAGE)
        check_rank(self.name, "y", y, 4, _IMAGE)
        _check_pooled(self.name, "y", y, x.shape, pool_size, strides, padding)
        if len(g.shape) != len(x.shape) or any(
                a is not None and b is not None and a != b for a, b in zip(g.shape, x.shape)):
            raise ShapeError(f"{self.name}: argument 'g' must have the shape of 'x' "
                             f"{describe_shape(x.shape)}; received {describe_shape(g.shape)}")
        return Spec(tuple(y.shape), g.dtype)

    def forward(self, backend, x, y, g, out=None, pool_size=None, strides=None, padding=None):
        pads = self.pads(x.shape[1:3], pool_size, strides, padding)
        return backend.max_pool2d_select(x, y, g, pool_size, strides, pads)

    def gradient(self, ctx, h):
        x, y, _ = ctx.inputs
        return None, None, MaxPool2DBackprop(x, y, h, **self.pool_attrs(ctx))


@register_op
class AvgPool2DBackprop(_PoolOp):
    """``dx``: each ``dy`` spread evenly over the real elements of its window."""
    onednn_primitives = True
    name = "avg_pool2d_backprop"

    def output_spec(self, dy, input_shape, pool_size, strides, padding):
        check_rank(self.name, "dy", dy, 4, _IMAGE)
        _check_pooled(self.name, "dy", dy, input_shape, pool_size, strides, padding)
        return Spec((dy.shape[0],) + tuple(input_shape[1:]), dy.dtype)

    def forward(self, backend, dy, out=None, input_shape=None, pool_size=None, strides=None,
                padding=None):
        shape = (dy.shape[0],) + tuple(input_shape[1:])
        pads = self.pads(shape[1:3], pool_size, strides, padding)
        return backend.avg_pool2d_backprop(dy, shape, pool_size, strides, pads)

    def gradient(self, ctx, g):
        # Linear: the adjoint of the adjoint is the average pool itself.
        return (AvgPool2D(g, **self.pool_attrs(ctx)),)


# --------------------------------------------------------------------------- public
def _pool_args(op, pool_size, strides, padding, rank):
    pool = normalize_tuple(op, "pool_size", pool_size, rank)
    stride = pool if strides is None else normalize_tuple(op, "strides", strides, rank)
    return pool, stride, normalize_padding(op, padding)


def _pool2d(primitive, op, x, pool_size, strides, padding):
    x = as_tensor(op, x)
    require_float(op, "x", x)
    check_rank(op, "x", x, 4, _IMAGE)
    pool, stride, mode = _pool_args(op, pool_size, strides, padding, 2)
    spatial_output(op, "pool_size", x.shape[1:3], pool, stride, _ONES, mode)
    return primitive(x, pool_size=pool, strides=stride, padding=mode)


def _pool1d(primitive, op, x, pool_size, strides, padding):
    x = as_tensor(op, x)
    require_float(op, "x", x)
    check_rank(op, "x", x, 3, "(batch, steps, channels)")
    pool, stride, mode = _pool_args(op, pool_size, strides, padding, 1)
    spatial_output(op, "pool_size", x.shape[1:2], pool, stride, (1,), mode)
    y = primitive(image_from_sequence(x), pool_size=(1,) + pool, strides=(1,) + stride,
                  padding=mode)
    return sequence_from_image(y)


def max_pool2d(x, pool_size, strides=None, padding="valid"):
    """Max over ``pool_size`` windows of NHWC ``x``; ``strides`` default to ``pool_size``."""
    return _pool2d(MaxPool2D, "max_pool2d", x, pool_size, strides, padding)


def avg_pool2d(x, pool_size, strides=None, padding="valid"):
    """Mean over ``pool_size`` windows of NHWC ``x`` (padding excluded from the mean)."""
    return _pool2d(AvgPool2D, "avg_pool2d", x, pool_size, strides, padding)


def max_pool1d(x, pool_size, strides=None, padding="valid"):
    """Max over windows of ``x`` (batch, steps, channels)."""
    return _pool1d(MaxPool2D, "max_pool1d", x, pool_size, strides, padding)


def avg_pool1d(x, pool_size, strides=None, padding="valid"):
    """Mean over windows of ``x`` (batch, steps, channels), padding excluded."""
    return _pool1d(AvgPool2D, "avg_pool1d", x, pool_size, strides, padding)


def _keras_pool(primitive, op, inputs, pool_size, strides, padding, data_format):
    return channels_last(op, data_format, inputs, lambda x: _pool_channels_last(
        primitive, op, x, pool_size, strides, padding))


def _pool_channels_last(primitive, op, inputs, pool_size, strides, padding):
    inputs = as_tensor(op, inputs)
    if spatial_rank(op, inputs) == 1:
        return _pool1d(primitive, op, inputs, pool_size, strides, padding)
    return _pool2d(primitive, op, inputs, pool_size, strides, padding)


def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Keras 3 ``keras.ops.max_pool`` for 1-D and 2-D channels-last inputs.

    Args:
        inputs: A 3-D (batch, steps, channels) or 4-D (batch, height, width, channels)
            tensor; channels first when ``data_format`` says so.
        pool_size: The window size: an int or one int per spatial axis.
        strides: The step between windows: an int or one per spatial axis; None means
            ``pool_size``.
        padding: "valid" (no padding) or "same" (pad so the output has ``ceil(size /
            stride)`` positions).
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        The pooled tensor, of ``inputs``' rank and dtype.

    Example:

    >>> x = np.array([[[1.0], [3.0], [2.0], [0.0]]])
    >>> lamina.ops.max_pool(x, 2).numpy().ravel()
    array([3., 2.])
    """
    return _keras_pool(MaxPool2D, "max_pool", inputs, pool_size, strides, padding,
                       data_format)


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Keras 3 ``keras.ops.average_pool`` for 1-D and 2-D channels-last inputs.

    Args:
        inputs: A 3-D (batch, steps, channels) or 4-D (batch, height, width, channels)
            tensor; channels first when ``data_format`` says so.
        pool_size: The window size: an int or one int per spatial axis.
        strides: The step between windows: an int or one per spatial axis; None means
            ``pool_size``.
        padding: "valid" (no padding) or "same" (pad so the output has ``ceil(size /
            stride)`` positions). Padded positions are not counted in the mean.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.

    Returns:
        The pooled tensor, of ``inputs``' rank and dtype.
    """
    return _keras_pool(AvgPool2D, "average_pool", inputs, pool_size, strides, padding,
                       data_format)
