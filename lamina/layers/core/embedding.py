"""``Embedding``: integer ids to dense vectors, a row lookup in ``embeddings``."""
from __future__ import annotations

from ... import constraints, initializers, ops, quantizers, regularizers
from ...dtypes import is_float
from ...errors import ArgumentTypeError
from ...ops.indexing import checked_take
from ...quantizers.quantization_config import layer_quantization_config
from ..layer import Layer
from ..lora import LoraMixin, adapted_weight
from ..quantize import quantized_view
from . import int4_embedding, int8_embedding


class Embedding(LoraMixin, Layer):
    """Maps integer ids in ``[0, input_dim)`` to vectors of size ``output_dim`` (Keras 3's
    ``Embedding``). Float ids are cast to int32; the output has the compute dtype.

    Weight: ``embeddings`` (input_dim, output_dim). With ``mask_zero=True`` id 0 is padding:
    the output mask is ``inputs != 0`` (so ``input_dim`` should count the padding id).
    ``weights=[array]`` sets the initial embeddings; ``input_length`` (Keras 2 configs) sets
    the input shape ``(None, input_length)``. Quantized to int8, ``embeddings`` is int8 and
    ``embeddings_scale`` (input_dim,) holds one scale per row (see ``int8_embedding.py``);
    in int4 the variable is packed and ``layer.embeddings`` gives the int4 values
    (``int4_embedding.py``). ``lora_rank`` (or ``enable_lora(rank)``) adapts the
    embeddings by LoRA (``lora.py``).

    Args:
        input_dim: Vocabulary size: the largest id plus one.
        output_dim: Size of each embedding vector.
        embeddings_initializer: Initializer of the ``embeddings`` table (default uniform in
            [-0.05, 0.05]).
        embeddings_regularizer: Regularizer of the ``embeddings`` table, or None.
        embeddings_constraint: Constraint of the ``embeddings`` table, or None.
        mask_zero: Whether id 0 is padding: the output then carries the mask ``inputs != 0``.
        weights: Optional ``[array]`` of initial embeddings, shaped ``(input_dim, output_dim)``.
        lora_rank: Rank of a LoRA adapter enabled from the start (trainable low-rank update of
            the kernel, which is frozen); None: no LoRA (see ``enable_lora``).
        lora_alpha: LoRA scaling numerator: the update is scaled by ``lora_alpha / lora_rank``;
            None means ``lora_rank``.
        quantization_config: A ``QuantizationConfig`` (e.g. ``Int8QuantizationConfig()``) or its
            serialized dict, used when the layer is quantized; None: the mode's defaults.

    Example:

    >>> layer = lamina.layers.Embedding(10, 3)
    >>> layer(np.array([[1, 2, 0]])).shape
    (1, 3, 3)
    """

    _quantized_variable_order = {
        "int8": ("embeddings", "embeddings_scale"),
        "int4": ("embeddings", "embeddings_scale", "embeddings_zero", "g_idx")}
    _lora_target = "embeddings"
    _lora_quantized = {"int8": int8_embedding, "int4": int4_embedding}
    embeddings = quantized_view(
        adapted_weight("embeddings", "The embeddings, with LoRA's update once it is enabled; "
                                     "an int4 layer's int4 values."),
        {"int4": int4_embedding.unpacked_embeddings})

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False,
                 weights=None, lora_rank=None, lora_alpha=None, quantization_config=None,
                 **kwargs):
        input_length = kwargs.pop("input_length", None)
        if input_length is not None and not {"input_shape", "batch_input_shape"} & set(kwargs):
            kwargs["input_shape"] = (input_length,)
        super().__init__(**kwargs)
        for arg, value in (("input_dim", input_dim), ("output_dim", output_dim)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                # a ValueError, and the TypeError Keras's from_config raises for it
                raise ArgumentTypeError(f"{self.name}: argument `{arg}` must be a positive "
                                        f"integer; received {value!r} (of type "
                                        f"{type(value).__name__})")
        self._init_lora(lora_rank, lora_alpha)
        self.quantization_config = layer_quantization_config(
            self.name, quantization_config)
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = bool(mask_zero)
        self.supports_masking = self.mask_zero
        self.autocast = False
        if weights is not None:
            self.build()
            if not (isinstance(weights, (list, tuple)) and len(weights) == 1):
                weights = [weights]
            self.set_weights(weights)

    def build(self, input_shape=None):
        mode = self.quantization_mode
        if mode is not None:
            self.quantized_build((self.input_dim, self.output_dim), mode,
                                 self.quantization_config)
        else:
            self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                              name="embeddings",
                                              initializer=self.embeddings_initializer,
                                              regularizer=self.embeddings_regularizer,
                                              constraint=self.embeddings_constraint)
        self._build_lora()

    def call(self, inputs):
        if is_float(inputs.dtype) or inputs.dtype == "bool":
            inputs = ops.cast(inputs, "int32")
        # The gather checks the ids in eager and graph mode alike (cupy would wrap them).
        message = (f"{self.name}: input ids must be in [0, {self.input_dim}) (argument "
                   f"'input_dim' is {self.input_dim}); received id {{bad}} (ids from {{low}} "
                   f"to {{high}})")
        def take(table, ids):
            return checked_take(table, ids, axis=0, range_message=message)
        helpers = {"int8": int8_embedding, "int4": int4_embedding}.get(
            self.quantization_mode)
        if helpers is not None:
            outputs = helpers.lookup(self, inputs, take)
            if self.lora_enabled:
                outputs = self._add_lora(outputs, take(self.lora_embeddings_a, inputs))
            return outputs
        return ops.cast(take(self.embeddings, inputs), self.compute_dtype)

    def _quantized_build(self, embeddings_shape, mode, config) -> None:
        if mode == "int8":
            int8_embedding.build(self)
        else:
            int4_embedding.build(self, config)

    def _quantize_int8(self, config) -> None:
        int8_embedding.quantize(self, config)

    def _quantize_int4(self, config) -> None:
        int4_embedding.quantize(self, config)

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return ops.not_equal(inputs, 0)

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape), self.output_dim)

    def get_config(self) -> dict:
        return {**super().get_config(), "input_dim": self.input_dim,
                "output_dim": self.output_dim,
                "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
                "embeddings_regularizer": regularizers.serialize(self.embeddings_regularizer),
                "activity_regularizer": regularizers.serialize(self.activity_regularizer),
                "embeddings_constraint": constraints.serialize(self.embeddings_constraint),
                "mask_zero": self.mask_zero,
                "quantization_config": quantizers.serialize(self.quantization_config),
                **self._lora_config()}
