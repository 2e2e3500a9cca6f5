"""Resampling weights of Keras 3's ``ops.image.resize`` and ``scale_and_translate``.

Each resized axis is a matrix product with a static ``(in, out)`` weight matrix, built here
in plain Python from the kernel of the method (triangle for "bilinear", Keys cubic for
"bicubic", Lanczos 3/5): output pixel ``o`` samples ``(o + 0.5 - translation) / scale - 0.5``;
with ``antialias`` a downsampling kernel is widened by ``1 / scale``; the weights of each
output are normalised to sum to one (zero when they vanish) and are zero for samples outside
``[-0.5, in - 0.5]``. "nearest" is a gather of ``floor((o + 0.5) * in / out)``.
"""
from __future__ import annotations

import math

from .reshaping import moveaxis
from .core import cast, convert_to_tensor
from .indexing import take
from .linalg import tensordot

_EPS32 = 1.1920928955078125e-07


def _triangle(x):
    return max(0.0, 1.0 - abs(x))


def _keys_cubic(x):
    if x >= 2.0:
        return 0.0
    if x >= 1.0:
        return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return ((1.5 * x - 2.5) * x) * x + 1.0


def _lanczos(radius):
    def kernel(x):
        if x > radius:
            return 0.0
        if x <= 1e-3:
            return 1.0
        return radius * math.sin(math.pi * x) * math.sin(math.pi * x / radius) / (
            math.pi ** 2 * x ** 2)
    return kernel


KERNELS = {"bilinear": _triangle, "bicubic": _keys_cubic, "lanczos3": _lanczos(3),
           "lanczos5": _lanczos(5)}
METHODS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic")


def weight_matrix(size_in: int, size_out: int, scale: float, translation: float,
                  method: str, antialias: bool) -> list:
    """The ``(size_in, size_out)`` weights as nested lists."""
    kernel = KERNELS[method]
    inv_scale = 1.0 / scale
    kernel_scale = max(inv_scale, 1.0) if antialias else 1.0
    columns = []
    for o in range(size_out):
        at = (o + 0.5) * inv_scale - translation * inv_scale - 0.5
        column = [kernel(abs(at - i) / kernel_scale) for i in range(size_in)]
        total = sum(column)
        if abs(total) > 1000.0 * _EPS32:
            column = [w / total for w in column]
        else:
            column = [0.0] * size_in
        if not -0.5 <= at <= size_in - 0.5:
            column = [0.0] * size_in
        columns.append(column)
    return [[columns[o][i] for o in range(size_out)] for i in range(size_in)]


def resample_axis(x, axis: int, size_out: int, scale: float, translation: float,
                  method: str, antialias: bool):
    """``x`` resampled along ``axis`` to ``size_out`` samples."""
    if method == "nearest":
        size_in = x.shape[axis]
        index = [int(math.floor((o + 0.5) * size_in / size_out)) for o in range(size_out)]
        return take(x, convert_to_tensor(index, dtype="int32"), axis=axis)
    w = weight_matrix(x.shape[axis], size_out, scale, translation, method, antialias)
    y = tensordot(x, convert_to_tensor(w, dtype=x.dtype), axes=([axis], [0]))
    return moveaxis(y, -1, axis)


def resize_axes(x, axes, sizes, method: str, antialias: bool):
    """``x`` resized on each of ``axes`` (a changed size only) to ``sizes``."""
    for axis, size in zip(axes, sizes):
        if x.shape[axis] != size:
            x = resample_axis(x, axis, size, size / x.shape[axis] if x.shape[axis] else 1.0,
                              0.0, method, antialias)
    return x
