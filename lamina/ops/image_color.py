"""Colour-space conversions of Keras 3's ``ops.image`` (dm_pix's formulas), on the
channel axis ``axis`` of a float image tensor."""
from __future__ import annotations

from .reshaping import squeeze, split, stack
from .compare import equal, greater, less
from .core import cast
from .linalg import tensordot
from .math import abs as _abs, add, divide, maximum, minimum, multiply
from .rounding import floor
from .where_clip import clip
from .math import subtract
from .where_clip import where
from .reshaping import expand_dims
from .core import convert_to_tensor

GRAY_WEIGHTS = (0.2989, 0.5870, 0.1140)


def _planes(images, axis):
    return [squeeze(p, axis) for p in split(images, 3, axis=axis)]


def grayscale(images, axis: int):
    weights = convert_to_tensor(list(GRAY_WEIGHTS), dtype=images.dtype)
    return expand_dims(tensordot(images, weights, axes=([axis % images.ndim], [0])), axis)


def rgb_to_hsv(images, axis: int, eps: float):
    images = where(less(_abs(images), eps), 0.0, images)
    r, g, b = _planes(images, axis)
    value = maximum(maximum(r, g), b)
    spread = subtract(value, minimum(minimum(r, g), b))
    positive_value, positive_spread = greater(value, 0.0), greater(spread, 0.0)
    safe_value = where(positive_value, value, 1.0)
    safe_spread = where(positive_spread, spread, 1.0)
    saturation = where(positive_value, divide(spread, safe_value), 0.0)
    norm = divide(1.0, multiply(6.0, safe_spread))
    hue = where(equal(value, g), add(multiply(norm, subtract(b, r)), 2.0 / 6.0),
                add(multiply(norm, subtract(r, g)), 4.0 / 6.0))
    hue = where(equal(value, r), multiply(norm, subtract(g, b)), hue)
    hue = add(where(positive_spread, hue, 0.0), cast(less(hue, 0.0), hue.dtype))
    return stack([hue, saturation, value], axis=axis)


def hsv_to_rgb(images, axis: int):
    hue, saturation, value = _planes(images, axis)
    dh = multiply(subtract(hue, floor(hue)), 6.0)   # mod 1, differentiable
    dr = clip(subtract(_abs(subtract(dh, 3.0)), 1.0), 0.0, 1.0)
    dg = clip(subtract(2.0, _abs(subtract(dh, 2.0))), 0.0, 1.0)
    db = clip(subtract(2.0, _abs(subtract(dh, 4.0))), 0.0, 1.0)
    one_minus_s = subtract(1.0, saturation)
    planes = [multiply(value, add(one_minus_s, multiply(saturation, d))) for d in (dr, dg, db)]
    return stack(planes, axis=axis)
