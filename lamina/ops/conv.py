"""Convolutions: channels-last images (NHWC) and Keras's kernel layouts.

Three primitives carry everything: ``conv2d`` and its two backprops. Each backprop is linear
in both of its inputs and the adjoint of the forward in one of them, so every gradient here
is another of the three and derivatives of any order come free. The 1-D convolutions are
the 2-D ones on images of height 1; the depthwise convolution is a grouped one (one group
per input channel); the transposed convolution is ``conv2d_backprop_input``. Volumes
(NDHWC) have their own three, ``conv3d`` and its backprops: the same classes at rank 3.

Padding follows TensorFlow (and Keras): 'valid' pads nothing; 'same' gives
``ceil(size / stride)`` outputs and splits the padding ``total // 2`` before and the rest
after, with ``total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)``.
"""
from __future__ import annotations

from ..errors import ShapeError, describe_shape
from .reshaping import expand_dims, reshape, squeeze
from .core import as_tensors, require_float
from .data_format import channels_last
from ..core.op import Op, Spec, check_rank, register_op
from .conv_arguments import (IMAGE, MEANINGS, check_conv_operands, check_same_dtype,
                             normalize_padding, normalize_tuple, resolve_pads, spatial_output)

__all__ = ["conv", "conv1d", "conv2d", "conv2d_transpose", "conv3d", "conv3d_transpose",
           "conv_transpose", "depthwise_conv", "depthwise_conv2d"]



# --------------------------------------------------------------------------- primitives
class _ConvOp(Op):
    """Shared attribute handling: strides, padding, dilation, groups. ``rank`` spatial axes
    (2 here; ``conv3d.py`` derives the 3-D ops); ``kernel`` names the backend's kernel;
    the forward op and its two backprops know each other (set below the classes), so each
    gradient is another of the three of its rank."""
    writes_out = True
    onednn_primitives = True
    rank = 2
    kernel = ""
    forward_op = backprop_input_op = backprop_filter_op = None

    @staticmethod
    def conv_attrs(ctx) -> dict:
        return {k: ctx.attrs[k] for k in ("strides", "padding", "dilation", "groups")}

    def pads(self, padding, in_hw, kernel_shape, strides, dilation):
        return resolve_pads(padding, in_hw, kernel_shape[:self.rank], strides, dilation)

    def meanings(self) -> tuple:
        return MEANINGS[self.rank + 2]


@register_op
class Conv2D(_ConvOp):
    """``y[n, p, q, o] = sum x[n, p*s + i*d - top, q*s + j*d - left, c] * w[i, j, c, o]``."""
    name = "conv2d"
    kernel = "conv2d"

    def output_spec(self, x, w, strides, padding, dilation, groups):
        r = self.rank
        check_conv_operands(self.name, x, w, groups, x_rank=r + 2)
        check_same_dtype(self.name, x, w, ("x", "kernel"))
        out_hw = spatial_output(self.name, "dilated kernel", x.shape[1:1 + r], w.shape[:r],
                                strides, dilation, padding)
        return Spec((x.shape[0],) + out_hw + (w.shape[-1],), x.dtype)

    def forward(self, backend, x, w, out=None, strides=None, padding=None, dilation=None,
                groups=1):
        pads = self.pads(padding, x.shape[1:1 + self.rank], w.shape, strides, dilation)
        return getattr(backend, self.kernel)(x, w, strides, pads, dilation, groups, out=out)

    def gradient(self, ctx, g):
        x, w = ctx.inputs
        attrs = self.conv_attrs(ctx)
        dx = self.backprop_input_op(g, w, input_shape=x.shape, **attrs) \
            if ctx.needs_grad[0] else None
        dw = self.backprop_filter_op(x, g, filter_shape=w.shape, **attrs) \
            if ctx.needs_grad[1] else None
        return dx, dw


