"""``StringLookup``: strings to vocabulary indices (or back, with ``invert=True``)."""
from __future__ import annotations

from ... import ops
from ...backend.host_data import host_array, map_elements
from ...backend.string_hashing import fingerprint64, siphash64
from .host_layer import HostLayer
from .index_lookup import IndexLookup, _is_ragged


class StringLookup(HostLayer, IndexLookup):
    """Maps strings to integer indices in a vocabulary (Keras 3's ``StringLookup``).

    The vocabulary is given (``vocabulary=[...]``) or learned by :meth:`adapt` (most
    frequent first; ties by the string, highest first). Index 0 is the mask
    (``mask_token``, output_mode 'int' only), then ``num_oov_indices`` OOV indices (several:
    an OOV string goes to FarmHash64(string) mod num_oov_indices, or SipHash64 with
    ``salt``), then the vocabulary. ``output_mode`` 'one_hot', 'multi_hot', 'count' and
    'tf_idf' encode the indices (int64; float32 for tf_idf).

    Inputs are strings on the host: a str, nested lists, a numpy array of str or bytes.
    The output is a tensor; with ``invert=True`` (int indices in) it is a numpy array of str,
    since Lamina tensors hold numbers only. Use it on the data before ``fit``/``predict``.

    Args:
        max_tokens: Largest vocabulary size learned by ``adapt``, counting the mask and OOV
            indices; None: no limit.
        num_oov_indices: Number of indices reserved for out-of-vocabulary tokens.
        mask_token: Token that maps to index 0 (the mask); None: no mask index.
        oov_token: Token of the OOV indices, returned for them by ``invert=True`` (default
            '[UNK]').
        vocabulary: The vocabulary: a list or array of tokens, or the path of a text file with
            one token per line; None: learn it with ``adapt``.
        idf_weights: With ``output_mode='tf_idf'`` and a given vocabulary: one
            inverse-document-frequency weight per vocabulary token.
        invert: Whether to map indices back to tokens instead (output_mode 'int' only).
        output_mode: 'int' (indices), or 'one_hot', 'multi_hot', 'count', 'tf_idf' (vectors of
            the vocabulary's size).
        pad_to_max_tokens: With 'multi_hot', 'count' or 'tf_idf', whether to pad the output to
            ``max_tokens`` columns.
        sparse: Must be False: Lamina tensors are dense, and True raises ValueError.
        encoding: Text encoding of bytes inputs (default 'utf-8').
        name: Name of the layer; None derives a unique one from the class name.
        salt: Key (an int or a pair of ints) for SipHash hashing of OOV tokens; None uses
            FarmHash64.
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]",
                 vocabulary=None, idf_weights=None, invert=False, output_mode="int",
                 pad_to_max_tokens=False, sparse=False, encoding="utf-8", name=None,
                 salt=None, **kwargs):
        kwargs.pop("vocabulary_dtype", None)
        self.encoding = encoding
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token,
                         vocabulary_dtype="string", vocabulary=vocabulary,
                         idf_weights=idf_weights, invert=invert, output_mode=output_mode,
                         sparse=sparse, pad_to_max_tokens=pad_to_max_tokens, salt=salt,
                         name=name, **kwargs)

    def _documents(self, batch) -> list:
        if _is_ragged(batch):                   # a list of token lists of any lengths
            return [self._host(row, "adapt").reshape(-1).tolist() for row in batch]
        data = self._host(batch, "adapt")
        if data.ndim == 0:
            return [[data.item()]]
        rows = data.reshape(-1, 1) if data.ndim == 1 else data.reshape(data.shape[0], -1)
        return [list(row) for row in rows.tolist()]

    def _host(self, data, where: str):
        array = host_array(data, self.encoding)
        bad = [v for v in array.reshape(-1).tolist() if not isinstance(v, str)][:1]
        if bad:
            raise TypeError(f"{self.name}.{where}: expected strings (str or bytes); received "
                            f"a value {bad[0]!r} of type {type(bad[0]).__name__}")
        return array

    def _oov_index(self, token: str) -> int:
        if self.num_oov_indices == 0:
            raise ValueError(f"{self.name}: with num_oov_indices=0 every input must be in the "
                             f"vocabulary; found the OOV value {token!r} (set "
                             f"num_oov_indices=1 to map unknown strings to an OOV index)")
        start = self._oov_start_index()
        if self.num_oov_indices == 1:
            return start
        raw = token.encode("utf-8")
        digest = siphash64(self.salt, raw) if self.salt is not None else fingerprint64(raw)
        return start + digest % self.num_oov_indices

    def _index_of(self, token: str) -> int:
        if self.mask_token is not None and token == self.mask_token:
            return 0 if self.output_mode == "int" else -1
        index = self._index.get(token)
        return self._oov_index(token) if index is None else index

    def call(self, inputs):
        if self.invert:
            return self._invert(inputs)
        self._check_known_size()
        data = self._host(inputs, "call")
        indices = ops.convert_to_tensor(map_elements(self._index_of, data, "int64"))
        rank0 = indices.ndim == 0
        if rank0:
            indices = ops.expand_dims(indices, -1)
        return self._encode(indices, rank0)

    def _invert(self, inputs):
        """Indices to strings, as a numpy array of str."""
        indices = host_array(inputs)
        vocabulary = self.get_vocabulary()
        size = len(vocabulary)

        def token(i):
            return vocabulary[int(i)] if 0 <= int(i) < size else self.oov_token
        return map_elements(token, indices, object)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["vocabulary_dtype"]
        config["encoding"] = self.encoding
        return config
