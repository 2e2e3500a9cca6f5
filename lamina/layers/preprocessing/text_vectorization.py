"""``TextVectorization``: raw strings to token indices or bag-of-words vectors."""
from __future__ import annotations

from ... import ops
from ...registry import deserialize_keras_object, serialize_keras_object
from ...backend.host_data import host_array, map_elements, ragged_to_dense, unicode_array
from .host_layer import HostLayer
from .index_lookup import LOOKUP_MODES, _batches
from .string_lookup import StringLookup
from .text_standardize import SPLIT, STANDARDIZE, ngrams, split_text, standardize_text


class TextVectorization(HostLayer):
    """Standardizes, splits and ngrams strings, then looks the tokens up in a vocabulary
    (Keras 3's ``TextVectorization``; ``ragged=False`` only).

    ``standardize``: 'lower_and_strip_punctuation', 'lower', 'strip_punctuation', None, or a
    callable given a numpy array of str (returning one). ``split``: 'whitespace',
    'character', None, or a callable given a 1-D numpy array of str and returning one token
    list per string. ``output_mode='int'`` gives a (batch, length) int64 tensor, padded with
    0 (the mask index; 1 is OOV) to ``output_sequence_length`` or the longest sample;
    'multi_hot', 'count' and 'tf_idf' give (batch, vocabulary_size) vectors.

    Lamina has no string tensors: call it on lists or numpy arrays of str, in the input
    pipeline (``dataset.map(layer)``, or ``x = layer(texts)`` before ``fit``), and feed the
    model the result. In a functional model it raises an error saying so.

    Args:
        max_tokens: Largest vocabulary size learned by ``adapt``, counting the mask and OOV
            indices; None: no limit.
        standardize: 'lower_and_strip_punctuation', 'lower', 'strip_punctuation', None, or a
            callable on a numpy array of str.
        split: 'whitespace', 'character', None, or a callable returning one token list per
            string.
        ngrams: None, an int n (all ngrams up to n) or a tuple of ngram sizes.
        output_mode: 'int' (token indices), or 'multi_hot', 'count', 'tf_idf' (vectors of the
            vocabulary's size).
        output_sequence_length: With output_mode 'int', pad or truncate each sequence to this
            length; None: the longest sample.
        pad_to_max_tokens: With 'multi_hot', 'count' or 'tf_idf', whether to pad the output to
            ``max_tokens`` columns.
        vocabulary: The vocabulary: a list or array of tokens, or the path of a text file with
            one token per line; None: learn it with ``adapt``.
        idf_weights: With ``output_mode='tf_idf'`` and a given vocabulary: one
            inverse-document-frequency weight per vocabulary token.
        sparse: Must be False: Lamina tensors are dense, and True raises ValueError.
        ragged: Must be False: Lamina has no ragged tensors (True raises ValueError).
        encoding: Text encoding of bytes inputs (default 'utf-8').
        name: Name of the layer; None derives a unique one from the class name.
    """

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation",
                 split="whitespace", ngrams=None, output_mode="int",
                 output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None,
                 **kwargs):
        has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        vocabulary_size = kwargs.pop("vocabulary_size", None)
        super().__init__(name=name, **kwargs)
        cls = "TextVectorization"
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode == "tf-idf":
            output_mode = "tf_idf"
        if output_mode not in LOOKUP_MODES or output_mode == "one_hot":
            raise ValueError(f"{cls}: argument 'output_mode' must be one of 'int', "
                             f"'multi_hot', 'count', 'tf_idf'; received {output_mode!r}")
        if not (standardize is None or standardize in STANDARDIZE or callable(standardize)):
            raise ValueError(f"{cls}: argument 'standardize' must be one of {STANDARDIZE}, "
                             f"None or a callable; received {standardize!r}")
        if not (split is None or split in SPLIT or callable(split)):
            raise ValueError(f"{cls}: argument 'split' must be one of {SPLIT}, None or a "
                             f"callable; received {split!r}")
        if not (ngrams is None or (isinstance(ngrams, int) and not isinstance(ngrams, bool))
                or (isinstance(ngrams, tuple) and all(isinstance(n, int) for n in ngrams))):
            raise ValueError(f"{cls}: argument 'ngrams' must be None, an int or a tuple of "
                             f"ints; received {ngrams!r}")
        if output_sequence_length is not None and (
                not isinstance(output_sequence_length, int) or output_sequence_length < 1):
            raise ValueError(f"{cls}: argument 'output_sequence_length' must be None or a "
                             f"positive int; received {output_sequence_length!r}")
        if output_mode != "int" and output_sequence_length is not None:
            raise ValueError(f"{cls}: `output_sequence_length` must not be set if "
                             f"`output_mode` is not 'int' (it is only used with "
                             f"output_mode='int'); received output_mode={output_mode!r}")
        if ragged:
            raise ValueError(f"{cls}: argument 'ragged' must be False (Lamina has no ragged "
                             f"tensors); received {ragged!r}")
        self._standardize = standardize
        self._split = split
        self._ngrams_arg = ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._output_mode = output_mode
        self._output_sequence_length = output_sequence_length
        self._ragged = ragged
        self._encoding = encoding
        self._lookup_layer = StringLookup(
            max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
            pad_to_max_tokens=pad_to_max_tokens, mask_token="", output_mode=output_mode,
            sparse=sparse, has_input_vocabulary=has_input_vocabulary, encoding=encoding,
            vocabulary_size=vocabulary_size)

    # ------------------------------------------------------------------ vocabulary
    def adapt(self, data, steps=None) -> None:
        """Learn the vocabulary from strings: an array or list (one text per sample), or an
        iterable of such batches."""
        self._lookup_layer.adapt_documents(
            self._tokens(batch) for batch in _batches(data, steps))

    def get_vocabulary(self, include_special_tokens=True) -> list:
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self) -> int:
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None) -> None:
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights=idf_weights)

    # ------------------------------------------------------------------ call
    def _tokens(self, inputs) -> list:
        """Standardized, split and ngrammed token lists, one per sample."""
        data = host_array(inputs, self._encoding)
        if data.ndim == 0:
            data = data.reshape(1)
        if data.ndim == 2 and data.shape[-1] == 1:
            data = data[:, 0]
        if data.ndim != 1:
            raise ValueError(f"{self.name}: inputs must be strings of shape (batch,) or "
                             f"(batch, 1); received shape {data.shape}")
        bad = [v for v in data.tolist() if not isinstance(v, str)][:1]
        if bad:
            raise TypeError(f"{self.name}: expected strings (str or bytes); received a value "
                            f"{bad[0]!r} of type {type(bad[0]).__name__}")
        if callable(self._standardize):
            # As Keras on its non-TensorFlow backends: the callable gets a numpy array of
            # unicode strings (dtype kind 'U'), for np.char / np.strings operations.
            data = host_array(self._standardize(unicode_array(data)), self._encoding)
        elif self._standardize is not None:
            data = map_elements(lambda t: standardize_text(t, self._standardize), data, object)
        texts = data.tolist()
        if self._split is None:
            rows = [[t] for t in texts]
        elif callable(self._split):
            rows = [list(host_array(r, self._encoding).reshape(-1).tolist())
                    for r in self._split(data)]
        else:
            rows = [split_text(t, self._split) for t in texts]
        if self._ngrams is not None:
            rows = [ngrams(r, self._ngrams) for r in rows]
        return rows

    def call(self, inputs):
        rows = self._tokens(inputs)
        length = self._output_sequence_length if self._output_mode == "int" else None
        dense = ragged_to_dense(rows, length, "", object)
        return self._lookup_layer.call(dense)

    def compute_output_shape(self, input_shape):
        if self._output_mode == "int":
            return (input_shape[0], self._output_sequence_length)
        depth = self._lookup_layer._depth()
        return (input_shape[0], depth)

    # ------------------------------------------------------------------ saving
    def get_config(self) -> dict:
        lookup = self._lookup_layer

        def saved(fn):
            return serialize_keras_object(fn) if callable(fn) else fn
        return {**super().get_config(), "max_tokens": lookup.max_tokens,
                "standardize": saved(self._standardize), "split": saved(self._split),
                "ngrams": self._ngrams_arg, "output_mode": self._output_mode,
                "output_sequence_length": self._output_sequence_length,
                "pad_to_max_tokens": lookup.pad_to_max_tokens, "sparse": lookup.sparse,
                "ragged": self._ragged, "vocabulary": lookup.input_vocabulary,
                "idf_weights": lookup.input_idf_weights, "encoding": self._encoding,
                "vocabulary_size": self.vocabulary_size()}

    @classmethod
    def from_config(cls, config: dict):
        config = dict(config)
        for key in ("standardize", "split"):
            if config.get(key) is not None and not isinstance(config[key], str):
                config[key] = deserialize_keras_object(config[key])
        if isinstance(config.get("ngrams"), list):
            config["ngrams"] = tuple(config["ngrams"])
        return cls(**config)

    def save_assets(self, dir_path: str) -> None:
        self._lookup_layer.save_assets(dir_path)

    def load_assets(self, dir_path: str) -> None:
        self._lookup_layer.load_assets(dir_path)