def _check_backprop_shapes(op, image_shape, dy, kernel_shape, strides, padding, dilation,
                           rank=2):
    """The gradient ``dy`` must have the shape the forward convolution produced."""
    out_hw = spatial_output(op, "dilated kernel", image_shape[1:1 + rank], kernel_shape[:rank],
                            strides, dilation, padding)
    expected = (dy.shape[0],) + out_hw + (kernel_shape[-1],)
    if any(e is not None and d is not None and e != d for e, d in zip(expected, dy.shape)):
        raise ShapeError(f"{op}: argument 'dy' must have shape {describe_shape(expected)} "
                         f"(the convolution's output); received {describe_shape(dy.shape)}")


@register_op
class Conv2DBackpropInput(_ConvOp):
    """The gradient of ``conv2d`` with respect to its input (also: transposed convolution).

    ``input_shape`` gives the output's sizes; on a symbolic input of unknown spatial size a
    transposed convolution leaves those sizes None (its output's too): such a node only
    describes shapes, and a trace at concrete sizes gives the one that runs."""
    name = "conv2d_backprop_input"
    kernel = "conv2d_backprop_input"

    def output_spec(self, dy, w, input_shape, strides, padding, dilation, groups):
        image, kernel = self.meanings()
        check_rank(self.name, "dy", dy, self.rank + 2, image)
        check_rank(self.name, "kernel", w, self.rank + 2, kernel)
        check_same_dtype(self.name, dy, w, ("dy", "kernel"))
        _check_backprop_shapes(self.name, input_shape, dy, w.shape, strides, padding,
                               dilation, self.rank)
        if input_shape[-1] is not None and input_shape[-1] != w.shape[-2] * groups:
            raise ShapeError(f"{self.name}: 'input_shape' {describe_shape(input_shape)} "
                             f"has {input_shape[-1]} channels, the kernel expects "
                             f"{w.shape[-2] * groups}")
        return Spec((dy.shape[0],) + tuple(input_shape[1:]), dy.dtype)

    def forward(self, backend, dy, w, out=None, input_shape=None, strides=None, padding=None,
                dilation=None, groups=1):
        shape = (dy.shape[0],) + tuple(input_shape[1:])
        if None in shape:       # only a symbolic transposed convolution leaves a size unknown
            raise ShapeError(f"{self.name}: attribute 'input_shape' must give every size but "
                             f"the batch to run; received {describe_shape(input_shape)}")
        pads = self.pads(padding, shape[1:1 + self.rank], w.shape, strides, dilation)
        return getattr(backend, self.kernel)(dy, w, shape, strides, pads, dilation, groups,
                                             out=out)

    def gradient(self, ctx, g):
        # <g, bpi(dy, w)> = <conv(g, w), dy>: linear in dy and in w.
        dy, w = ctx.inputs
        attrs = self.conv_attrs(ctx)
        d_dy = self.forward_op(g, w, **attrs) if ctx.needs_grad[0] else None
        d_w = self.backprop_filter_op(g, dy, filter_shape=w.shape, **attrs) \
            if ctx.needs_grad[1] else None
        return d_dy, d_w


@register_op
class Conv2DBackpropFilter(_ConvOp):
    """The gradient of ``conv2d`` with respect to its kernel."""
    name = "conv2d_backprop_filter"
    kernel = "conv2d_backprop_filter"

    def output_spec(self, x, dy, filter_shape, strides, padding, dilation, groups):
        image = self.meanings()[0]
        check_rank(self.name, "x", x, self.rank + 2, image)
        check_rank(self.name, "dy", dy, self.rank + 2, image)
        check_same_dtype(self.name, x, dy, ("x", "dy"))
        _check_backprop_shapes(self.name, x.shape, dy, filter_shape, strides, padding,
                               dilation, self.rank)
        if x.shape[-1] is not None and x.shape[-1] != filter_shape[-2] * groups:
            raise ShapeError(f"{self.name}: 'filter_shape' {describe_shape(filter_shape)} "
                             f"expects {filter_shape[-2] * groups} input channels; received "
                             f"'x' of shape {describe_shape(x.shape)}")
        return Spec(tuple(filter_shape), x.dtype)

    def forward(self, backend, x, dy, out=None, filter_shape=None, strides=None, padding=None,
                dilation=None, groups=1):
        pads = self.pads(padding, x.shape[1:1 + self.rank], filter_shape, strides, dilation)
        return getattr(backend, self.kernel)(x, dy, tuple(filter_shape), strides, pads,
                                             dilation, groups, out=out)

    def gradient(self, ctx, g):
        # <g, bpf(x, dy)> = <conv(x, g), dy>: linear in x and in dy.
        x, dy = ctx.inputs
        attrs = self.conv_attrs(ctx)
        d_x = self.backprop_input_op(dy, g, input_shape=x.shape, **attrs) \
            if ctx.needs_grad[0] else None
        d_dy = self.forward_op(x, g, **attrs) if ctx.needs_grad[1] else None
        return d_x, d_dy


