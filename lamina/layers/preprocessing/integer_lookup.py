"""``IntegerLookup``: integer tokens to vocabulary indices (or back, with ``invert=True``)."""
from __future__ import annotations

from ... import ops
from ...backend.host_data import host_array, map_elements
from ...backend.string_hashing import fingerprint64, siphash64
from ...core.symbolic import SymbolicTensor
from ...dtypes import is_float, is_int
from .host_layer import HostLayer
from .index_lookup import IndexLookup, _is_ragged


class IntegerLookup(HostLayer, IndexLookup):
    """Maps integer tokens to indices in a vocabulary (Keras 3's ``IntegerLookup``).

    As :class:`StringLookup`, for integers: the default OOV token is -1; with several OOV
    indices an unknown value ``v`` goes to ``v mod num_oov_indices`` (``oov_method=
    'floormod'``) or to FarmHash64 of its decimal text (``'farmhash'``, SipHash64 with
    ``salt``). Inputs are ints, lists, numpy arrays or tensors; runs on the host, outside a
    model's graph (see :class:`HostLayer`).

    Args:
        max_tokens: Largest vocabulary size learned by ``adapt``, counting the mask and OOV
            indices; None: no limit.
        num_oov_indices: Number of indices reserved for out-of-vocabulary tokens.
        mask_token: Token that maps to index 0 (the mask); None: no mask index.
        oov_token: Token returned for out-of-vocabulary indices by ``invert=True`` (default -1).
        vocabulary: The vocabulary: a list or array of tokens, or the path of a text file with
            one token per line; None: learn it with ``adapt``.
        vocabulary_dtype: Integer dtype of the vocabulary and inputs (default 'int64').
        idf_weights: With ``output_mode='tf_idf'`` and a given vocabulary: one
            inverse-document-frequency weight per vocabulary token.
        invert: Whether to map indices back to tokens instead (output_mode 'int' only).
        output_mode: 'int' (indices), or 'one_hot', 'multi_hot', 'count', 'tf_idf' (vectors of
            the vocabulary's size).
        sparse: Must be False: Lamina tensors are dense, and True raises ValueError.
        pad_to_max_tokens: With 'multi_hot', 'count' or 'tf_idf', whether to pad the output to
            ``max_tokens`` columns.
        oov_method: How unknown values pick an OOV index when there are several: 'floormod' or
            'farmhash'.
        salt: Key (an int or a pair of ints) for SipHash hashing of OOV tokens; None uses
            FarmHash64.
        name: Name of the layer; None derives a unique one from the class name.
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1,
                 vocabulary=None, vocabulary_dtype="int64", idf_weights=None, invert=False,
                 output_mode="int", sparse=False, pad_to_max_tokens=False,
                 oov_method="floormod", salt=None, name=None, **kwargs):
        if vocabulary_dtype != "int64":
            raise ValueError(f"IntegerLookup: argument 'vocabulary_dtype' must be 'int64' "
                             f"(Keras supports only that); received {vocabulary_dtype!r}")
        if salt is not None and oov_method != "farmhash":
            raise ValueError(f"IntegerLookup: argument 'salt' is only used with "
                             f"oov_method='farmhash'; received oov_method={oov_method!r}")
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token,
                         vocabulary_dtype=vocabulary_dtype, vocabulary=vocabulary,
                         idf_weights=idf_weights, invert=invert, output_mode=output_mode,
                         sparse=sparse, pad_to_max_tokens=pad_to_max_tokens,
                         oov_method=oov_method, salt=salt, name=name, **kwargs)

    def _standardize_vocabulary(self, vocabulary: list) -> list:
        return [self._as_int(v, "vocabulary") for v in vocabulary]

    def _as_int(self, value, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                (isinstance(value, float) and not value.is_integer()):
            raise TypeError(f"{self.name}: {where} must hold integers; received {value!r} "
                            f"of type {type(value).__name__}")
        return int(value)

    def _host(self, data, where: str):
        array = host_array(data)
        if array.dtype.kind not in "iuf" and array.size:
            raise TypeError(f"{self.name}.{where}: expected integers; received an array of "
                            f"dtype {array.dtype}")
        return array.astype("int64")

    def _documents(self, batch) -> list:
        if _is_ragged(batch):                   # a list of token lists of any lengths
            return [self._host(row, "adapt").reshape(-1).tolist() for row in batch]
        data = self._host(batch, "adapt")
        if data.ndim == 0:
            return [[int(data)]]
        rows = data.reshape(-1, 1) if data.ndim == 1 else data.reshape(data.shape[0], -1)
        return rows.tolist()

    def _oov_index(self, value: int) -> int:
        if self.num_oov_indices == 0:
            raise ValueError(f"{self.name}: with num_oov_indices=0 every input must be in the "
                             f"vocabulary; found the OOV value {value} (set num_oov_indices=1 "
                             f"to map unknown values to an OOV index)")
        start = self._oov_start_index()
        if self.num_oov_indices == 1:
            return start
        if self.oov_method == "floormod":
            return start + value % self.num_oov_indices
        raw = str(value).encode()
        digest = siphash64(self.salt, raw) if self.salt is not None else fingerprint64(raw)
        return start + digest % self.num_oov_indices

    def _index_of(self, value: int) -> int:
        if self.mask_token is not None and value == self.mask_token:
            return 0 if self.output_mode == "int" else -1
        index = self._index.get(value)
        return self._oov_index(value) if index is None else index

    def call(self, inputs):
        data = self._host(inputs, "call")
        if self.invert:
            vocabulary = self.get_vocabulary()
            size = len(vocabulary)
            return ops.convert_to_tensor(map_elements(
                lambda i: vocabulary[i] if 0 <= i < size else self.oov_token, data, "int64"))
        self._check_known_size()
        indices = ops.convert_to_tensor(map_elements(self._index_of, data, "int64"))
        rank0 = indices.ndim == 0
        if rank0:
            indices = ops.expand_dims(indices, -1)
        return self._encode(indices, rank0)

    def host_output_spec(self, inputs):
        if not isinstance(inputs, SymbolicTensor):
            return None
        if not (is_int(inputs.dtype) or is_float(inputs.dtype)):
            raise TypeError(f"{self.name}: expected integers; received a symbolic input of "
                            f"dtype {inputs.dtype}")
        if self.output_mode != "int":
            self._check_known_size()
        return SymbolicTensor(self.compute_output_shape(inputs.shape), self._output_dtype())

    def get_config(self) -> dict:
        config = super().get_config()
        for key in ("oov_token", "mask_token"):
            if config[key] is not None:
                config[key] = int(config[key])
        return config
