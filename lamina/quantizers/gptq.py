"""GPTQ (Keras 3's algorithm, after Frantar et al.): quantize a layer's kernel column by
column, pushing each column's rounding error onto the columns not yet quantized through
the inverse Hessian of the layer's inputs, so the layer's outputs on calibration data move
as little as possible.

:class:`GPTQ` collects the Hessian ``H = 2 X^T X / n`` of a layer's inputs batch by batch,
dampens it (``hessian_damping`` times the mean of its diagonal; dead inputs get 1), inverts
it and runs :func:`gptq_quantize_matrix`, then hands the integers, scales, zero points and
group indices to the layer (``layer._gptq_calibrated``). The driver that runs a model's
blocks on calibration data is calibration.py.
"""
from __future__ import annotations

from .. import ops
from .abs_max import Quantizer
from .gptq_config import GPTQConfig
from .grouped import (compute_quantization_parameters, dequantize_with_zero_point,
                      quantize_with_zero_point)


class GPTQQuantizer(Quantizer):
    """The scale and zero point of a block of weights with a GPTQConfig's settings
    (``find_params``)."""

    def __init__(self, config=None, compute_dtype="float32"):
        super().__init__()
        config = config if config is not None else GPTQConfig(None, None)
        self.weight_bits = config.weight_bits
        self.per_channel = config.per_channel
        self.symmetric = config.symmetric
        self.group_size = config.group_size
        self.compute_dtype = compute_dtype
        self.scale = self.zero = self.maxq = None

    def find_params(self, input_tensor):
        self.scale, self.zero, self.maxq = compute_quantization_parameters(
            input_tensor, bits=self.weight_bits, symmetric=self.symmetric,
            per_channel=self.per_channel, group_size=self.group_size,
            compute_dtype=self.compute_dtype)
        return self.scale, self.zero, self.maxq

    def get_config(self) -> dict:
        return {"weight_bits": self.weight_bits, "per_channel": self.per_channel,
                "symmetric": self.symmetric, "group_size": self.group_size}

    @classmethod
    def from_config(cls, config):
        return cls(GPTQConfig(None, None, weight_bits=config["weight_bits"],
                              per_channel=config["per_channel"],
                              symmetric=config["symmetric"],
                              group_size=config["group_size"]))


def gptq_matrix_shape(kernel_shape) -> tuple:
    """The 2-D ``(rows, columns)`` GPTQ sees a kernel as (Keras's rule): a 2-D kernel as it
    is; a 3-D one whose largest axis comes first as ``(in, heads * size)`` (a query, key or
    value projection), else as ``(heads * size, out)`` (an attention output)."""
    shape = tuple(kernel_shape)
    if len(shape) == 2:
        return shape
    if len(shape) == 3:
        if shape.index(max(shape)) == 0:
            return shape[0], shape[1] * shape[2]
        return shape[0] * shape[1], shape[2]
    raise ValueError(f"GPTQ: a kernel of shape {shape} cannot be seen as a matrix; GPTQ "
                     f"quantizes 2-D kernels and the 3-D kernels of attention projections")


def _stable_permutation(metric):
    """The columns by decreasing ``metric``, ties in index order."""
    n = metric.shape[0]
    jitter = ops.divide(ops.cast(ops.arange(0, n, dtype="int32"), "float32"), float(n))
    return ops.argsort(ops.negative(ops.add(metric, ops.multiply(jitter, 1e-12))))