def link_conv_ops(forward, backprop_input, backprop_filter) -> None:
    """Each op of one rank's three finds the other two (its gradients)."""
    for op in (forward, backprop_input, backprop_filter):
        op.forward_op, op.backprop_input_op, op.backprop_filter_op = \
            forward, backprop_input, backprop_filter


link_conv_ops(Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter)


# 3-D: the same three on NDHWC volumes and DHWIO kernels (backend/conv3d.py's kernels).
@register_op
class Conv3D(type(Conv2D)):
    name = kernel = "conv3d"
    rank = 3


@register_op
class Conv3DBackpropInput(type(Conv2DBackpropInput)):
    name = kernel = "conv3d_backprop_input"
    rank = 3


@register_op
class Conv3DBackpropFilter(type(Conv2DBackpropFilter)):
    name = kernel = "conv3d_backprop_filter"
    rank = 3


link_conv_ops(Conv3D, Conv3DBackpropInput, Conv3DBackpropFilter)


# --------------------------------------------------------------------------- public: 2-D
def _float_operands(op: str, x, kernel):
    x, kernel = as_tensors(op, x, kernel)
    require_float(op, "x", x)
    return x, kernel


def _conv2d(op, x, kernel, strides, padding, dilation_rate, groups, primitive=Conv2D):
    """Validated 2-D (or, with ``primitive=Conv3D``, 3-D) convolution; ``padding`` is a
    normalized mode or explicit pads."""
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        raise ValueError(f"{op}: argument 'groups' must be a positive int; received {groups!r}")
    r = primitive.rank
    check_conv_operands(op, x, kernel, groups, x_rank=r + 2)
    spatial_output(op, "dilated kernel", x.shape[1:1 + r], kernel.shape[:r], strides,
                   dilation_rate, padding)
    return primitive(x, kernel, strides=strides, padding=padding, dilation=dilation_rate,
                     groups=groups)


def conv3d(x, kernel, strides=1, padding="valid", dilation_rate=1, groups=1):
    """3-D convolution of NDHWC ``x`` with a DHWIO ``kernel`` (Keras ``Conv3D``'s math):
    ``kernel`` has shape ``(kd, kh, kw, in_channels // groups, out_channels)``."""
    op = "conv3d"
    x, kernel = _float_operands(op, x, kernel)
    return _conv2d(op, x, kernel, normalize_tuple(op, "strides", strides, 3),
                   normalize_padding(op, padding),
                   normalize_tuple(op, "dilation_rate", dilation_rate, 3), groups, Conv3D)


def conv2d(x, kernel, strides=1, padding="valid", dilation_rate=1, groups=1):
    """2-D convolution of NHWC ``x`` with an HWIO ``kernel`` (Keras ``Conv2D``'s math).

    ``kernel`` has shape ``(kh, kw, in_channels // groups, out_channels)``; ``padding`` is
    'valid' or 'same' (TensorFlow's convention: any odd padding goes after).
    """
    op = "conv2d"
    x, kernel = _float_operands(op, x, kernel)
    return _conv2d(op, x, kernel, normalize_tuple(op, "strides", strides, 2),
                   normalize_padding(op, padding),
                   normalize_tuple(op, "dilation_rate", dilation_rate, 2), groups)


