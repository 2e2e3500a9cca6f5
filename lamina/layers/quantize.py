"""``Layer.quantize`` (Keras 3's API): int8 quantization of a built layer's weights.

``layer.quantize("int8")`` (or ``config=Int8QuantizationConfig(...)``) checks the request
as Keras does (built, not quantized yet, a known mode, not float16), replaces the layer's
float kernel by an int8 one plus its scale (the layer's ``_quantize_int8``), and gives the
layer the policy ``int8_from_<its policy>``. Assigning a quantized policy to a built float
layer (``layer.dtype_policy = "int8_from_float32"``) quantizes it, as in Keras. Only the
classes that define ``_quantize_int8`` themselves can be quantized (Dense, EinsumDense,
Embedding, ReversibleEmbedding, the attention layers' projections): a subclass is refused
unless ``type_check=False``, as in Keras.

A quantized layer saves its variables in Keras's order (``_quantized_variable_order``,
e.g. kernel, bias, kernel_scale), which is not the order of ``layer.weights``.
"""
from __future__ import annotations

from ..core import structure
from ..dtype_policies.quantized import QuantizedDTypePolicy
from ..quantizers.quantization_config import validate_and_resolve_config


class QuantizeMixin:
    """``quantize``, ``quantization_mode`` and the saved-variable order of quantized
    layers; see the module docstring."""

    _quantized_variable_order: tuple = ()

    @property
    def quantization_mode(self):
        """The quantization mode of this layer (``"int8"``), None if it is not quantized."""
        return self.dtype_policy.quantization_mode

    def quantize(self, mode=None, type_check=True, config=None):
        """Quantize the layer's weights in ``mode`` (``"int8"``), or as ``config`` says."""
        config = validate_and_resolve_config(mode, config)
        mode = config.mode
        self._check_quantize_args(mode, self.compute_dtype)
        owner = type(self).__dict__ if type_check else None
        quantizer = (owner.get("_quantize_int8") if owner is not None
                     else getattr(type(self), "_quantize_int8", None))
        if quantizer is None:
            raise NotImplementedError(f"Layer {type(self).__name__} does not have a "
                                      f"`quantize` method implemented.")
        self.quantization_config = config
        self._quantize_int8(config)
        structure.changed()                  # compiled steps read the float kernel
        if self.dtype_policy.quantization_mode is None:
            self.dtype_policy = QuantizedDTypePolicy(mode, self.dtype_policy.name)

    def _check_quantize_args(self, mode, compute_dtype) -> None:
        if not self.built:
            raise ValueError(f"Cannot quantize a layer that isn't yet built. Layer "
                             f"'{self.name}' (of type '{type(self).__name__}') is not built "
                             f"yet.")
        if getattr(self, "_is_quantized", False):
            raise ValueError(f"Layer '{self.name}' is already quantized with "
                             f"dtype_policy='{self.dtype_policy.name}'. Received: mode={mode}")
        if mode == "int8" and compute_dtype == "float16":
            raise ValueError(f"Quantization mode='{mode}' doesn't work well with "
                             f"compute_dtype='float16'. Consider loading model/layer with "
                             f"another dtype policy such as 'mixed_bfloat16' or "
                             f"'mixed_float16' before calling `quantize()`.")

    def _drop_weight(self, variable) -> None:
        """Forget a weight (the float kernel a quantized one replaces)."""
        for store in (self._trainable_variables, self._non_trainable_variables):
            store[:] = [v for v in store if v is not variable]

    def _place_beside(self, old, variables) -> None:
        """Give weights created outside ``build`` the path prefix ``old`` had there (a
        sublayer's weights live under its parent's path: ``mha/query/kernel``)."""
        prefix = old.path.rpartition("/")[0]
        for variable in variables:
            variable.path = f"{prefix}/{variable.name}" if prefix else variable.name

    def _saved_variables(self):
        """Keras's saved order for a quantized layer, None for the default order."""
        if self.quantization_mode is None or not self._quantized_variable_order:
            return None
        found = (getattr(self, name, None) for name in self._quantized_variable_order)
        return [v for v in found if v is not None]
