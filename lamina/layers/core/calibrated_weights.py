"""GPTQ and AWQ ``Dense`` and ``EinsumDense`` (Keras 3's layout and numbers).

``layer.quantize("gptq", config=GPTQConfig(...))`` (or "awq" with an AWQConfig) adds the
quantized variables and keeps the float kernel, which the layer computes with until
``model.quantize`` has calibrated it (lamina/quantizers/calibration.py); calibration
(``_gptq_calibrated``, ``_awq_calibrated``) then fills them and drops the float kernel.
The kernel, seen as a matrix ``(rows, columns)`` (Dense:
``(input_dim, units)``; an attention kernel ``(in, heads, size)`` as ``(in, heads * size)``),
is stored transposed: ``quantized_kernel`` uint8 ``(columns, rows)`` -- its variable is
named ``kernel``; 4-bit values are packed two per byte along the columns -- with
``kernel_scale`` and ``kernel_zero`` (uint8; EinsumDense names the variable ``zero_point``)
``(columns, groups)`` and ``g_idx`` ``(rows,)`` (float32, ``i / group_size``: its integer
part is each row's group). AWQ is always 4-bit and adds ``awq_scales`` ``(rows,)``, by which
its rows were multiplied before rounding. The call dequantizes ``(q - zero) * scale``
(AWQ: divided by ``awq_scales``) and multiplies in float; a layer loaded from a file (built
from its GPTQ/AWQ policy) has no float kernel and is calibrated already.
"""
from __future__ import annotations

import math

from ... import ops
from ...core import structure
from ...quantizers.awq_config import awq_group_size
from ...quantizers.gptq import gptq_matrix_shape
from ...quantizers.gptq_config import gptq_setting
from ...quantizers.grouped import dequantize_with_sz_map
from ...quantizers.int4_packing import pack_int4, unpack_int4

def _settings(layer, config, mode) -> tuple:
    if mode == "awq":
        return 4, awq_group_size(layer, config)
    return gptq_setting(layer, config, "weight_bits"), gptq_setting(layer, config, "group_size")


def _names(layer) -> tuple:
    extra = ("awq_scales",) if layer._calibration_mode == "awq" else ()
    return ("quantized_kernel", "kernel_scale", "kernel_zero") + extra + ("g_idx",)


def build(layer, kernel_shape, config, zero_name: str, mode: str) -> list:
    """Create the ``mode`` ("gptq" or "awq") variables (zeros and ones until calibrated or
    loaded); returns them."""
    if mode == "awq" and len(kernel_shape) not in (2, 3):
        raise ValueError(f"{layer.name}: AWQ quantization only supports 2D or 3D kernels; "
                         f"received a kernel of shape {tuple(kernel_shape)}")
    rows, columns = gptq_matrix_shape(kernel_shape)
    bits, group_size = _settings(layer, config, mode)
    given = getattr(layer, "gptq_unpacked_column_size", None)
    if mode == "gptq" and given and given != columns:
        raise ValueError(f"{layer.name}: argument 'gptq_unpacked_column_size' is {given} "
                         f"but the kernel of shape {tuple(kernel_shape)} has {columns} "
                         f"GPTQ columns")
    layer._is_quantized = True
    layer._calibration_mode = mode
    # Keras's flag: False while the float kernel is there (quantize, before calibration),
    # True for a layer built from its policy (a file's); calibration sets it.
    setattr(layer, f"is_{mode}_calibrated", layer._own_variable("kernel") is None)
    layer.original_kernel_shape = tuple(kernel_shape)
    setattr(layer, f"{mode}_unpacked_column_size", columns)
    layer._calibrated_bits = bits
    groups = 1 if group_size == -1 else math.ceil(rows / group_size)
    stored = (columns + 1) // 2 if bits == 4 else columns
    layer.quantized_kernel = layer.add_weight(shape=(stored, rows), name="kernel",
                                              initializer="zeros", dtype="uint8",
                                              trainable=False)
    layer.kernel_scale = layer.add_weight(shape=(columns, groups), name="kernel_scale",
                                          initializer="ones", trainable=False)
    layer.kernel_zero = layer.add_weight(shape=(columns, groups), name=zero_name,
                                         initializer="zeros", dtype="uint8", trainable=False)
    if mode == "awq":
        layer.awq_scales = layer.add_weight(shape=(rows,), name="awq_scales",
                                            initializer="ones", trainable=False)
    layer.g_idx = layer.add_weight(shape=(rows,), name="g_idx", initializer="zeros",
                                   dtype="float32", trainable=False)
    return [getattr(layer, name) for name in _names(layer)]


