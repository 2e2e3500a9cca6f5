"""``resize`` of images whose height or width is unknown when traced (``None``): one op.

With known sizes ``ops.image.resize`` is a composition (``image_resize.py``: a crop or pad
to the target's aspect ratio, then a product with a static weight matrix per axis). When a
size is unknown those weights cannot be built while tracing, so :class:`ResizeImages` builds
them in ``forward`` from the sizes of the array it receives, with the same rules and the
same kernels in the same order, so it gives the composition's numbers. Its gradient is
:class:`ResizeImagesGrad`, the adjoint (the transposed weights, a scatter-add for
"nearest", zero padding for a crop and a slice for a pad), whose own gradient is
``ResizeImages`` again: both are linear.
"""
from __future__ import annotations

import math

from ..core.op import Op, Spec, register_op
from ..errors import ShapeError, describe_shape
from .image_resize import weight_matrix

__all__ = ["ResizeImages", "ResizeImagesGrad"]


def window(h: int, w: int, height: int, width: int, crop: bool, pad: bool):
    """The crop ``(top, left, rows, cols)`` or the pad ``(rows, cols)`` on each side that
    ``resize`` applies first (``image.py``'s rules), or None."""
    if crop:
        rows = max(min(h, int(float(w * height) / width)), 1)
        cols = max(min(w, int(float(h * width) / height)), 1)
        return "crop", (int(float(h - rows) / 2), int(float(w - cols) / 2), rows, cols)
    if pad:
        top = int(float(max(h, int(float(w * height) / width)) - h) / 2)
        left = int(float(max(w, int(float(h * width) / height)) - w) / 2)
        if top > 0:
            return "pad", (top, 0)
        if left > 0:
            return "pad", (0, left)
    return None


def _nearest(size_in: int, size_out: int) -> list:
    return [int(math.floor((o + 0.5) * size_in / size_out)) for o in range(size_out)]


def _contract(backend, x, axis: int, w):
    """``x`` times ``w`` along ``axis`` (``tensordot`` then ``moveaxis``, as composed)."""
    free = [a for a in range(x.ndim) if a != axis]
    a2 = backend.reshape(backend.transpose(x, tuple(free + [axis])), (-1, x.shape[axis]))
    y = backend.reshape(backend.matmul(a2, w), tuple(x.shape[a] for a in free) + (w.shape[1],))
    order = list(range(x.ndim - 1))
    order.insert(axis, x.ndim - 1)
    return backend.transpose(y, tuple(order))


def _weights(backend, size_in: int, size_out: int, method: str, antialias: bool, dtype):
    scale = size_out / size_in if size_in else 1.0
    return backend.asarray(weight_matrix(size_in, size_out, scale, 0.0, method, antialias),
                           dtype=dtype)


def _check(op: str, x, height, width):
    if len(x.shape) != 4:
        raise ShapeError(f"{op}: argument 'x' must be a 4-D (batch, height, width, channels) "
                         f"batch; received shape {describe_shape(x.shape)}")
    if not (isinstance(height, int) and isinstance(width, int) and height > 0 and width > 0):
        raise ShapeError(f"{op}: 'height' and 'width' must be positive ints; received "
                         f"{height!r} and {width!r}")


@register_op
class ResizeImages(Op):
    """NHWC ``x`` cropped (``crop``) or padded with ``fill_value`` (``pad``) to the aspect
    ratio of (``height``, ``width``), then resampled to it with ``method``."""
    name = "resize_images"

    def output_spec(self, x, height=1, width=1, method="bilinear", antialias=False,
                    crop=False, pad=False, fill_value=0.0):
        _check(self.name, x, height, width)
        return Spec((x.shape[0], height, width, x.shape[3]), x.dtype)

    def forward(self, backend, x, out=None, height=1, width=1, method="bilinear",
                antialias=False, crop=False, pad=False, fill_value=0.0):
        kind = window(x.shape[1], x.shape[2], height, width, crop, pad)
        if kind is not None and kind[0] == "crop":
            top, left, rows, cols = kind[1]
            x = backend.getitem(x, (slice(None), slice(top, top + rows),
                                    slice(left, left + cols)))
        elif kind is not None:
            rows, cols = kind[1]
            x = backend.pad(x, ((0, 0), (rows, rows), (cols, cols), (0, 0)), fill_value)
        for axis, size in ((1, height), (2, width)):
            size_in = x.shape[axis]
            if size_in == size:
                continue
            if method == "nearest":
                index = backend.asarray(_nearest(size_in, size), dtype="int32")
                x = backend.take(x, index, axis)
            else:
                x = _contract(backend, x, axis,
                              _weights(backend, size_in, size, method, antialias, x.dtype))
        return x

    def gradient(self, ctx, g):
        return (ResizeImagesGrad(g, ctx.inputs[0], **ctx.attrs),)


@register_op
class ResizeImagesGrad(Op):
    """The gradient of :class:`ResizeImages` with respect to its input ``x`` (read for its
    shape only), given the gradient ``g`` of its output."""
    name = "resize_images_grad"

    def output_spec(self, g, x, height=1, width=1, method="bilinear", antialias=False,
                    crop=False, pad=False, fill_value=0.0):
        _check(self.name, x, height, width)
        return Spec(tuple(x.shape), g.dtype)

    def forward(self, backend, g, x, out=None, height=1, width=1, method="bilinear",
                antialias=False, crop=False, pad=False, fill_value=0.0):
        h, w = x.shape[1], x.shape[2]
        kind = window(h, w, height, width, crop, pad)
        if kind is None:
            sizes = (h, w)
        elif kind[0] == "crop":
            sizes = kind[1][2:]
        else:
            sizes = (h + 2 * kind[1][0], w + 2 * kind[1][1])
        for axis, size_in, size in ((2, sizes[1], width), (1, sizes[0], height)):
            if size_in == size:
                continue
            if method == "nearest":
                index = backend.asarray(_nearest(size_in, size), dtype="int32")
                shape = tuple(size_in if a == axis else d for a, d in enumerate(g.shape))
                g = backend.scatter_add(shape, index, g, axis)
            else:
                weights = _weights(backend, size_in, size, method, antialias, g.dtype)
                g = _contract(backend, g, axis, backend.transpose(weights, (1, 0)))
        if kind is not None and kind[0] == "crop":
            top, left, rows, cols = kind[1]
            g = backend.pad(g, ((0, 0), (top, h - top - rows), (left, w - left - cols),
                                (0, 0)), 0)
        elif kind is not None:
            rows, cols = kind[1]
            g = backend.getitem(g, (slice(None), slice(rows, rows + h), slice(cols, cols + w)))
        return g

    def gradient(self, ctx, gg):
        return ResizeImages(gg, **ctx.attrs), None
