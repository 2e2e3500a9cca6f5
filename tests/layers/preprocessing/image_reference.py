"""Plain-numpy references for the image layers' sampling (half-pixel resizing and
Keras's ``map_coordinates`` fill modes), written loop by loop for clarity."""
import math

import numpy as np


def resize_matrix(size, out, interpolation):
    """(out, size) matrix M with resized = M @ signal along one axis."""
    m = np.zeros((out, size))
    scale = size / out
    for i in range(out):
        if interpolation == "nearest":
            m[i, min(math.floor((i + 0.5) * scale), size - 1)] = 1
            continue
        c = min(max((i + 0.5) * scale - 0.5, 0), size - 1)
        lo = math.floor(c)
        hi = min(lo + 1, size - 1)
        m[i, lo] += 1 - (c - lo)
        m[i, hi] += c - lo
    return m


def resize(images, height, width, interpolation="bilinear"):
    """NHWC images resized with half-pixel centers."""
    mh = resize_matrix(images.shape[1], height, interpolation)
    mw = resize_matrix(images.shape[2], width, interpolation)
    return np.einsum("hi,wj,bijc->bhwc", mh, mw, images.astype("float64"))


def _fix(i, size, mode):
    if mode == "constant":
        return i, 0 <= i < size
    if mode == "nearest":
        return min(max(i, 0), size - 1), True
    if mode == "wrap":
        return i % size, True
    period = 2 * size                                  # reflect: dcba|abcd|dcba
    i %= period
    return (i if i < size else period - 1 - i), True


def affine(images, coeffs, interpolation="bilinear", fill_mode="reflect", fill_value=0.0):
    """Sample NHWC images at x' = a0 x + a1 y + a2, y' = b0 x + b1 y + b2 (per image)."""
    b, h, w, c = images.shape
    out = np.zeros((b, h, w, c))
    for n in range(b):
        a0, a1, a2, b0, b1, b2 = coeffs[n]
        for y in range(h):
            for x in range(w):
                xi, yi = a0 * x + a1 * y + a2, b0 * x + b1 * y + b2
                if interpolation == "nearest":
                    taps = [(int(np.round(yi)), int(np.round(xi)), 1.0)]
                else:
                    y0, x0 = math.floor(yi), math.floor(xi)
                    fy, fx = yi - y0, xi - x0
                    taps = [(y0, x0, (1 - fy) * (1 - fx)), (y0, x0 + 1, (1 - fy) * fx),
                            (y0 + 1, x0, fy * (1 - fx)), (y0 + 1, x0 + 1, fy * fx)]
                for ty, tx, weight in taps:
                    ty, ok_y = _fix(ty, h, fill_mode)
                    tx, ok_x = _fix(tx, w, fill_mode)
                    value = images[n, ty, tx] if ok_y and ok_x else fill_value
                    out[n, y, x] += weight * value
    return out
