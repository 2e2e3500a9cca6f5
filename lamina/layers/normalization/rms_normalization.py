"""``RMSNormalization``: scale by the reciprocal root mean square (Zhang & Sennrich 2019)."""
from __future__ import annotations

from ... import ops
from ..layer import Layer
from .layer_normalization import check_axes, resolve_axes


class RMSNormalization(Layer):
    """Keras 3's ``RMSNormalization``: ``x * rsqrt(mean(x**2, axis) + epsilon) * scale``.

    Weight: ``scale`` (ones), shaped like the normalized axes. As in Keras, ``axis``
    reads back as a sorted list once the layer is built. 16-bit inputs are normalized in
    float32 and cast back.

    Args:
        axis: Axis or list of axes the mean square is taken over.
        epsilon: Small float added to the variance to avoid dividing by zero.
    """

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = check_axes(self, axis)
        self.epsilon = float(epsilon)
        self.supports_masking = True

    def build(self, input_shape):
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        resolve_axes(self, axes, input_shape)
        self.axis = sorted(axes)
        shape = tuple(input_shape[a] for a in self.axis)
        if None in shape:
            raise ValueError(f"{self.name}: the normalized axes {self.axis} must have known "
                             f"sizes; received input shape {tuple(input_shape)}")
        self.scale = self.add_weight(name="scale", shape=shape, initializer="ones")

    def call(self, inputs):
        x = ops.convert_to_tensor(inputs) if not hasattr(inputs, "dtype") else inputs
        dtype = x.dtype
        wide = "float64" if dtype == "float64" else "float32"
        x = ops.cast(x, wide)
        axes = resolve_axes(self, self.axis, x.shape)
        mean_square = ops.mean(ops.square(x), axis=tuple(axes), keepdims=True)
        y = ops.multiply(x, ops.rsqrt(ops.add(mean_square, self.epsilon)))
        broadcast = [1] * len(x.shape)
        for a in axes:
            broadcast[a] = x.shape[a]
        scale = ops.reshape(ops.cast(self.scale, wide), tuple(broadcast))
        return ops.cast(ops.multiply(y, scale), dtype)

    def compute_output_shape(self, input_shape):
        resolve_axes(self, self.axis, input_shape)
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}
