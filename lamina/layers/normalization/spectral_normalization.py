"""``SpectralNormalization`` (Miyato et al., 2018): divides a layer's kernel by its
largest singular value, estimated by power iteration."""
from __future__ import annotations

from ... import initializers, ops
from ..core.wrapper import Wrapper
from ..input_spec import InputSpec


def _normalize(x, epsilon=1e-7):
    """``x / ||x||`` over all elements (Keras's L2 normalize: ``x * min(rsqrt(sum x^2),
    1 / epsilon)``, written as ``rsqrt(max(sum x^2, epsilon^2))``: no division by 0)."""
    # keepdims: a (1, 1) sum, not a 0-d one (the numpy rsqrt kernel fails on 0-d arrays)
    square_sum = ops.sum(ops.square(x), keepdims=True)
    return ops.multiply(x, ops.rsqrt(ops.maximum(square_sum, epsilon * epsilon)))


class SpectralNormalization(Wrapper):
    """Keras 3's ``SpectralNormalization`` around a layer with a ``kernel`` (or an
    ``embeddings`` table).

    In training calls the wrapped kernel is replaced (assigned) by ``kernel / sigma``, with
    ``sigma`` from ``power_iterations`` steps of power iteration that start from and update
    the non-trainable ``vector_u`` ``(1, kernel.shape[-1])``; an all-zero kernel is left
    alone. Inference calls use the kernel as it is. Weights, in Keras's order: the wrapped
    kernel (tracked by the wrapper too), ``vector_u``, the wrapped layer's other weights.

    Args:
        layer: A layer with a ``kernel`` (or ``embeddings``) weight, e.g. Dense or Conv2D.
        power_iterations: Power-iteration steps per training call to estimate the spectral norm.
    """

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if isinstance(power_iterations, bool) or not isinstance(power_iterations, int) or \
                power_iterations <= 0:
            raise ValueError(f"{self.name}: argument 'power_iterations' must be a positive "
                             f"int (`power_iterations` should be greater than zero.); "
                             f"received {power_iterations!r}")
        self.power_iterations = power_iterations

    def build(self, input_shape):
        super().build(input_shape)
        self.input_spec = InputSpec(min_ndim=1, axes={-1: input_shape[-1]})
        kernel = getattr(self.layer, "kernel", None)
        if kernel is None:
            kernel = getattr(self.layer, "embeddings", None)
        if kernel is None:
            raise ValueError(f"{self.name}: the wrapped layer {self.layer.name!r}, a "
                             f"{type(self.layer).__name__} object has no attribute 'kernel' "
                             f"nor 'embeddings'")
        self.kernel = kernel                            # tracked on the wrapper too (Keras)
        self.kernel_shape = tuple(kernel.shape)
        self.vector_u = self.add_weight(
            shape=(1, self.kernel_shape[-1]), name="vector_u", trainable=False,
            initializer=initializers.TruncatedNormal(stddev=0.02), dtype=kernel.dtype)

    def call(self, inputs, training=False):
        if training:
            vector_u, kernel = self.normalized_weights()
            all_zero = ops.all(ops.equal(self.kernel, 0))
            self.vector_u.assign(ops.where(all_zero, self.vector_u, vector_u))
            self.kernel.assign(ops.where(all_zero, self.kernel, kernel))
        output = self.layer(inputs)
        return ops.cast(output, inputs.dtype)

    def normalized_weights(self):
        """(new ``vector_u``, spectrally normalized kernel), Keras's power iteration."""
        weights = ops.reshape(self.kernel, (-1, self.kernel_shape[-1]))
        vector_u = self.vector_u.value
        for _ in range(self.power_iterations):
            vector_v = _normalize(ops.matmul(vector_u, ops.transpose(weights)))
            vector_u = _normalize(ops.matmul(vector_v, weights))
        vector_u = ops.stop_gradient(vector_u)
        vector_v = ops.stop_gradient(vector_v)
        sigma = ops.matmul(ops.matmul(vector_v, weights), ops.transpose(vector_u))
        # An all-zero kernel (sigma 0) is kept by call(); divide it by 1, not by 0.
        sigma = ops.where(ops.equal(sigma, 0), ops.ones_like(sigma), sigma)
        kernel = ops.reshape(ops.divide(self.kernel, sigma), self.kernel_shape)
        return ops.cast(vector_u, self.vector_u.dtype), ops.cast(kernel, self.kernel.dtype)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "power_iterations": self.power_iterations}
