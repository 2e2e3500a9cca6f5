"""AWQ, activation-aware weight quantization (Keras 3's algorithm, after Lin et al.): an
input channel that carries large activations makes its weights salient, so before 4-bit
rounding the weights of channel ``j`` are multiplied by ``s_j = x_max_j ** ratio``
(normalized), which rounds them relatively finer; the layer divides by ``s_j`` again. The
ratio is searched on a grid in [0, 1] for the smallest activation-weighted error.

:class:`AWQ` collects ``x_max`` (each input channel's largest magnitude) batch by batch and
hands the layer its integers, scales, zero points, AWQ scales and group indices
(``layer._awq_calibrated``); the block-by-block driver is calibration.py.
"""
from __future__ import annotations

from .. import ops
from .awq_config import AWQConfig
from .gptq import gptq_matrix_shape
from .grouped import (compute_quantization_parameters, dequantize_with_sz_map,
                      dequantize_with_zero_point, quantize_with_sz_map,
                      quantize_with_zero_point)


def _round_trip(weights, group_size):
    """``(quantized, scale, zero, g_idx or None)`` of 4-bit asymmetric quantization per
    output row, or per row and group of ``group_size`` columns."""
    scale, zero, maxq = compute_quantization_parameters(
        weights, bits=4, symmetric=False, per_channel=True, group_size=group_size,
        compute_dtype="float32")
    if group_size == -1:
        return quantize_with_zero_point(weights, scale, zero, maxq), scale, zero, None
    g_idx = ops.cast(ops.floor_divide(ops.arange(0, weights.shape[1]), group_size), "int32")
    return quantize_with_sz_map(weights, scale, zero, g_idx, maxq), scale, zero, g_idx


def awq_search_optimal_scales(weights, activation_magnitudes, *, num_grid_points=20,
                              group_size=-1):
    """The per-input-channel scales (``(in_features,)``) that AWQ multiplies
    ``weights`` ``(out_features, in_features)`` by: ``x_max ** ratio`` (at least 1e-4,
    divided by the geometric mean of its extremes) for the ``ratio`` among ``i /
    num_grid_points`` whose quantize-dequantize error, weighted by ``x_max ** 2``, is
    smallest (the first on ties). Channels that never activated count as 1."""
    weights = ops.convert_to_tensor(weights)
    x_max = ops.cast(activation_magnitudes, "float32")
    x_max = ops.where(ops.less(x_max, 1e-8), ops.ones_like(x_max), x_max)
    best_loss, best_scales = None, ops.ones((weights.shape[1],), dtype="float32")
    for i in range(num_grid_points + 1):
        ratio = i / num_grid_points
        scales = ops.ones_like(x_max) if ratio == 0 else ops.power(x_max, ratio)
        scales = ops.maximum(scales, 1e-4)
        mean = ops.maximum(ops.sqrt(ops.multiply(ops.max(scales), ops.min(scales))), 1e-8)
        scales = ops.divide(scales, mean)
        scaled = ops.multiply(weights, scales)
        quantized, scale, zero, g_idx = _round_trip(scaled, group_size)
        restored = (dequantize_with_zero_point(quantized, scale, zero) if g_idx is None
                    else dequantize_with_sz_map(quantized, scale, zero, g_idx))
        error = ops.square(ops.subtract(weights, ops.divide(restored, scales)))
        loss = ops.mean(ops.multiply(error, ops.square(x_max)))
        if best_loss is None or bool(ops.less(loss, best_loss)):
            best_loss, best_scales = loss, scales
    return best_scales


def awq_quantize_matrix(weights_transpose, activation_magnitudes, *, num_grid_points=20,
                        group_size=-1):
    """AWQ of ``weights_transpose`` ``(out_features, in_features)``: ``(quantized,
    scale, zero, awq_scales, g_idx)`` -- the 4-bit integers of ``weights * awq_scales``
    and their per-row (or per-group) parameters; ``g_idx`` float32, each column's group
    (zeros per channel)."""
    weights = ops.convert_to_tensor(weights_transpose)
    awq_scales = awq_search_optimal_scales(weights, activation_magnitudes,
                                           num_grid_points=num_grid_points,
                                           group_size=group_size)
    quantized, scale, zero, g_idx = _round_trip(ops.multiply(weights, awq_scales),
                                                group_size)
    g_idx = ops.zeros((weights.shape[1],), dtype="float32") if g_idx is None else \
        ops.cast(g_idx, "float32")
    return quantized, scale, zero, awq_scales, g_idx


class AWQ:
    """AWQ of one layer (Dense or EinsumDense quantized in "awq" mode, not yet calibrated):
    ``update_activation_magnitudes`` on its inputs, then ``quantize_layer``."""

    def __init__(self, layer, config=None):
        if not hasattr(layer, "_awq_calibrated"):
            raise TypeError(f"Unsupported layer type for AWQ: {type(layer)}")
        self.original_layer = layer
        self.config = config if config is not None else AWQConfig(None, None)
        kernel = layer.kernel
        self.kernel_shape = tuple(kernel.shape)
        self.rows, self.columns = gptq_matrix_shape(self.kernel_shape)
        self.kernel = ops.reshape(kernel, (self.rows, self.columns))
        self.activation_magnitudes = ops.zeros((self.rows,), dtype="float32")
        self.num_samples = 0

    def update_activation_magnitudes(self, input_batch) -> None:
        """Fold a batch of inputs (features last) into each channel's largest |x|."""
        if input_batch is None:
            raise ValueError("Input tensor cannot be None.")
        x = ops.convert_to_tensor(input_batch)
        if ops.size(x) == 0:
            raise ValueError("Input tensor cannot be empty.")
        x = ops.cast(ops.reshape(x, (-1, x.shape[-1])), "float32")
        self.activation_magnitudes = ops.maximum(self.activation_magnitudes,
                                                 ops.max(ops.abs(x), axis=0))
        self.num_samples += x.shape[0]

    def quantize_layer(self) -> None:
        """Search the scales, quantize, and give the layer its AWQ variables (its float
        kernel is dropped)."""
        quantized, scale, zero, awq_scales, g_idx = awq_quantize_matrix(
            ops.transpose(self.kernel), self.activation_magnitudes,
            num_grid_points=self.config.num_grid_points, group_size=self.config.group_size)
        self.original_layer._awq_calibrated(quantized, scale, zero, awq_scales, g_idx)

    def free(self) -> None:
        self.activation_magnitudes = self.kernel = None
