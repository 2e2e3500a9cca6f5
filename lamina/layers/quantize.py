"""``Layer.quantize`` (Keras 3's API): int8, int4 or float8 quantization of a built layer.

``layer.quantize("int4")`` (or ``config=Int4QuantizationConfig(...)``) checks the request
in Keras's order -- the mode and config (``validate_and_resolve_config``), then the layer:
built, not quantized yet, int8 not with float16 (``_check_quantize_args``), then its class
(a subclass is refused unless ``type_check=False``), then the mode (a class that lacks it
raises NotImplementedError, which ``Model.quantize`` turns into a warning). It then calls the
layer's ``_quantize_<mode>(config)`` and gives the layer the policy ``<mode>_from_<its
policy>`` (``int4/<block_size>_from_...`` for int4). Assigning a quantized policy to a
built float layer (``layer.dtype_policy = "int8_from_float32"``) quantizes it, as in Keras.

A class can be quantized in the modes it defines ``_quantize_<mode>`` for (Dense,
EinsumDense: int8, int4, float8, gptq, awq; Embedding, ReversibleEmbedding: int8, int4; the
attention layers' projections: int8). A quantized layer saves its variables in Keras's order for its
mode (``_quantized_variable_order``), which is not the order of ``layer.weights``.
"""
from __future__ import annotations

from ..core import structure
from ..core.variable import Variable
from ..dtype_policies.quantized import QUANTIZATION_MODES
from ..quantizers.quantization_config import int4_block_size
from ..quantizers.resolve import validate_and_resolve_config


def _defines_quantize(cls) -> bool:
    return any(name.startswith("_quantize_") for name in cls.__dict__)


