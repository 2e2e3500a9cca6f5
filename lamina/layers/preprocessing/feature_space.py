"""``FeatureSpace`` (``keras.utils.FeatureSpace``): one-call preprocessing of a dict of
structured-data columns (numbers, integer and string categories, hashed crosses) into one
float vector per sample, or a dict of encoded features.

Lamina has no string tensors, so, like the host-data layers it uses, a FeatureSpace runs on
host data in the input pipeline: ``x = feature_space(dict_of_arrays)`` before ``fit``.
``get_encoded_features()`` gives a symbolic ``Input`` of the encoded width, so Keras's
"training model" pattern (``Model(encoded, outputs)``) works; a model taking the raw
string columns as inputs cannot be built.
"""
from __future__ import annotations

from ... import backend, ops
from ...registry import deserialize_keras_object
from ...backend.host_data import host_array
from ..core.input_layer import Input
from ..layer import Layer
from ...core.naming import unique_name
from .category_encoding import CategoryEncoding
from .discretization import Discretization
from .feature_space_specs import Cross, Feature
from .hashed_crossing import HashedCrossing
from .hashing import Hashing
from .integer_lookup import IntegerLookup
from .normalization import Normalization
from .rescaling import Rescaling
from .string_lookup import StringLookup
from .text_vectorization import TextVectorization

ADAPT_BATCH = 32          # Keras adapts from a dataset batched by 32