def gptq_quantize_matrix(weights_transpose, inv_hessian, *, blocksize=128, group_size=-1,
                         activation_order=False, order_metric=None,
                         compute_scale_zero=compute_quantization_parameters):
    """GPTQ on ``weights_transpose`` ``(out_features, in_features)``: ``(quantized int32,
    scale (out, groups), zero (out, groups), g_idx float32 (in,))``.

    Columns are taken in blocks of ``blocksize``: each column is quantized with the
    parameters of its group (computed once per group from the weights as they stand at the
    start of the block), its error ``(w - dequantized) / invH[j, j]`` is taken off the rest
    of its block through ``invH[j, j+1:]``, and each finished block's errors off the later
    columns. ``activation_order`` quantizes the columns by decreasing ``order_metric``
    (default ``1 / diag(invH)``) and maps the results back. ``g_idx`` is ``i /
    group_size`` (a float, as Keras stores it; its integer part is the group)."""
    weights = ops.convert_to_tensor(weights_transpose)
    inv_hessian = ops.convert_to_tensor(inv_hessian)
    in_features = weights.shape[1]
    inv_perm = None
    if activation_order:
        if order_metric is None:
            metric = ops.reciprocal(ops.add(ops.diagonal(inv_hessian), 1e-12))
        else:
            metric = ops.cast(order_metric, "float32")
            metric = ops.where(ops.isfinite(metric), metric, ops.zeros_like(metric))
        perm = _stable_permutation(metric)
        inv_perm = ops.argsort(perm)
        weights = ops.take(weights, perm, axis=1)
        inv_hessian = ops.take(ops.take(inv_hessian, perm, axis=0), perm, axis=1)
    group = in_features if group_size == -1 else group_size
    columns, scales, zeros = [], [], []
    params, params_start = None, -1
    for block_start in range(0, in_features, blocksize):
        block_end = min(block_start + blocksize, in_features)
        block = weights[:, block_start:block_end]
        block_inv = inv_hessian[block_start:block_end, block_start:block_end]
        errors = []
        for j in range(block_end - block_start):
            start = ((block_start + j) // group) * group
            if start != params_start:
                params = compute_scale_zero(weights[:, start:min(start + group, in_features)])
                scales.append(params[0])
                zeros.append(params[1])
                params_start = start
            scale, zero, maxq = params
            column = block[:, j]
            q = quantize_with_zero_point(ops.expand_dims(column, 1), scale, zero, maxq)
            columns.append(ops.cast(q, "int32"))
            error = ops.divide(ops.subtract(column, dequantize_with_zero_point(
                q, scale, zero)[:, 0]), block_inv[j, j])
            errors.append(error)
            if j < block_end - block_start - 1:
                update = ops.matmul(ops.expand_dims(error, 1),
                                    ops.expand_dims(block_inv[j, j + 1:], 0))
                block = ops.concatenate([block[:, :j + 1],
                                         ops.subtract(block[:, j + 1:], update)], axis=1)
        if block_end < in_features:
            update = ops.matmul(ops.stack(errors, axis=1),
                                inv_hessian[block_start:block_end, block_end:])
            weights = ops.concatenate([weights[:, :block_end],
                                       ops.subtract(weights[:, block_end:], update)], axis=1)
    quantized = ops.concatenate(columns, axis=1)
    g_idx = ops.divide(ops.cast(ops.arange(0, in_features, dtype="int32"), "float32"),
                       float(group))
    if inv_perm is not None:
        g_idx = ops.take(g_idx, inv_perm, axis=0)
        quantized = ops.take(quantized, inv_perm, axis=1)
    return quantized, ops.concatenate(scales, axis=1), ops.concatenate(zeros, axis=1), g_idx


class GPTQ:
    """GPTQ of one layer (Dense or EinsumDense quantized in "gptq" mode, not yet
    calibrated): ``update_hessian_with_batch`` on its inputs, then
    ``quantize_and_correct_layer``."""

    def __init__(self, layer, config=None):
        if not hasattr(layer, "_gptq_calibrated"):
            raise TypeError(f"Unsupported layer type for GPTQ: {type(layer)}")
        self.original_layer = layer
        self.config = config if config is not None else GPTQConfig(None, None)
        self.quantizer = GPTQQuantizer(self.config, compute_dtype=layer.variable_dtype)
        kernel = layer.kernel
        self.kernel_shape = tuple(kernel.shape)
        self.rows, self.columns = gptq_matrix_shape(self.kernel_shape)
        self.kernel = ops.reshape(kernel, (self.rows, self.columns))
        self.hessian = ops.zeros((self.rows, self.rows), dtype="float32")
        self.num_samples = 0

    def update_hessian_with_batch(self, input_batch) -> None:
        """Fold a batch of inputs (rank >= 2, features last) into the running average
        ``H = 2 X^T X / n``."""
        if input_batch is None:
            raise ValueError("Input tensor cannot be None.")
        x = ops.convert_to_tensor(input_batch)
        if len(x.shape) < 2:
            raise ValueError(f"Input tensor must have rank >= 2 (got rank {len(x.shape)}).")
        if ops.size(x) == 0:
            raise ValueError("Input tensor cannot be empty.")
        x = ops.cast(ops.reshape(x, (-1, x.shape[-1])), "float32")
        if self.hessian.shape[0] != x.shape[-1]:
            raise ValueError(f"Hessian dimensions ({self.hessian.shape[0]}) do not match "
                             f"input features ({x.shape[-1]}).")
        count = x.shape[0]
        total = self.num_samples + count
        gram = ops.matmul(ops.transpose(x), x)
        gram = ops.divide(ops.add(gram, ops.transpose(gram)), 2.0)
        if self.num_samples > 0:
            self.hessian = ops.multiply(self.hessian, self.num_samples / total)
        self.hessian = ops.add(self.hessian, ops.multiply(2.0 / total, gram))
        self.num_samples = total

    def quantize_and_correct_layer(self, blocksize=128) -> None:
        """Dampen and invert the Hessian, run :func:`gptq_quantize_matrix` and give the
        layer its quantized kernel (its float kernel is dropped)."""
        diagonal = ops.diagonal(self.hessian)
        dead = ops.equal(diagonal, 0.0)
        diagonal = ops.where(dead, 1.0, diagonal)
        hessian = ops.add(self.hessian, ops.diag(ops.where(dead, 1.0,
                                                           ops.zeros_like(diagonal))))
        damping = ops.multiply(self.config.hessian_damping, ops.mean(diagonal))
        diagonal = ops.add(diagonal, damping)
        hessian = ops.add(ops.subtract(hessian, ops.diag(ops.diagonal(hessian))),
                          ops.diag(diagonal))
        quantized, scale, zero, g_idx = gptq_quantize_matrix(
            ops.transpose(self.kernel), ops.linalg.inv(hessian), blocksize=blocksize,
            group_size=self.config.group_size,
            activation_order=self.config.activation_order,
            order_metric=ops.diagonal(hessian), compute_scale_zero=self.quantizer.find_params)
        self.original_layer._gptq_calibrated(quantized, scale, zero, g_idx)

    def free(self) -> None:
        self.hessian = self.kernel = None