class QuantizeMixin:
    """``quantize``, ``quantization_mode`` and the saved-variable order of quantized
    layers; see the module docstring."""

    # Keras's saved order per mode ({"int8": ("kernel", "bias", "kernel_scale"), ...}); a
    # tuple serves every mode. Names missing on the layer (no bias, per-channel int4's
    # zero point) are skipped.
    _quantized_variable_order: tuple | dict = ()

    @property
    def quantization_mode(self):
        """The quantization mode of this layer (``"int8"``, ``"int4"``, ``"float8"``),
        None if it is not quantized."""
        return self._path_policy().quantization_mode

    def quantize(self, mode=None, type_check=True, config=None):
        """Quantize the layer in ``mode`` (``"int8"``, ``"int4"``, ``"float8"``), or as
        ``config`` says; see the module docstring for the checks."""
        config = validate_and_resolve_config(mode, config)
        mode = config.mode
        self._check_quantize_args(mode, self.compute_dtype)
        cls = type(self)
        if (type_check and not _defines_quantize(cls)) or not self._quantization_modes():
            raise NotImplementedError(f"Layer {cls.__name__} does not have a `quantize` "
                                      f"method implemented.")
        if not hasattr(cls, f"_quantize_{mode}"):
            raise self._mode_error(mode)
        with self._state_unlocked():          # Keras unlocks the tracker around quantize
            getattr(self, f"_quantize_{mode}")(config)
        self.quantization_config = config
        structure.changed()                  # compiled steps read the float kernel
        if self.quantization_mode is None:
            name = mode
            if mode == "int4":
                block_size = int4_block_size(self, config)
                name = f"int4/{-1 if block_size is None else block_size}"
            elif mode in ("gptq", "awq"):
                name = config.dtype_policy_string()
            self.dtype_policy = f"{name}_from_{self.dtype_policy.name}"

    def _check_quantize_args(self, mode, compute_dtype) -> None:
        if not self.built:
            raise ValueError(f"Cannot quantize a layer that isn't yet built. Layer "
                             f"'{self.name}' (of type '{type(self).__name__}') is not built "
                             f"yet.")
        if getattr(self, "_is_quantized", False):
            raise ValueError(f"Layer '{self.name}' is already quantized with "
                             f"dtype_policy='{self.dtype_policy.name}'. Received: mode={mode}")
        if mode not in QUANTIZATION_MODES:
            raise ValueError(f"Invalid quantization mode. Expected one of "
                             f"{QUANTIZATION_MODES}. Received: mode={mode}")
        if mode == "int8" and compute_dtype == "float16":
            raise ValueError(f"Quantization mode='{mode}' doesn't work well with "
                             f"compute_dtype='float16'. Consider loading model/layer with "
                             f"another dtype policy such as 'mixed_bfloat16' or "
                             f"'mixed_float16' before calling `quantize()`.")

    def _quantization_modes(self) -> tuple:
        """The modes this class can be quantized in (those it has ``_quantize_<mode>`` for),
        in Keras's order."""
        return tuple(m for m in QUANTIZATION_MODES if hasattr(type(self), f"_quantize_{m}"))

    def _mode_error(self, mode) -> NotImplementedError:
        return NotImplementedError(f"Invalid quantization mode. Expected one of "
                                   f"{self._quantization_modes()}. Received: "
                                   f"quantization_mode={mode}")

    def quantized_build(self, kernel_shape=None, mode=None, config=None, *,
                        input_shape=None) -> None:
        """Create the variables of ``mode`` for a kernel (an embeddings table) of
        ``kernel_shape``, as ``build`` does for a layer made with a quantized policy (Keras
        3's method; ``input_shape`` is the base class's name for the first argument); a
        mode the class lacks raises NotImplementedError."""
        if input_shape is not None:
            if kernel_shape is not None:
                raise TypeError(f"{self.name}.quantized_build: pass the shape once, as "
                                f"kernel_shape or input_shape; received both "
                                f"({kernel_shape} and {input_shape})")
            kernel_shape = input_shape
        builder = getattr(self, "_quantized_build", None)
        if builder is None:
            raise NotImplementedError(f"Layer {type(self).__name__} does not have a "
                                      f"`quantized_build` method implemented.")
        if mode not in self._quantization_modes():
            raise self._mode_error(mode)
        builder(kernel_shape, mode, config)
        self._is_quantized = True

    def quantized_call(self, *args, **kwargs):
        """The layer's call in its quantization mode (Keras 3's method; ``call`` itself
        dispatches on the mode, so this checks the mode and calls it)."""
        if self.quantization_mode not in self._quantization_modes():
            raise self._mode_error(self.quantization_mode)
        return self.call(*args, **kwargs)

    # Keras 3's per-mode call hooks: a class quantized in a mode overrides its hook (Lamina's
    # layers dispatch on the mode in ``call`` instead), so the base ones only refuse.
    def _int4_call(self, *args, **kwargs):
        raise self._missing_method("_int4_call")

    def _int8_call(self, *args, **kwargs):
        raise self._missing_method("_int8_call")

    def _float8_call(self, *args, **kwargs):
        raise self._missing_method("_float8_call")

    def _gptq_call(self, *args, **kwargs):
        raise self._missing_method("_gptq_call")

    def _awq_call(self, *args, **kwargs):
        raise self._missing_method("_awq_call")

    def _missing_method(self, method: str) -> NotImplementedError:
        return NotImplementedError(f"Layer {type(self).__name__} does not have a `{method}` "
                                   f"method implemented. ({self.name}'s class does not "
                                   f"define it)")

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

    def _own_variable(self, name):
        """The variable held as ``name`` (or ``_name``, behind a property), else None."""
        for key in (name, "_" + name):
            value = self.__dict__.get(key)
            if isinstance(value, Variable):
                return value
        return None

    def _saved_variables(self):
        """Keras's saved order for a quantized layer, None for the default order."""
        order = self._quantized_variable_order
        mode = self.quantization_mode
        if mode is None or not order:
            return None
        if isinstance(order, dict):
            order = order.get(mode, ())
        found = (self._own_variable(name) for name in order)
        return [v for v in found if v is not None]


def quantized_view(weight: property, views: dict) -> property:
    """``weight`` (a layer's ``kernel`` or ``embeddings`` property), except that a layer
    quantized in a mode of ``views`` gives ``views[mode](layer)`` (Keras's ``layer.kernel``
    of an int4 layer is its unpacked int4 values, not the packed variable, plus LoRA's
    update when LoRA is enabled); assigning still sets the variable."""
    def get(layer):
        view = views.get(layer.quantization_mode)
        if view is not None and getattr(layer, "_is_quantized", False):
            merge = getattr(layer, "_with_lora", None)
            return view(layer) if merge is None else merge(view(layer))
        return weight.fget(layer)

    return property(get, weight.fset, doc=weight.__doc__)
