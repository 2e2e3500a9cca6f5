"""``Feature`` and ``Cross``: what FeatureSpace does with one input column, and which
columns it crosses (Keras 3's ``keras.src.layers.preprocessing.feature_space``)."""
from __future__ import annotations

from ...registry import deserialize_keras_object, serialize_keras_object


class Cross:
    """The hashed cross of ``feature_names`` into ``crossing_dim`` bins."""

    def __init__(self, feature_names, crossing_dim, output_mode="one_hot"):
        if output_mode not in ("int", "one_hot"):
            raise ValueError(f"FeatureSpace.cross: argument 'output_mode' must be 'int' or "
                             f"'one_hot'; received {output_mode!r}")
        self.feature_names = tuple(feature_names)
        self.crossing_dim = crossing_dim
        self.output_mode = output_mode

    @property
    def name(self) -> str:
        return "_X_".join(self.feature_names)

    def get_config(self) -> dict:
        return {"feature_names": self.feature_names, "crossing_dim": self.crossing_dim,
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)


class Feature:
    """One input column: its ``dtype``, the layer that preprocesses it and how the result
    is encoded ('int', 'one_hot' or 'float')."""

    def __init__(self, dtype, preprocessor, output_mode):
        if output_mode not in ("int", "one_hot", "float"):
            raise ValueError(f"FeatureSpace.feature: argument 'output_mode' must be one of "
                             f"'int', 'one_hot', 'float'; received {output_mode!r}")
        if isinstance(preprocessor, dict):
            preprocessor = deserialize_keras_object(preprocessor)
        self.dtype = dtype
        self.preprocessor = preprocessor
        self.output_mode = output_mode

    def get_config(self) -> dict:
        return {"dtype": self.dtype, "preprocessor": serialize_keras_object(self.preprocessor),
                "output_mode": self.output_mode}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)
