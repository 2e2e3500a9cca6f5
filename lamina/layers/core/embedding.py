"""``Embedding``: integer ids to dense vectors, a row lookup in ``embeddings``."""
from __future__ import annotations

from ... import constraints, initializers, ops, regularizers
from ...dtypes import is_float
from ...ops.indexing import checked_take
from ..layer import Layer


class Embedding(Layer):
    """Maps integer ids in ``[0, input_dim)`` to vectors of size ``output_dim`` (Keras 3's
    ``Embedding``). Float ids are cast to int32; the output has the compute dtype.

    Weight: ``embeddings`` (input_dim, output_dim). With ``mask_zero=True`` id 0 is padding:
    the output mask is ``inputs != 0`` (so ``input_dim`` should count the padding id).
    ``weights=[array]`` sets the initial embeddings; ``input_length`` (Keras 2 configs) sets
    the input shape ``(None, input_length)``.
    """

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
                raise ValueError(f"{self.name}: argument '{arg}' must be a positive int; "
                                 f"received {value!r}")
        for arg, value in (("lora_rank", lora_rank), ("quantization_config",
                                                      quantization_config)):
            if value is not None:
                raise ValueError(f"{self.name}: argument '{arg}' is not supported by Lamina; "
                                 f"received {value!r}")
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
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                          name="embeddings",
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)

    def call(self, inputs):
        if is_float(inputs.dtype) or inputs.dtype == "bool":
            inputs = ops.cast(inputs, "int32")
        # The gather checks the ids in eager and graph mode alike (cupy would wrap them).
        message = (f"{self.name}: input ids must be in [0, {self.input_dim}) (argument "
                   f"'input_dim' is {self.input_dim}); received id {{bad}} (ids from {{low}} "
                   f"to {{high}})")
        outputs = checked_take(self.embeddings, inputs, axis=0, range_message=message)
        return ops.cast(outputs, self.compute_dtype)

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
                "mask_zero": self.mask_zero, "quantization_config": None}
