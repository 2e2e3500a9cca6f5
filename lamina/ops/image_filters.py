"""Filters of Keras 3's ``ops.image`` on NHWC batches: Gaussian blur (zero padding, 'same'
size), Sobel edges (scipy's: ``[-1, 0, 1]`` by ``[1, 2, 1]``, symmetric padding), SSIM
(Gaussian window, 'valid' convolutions) and patch extraction (strided slices in Keras's
``(row, column, channel)`` order)."""
from __future__ import annotations

import math

from .reshaping import concatenate, reshape, stack, transpose
from .conv import depthwise_conv
from .core import arange, convert_to_tensor
from .math import add, divide, exp, multiply, subtract
from .reduction import mean
from .reduction import sum as _sum
from .replicate import pad, tile


def gaussian_1d(size: int, sigma: float) -> list:
    values = [math.exp(-0.5 * ((i - (size - 1) / 2) / sigma) ** 2) for i in range(size)]
    total = sum(values)
    return [v / total for v in values]


def _depthwise(images, kernel_2d, padding):
    """Each channel of NHWC ``images`` correlated with the nested-list ``kernel_2d``."""
    channels = images.shape[-1]
    kh, kw = len(kernel_2d), len(kernel_2d[0])
    kernel = [[[[kernel_2d[i][j]] for _ in range(channels)] for j in range(kw)]
              for i in range(kh)]
    return depthwise_conv(images, convert_to_tensor(kernel, dtype=images.dtype),
                          padding=padding)


def gaussian_blur(images, kernel_size, sigma):
    """Keras's kernel: ``outer(k(size[1], sigma[1]), k(size[0], sigma[0]))``."""
    ky = gaussian_1d(kernel_size[1], sigma[1])
    kx = gaussian_1d(kernel_size[0], sigma[0])
    return _depthwise(images, [[a * b for b in kx] for a in ky], "same")


def sobel_edges(images):
    """(batch, height, width, channels, 2): the vertical then the horizontal derivative."""
    padded = pad(images, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="symmetric")
    d, s = (-1.0, 0.0, 1.0), (1.0, 2.0, 1.0)
    dy = _depthwise(padded, [[d[i] * s[j] for j in range(3)] for i in range(3)], "valid")
    dx = _depthwise(padded, [[s[i] * d[j] for j in range(3)] for i in range(3)], "valid")
    return stack([dy, dx], axis=-1)


def ssim(image1, image2, max_val, filter_size, filter_sigma, k1, k2):
    """Mean SSIM per image of two NHWC batches, channels averaged: shape (batch,)."""
    batch, height, width, channels = image1.shape
    g = gaussian_1d(filter_size, filter_sigma)
    window = [[a * b for b in g] for a in g]

    def per_channel(x):
        return reshape(transpose(x, (0, 3, 1, 2)), (-1, height, width, 1))

    x, y = per_channel(image1), per_channel(image2)

    def blur(z):
        return _depthwise(z, window, "valid")

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mu_x, mu_y = blur(x), blur(y)
    mu_xx, mu_yy, mu_xy = multiply(mu_x, mu_x), multiply(mu_y, mu_y), multiply(mu_x, mu_y)
    var_x = subtract(blur(multiply(x, x)), mu_xx)
    var_y = subtract(blur(multiply(y, y)), mu_yy)
    cov = subtract(blur(multiply(x, y)), mu_xy)
    numerator = multiply(add(multiply(2.0, mu_xy), c1), add(multiply(2.0, cov), c2))
    denominator = multiply(add(add(mu_xx, mu_yy), c1), add(add(var_x, var_y), c2))
    per_image = reshape(mean(divide(numerator, denominator), axis=(1, 2, 3)),
                        (batch, channels))
    return mean(per_image, axis=-1)


def _same_padding(size: int, k: int, stride: int, dilation: int) -> tuple:
    out = -(-size // stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def extract_patches(x, size, strides, dilation, padding):
    """Patches of the channels-last batch ``x`` (spatial axes 1..n): each output position
    holds its window flattened in (spatial offsets..., channel) order."""
    spatial = len(size)
    if padding == "same":
        pads = [_same_padding(x.shape[1 + a], size[a], strides[a], dilation[a])
                for a in range(spatial)]
        x = pad(x, [[0, 0]] + [list(p) for p in pads] + [[0, 0]])
    counts = [(x.shape[1 + a] - dilation[a] * (size[a] - 1) - 1) // strides[a] + 1
              for a in range(spatial)]
    pieces = []

    def offsets(prefix):
        if len(prefix) == spatial:
            yield prefix
            return
        for k in range(size[len(prefix)]):
            yield from offsets(prefix + [k])

    for offset in offsets([]):
        index = [slice(None)]
        for a in range(spatial):
            start = offset[a] * dilation[a]
            index.append(slice(start, start + (counts[a] - 1) * strides[a] + 1, strides[a]))
        pieces.append(x[tuple(index)])
    return concatenate(pieces, axis=-1)


def gaussian_blur_traced(images, kernel_size, sigma_y, sigma_x):
    """``gaussian_blur`` with the two sigmas as scalar tensors (random draws): the same
    kernel, built with ops so that it follows the drawn values in graph mode."""

    def kernel_1d(size, sigma):
        x = arange(size, dtype=images.dtype) - (size - 1) / 2
        k = exp(multiply(-0.5, multiply(divide(x, sigma), divide(x, sigma))))
        return divide(k, _sum(k))

    ky = reshape(kernel_1d(kernel_size[1], sigma_y), (-1, 1))
    kx = reshape(kernel_1d(kernel_size[0], sigma_x), (1, -1))
    kernel = reshape(multiply(ky, kx), (kernel_size[1], kernel_size[0], 1, 1))
    kernel = tile(kernel, (1, 1, images.shape[-1], 1))
    return depthwise_conv(images, kernel, padding="same")