def quantize(layer, config, zero_name: str, mode: str) -> None:
    """Add the ``mode`` variables to a built float layer; its float kernel stays until
    calibration."""
    kernel = layer._own_variable("kernel")
    layer._place_beside(kernel, build(layer, tuple(kernel.shape), config, zero_name, mode))


def calibrated(layer) -> bool:
    """Whether the layer computes with its quantized variables (``is_gptq_calibrated``,
    ``is_awq_calibrated``: settable, as in Keras)."""
    return bool(getattr(layer, f"is_{layer._calibration_mode}_calibrated", False))


def finish(layer, quantized, scale, zero, g_idx, awq_scales=None) -> None:
    """Store a calibration's results (``quantized`` ``(columns, rows)``) and drop the float
    kernel."""
    quantized = ops.cast(quantized, "uint8")
    if layer._calibrated_bits == 4:
        quantized = pack_int4(quantized, axis=0, dtype="uint8")[0]
    values = {"quantized_kernel": quantized, "kernel_scale": scale, "kernel_zero": zero,
              "awq_scales": awq_scales, "g_idx": g_idx}
    layer._drop_weight(layer._own_variable("kernel"))
    layer._kernel = None
    setattr(layer, f"is_{layer._calibration_mode}_calibrated", True)
    for name in _names(layer):
        variable = getattr(layer, name)
        variable.assign(ops.cast(values[name], variable.dtype))
    structure.changed()                  # compiled steps read the float kernel


def stored_values(layer):
    """``layer.kernel`` of a GPTQ or AWQ layer: the float kernel until calibration, then
    the integers ``(columns, rows)`` (4-bit ones unpacked), as Keras gives them."""
    if not calibrated(layer):
        return layer._own_variable("kernel")
    if layer._calibrated_bits != 4:
        return layer.quantized_kernel
    columns = getattr(layer, f"{layer._calibration_mode}_unpacked_column_size")
    return unpack_int4(layer.quantized_kernel, columns, axis=0, dtype="uint8")


def kernel(layer):
    """The kernel the call multiplies by, in the kernel's shape: dequantized once
    calibrated."""
    if not calibrated(layer):
        return layer._own_variable("kernel")
    matrix = ops.transpose(dequantize_with_sz_map(stored_values(layer), layer.kernel_scale,
                                                  layer.kernel_zero, layer.g_idx))
    if layer._calibration_mode == "awq":
        matrix = ops.divide(matrix, ops.expand_dims(layer.awq_scales, -1))
    return ops.reshape(matrix, layer.original_kernel_shape)


class CalibratedWeightsMixin:
    """GPTQ and AWQ for a layer with one kernel: ``quantize("gptq"/"awq")`` and the
    calibration drivers' callbacks (lamina/quantizers/gptq.py, awq.py ask for
    ``_gptq_calibrated`` / ``_awq_calibrated``). ``_calibrated_zero`` names the layer's
    zero-point variable (Keras calls it ``kernel_zero`` in Dense, ``zero_point`` in
    EinsumDense)."""
    _calibrated_zero = "kernel_zero"

    def _quantize_gptq(self, config) -> None:
        quantize(self, config, self._calibrated_zero, "gptq")

    def _quantize_awq(self, config) -> None:
        quantize(self, config, self._calibrated_zero, "awq")

    def _gptq_calibrated(self, quantized, scale, zero, g_idx) -> None:
        finish(self, quantized, scale, zero, g_idx)

    def _awq_calibrated(self, quantized, scale, zero, awq_scales, g_idx) -> None:
        finish(self, quantized, scale, zero, g_idx, awq_scales)
