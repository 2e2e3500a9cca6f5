"""Moving pixels between space, depth and patch columns, as Keras 3 does:
``depth_to_space`` / ``space_to_depth`` (pixel shuffle, reshapes and a transpose),
``unfold`` (im2col of an NCHW batch, a gather) and ``fold`` (col2im, its adjoint: a
scatter-add), and ``separable_conv`` (a depthwise then a 1x1 convolution)."""
from __future__ import annotations

from ..errors import ShapeError, describe_shape
from .reshaping import reshape, transpose
from .conv import conv, depthwise_conv
from .core import as_tensor, convert_to_tensor
from .indexing import ScatterAdd, take
from .replicate import pad

__all__ = ["depth_to_space", "space_to_depth", "unfold", "fold", "separable_conv"]


def _block(op: str, block_size) -> int:
    if not isinstance(block_size, int) or isinstance(block_size, bool) or block_size < 2:
        raise ValueError(f"{op}: argument `block_size` must be at least 2 (an int); "
                         f"received {block_size!r}")
    return block_size


def _image(op: str, x, data_format):
    x = as_tensor(op, x)
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{op}: argument 'data_format' must be 'channels_last' or "
                         f"'channels_first'; received {data_format!r}")
    if x.ndim != 4:
        raise ShapeError(f"{op}: argument 'x' must have rank 4 (a batch of images); received "
                         f"shape {describe_shape(x.shape)}")
    return x


def depth_to_space(x, block_size, data_format="channels_last"):
    """(N, H, W, C) -> (N, H*b, W*b, C/b^2): channels become b x b pixel blocks.

    Args:
        x: A 4-D image batch, laid out as ``data_format`` says.
        block_size: The side ``b`` of the pixel blocks; the channels must divide by
            ``b**2``.
        data_format: "channels_last" (the default) or "channels_first".

    Returns:
        A tensor with height and width times ``b`` and channels divided by ``b**2``.

    Raises:
        ShapeError: If the channels do not divide by ``block_size**2``.
    """
    op = "depth_to_space"
    b, x = _block(op, block_size), _image(op, x, data_format)
    if data_format == "channels_first":
        _, c, h, w = x.shape
    else:
        _, h, w, c = x.shape
    if c is not None and c % (b * b):
        raise ShapeError(f"{op}: the channels ({c}) must be divisible by block_size**2 "
                         f"({b * b}); received shape {describe_shape(x.shape)}")
    new_c = c // (b * b)
    if data_format == "channels_first":
        y = transpose(reshape(x, (-1, new_c, b, b, h, w)), (0, 1, 4, 2, 5, 3))
        return reshape(y, (-1, new_c, h * b, w * b))
    y = transpose(reshape(x, (-1, h, w, b, b, new_c)), (0, 1, 3, 2, 4, 5))
    return reshape(y, (-1, h * b, w * b, new_c))