def depthwise_conv2d(x, kernel, strides=1, padding="valid", dilation_rate=1):
    """Depthwise 2-D convolution; ``kernel`` is ``(kh, kw, in_channels, multiplier)``.

    Output channel ``c * multiplier + m`` is input channel ``c`` convolved with
    ``kernel[:, :, c, m]`` (Keras ``DepthwiseConv2D``): a convolution with one group per
    input channel.
    """
    op = "depthwise_conv2d"
    x, kernel = _float_operands(op, x, kernel)
    return _depthwise(op, x, kernel, normalize_tuple(op, "strides", strides, 2),
                      normalize_padding(op, padding),
                      normalize_tuple(op, "dilation_rate", dilation_rate, 2))


def _depthwise(op, x, kernel, strides, padding, dilation_rate):
    check_rank(op, "x", x, 4, IMAGE)
    check_rank(op, "kernel", kernel, 4, "(kernel_height, kernel_width, in_channels, "
               "depth_multiplier)")
    kh, kw, channels, multiplier = kernel.shape
    if x.shape[3] is not None and x.shape[3] != channels:
        raise ShapeError(f"{op}: the input has {x.shape[3]} channels but the kernel expects "
                         f"{channels}: input channels must match the kernel's; received 'x' of "
                         f"shape {describe_shape(x.shape)} and "
                         f"'kernel' of shape {describe_shape(kernel.shape)}")
    grouped = reshape(kernel, (kh, kw, 1, channels * multiplier))
    return _conv2d(op, x, grouped, strides, padding, dilation_rate, channels)


