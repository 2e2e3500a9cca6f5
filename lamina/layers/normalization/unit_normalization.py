"""``UnitNormalization``: scale each sample to unit L2 norm over ``axis`` (Keras 3)."""
from __future__ import annotations

from ... import ops
from ..layer import Layer
from .layer_normalization import check_axes, resolve_axes


class UnitNormalization(Layer):
    """``x / sqrt(max(sum(x**2, axis), 1e-12))``, Keras 3's formula. No weights.

    Args:
        axis: Axis or list of axes whose L2 norm is made 1.
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = check_axes(self, axis, keras_phrase="Invalid value for `axis` argument: "
                               "expected an int or a list/tuple of ints.")
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        x = ops.cast(inputs, self.compute_dtype)
        axes = tuple(resolve_axes(self, self.axis, x.shape))
        square_sum = ops.sum(ops.square(x), axis=axes, keepdims=True)
        return ops.multiply(x, ops.rsqrt(ops.maximum(square_sum, 1e-12)))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}
