"""``CategoryEncoding``: integer tokens in [0, num_tokens) as one-hot, multi-hot or count
vectors."""
from __future__ import annotations

from ... import ops
from ...dtypes import is_float
from ..layer import Layer

OUTPUT_MODES = ("multi_hot", "one_hot", "count")


def check_output_mode(name: str, output_mode, modes=OUTPUT_MODES) -> str:
    if output_mode == "binary":              # Keras's deprecated name for multi_hot
        output_mode = "multi_hot"
    if output_mode not in modes:
        raise ValueError(f"{name}: Invalid value for argument `output_mode`. Expected one of "
                         f"{', '.join(repr(m) for m in modes)}; received {output_mode!r}")
    return output_mode


def check_not_sparse(name: str, sparse, output_mode=None) -> bool:
    if sparse and output_mode == "int":
        raise ValueError(f"{name}: `sparse` may only be true if `output_mode` is 'one_hot', "
                         f"'multi_hot' or 'count'; received sparse={sparse!r} with "
                         f"output_mode='int'")
    if sparse:
        raise ValueError(f"{name}: argument 'sparse' must be False (Lamina tensors are "
                         f"dense); received {sparse!r}")
    return False


def encode(name: str, tokens, output_mode: str, depth: int, dtype: str, count_weights=None):
    """Keras's ``encode_categorical_inputs``: a rank-0 input is one token; one-hot appends
    a ``depth`` axis (replacing a trailing axis of size 1 when the input has rank >= 2);
    multi-hot and count reduce axis 1 of a rank >= 2 input (axis 0 of a rank-1 input), so
    ``(batch, tokens, features)`` becomes ``(batch, features, depth)`` as in Keras."""
    if is_float(tokens.dtype) or tokens.dtype == "bool":
        tokens = ops.cast(tokens, "int32")
    if output_mode == "one_hot":
        if tokens.ndim > 1 and tokens.shape[-1] == 1:
            tokens = ops.squeeze(tokens, axis=-1)
        return ops.one_hot(tokens, depth, dtype=dtype)
    if tokens.ndim == 0:
        tokens = ops.expand_dims(tokens, -1)
    hot = ops.one_hot(tokens, depth, dtype=dtype)
    axis = 1 if tokens.ndim > 1 else 0
    if output_mode == "multi_hot":
        return ops.max(hot, axis=axis)
    if count_weights is not None:
        weights = ops.cast(ops.convert_to_tensor(count_weights), dtype)
        if tuple(weights.shape) != tuple(tokens.shape):
            raise ValueError(f"{name}: argument 'count_weights' must have the input's shape "
                             f"{tuple(tokens.shape)}; received {tuple(weights.shape)}")
        hot = ops.multiply(hot, ops.expand_dims(weights, -1))
    return ops.sum(hot, axis=axis)


def encoded_shape(input_shape, output_mode: str, depth: int) -> tuple:
    """The shape :func:`encode` returns for ``input_shape``."""
    input_shape = tuple(input_shape)
    if not input_shape:
        return (depth,)
    if output_mode == "one_hot":
        if len(input_shape) > 1 and input_shape[-1] == 1:
            return input_shape[:-1] + (depth,)
        return input_shape + (depth,)
    if len(input_shape) == 1:
        return (depth,)
    return (input_shape[0],) + input_shape[2:] + (depth,)


class CategoryEncoding(Layer):
    """Encodes integer tokens as dense vectors of length ``num_tokens`` (Keras 3's
    ``CategoryEncoding``).

    ``output_mode``: 'multi_hot' (1 where a token occurs in the sample), 'one_hot' (one
    vector per token; a trailing axis of size 1 is replaced) or 'count' (occurrences,
    weighted by ``count_weights`` when given to ``call``). Tokens outside [0, num_tokens)
    encode as zeros. No weights.

    Args:
        num_tokens: Number of tokens; inputs are ints in ``[0, num_tokens)``.
        output_mode: 'multi_hot', 'one_hot' or 'count'.
        sparse: Must be False: Lamina tensors are dense, and True raises ValueError.
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in OUTPUT_MODES:
            raise ValueError(f"{self.name}: Unknown arg for output_mode: {output_mode}; "
                             f"expected one of {', '.join(repr(m) for m in OUTPUT_MODES)}")
        if num_tokens is None:
            raise ValueError(f"{self.name}: num_tokens must be set to use this layer (a "
                             f"positive int; when the number of tokens is not known "
                             f"beforehand, use IntegerLookup); received None")
        if isinstance(num_tokens, bool) or not isinstance(num_tokens, int) or num_tokens < 1:
            raise ValueError(f"{self.name}: `num_tokens` must be >= 1 (a positive int); "
                             f"received num_tokens={num_tokens!r}")
        self.num_tokens = num_tokens
        self.output_mode = output_mode
        self.sparse = check_not_sparse(self.name, sparse)

    def call(self, inputs, count_weights=None):
        if count_weights is not None and self.output_mode != "count":
            raise ValueError(f"{self.name}: `count_weights` is not used when `output_mode` "
                             f"is not 'count'; received output_mode={self.output_mode!r}")
        return self._encode(inputs, count_weights)

    def _encode(self, inputs, count_weights=None):
        """The encoding of ``inputs`` (Keras's ``CategoryEncoding._encode``)."""
        return encode(self.name, ops.convert_to_tensor(inputs), self.output_mode,
                      self.num_tokens, self.compute_dtype, count_weights)

    def compute_output_shape(self, input_shape):
        return encoded_shape(input_shape, self.output_mode, self.num_tokens)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_tokens": self.num_tokens,
                "output_mode": self.output_mode, "sparse": self.sparse}
