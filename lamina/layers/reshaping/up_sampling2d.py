"""``UpSampling2D``: rows and columns repeated ("nearest") or interpolated ("bilinear",
"bicubic", "lanczos3", "lanczos5")."""
from __future__ import annotations

from ... import ops
from ...dtypes import is_float
from ...errors import ShapeError, describe_shape
from ..input_spec import InputSpec
from ..layer import Layer
from .spatial import int_tuple, layout, spatial_axes, standardize_data_format
from ...ops.core import to_backend_tensor

_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "lanczos3", "lanczos5")


class UpSampling2D(Layer):
    """Scales the height and width of a 4-D input by ``size`` (Keras 3's ``UpSampling2D``).

    ``interpolation="nearest"`` repeats rows and columns. ``"bilinear"`` interpolates with
    half-pixel centres, as Keras's ``ops.image.resize`` does on every backend (TensorFlow's
    ``half_pixel_centers=True``): output pixel ``o`` samples the input at
    ``(o + 0.5) / size - 0.5``, clamped to the edge pixels. "bicubic", "lanczos3" and
    "lanczos5" resize with ``ops.image.resize`` (no antialiasing), as Keras does. An integer
    input is interpolated in the layer's compute dtype.

    Args:
        size: Factors ``(rows, cols)``, or an int for both.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        interpolation: 'nearest', 'bilinear', 'bicubic', 'lanczos3' or 'lanczos5'.
    """

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(self.name, data_format)
        self.size = int_tuple(self.name, "size", size, 2)
        mode = interpolation.lower() if isinstance(interpolation, str) else interpolation
        if mode not in _INTERPOLATIONS:
            names = ", ".join(repr(m) for m in _INTERPOLATIONS[:-1])
            raise ValueError(f"{self.name}: argument 'interpolation' must be {names} or "
                             f"{_INTERPOLATIONS[-1]!r}; received {interpolation!r} (Invalid "
                             f"value for argument `interpolation`. Expected of one "
                             f"{_INTERPOLATIONS}. Received: interpolation={interpolation})")
        self.interpolation = mode
        self.input_spec = InputSpec.described(layout(2, self.data_format), ndim=4)

    def call(self, inputs):
        axes = spatial_axes(2, self.data_format)
        if self.interpolation != "nearest" and not is_float(inputs.dtype):
            inputs = ops.cast(inputs, self.compute_dtype)
        if self.interpolation not in ("nearest", "bilinear"):
            return self._resize(inputs, axes)
        for axis, factor in zip(axes, self.size):
            if self.interpolation == "nearest":
                inputs = ops.repeat(inputs, factor, axis=axis)
            else:
                inputs = self._linear(inputs, axis, factor)
        return inputs

    def _resize(self, x, axes):
        """The kernel methods: ``ops.image.resize`` to the scaled height and width."""
        sizes = [x.shape[axis] for axis in axes]
        if None in sizes:
            raise ShapeError(f"{self.name}: interpolation {self.interpolation!r} needs known "
                             f"spatial sizes; received shape {describe_shape(x.shape)}")
        target = tuple(size * factor for size, factor in zip(sizes, self.size))
        return ops.image.resize(x, target, interpolation=self.interpolation,
                                data_format=self.data_format)

    def _linear(self, x, axis: int, factor: int):
        """Half-pixel linear interpolation along ``axis``: a gather of the two neighbours
        of each output sample and a blend with constant weights."""
        if factor == 1:
            return x
        size = x.shape[axis]
        if size is None:
            raise ShapeError(f"{self.name}: interpolation 'bilinear' needs known spatial "
                             f"sizes; received shape {describe_shape(x.shape)}")
        lower, upper, weights = [], [], []
        for o in range(size * factor):
            source = (o + 0.5) / factor - 0.5
            base = int(source // 1)
            lower.append(min(max(base, 0), size - 1))
            upper.append(min(max(base + 1, 0), size - 1))
            weights.append(source - base)
        where = getattr(x, "backend", None)
        shape = [1] * len(x.shape)
        shape[axis] = len(weights)
        w = ops.reshape(to_backend_tensor(weights, dtype=x.dtype, backend=where), shape)
        low = ops.take(x, to_backend_tensor(lower, dtype="int32", backend=where), axis)
        high = ops.take(x, to_backend_tensor(upper, dtype="int32", backend=where), axis)
        return ops.add(low, ops.multiply(ops.subtract(high, low), w))

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        for axis, factor in zip(spatial_axes(2, self.data_format), self.size):
            shape[axis] = None if shape[axis] is None else shape[axis] * factor
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "size": self.size, "data_format": self.data_format,
                "interpolation": self.interpolation}
