"""``Dense``: ``activation(inputs @ kernel + bias)`` on the last axis."""
from __future__ import annotations

from ... import activations, constraints, initializers, ops, quantizers, regularizers
from ..input_spec import InputSpec
from ...quantizers.quantization_config import layer_quantization_config
from ..layer import Layer
from ..lora import LoraMixin, adapted_weight
from ..quantize import quantized_view
from . import calibrated_weights, float8_dense, int4_dense, int8_dense


class Dense(LoraMixin, calibrated_weights.CalibratedWeightsMixin, Layer):
    """A fully connected layer (Keras 3's ``Dense``); works on the last axis of N-D input.

    Weights: ``kernel`` (input_dim, units) and ``bias`` (units,). Quantized
    (``quantize(mode)`` or a ``<mode>_from_*`` policy): in int8 ``kernel`` is int8 with
    per-channel ``kernel_scale`` (``int8_dense.py``); in int4 the variable is packed and
    ``layer.kernel`` gives the int4 values (``int4_dense.py``); in float8 the kernel stays
    float and six variables hold the delayed-scaling state (``float8_dense.py``, which is
    why ``call`` takes ``training``); GPTQ and AWQ store the kernel transposed in 2 to 8
    bits (``calibrated_weights.py``). ``lora_rank`` (or
    ``enable_lora(rank)``) adapts the kernel by LoRA (``lora.py``).

    Args:
        units: Size of the output's last axis.
        activation: Activation applied to the output: a name such as 'relu', or a callable; None
            applies none (linear).
        use_bias: Whether the layer adds a bias vector to its output.
        kernel_initializer: Initializer of the ``kernel`` weight (a name, instance or callable).
        bias_initializer: Initializer of the ``bias`` weight.
        kernel_regularizer: Regularizer applied to the ``kernel`` (added to ``layer.losses``),
            or None.
        bias_regularizer: Regularizer applied to the ``bias``, or None.
        activity_regularizer: Regularizer applied to the layer's output (added to
            ``layer.losses``), or None.
        kernel_constraint: Constraint applied to the ``kernel`` after each optimizer update, or
            None.
        bias_constraint: Constraint applied to the ``bias`` after each optimizer update, or
            None.
        lora_rank: Rank of a LoRA adapter enabled from the start (trainable low-rank update of
            the kernel, which is frozen); None: no LoRA (see ``enable_lora``).
        lora_alpha: LoRA scaling numerator: the update is scaled by ``lora_alpha / lora_rank``;
            None means ``lora_rank``.
        quantization_config: A ``QuantizationConfig`` (e.g. ``Int8QuantizationConfig()``) or its
            serialized dict, used when the layer is quantized; None: the mode's defaults.

    Example:

    >>> layer = lamina.layers.Dense(4, activation="relu")
    >>> layer(np.ones((2, 3))).shape
    (2, 4)
    >>> [w.shape for w in layer.weights]
    [(3, 4), (4,)]
    """

    _lora_quantized = {"int8": int8_dense, "int4": int4_dense}
    _quantized_variable_order = {
        "int8": ("kernel", "bias", "kernel_scale"),
        "int4": ("kernel", "bias", "kernel_scale", "kernel_zero", "g_idx"),
        "float8": ("kernel", "bias", "inputs_scale", "inputs_amax_history", "kernel_scale",
                   "kernel_amax_history", "outputs_grad_scale", "outputs_grad_amax_history"),
        "gptq": ("bias", "quantized_kernel", "kernel_scale", "kernel_zero", "g_idx"),
        "awq": ("bias", "quantized_kernel", "kernel_scale", "kernel_zero", "awq_scales",
                "g_idx")}
    kernel = quantized_view(adapted_weight("kernel", "The kernel, with LoRA's update once it "
                                                    "is enabled; an int4 layer's int4 values."),
                            {"int4": int4_dense.unpacked_kernel,
                             "gptq": calibrated_weights.stored_values,
                             "awq": calibrated_weights.stored_values})

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, lora_alpha=None,
                 quantization_config=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if isinstance(units, bool) or not isinstance(units, int) or units <= 0:
            raise ValueError(f"{self.name}: argument 'units' must be a positive integer; "
                             f"received {units!r}")
        self.quantization_config = layer_quantization_config(
            self.name, quantization_config)
        self._init_lora(lora_rank, lora_alpha)
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec.described("(batch, ..., features)", min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(f"{self.name}: the last dimension of the input must be known "
                             f"to build the layer; received shape {tuple(input_shape)}")
        mode = self.quantization_mode
        if mode is not None:                 # float8's state comes before the kernel (Keras)
            self.quantized_build((input_dim, self.units), mode, self.quantization_config)
        if mode in (None, "float8"):
            self.kernel = self.add_weight(shape=(input_dim, self.units), name="kernel",
                                          initializer=self.kernel_initializer,
                                          regularizer=self.kernel_regularizer,
                                          constraint=self.kernel_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.units,), name="bias",
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.input_spec = InputSpec.described("(batch, ..., features)",
                                              min_ndim=2, axes={-1: input_dim})
        self._build_lora()

    def call(self, inputs, training=None):
        mode = self.quantization_mode
        bias = self.bias
        if mode == "int8":
            x = int8_dense.product(self, inputs, self._own_variable("kernel"),
                                   self.kernel_scale)
        elif mode == "int4":
            x = int4_dense.product(self, inputs)
        elif mode in ("gptq", "awq"):
            x = ops.matmul(inputs, calibrated_weights.kernel(self))
        elif mode == "float8":
            x = float8_dense.product(self, inputs, ops.matmul, training)
            bias = None if bias is None else float8_dense.bias(self)
        else:
            x = ops.matmul(inputs, self.kernel)
        if mode in self._lora_quantized and self.lora_enabled:
            x = self._add_lora(x, ops.matmul(inputs, self.lora_kernel_a))
        if bias is not None:
            x = ops.add(x, bias)
        return x if self.activation is None else self.activation(x)

    def _quantized_build(self, kernel_shape, mode, config) -> None:
        if mode == "int8":
            int8_dense.build(self, kernel_shape, config)
        elif mode == "int4":
            int4_dense.build(self, kernel_shape, config)
        elif mode == "float8":
            float8_dense.build(self)
        else:
            calibrated_weights.build(self, kernel_shape, config, self._calibrated_zero,
                                     mode)

    def _quantize_int8(self, config) -> None:
        int8_dense.quantize(self, config)

    def _quantize_float8(self, config) -> None:
        float8_dense.quantize(self, config)

    def _quantize_int4(self, config) -> None:
        int4_dense.quantize(self, config)

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape)[:-1], self.units)

    def get_config(self) -> dict:
        return {**super().get_config(), "units": self.units,
                "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
                "bias_regularizer": regularizers.serialize(self.bias_regularizer),
                "kernel_constraint": constraints.serialize(self.kernel_constraint),
                "bias_constraint": constraints.serialize(self.bias_constraint),
                "quantization_config": quantizers.serialize(self.quantization_config),
                **self._lora_config()}