def space_to_depth(x, block_size, data_format="channels_last"):
    """(N, H, W, C) -> (N, H/b, W/b, C*b^2): each b x b block of pixels becomes channels.

    Args:
        x: A 4-D image batch, laid out as ``data_format`` says.
        block_size: The side ``b`` of the pixel blocks; height and width must divide by it.
        data_format: "channels_last" (the default) or "channels_first".

    Returns:
        A tensor with height and width divided by ``b`` and channels times ``b**2``.

    Raises:
        ShapeError: If the height or width does not divide by ``block_size``.
    """
    op = "space_to_depth"
    b, x = _block(op, block_size), _image(op, x, data_format)
    if data_format == "channels_first":
        _, c, h, w = x.shape
    else:
        _, h, w, c = x.shape
    if (h is not None and h % b) or (w is not None and w % b):
        raise ShapeError(f"{op}: the height and width must be divisible by block_size ({b}); "
                         f"received shape {describe_shape(x.shape)}")
    if data_format == "channels_first":
        y = transpose(reshape(x, (-1, c, h // b, b, w // b, b)), (0, 1, 3, 5, 2, 4))
        return reshape(y, (-1, c * b * b, h // b, w // b))
    y = transpose(reshape(x, (-1, h // b, b, w // b, b, c)), (0, 1, 3, 2, 4, 5))
    return reshape(y, (-1, h // b, w // b, c * b * b))


def _pair(op: str, arg: str, value, minimum: int) -> tuple:
    pair = (value, value) if isinstance(value, int) else tuple(value)
    if len(pair) != 2 or any(not isinstance(v, int) or v < minimum for v in pair):
        raise ValueError(f"{op}: argument '{arg}' must be an int or a pair of ints >= "
                         f"{minimum}; received {value!r}")
    return pair


def _patch_index(op, height, width, kernel_size, dilation, padding, stride):
    """Flat positions in the padded (H+2p, W+2p) image: (kh*kw, L) ints, and (nH, nW)."""
    k, d = _pair(op, "kernel_size", kernel_size, 1), _pair(op, "dilation", dilation, 1)
    p, s = _pair(op, "padding", padding, 0), _pair(op, "stride", stride, 1)
    hp, wp = height + 2 * p[0], width + 2 * p[1]
    nh = (hp - d[0] * (k[0] - 1) - 1) // s[0] + 1
    nw = (wp - d[1] * (k[1] - 1) - 1) // s[1] + 1
    if nh < 1 or nw < 1:
        raise ShapeError(f"{op}: the kernel {k} (dilation {d}) does not fit the padded image "
                         f"({hp}, {wp})")
    index = [[(i * s[0] + ki * d[0]) * wp + j * s[1] + kj * d[1]
              for i in range(nh) for j in range(nw)]
             for ki in range(k[0]) for kj in range(k[1])]
    return index, p, (hp, wp), k


def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding blocks of an NCHW batch (torch's ``Unfold``): (N, C*kh*kw, L).

    Args:
        x: Images of shape (N, C, H, W).
        kernel_size: The block size: an int or a pair.
        dilation: The spacing of the block elements: an int or a pair. Defaults to 1.
        padding: Zero padding added on each side: an int or a pair. Defaults to 0.
        stride: The step between blocks: an int or a pair. Defaults to 1.

    Returns:
        Blocks of shape (N, C * kh * kw, L), L being the number of block positions.
    """
    op = "unfold"
    x = as_tensor(op, x)
    if x.ndim != 4:
        raise ShapeError(f"{op}: argument 'x' must have rank 4 (N, C, H, W); received shape "
                         f"{describe_shape(x.shape)}")
    _, c, h, w = x.shape
    index, p, (hp, wp), k = _patch_index(op, h, w, kernel_size, dilation, padding, stride)
    if p != (0, 0):
        x = pad(x, [(0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])])
    flat = reshape(x, (-1, c, hp * wp))
    cols = take(flat, convert_to_tensor(index, dtype="int32"), axis=2)   # N C kk L
    return reshape(cols, (-1, c * k[0] * k[1], len(index[0])))


def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of ``unfold`` (torch's ``Fold``): blocks (N, C*kh*kw, L) summed back into
    (N, C, H, W) images, where overlapping blocks add.

    Args:
        x: Blocks of shape (N, C * kh * kw, L).
        output_size: The (height, width) of the images: an int or a pair.
        kernel_size: The block size: an int or a pair.
        dilation: The spacing of the block elements: an int or a pair. Defaults to 1.
        padding: The zero padding that ``unfold`` added on each side: an int or a pair.
            Defaults to 0.
        stride: The step between blocks: an int or a pair. Defaults to 1.

    Returns:
        Images of shape (N, C, height, width).
    """
    op = "fold"
    x = as_tensor(op, x)
    if x.ndim != 3:
        raise ShapeError(f"{op}: argument 'x' must be 3D (N, C*kh*kw, L); received "
                         f"shape {describe_shape(x.shape)}")
    h, w = _pair(op, "output_size", output_size, 1)
    index, p, (hp, wp), k = _patch_index(op, h, w, kernel_size, dilation, padding, stride)
    kk, blocks = k[0] * k[1], len(index[0])
    if x.shape[1] % kk or x.shape[2] != blocks:
        raise ShapeError(f"{op}: argument 'x' must have shape (N, C*{kk}, {blocks}) for "
                         f"kernel_size {k} and output_size {(h, w)}; received "
                         f"{describe_shape(x.shape)}")
    c = x.shape[1] // kk
    cols = reshape(x, (-1, c, kk, blocks))
    image = ScatterAdd(cols, convert_to_tensor(index, dtype="int32"), size=hp * wp, axis=2)
    image = reshape(image, (-1, c, hp, wp))
    return image[:, :, p[0]:hp - p[0], p[1]:wp - p[1]]


def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid",
                   data_format=None, dilation_rate=1):
    """A depthwise convolution followed by a 1x1 (pointwise) convolution (Keras's
    ``SeparableConv``): kernels (*k, in, multiplier) and (*1, in*multiplier, out).

    Args:
        inputs: A 3-D (batch, steps, channels) or 4-D (batch, height, width, channels)
            tensor, or channels first.
        depthwise_kernel: The depthwise filters, ``(*kernel_size, in_channels,
            depth_multiplier)``.
        pointwise_kernel: The 1x1 filters, ``(*ones, in_channels * depth_multiplier,
            out_channels)``.
        strides: The step of the depthwise window: an int or one per spatial axis. Defaults
            to 1.
        padding: "valid" (no padding) or "same" (pad so the output has ``ceil(size /
            stride)`` positions).
        data_format: Either "channels_last" (channels on the last axis) or "channels_first";
            None means ``keras.config.image_data_format()``.
        dilation_rate: The spacing of the depthwise kernel taps. Defaults to 1.

    Returns:
        The convolution, with ``out_channels`` channels.
    """
    x = depthwise_conv(inputs, depthwise_kernel, strides=strides, padding=padding,
                       data_format=data_format, dilation_rate=dilation_rate)
    return conv(x, pointwise_kernel, strides=1, padding="valid", data_format=data_format)