class FeatureSpace(Layer):
    """Preprocess and encode structured-data columns (Keras 3's ``FeatureSpace``).

    Args:
        features: a dict ``{column name: feature}``: a ``FeatureSpace.float(...)``-style
            feature object or one of the names ``"float"``, ``"float_normalized"``,
            ``"float_discretized"``, ``"integer_categorical"``, ``"string_categorical"``,
            ``"integer_hashed"``, ``"string_hashed"`` and ``"float_rescaled"``.
        output_mode: ``"concat"`` (one 2-D tensor, default) or ``"dict"`` (one encoded
            tensor per feature).
        crosses: a list of ``FeatureSpace.cross(...)`` objects, or of tuples of feature
            names, to hash together (default None).
        crossing_dim: int, the hashing space of tuple-given crosses (default 32).
        hashing_dim: int, the hashing space of features named ``"..._hashed"``
            (default 32).
        num_discretization_bins: int, the bins of features named
            ``"float_discretized"`` (default 32).
        name: the layer's name (None: an automatic one).

    Example:

    >>> import lamina as keras
    >>> space = keras.utils.FeatureSpace(
    ...     {"age": "float_normalized", "city": "string_categorical"})
    >>> space.adapt([{"age": 30.0, "city": "a"}, {"age": 50.0, "city": "b"}])
    """

    # ------------------------------------------------------------------ feature kinds
    @classmethod
    def cross(cls, feature_names, crossing_dim, output_mode="one_hot"):
        return Cross(feature_names, crossing_dim, output_mode=output_mode)

    @classmethod
    def feature(cls, dtype, preprocessor, output_mode):
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name=None):
        return Feature("float32", None, "float")

    @classmethod
    def float_rescaled(cls, scale=1.0, offset=0.0, name=None):
        name = name or unique_name("float_rescaled")
        return Feature("float32", Rescaling(scale=scale, offset=offset,
                                            name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_normalized(cls, name=None):
        name = name or unique_name("float_normalized")
        return Feature("float32", Normalization(axis=-1, name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_discretized(cls, num_bins, bin_boundaries=None, output_mode="one_hot",
                          name=None):
        name = name or unique_name("float_discretized")
        return Feature("float32", Discretization(num_bins=num_bins,
                                                 bin_boundaries=bin_boundaries,
                                                 name=f"{name}_preprocessor"), output_mode)

    @classmethod
    def integer_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot",
                            name=None):
        name = name or unique_name("integer_categorical")
        return Feature("int32", IntegerLookup(name=f"{name}_preprocessor",
                                              max_tokens=max_tokens,
                                              num_oov_indices=num_oov_indices), output_mode)

    @classmethod
    def string_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot",
                           name=None):
        name = name or unique_name("string_categorical")
        return Feature("string", StringLookup(name=f"{name}_preprocessor",
                                              max_tokens=max_tokens,
                                              num_oov_indices=num_oov_indices), output_mode)

    @classmethod
    def string_hashed(cls, num_bins, output_mode="one_hot", name=None):
        name = name or unique_name("string_hashed")
        return Feature("string", Hashing(name=f"{name}_preprocessor", num_bins=num_bins),
                       output_mode)

    @classmethod
    def integer_hashed(cls, num_bins, output_mode="one_hot", name=None):
        name = name or unique_name("integer_hashed")
        return Feature("int32", Hashing(name=f"{name}_preprocessor", num_bins=num_bins),
                       output_mode)

    # ------------------------------------------------------------------ construction
    def __init__(self, features, output_mode="concat", crosses=None, crossing_dim=32,
                 hashing_dim=32, num_discretization_bins=32, name=None):
        super().__init__(name=name)
        if not features:
            raise ValueError(f"{self.name}: argument 'features' must be a non-empty dict (it "
                             f"cannot be None or empty); received {features!r}")
        if output_mode not in ("dict", "concat"):
            raise ValueError(f"{self.name}: invalid value for argument `output_mode`: it must "
                             f"be 'dict' or 'concat'; received {output_mode!r}")
        self.output_mode = output_mode
        self.crossing_dim = crossing_dim
        self.hashing_dim = hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.features = {n: self._standardize_feature(n, f) for n, f in features.items()}
        self.crosses = [self._standardize_cross(c, set(features)) for c in crosses or []]
        self.crossers = {c.name: HashedCrossing(c.crossing_dim, name=c.name)
                         for c in self.crosses}
        self._is_adapted = not self._adaptable()
        self.built = True

    def _standardize_feature(self, name: str, feature) -> Feature:
        if isinstance(feature, Feature):
            return feature
        if isinstance(feature, dict):
            return Feature.from_config(feature.get("config", feature))
        makers = {"float": lambda: self.float(name=name),
                  "float_normalized": lambda: self.float_normalized(name=name),
                  "float_rescaled": lambda: self.float_rescaled(name=name),
                  "float_discretized": lambda: self.float_discretized(
                      self.num_discretization_bins, name=name),
                  "integer_categorical": lambda: self.integer_categorical(name=name),
                  "string_categorical": lambda: self.string_categorical(name=name),
                  "integer_hashed": lambda: self.integer_hashed(self.hashing_dim, name=name),
                  "string_hashed": lambda: self.string_hashed(self.hashing_dim, name=name)}
        if feature not in makers:
            raise ValueError(f"{self.name}: feature {name!r} has an unknown type {feature!r}; "
                             f"expected a Feature or one of {sorted(makers)}")
        return makers[feature]()

    def _standardize_cross(self, cross, known: set) -> Cross:
        if isinstance(cross, dict):
            return Cross.from_config(cross.get("config", cross))
        if isinstance(cross, Cross):
            return cross
        if not self.crossing_dim:
            raise ValueError(f"{self.name}: argument `crossing_dim` must be set when "
                             f"'crosses' are given; received crossing_dim="
                             f"{self.crossing_dim!r}")
        unknown = [n for n in cross if n not in known]
        if unknown:
            raise ValueError(f"{self.name}: every feature in 'crosses' must be in "
                             f"'features' (cross features should be present in `features`); "
                             f"unknown: {unknown}")
        return Cross(cross, crossing_dim=self.crossing_dim)

    # ------------------------------------------------------------------ adapt
    def _adaptable(self) -> list:
        names = []
        for name, feature in self.features.items():
            layer = feature.preprocessor
            if isinstance(layer, Normalization) and layer.input_mean is not None:
                continue
            if isinstance(layer, TextVectorization) and \
                    layer._lookup_layer.input_vocabulary is not None:
                continue
            if hasattr(layer, "adapt"):
                names.append(name)
        return names

    def adapt(self, dataset) -> None:
        """Adapt every adaptable preprocessor to ``dataset``: a dict of columns (arrays or
        lists, one value per sample) or an iterable of such dicts (batches)."""
        batches = [dataset] if isinstance(dataset, dict) else list(dataset)
        if not batches or not all(isinstance(b, dict) for b in batches):
            raise ValueError(f"{self.name}.adapt: expected a dict of arrays/lists or an "
                             f"iterable of such dicts; received {type(dataset).__name__}")
        for name in self._adaptable():
            columns = [_column(b[name]) for b in batches]
            chunks = [c[i:i + ADAPT_BATCH] for c in columns
                      for i in range(0, len(c), ADAPT_BATCH)]
            layer = self.features[name].preprocessor
            if isinstance(layer, Normalization):
                chunks = [ops.convert_to_tensor(c, dtype="float32") for c in chunks]
            layer.adapt(chunks)
        self._is_adapted = True

    # ------------------------------------------------------------------ encoding
    def _cardinality(self, name: str):
        layer = self.features[name].preprocessor if name in self.features \
            else self.crossers[name]
        if isinstance(layer, (IntegerLookup, StringLookup)):
            return layer.vocabulary_size()
        if isinstance(layer, Discretization):
            return layer.num_bins if layer.num_bins else len(layer.bin_boundaries) + 1
        if isinstance(layer, (Hashing, HashedCrossing)):
            return layer.num_bins
        if isinstance(layer, CategoryEncoding):
            return layer.num_tokens
        raise ValueError(f"{self.name}: feature {name!r} has output_mode='one_hot' but the "
                         f"size of its output space is unknown; use output_mode='int'")

    def _names(self) -> list:
        return sorted(self.features) + sorted(self.crossers)

    def _spec(self, name: str):
        return self.features[name] if name in self.features else \
            {c.name: c for c in self.crosses}[name]

    def _check_adapted(self) -> None:
        if not self._is_adapted and not self._adaptable():
            self._is_adapted = True          # every preprocessor is ready (Keras's rule)
        if not self._is_adapted:
            raise ValueError(f"{self.name}: You need to call `.adapt(dataset)` on the "
                             f"FeatureSpace before you can start using it (features "
                             f"{self._adaptable()} need statistics or a vocabulary)")

    def __call__(self, data):
        self._check_adapted()
        if not isinstance(data, dict):
            raise ValueError(f"{self.name}: a FeatureSpace is called with a dict of "
                             f"features; received {type(data).__name__}")
        columns = {n: host_array(data[n]) for n in self.features}
        single = all(c.ndim == 0 for c in columns.values())
        columns = {n: c.reshape(-1, 1) if c.ndim < 2 else c for n, c in columns.items()}
        processed = {n: self._preprocess(n, c) for n, c in columns.items()}
        for cross in self.crosses:
            parts = [processed[n] for n in cross.feature_names]
            processed[cross.name] = self.crossers[cross.name](
                [ops.convert_to_numpy(p) if hasattr(p, "shape") else p for p in parts])
        encoded = {}
        for name in self._names():
            value = processed[name]
            if self._spec(name).output_mode == "one_hot":
                value = CategoryEncoding(self._cardinality(name), output_mode="multi_hot")(
                    ops.cast(value, "int32"))
            elif self.output_mode == "concat" and value.dtype != backend.floatx():
                if self._spec(name).output_mode == "int":
                    raise ValueError(f"{self.name}: cannot concatenate feature {name!r}: it "
                                     f"is not encoded (output_mode='int', dtype "
                                     f"{value.dtype}); use output_mode='dict'")
                value = ops.cast(value, backend.floatx())
            encoded[name] = ops.squeeze(value, 0) if single and value.shape[0] == 1 else value
        if self.output_mode == "dict":
            return encoded
        return ops.concatenate([encoded[n] for n in self._names()], axis=-1)

    def _preprocess(self, name: str, column):
        layer = self.features[name].preprocessor
        if layer is None:
            return ops.convert_to_tensor(column.astype("float32"))
        if isinstance(layer, (Normalization, Rescaling, Discretization)):
            return layer(ops.convert_to_tensor(column.astype("float32")))
        return layer(column)

    def encoded_width(self) -> int:
        width = 0
        for name in self._names():
            width += self._cardinality(name) if self._spec(name).output_mode == "one_hot" \
                else 1
        return width

    def get_inputs(self) -> dict:
        """Symbolic inputs of the numeric features (string features have none in Lamina)."""
        return {n: Input(shape=(1,), dtype=f.dtype, name=n)
                for n, f in self.features.items() if f.dtype != "string"}

    def get_encoded_features(self):
        """A symbolic ``Input`` of the encoded vector's width (``output_mode='concat'``), to
        build a model that takes ``feature_space(data)`` as its input."""
        self._check_adapted()
        if self.output_mode != "concat":
            raise ValueError(f"{self.name}.get_encoded_features: only output_mode='concat' "
                             f"is supported in Lamina; received {self.output_mode!r}")
        return Input(shape=(self.encoded_width(),), name=f"{self.name}_encoded")

    # ------------------------------------------------------------------ config
    def get_config(self) -> dict:
        def wrap(obj):
            return {"class_name": type(obj).__name__, "config": obj.get_config()}
        return {"features": {n: wrap(f) for n, f in self.features.items()},
                "output_mode": self.output_mode,
                "crosses": [wrap(c) for c in self.crosses],
                "crossing_dim": self.crossing_dim, "hashing_dim": self.hashing_dim,
                "num_discretization_bins": self.num_discretization_bins}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)


def _column(values) -> list:
    array = host_array(values)
    return array.reshape(len(array), -1).tolist() if array.ndim else [[array.item()]]
