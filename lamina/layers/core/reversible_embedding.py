"""``ReversibleEmbedding``: an embedding that also maps vectors back to logits over ids."""
from __future__ import annotations

from ... import ops
from ...dtypes import is_float
from . import int4_reversible_embedding, int8_reversible_embedding
from .embedding import Embedding


class ReversibleEmbedding(Embedding):
    """Keras 3's ``ReversibleEmbedding``: ``layer(ids)`` looks rows up as
    :class:`Embedding` does; ``layer(hidden, reverse=True)`` returns the logits
    ``hidden @ embeddings.T`` (``tie_weights=True``) or ``hidden @ reverse_embeddings``.

    Weights: ``embeddings`` (input_dim, output_dim) and, untied, ``reverse_embeddings``
    (output_dim, input_dim). ``reverse_dtype`` casts both operands of the reverse product;
    ``logit_soft_cap=c`` gives ``c * tanh(logits / c)``. The reverse call has no mask.
    Quantized to int8, the tables are int8 with per-id scales (``embeddings_scale``,
    ``reverse_embeddings_scale``; see ``int8_reversible_embedding.py``); in int4 they are
    packed, per id or in groups (``int4_reversible_embedding.py``).

    Args:
        input_dim: Vocabulary size: the largest id plus one.
        output_dim: Size of each embedding vector.
        tie_weights: Whether the reverse projection uses the transposed ``embeddings`` (else its
            own ``reverse_embeddings``).
        embeddings_initializer: Initializer of the ``embeddings`` table (default uniform in
            [-0.05, 0.05]).
        embeddings_regularizer: Regularizer of the ``embeddings`` table, or None.
        embeddings_constraint: Constraint of the ``embeddings`` table, or None.
        mask_zero: Whether id 0 is padding: the output then carries the mask ``inputs != 0``.
        reverse_dtype: Dtype both operands of the reverse product are cast to; None: the compute
            dtype.
        logit_soft_cap: Soft cap ``c`` of the reverse logits: ``c * tanh(logits / c)``; None:
            none.
    """

    _lora_quantized = {}      # LoRA is not combined with quantization here
    _quantized_variable_order = {
        "int8": ("embeddings", "embeddings_scale", "reverse_embeddings",
                 "reverse_embeddings_scale"),
        "int4": ("embeddings", "embeddings_scale", "embeddings_zero", "g_idx",
                 "reverse_embeddings", "reverse_embeddings_scale", "reverse_embeddings_zero")}

    def __init__(self, input_dim, output_dim, tie_weights=True,
                 embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, reverse_dtype=None,
                 logit_soft_cap=None, **kwargs):
        super().__init__(input_dim, output_dim, embeddings_initializer=embeddings_initializer,
                         embeddings_regularizer=embeddings_regularizer,
                         embeddings_constraint=embeddings_constraint, mask_zero=mask_zero,
                         **kwargs)
        if logit_soft_cap is not None and not (
                isinstance(logit_soft_cap, (int, float)) and not isinstance(logit_soft_cap, bool)
                and logit_soft_cap > 0):
            raise ValueError(f"{self.name}: argument 'logit_soft_cap' must be None or a "
                             f"positive number; received {logit_soft_cap!r}")
        self.tie_weights = bool(tie_weights)
        self.reverse_dtype = reverse_dtype
        self.logit_soft_cap = logit_soft_cap

    def build(self, input_shape=None):
        if self.quantization_mode is not None:
            self.quantized_build((self.input_dim, self.output_dim), self.quantization_mode,
                                 self.quantization_config)
            return
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(
                shape=(self.output_dim, self.input_dim), name="reverse_embeddings",
                initializer=self.embeddings_initializer)

    def call(self, inputs, reverse=False):
        if not reverse:
            return super().call(inputs)
        if self.quantization_mode == "int8":         # reverse_dtype plays no part, as in Keras
            logits = int8_reversible_embedding.logits(self, inputs)
        elif self.quantization_mode == "int4":
            logits = int4_reversible_embedding.logits(self, inputs)
        else:
            kernel = (ops.transpose(self.embeddings) if self.tie_weights
                      else self.reverse_embeddings)
            if self.reverse_dtype is not None:
                inputs = ops.cast(inputs, self.reverse_dtype)
                kernel = ops.cast(kernel, self.reverse_dtype)
            else:
                kernel = ops.cast(kernel, inputs.dtype)
            logits = ops.matmul(inputs, kernel)
        if self.logit_soft_cap is not None:
            cap = self.logit_soft_cap
            logits = ops.multiply(ops.tanh(ops.divide(logits, cap)), cap)
        return logits

    def _quantized_build(self, embeddings_shape, mode, config) -> None:
        if mode == "int8":
            int8_reversible_embedding.build(self, config)
        else:
            int4_reversible_embedding.build(self, config)

    def _quantize_int8(self, config) -> None:
        int8_reversible_embedding.quantize(self, config)

    def _quantize_int4(self, config) -> None:
        int4_reversible_embedding.quantize(self, config)

    def compute_mask(self, inputs, mask=None):
        # Ids (integers) get Embedding's mask; hidden vectors (the reverse call) none.
        if is_float(inputs.dtype):
            return None
        return super().compute_mask(inputs, mask)

    def compute_output_shape(self, input_shape, reverse=False):
        if reverse:
            return (*tuple(input_shape)[:-1], self.input_dim)
        return super().compute_output_shape(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "tie_weights": self.tie_weights,
                "reverse_dtype": self.reverse_dtype, "logit_soft_cap": self.logit_soft_cap}