def _transpose_pads(k: int, stride: int, dilation: int, padding: str, output_padding):
    """Keras's transposed-convolution geometry along one axis -> (forward pads, length).

    The transposed convolution is the input gradient of a forward convolution whose input
    has the returned length; the pads are that forward convolution's (before, after).
    """
    span = (k - 1) * dilation + 1
    if padding == "valid":
        extra = max(span, stride) - span if output_padding is None else output_padding
        before, after = span - 1, span - 1 + extra
    else:
        if output_padding is None:
            total = stride + span - 2
        else:
            total = span + span % 2 - 2 + output_padding
        before = min(total // 2 + total % 2, span - 1)
        after = total - before
    # A pad of the dilated input by (before, after) is the forward convolution padded by
    # span-1-before / span-1-after; a negative one drops rows that no output reads, which
    # (output_padding < stride) a zero pad does too.
    return (span - 1 - before, max(span - 1 - after, 0)), before + after - span + 1


def _conv_transpose2d(op, x, kernel, strides, padding, output_padding, dilation_rate,
                      primitive=Conv2DBackpropInput):
    """The transposed convolution as ``primitive`` (the input gradient of the 2-D, or with
    ``Conv3DBackpropInput`` the 3-D, forward convolution)."""
    r = primitive.rank
    check_rank(op, "x", x, r + 2, MEANINGS[r + 2][0])
    check_rank(op, "kernel", kernel, r + 2, "(" + ", ".join(
        ("kernel_depth", "kernel_height", "kernel_width")[3 - r:]) +
        ", out_channels, in_channels)")
    if x.shape[-1] is not None and x.shape[-1] != kernel.shape[-1]:
        raise ShapeError(f"{op}: the input has {x.shape[-1]} channels but the kernel expects "
                         f"{kernel.shape[-1]} (its last axis): input channels must match the "
                         f"kernel's; received 'x' of shape "
                         f"{describe_shape(x.shape)} and 'kernel' of shape "
                         f"{describe_shape(kernel.shape)}")
    pads, sizes = [], []
    for axis in range(r):
        extra = None if output_padding is None else output_padding[axis]
        if extra is not None and extra >= strides[axis]:
            raise ValueError(f"{op}: argument 'output_padding' must be smaller than the "
                             f"strides; received output_padding {output_padding} and "
                             f"strides {strides}")
        axis_pads, grown = _transpose_pads(kernel.shape[axis], strides[axis],
                                           dilation_rate[axis], padding, extra)
        pads.append(axis_pads)
        size = x.shape[1 + axis]     # unknown on a symbolic input: an unknown output size
        sizes.append(None if size is None else (size - 1) * strides[axis] + 1 + grown)
    input_shape = (x.shape[0], *sizes, kernel.shape[-2])
    return primitive(x, kernel, input_shape=input_shape, strides=strides,
                     padding=tuple(pads), dilation=dilation_rate, groups=1)


def conv2d_transpose(x, kernel, strides=1, padding="valid", output_padding=None,
                     dilation_rate=1):
    """Transposed 2-D convolution (Keras ``Conv2DTranspose``); the gradient of ``conv2d``.

    ``kernel`` has shape ``(kh, kw, out_channels, in_channels)``. The output size follows
    Keras: with ``output_padding=None`` it is ``in * stride`` for 'same' and
    ``in * stride + max(k_eff - stride, 0)`` for 'valid'; otherwise
    ``(in - 1) * stride + k_eff - 2 * pad + output_padding`` with ``pad = k_eff // 2`` for
    'same' and 0 for 'valid'.
    """
    return _transposed("conv2d_transpose", Conv2DBackpropInput, x, kernel, strides, padding,
                       output_padding, dilation_rate)


def conv3d_transpose(x, kernel, strides=1, padding="valid", output_padding=None,
                     dilation_rate=1):
    """Transposed 3-D convolution (Keras ``Conv3DTranspose``): ``conv2d_transpose``'s
    geometry on NDHWC volumes, ``kernel`` (kd, kh, kw, out_channels, in_channels)."""
    return _transposed("conv3d_transpose", Conv3DBackpropInput, x, kernel, strides, padding,
                       output_padding, dilation_rate)


def _transposed(op, primitive, x, kernel, strides, padding, output_padding, dilation_rate):
    """The public transposed convolutions: arguments normalized for ``primitive``'s rank."""
    rank = primitive.rank
    x, kernel = _float_operands(op, x, kernel)
    if output_padding is not None:
        output_padding = normalize_tuple(op, "output_padding", output_padding, rank,
                                         minimum=0)
    return _conv_transpose2d(op, x, kernel, normalize_tuple(op, "strides", strides, rank),
                             normalize_padding(op, padding), output_padding,
                             normalize_tuple(op, "dilation_rate", dilation_rate, rank),
                             primitive)


# --------------------------------------------------------------------------- public: 1-D
def image_from_sequence(x, kernel=None):
    """(batch, steps, channels) -> (batch, 1, steps, channels); kernel (k, ...) -> (1, k, ...)."""
    if list(x.shape).count(None) > 1:            # more unknown sizes than one -1 can stand for
        image = expand_dims(x, 1)
    else:
        image = reshape(x, (x.shape[0] if x.shape[0] is not None else -1, 1) +
                        tuple(x.shape[1:]))
    if kernel is None:
        return image
    return image, reshape(kernel, (1,) + tuple(kernel.shape))


def sequence_from_image(y):
    if list(y.shape).count(None) > 1:
        return squeeze(y, 1)
    return reshape(y, (y.shape[0] if y.shape[0] is not None else -1,) + tuple(y.shape[2:]))


def conv1d(x, kernel, strides=1, padding="valid", dilation_rate=1, groups=1):
    """1-D convolution of ``x`` (batch, steps, channels) with ``kernel`` (k, in/groups, out).

    ``padding`` may also be 'causal' (Keras ``Conv1D``): ``(k - 1) * dilation_rate`` zeros
    before the sequence, none after, so output ``t`` sees inputs up to ``t`` only.
    """
    op = "conv1d"
    x, kernel = _float_operands(op, x, kernel)
    return _conv1d(op, x, kernel, strides, padding, dilation_rate, groups)


def _conv1d(op, x, kernel, strides, padding, dilation_rate, groups):
    (stride,) = normalize_tuple(op, "strides", strides, 1)
    (dilation,) = normalize_tuple(op, "dilation_rate", dilation_rate, 1)
    mode = normalize_padding(op, padding, ("valid", "same", "causal"))
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        raise ValueError(f"{op}: argument 'groups' must be a positive int; received {groups!r}")
    check_conv_operands(op, x, kernel, groups, x_rank=3)
    if mode == "causal":
        mode = ((0, 0), ((kernel.shape[0] - 1) * dilation, 0))
    spatial_output(op, "dilated kernel", x.shape[1:2], kernel.shape[:1], (stride,),
                   (dilation,), mode if isinstance(mode, str) else mode[1:])
    image, kernel2d = image_from_sequence(x, kernel)
    y = Conv2D(image, kernel2d, strides=(1, stride), padding=mode, dilation=(1, dilation),
               groups=groups)
    return sequence_from_image(y)


# --------------------------------------------------------------------------- Keras 3 names
def spatial_rank(op: str, inputs, volumes: bool = False) -> int:
    rank = len(inputs.shape)
    if rank == 5 and volumes:
        return 3
    if rank == 5:
        raise ValueError(f"{op}: 3-D operations (rank-5 inputs) are not supported; Lamina "
                         f"supports 1-D (rank 3) and 2-D (rank 4) inputs; received shape "
                         f"{describe_shape(inputs.shape)}")
    if rank not in (3, 4):
        raise ShapeError(f"{op}: argument 'inputs' must have rank 3 (batch, steps, channels) "
                         f"or 4 {IMAGE}; received shape {describe_shape(inputs.shape)}")
    return rank - 2


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """Keras 3 ``keras.ops.conv`` for 1-D, 2-D and 3-D inputs (channels-last, or
    ``data_format="channels_first"``).

    ``groups`` is inferred as ``inputs.shape[-1] // kernel.shape[-2]``, as Keras does.

    Args:
        inputs: A 3-D, 4-D or 5-D tensor (batch, *spatial, channels), or channels first.
        kernel: The filters, of shape ``(*kernel_size, in_channels / groups,
            out_channels)``.
        strides: The step of the window: an int or one int per spatial axis. Defaults to 1.
        padding: "valid" (no padding) or "same" (pad so the output has ``ceil(size /
            stride)`` positions).
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.
        dilation_rate: The spacing of the kernel taps: an int or one per spatial axis.
            Defaults to 1.

    Returns:
        The convolution, with ``out_channels`` channels, laid out as ``inputs``.

    Raises:
        ShapeError: If the kernel's rank or in_channels does not fit ``inputs``.
    """
    return channels_last("conv", data_format, inputs,
                         lambda x: _conv(x, kernel, strides, padding, dilation_rate))


def _conv(inputs, kernel, strides, padding, dilation_rate):
    op = "conv"
    inputs, kernel = _float_operands(op, inputs, kernel)
    spatial = spatial_rank(op, inputs, volumes=True)
    check_rank(op, "kernel", kernel, spatial + 2,
               "(*kernel_size, in_channels / groups, out_channels)")
    channels, group_in = inputs.shape[-1], kernel.shape[-2]
    if channels is not None and channels % group_in:
        raise ShapeError(f"{op}: the input's channels must be a multiple of the kernel's "
                         f"in_channels {group_in} (input channels must match the kernel's, or "
                         f"be a multiple of them for a grouped convolution); received 'inputs' "
                         f"of shape "
                         f"{describe_shape(inputs.shape)} and 'kernel' of shape "
                         f"{describe_shape(kernel.shape)}")
    # an unknown channel count is taken to be the kernel's (Keras checks only known sizes);
    # a graph run with other channels is traced again at its concrete shapes
    groups = channels // group_in if channels is not None else 1
    if spatial == 1:
        return _conv1d(op, inputs, kernel, strides, padding, dilation_rate, groups)
    return _conv2d(op, inputs, kernel, normalize_tuple(op, "strides", strides, spatial),
                   normalize_padding(op, padding),
                   normalize_tuple(op, "dilation_rate", dilation_rate, spatial), groups,
                   Conv2D if spatial == 2 else Conv3D)


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    """Keras 3 ``keras.ops.depthwise_conv``; ``kernel`` is ``(*kernel_size, in, multiplier)``.

    Args:
        inputs: A 3-D (batch, steps, channels) or 4-D (batch, height, width, channels)
            tensor, or channels first.
        kernel: The filters, of shape ``(*kernel_size, in_channels, depth_multiplier)``.
        strides: The step of the window: an int or one int per spatial axis. Defaults to 1.
        padding: "valid" (no padding) or "same" (pad so the output has ``ceil(size /
            stride)`` positions).
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.
        dilation_rate: The spacing of the kernel taps: an int or one per spatial axis.
            Defaults to 1.

    Returns:
        The convolution, with ``in_channels * depth_multiplier`` channels.
    """
    return channels_last("depthwise_conv", data_format, inputs,
                         lambda x: _depthwise_conv(x, kernel, strides, padding, dilation_rate))


def _depthwise_conv(inputs, kernel, strides, padding, dilation_rate):
    op = "depthwise_conv"
    inputs, kernel = _float_operands(op, inputs, kernel)
    spatial = spatial_rank(op, inputs)
    if spatial == 2:
        return _depthwise(op, inputs, kernel, normalize_tuple(op, "strides", strides, 2),
                          normalize_padding(op, padding),
                          normalize_tuple(op, "dilation_rate", dilation_rate, 2))
    check_rank(op, "kernel", kernel, 3, "(kernel_size, in_channels, depth_multiplier)")
    stride = normalize_tuple(op, "strides", strides, 1)
    dilation = normalize_tuple(op, "dilation_rate", dilation_rate, 1)
    image, kernel2d = image_from_sequence(inputs, kernel)
    y = _depthwise(op, image, kernel2d, (1,) + stride, normalize_padding(op, padding),
                   (1,) + dilation)
    return sequence_from_image(y)


def conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None,
                   data_format=None, dilation_rate=1):
    """Keras 3 ``keras.ops.conv_transpose``; ``kernel`` is ``(*kernel_size, out, in)``.

    Args:
        inputs: A 3-D, 4-D or 5-D tensor (batch, *spatial, channels), or channels first.
        kernel: The filters, of shape ``(*kernel_size, out_channels, in_channels)``.
        strides: The upsampling step: an int or one int per spatial axis. Defaults to 1.
        padding: "valid" (no padding) or "same" (pad so the output has ``ceil(size /
            stride)`` positions).
        output_padding: Extra size added on one side of each spatial axis of the output (an
            int or one per axis, smaller than the stride); None infers it.
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.
        dilation_rate: The spacing of the kernel taps: an int or one per spatial axis.
            Defaults to 1.

    Returns:
        The transposed convolution, with ``out_channels`` channels.
    """
    return channels_last("conv_transpose", data_format, inputs, lambda x: _conv_transpose(
        x, kernel, strides, padding, output_padding, dilation_rate))


def _conv_transpose(inputs, kernel, strides, padding, output_padding, dilation_rate):
    op = "conv_transpose"
    inputs, kernel = _float_operands(op, inputs, kernel)
    spatial = spatial_rank(op, inputs, volumes=True)
    if output_padding is not None:
        output_padding = normalize_tuple(op, "output_padding", output_padding, spatial,
                                         minimum=0)
    stride = normalize_tuple(op, "strides", strides, spatial)
    dilation = normalize_tuple(op, "dilation_rate", dilation_rate, spatial)
    mode = normalize_padding(op, padding)
    if spatial > 1:
        return _conv_transpose2d(op, inputs, kernel, stride, mode, output_padding, dilation,
                                 Conv2DBackpropInput if spatial == 2 else Conv3DBackpropInput)
    check_rank(op, "kernel", kernel, 3, "(kernel_size, out_channels, in_channels)")
    image, kernel2d = image_from_sequence(inputs, kernel)
    extra = None if output_padding is None else (0,) + output_padding
    y = _conv_transpose2d(op, image, kernel2d, (1,) + stride, mode, extra, (1,) + dilation)
    return sequence_from_image(y)

