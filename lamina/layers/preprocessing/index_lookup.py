"""``IndexLookup``: the vocabulary machinery behind StringLookup and IntegerLookup (Keras 3's
``keras.src.layers.preprocessing.index_lookup``), without TensorFlow lookup tables.

Index layout (Keras's): ``[mask?] [oov × num_oov_indices] [tokens ...]``; the mask slot
exists only with a ``mask_token`` and ``output_mode='int'``. Subclasses say how a batch of
inputs becomes indices (``_lookup``) and back (``_invert``).
"""
from __future__ import annotations

import itertools

from ... import backend, ops
from ...backend.host_data import as_list
from ..layer import Layer
from .category_encoding import check_not_sparse, check_output_mode, encode, encoded_shape
from .vocabulary_file import read_vocabulary_file
from .vocabulary import TokenCounter, read_vocabulary, repeated, write_vocabulary

LOOKUP_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


class IndexLookup(Layer):
    """Maps tokens to indices in a vocabulary (set, or learned by :meth:`adapt`)."""

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary_dtype,
                 vocabulary=None, idf_weights=None, invert=False, output_mode="int",
                 sparse=False, pad_to_max_tokens=False, oov_method="farmhash", salt=None,
                 name=None, **kwargs):
        frozen_size = kwargs.pop("vocabulary_size", None)
        has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        kwargs.pop("dtype", None)
        super().__init__(name=name, **kwargs)
        cls = type(self).__name__
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"{cls}: argument 'max_tokens' must be greater than 1 when set; "
                             f"received {max_tokens!r}")
        if num_oov_indices is None or num_oov_indices < 0:
            raise ValueError(f"{cls}: argument 'num_oov_indices' must be >= 0; received "
                             f"{num_oov_indices!r}")
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(f"{cls}: argument 'oov_method' must be 'floormod' or 'farmhash'; "
                             f"received {oov_method!r}")
        if output_mode == "tf-idf":
            output_mode = "tf_idf"
        output_mode = check_output_mode(cls, output_mode, LOOKUP_MODES)
        if invert and output_mode != "int":
            raise ValueError(f"{cls}: argument 'output_mode' must be 'int' when invert=True; "
                             f"received {output_mode!r}")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(f"{cls}: argument 'idf_weights' is only used with "
                             f"output_mode='tf_idf'; received output_mode={output_mode!r}")
        if output_mode == "tf_idf" and vocabulary is not None and idf_weights is None:
            raise ValueError(f"{cls}: with output_mode='tf_idf' and a 'vocabulary', argument "
                             f"'idf_weights' must be given too; received idf_weights=None")
        self.salt = _check_salt(cls, salt)
        self.max_tokens = max_tokens
        self.num_oov_indices = num_oov_indices
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.output_mode = output_mode
        self.sparse = check_not_sparse(cls, sparse)
        self.pad_to_max_tokens = pad_to_max_tokens
        self.invert = invert
        self.vocabulary_dtype = vocabulary_dtype
        self.oov_method = oov_method
        self.input_vocabulary = None if isinstance(vocabulary, str) else (
            as_list(vocabulary) if vocabulary is not None else None)
        self.input_idf_weights = as_list(idf_weights) if idf_weights is not None else None
        self._has_input_vocabulary = has_input_vocabulary
        self._frozen_vocab_size = frozen_size
        self._tokens: list = []
        self._index: dict = {}
        self._idf = None                        # full-depth idf list (tf_idf only)
        self._counter = TokenCounter()
        self.built = True
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # ------------------------------------------------------------------ index layout
    def _oov_start_index(self) -> int:
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self) -> int:
        return self._oov_start_index() + self.num_oov_indices

    def vocabulary_size(self) -> int:
        """The vocabulary's size, mask and OOV indices included."""
        return len(self._tokens) + self._token_start_index()

    def get_vocabulary(self, include_special_tokens=True) -> list:
        """The vocabulary, index order: with the special tokens, a term's position is its
        index."""
        specials = [self.oov_token] * self._token_start_index()
        if self.mask_token is not None and self.output_mode == "int":
            specials[0] = self.mask_token
        vocabulary = specials + list(self._tokens)
        return vocabulary if include_special_tokens else vocabulary[self._token_start_index():]

    def _depth(self) -> int:
        return self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size

    # ------------------------------------------------------------------ set / adapt
    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        """Replace the vocabulary (a list, array or tensor of tokens, optionally starting
        with the special tokens in index order) and, for tf_idf, its idf weights."""
        cls = type(self).__name__
        if self.output_mode == "tf_idf" and idf_weights is None:
            raise ValueError(f"{cls}.set_vocabulary: argument 'idf_weights' must be set "
                             f"when output_mode='tf_idf'")
        if self.output_mode != "tf_idf" and idf_weights is not None:
            raise ValueError(f"{cls}.set_vocabulary: argument 'idf_weights' is only used with "
                             f"output_mode='tf_idf'; received output_mode={self.output_mode!r}")
        if isinstance(vocabulary, str):
            vocabulary = read_vocabulary_file(f"{cls}.set_vocabulary", vocabulary,
                                              self.vocabulary_dtype != "string",
                                              self.output_mode == "tf_idf")
        vocabulary = self._standardize_vocabulary(as_list(vocabulary))
        if not vocabulary:
            raise ValueError(f"{cls}.set_vocabulary: cannot set an empty vocabulary")
        start = self._token_start_index()
        specials = self.get_vocabulary()[:start]
        found_specials = vocabulary[:start] == specials
        tokens = vocabulary[start:] if found_specials else vocabulary
        doubled = repeated(tokens)
        if doubled:
            raise ValueError(f"{cls}.set_vocabulary: the vocabulary repeats the term(s) "
                             f"{doubled}; every term must appear once")
        if self.mask_token is not None and self.mask_token in tokens:
            raise ValueError(f"{cls}.set_vocabulary: the mask token {self.mask_token!r} may "
                             f"only appear at the start of the vocabulary, in this order: "
                             f"{specials}; received it at index "
                             f"{vocabulary.index(self.mask_token)}")
        if self.invert and self.oov_token is not None and self.oov_token in tokens:
            raise ValueError(f"{cls}.set_vocabulary: the OOV token {self.oov_token!r} may "
                             f"only appear at the start of the vocabulary, in this order: "
                             f"{specials}; received it at index "
                             f"{vocabulary.index(self.oov_token)}")
        if self.max_tokens is not None and start + len(tokens) > self.max_tokens:
            raise ValueError(f"{cls}.set_vocabulary: the vocabulary has {start + len(tokens)} "
                             f"entries (special tokens included), more than "
                             f"max_tokens={self.max_tokens}")
        self._set_tokens(tokens)
        if idf_weights is not None:
            weights = [float(w) for w in as_list(idf_weights)]
            if len(weights) != len(vocabulary):
                raise ValueError(f"{cls}.set_vocabulary: 'idf_weights' must have one weight "
                                 f"per vocabulary entry ({len(vocabulary)}); received "
                                 f"{len(weights)}")
            if not found_specials:
                weights = [sum(weights) / len(weights)] * start + weights
            self._set_idf(weights)

    def _standardize_vocabulary(self, vocabulary: list) -> list:
        return vocabulary

    def _set_tokens(self, tokens: list) -> None:
        self._tokens = list(tokens)
        start = self._token_start_index()
        self._index = {t: start + i for i, t in enumerate(self._tokens)}
        self._on_vocabulary_change()
        size = self.vocabulary_size()
        if self.output_mode != "int" and not self.pad_to_max_tokens:
            if self._frozen_vocab_size is not None and self._frozen_vocab_size != size:
                raise RuntimeError(f"{self.name}: with output_mode={self.output_mode!r} and "
                                   f"pad_to_max_tokens=False the vocabulary size cannot change "
                                   f"once set; it was "
                                   f"{self._frozen_vocab_size}, now {size}")
        self._frozen_vocab_size = size

    def _on_vocabulary_change(self) -> None:
        """Hook for subclasses that cache the vocabulary as a tensor."""

    def _set_idf(self, weights: list) -> None:
        if self.pad_to_max_tokens and self.max_tokens is not None:
            weights = weights + [0.0] * (self.max_tokens - len(weights))
        self._idf = weights

    def adapt(self, data, steps=None) -> None:
        """Learn the vocabulary (and idf weights for tf_idf) from ``data``: an array or
        nested list (rank 1: one token per sample), or an iterable of such batches."""
        cls = type(self).__name__
        if self._has_input_vocabulary:
            raise ValueError(f"{cls}.adapt: the layer was given a fixed 'vocabulary' (or "
                             f"set_vocabulary() was called); it cannot be adapted")
        documents = (self._documents(batch) for batch in _batches(data, steps))
        self.adapt_documents(documents)

    def adapt_documents(self, batches) -> None:
        """Learn the vocabulary from ``batches``, each a list of token lists."""
        self._counter = TokenCounter()
        for documents in batches:
            self._counter.update(documents)
        if not self._counter.counts:
            self._frozen_vocab_size = self.vocabulary_size()
            return
        drop = tuple(t for t in (self.mask_token, self.oov_token) if t is not None)
        limit = None if not self.max_tokens else self.max_tokens - self._token_start_index()
        tokens = self._counter.ordered(drop, limit)
        self._set_tokens(tokens)
        if self.output_mode == "tf_idf":
            idf = self._counter.idf(tokens)
            mean = sum(idf) / len(idf) if idf else 0.0
            self._set_idf([mean] * self._token_start_index() + idf)
        self._counter = TokenCounter()

    def _documents(self, batch) -> list:
        """``batch`` as a list of token lists (subclasses convert their inputs)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ call
    def _check_known_size(self) -> None:
        if self.output_mode != "int" and not self.pad_to_max_tokens \
                and self._frozen_vocab_size is None:
            raise RuntimeError(f"{self.name}: with output_mode={self.output_mode!r} and "
                               f"pad_to_max_tokens=False, set the vocabulary (the "
                               f"'vocabulary' argument or adapt()) before calling the layer")

    def _encode(self, indices, rank0: bool):
        """Int indices (a tensor; -1 for masked entries) in the layer's ``output_mode``."""
        if self.output_mode == "int":
            return ops.squeeze(indices, -1) if rank0 else indices
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        out = encode(self.name, indices, mode, self._depth(), "int64")
        if self.output_mode != "tf_idf":
            return out
        if self._idf is None:
            raise ValueError(f"{self.name}: output_mode='tf_idf' needs idf weights (the "
                             f"'idf_weights' argument, set_vocabulary(..., idf_weights) or "
                             f"adapt())")
        idf = ops.convert_to_tensor(self._idf, dtype=backend.floatx())
        return ops.multiply(ops.cast(out, backend.floatx()), idf)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        mode = "one_hot" if self.output_mode == "one_hot" else "count"
        return encoded_shape(input_shape, mode, self._depth())

    def _output_dtype(self) -> str:
        """The dtype ``call`` returns (ints, or floats for tf_idf)."""
        return backend.floatx() if self.output_mode == "tf_idf" else "int64"

    # ------------------------------------------------------------------ saving
    def get_config(self) -> dict:
        return {**super().get_config(), "invert": self.invert, "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
                "mask_token": self.mask_token, "output_mode": self.output_mode,
                "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
                "vocabulary_dtype": self.vocabulary_dtype,
                "idf_weights": self.input_idf_weights, "vocabulary": self.input_vocabulary,
                "vocabulary_size": self._frozen_vocab_size, "oov_method": self.oov_method,
                "salt": self.salt}

    def get_build_config(self):
        return {}

    def build_from_config(self, config) -> None:
        self.built = True

    def save_assets(self, dir_path: str) -> None:
        """Keras's asset: an adapted vocabulary (not one given in the config) as
        ``vocabulary.txt``, one entry per line, special tokens included."""
        if self.input_vocabulary is None:
            write_vocabulary(dir_path, self.get_vocabulary(include_special_tokens=True))

    def load_assets(self, dir_path: str) -> None:
        if self.input_vocabulary is not None:
            return
        values = read_vocabulary(dir_path, as_int=self.vocabulary_dtype != "string",
                                 declared_size=self._frozen_vocab_size)
        if values:
            self._set_tokens(values[self._token_start_index():])


def _check_salt(cls: str, salt):
    if salt is None:
        return None
    if isinstance(salt, (tuple, list)) and len(salt) == 2:
        return [int(s) for s in salt]
    if isinstance(salt, int) and not isinstance(salt, bool):
        return [salt, salt]
    raise ValueError(f"{cls}: argument 'salt' must be an int or a pair of ints (it can only "
                     f"be a tuple of size 2 integers, or a single integer); received {salt!r}")


def _batches(data, steps=None):
    """One batch for an array, tensor, list or tuple; the items of any other iterable (at
    most ``steps`` of them, so an endless generator stops)."""
    if isinstance(data, (list, tuple, str)) or hasattr(data, "shape"):
        return [data]
    return data if steps is None else itertools.islice(data, steps)


def _is_ragged(batch) -> bool:
    """A list or tuple of sequences whose lengths differ (what Keras adapts as ragged)."""
    if not isinstance(batch, (list, tuple)) or not batch or \
            not all(isinstance(row, (list, tuple)) for row in batch):
        return False
    return len({len(row) for row in batch}) > 1
