"""``SpatialDropout1D/2D/3D``: dropout of whole channels (feature maps), Keras 3's layers."""
from __future__ import annotations

from ... import backend, random
from ..input_spec import InputSpec
from ..layer import Layer
from .dropout import check_rate, is_concrete, make_seed_generator

_LAYOUTS = {1: ("(batch, steps, channels)", "(batch, channels, steps)"),
            2: ("(batch, height, width, channels)", "(batch, channels, height, width)"),
            3: ("(batch, depth, height, width, channels)",
                "(batch, channels, depth, height, width)")}


class _SpatialDropout(Layer):
    """Dropout with one draw per (sample, channel), shared over the spatial axes."""
    spatial_rank = 0

    @classmethod
    def from_config(cls, config, custom_objects=None):
        # Keras 3 takes (and writes) no `trainable` here; Keras 2 files carry it.
        config = dict(config)
        trainable = config.pop("trainable", True)
        layer = cls(**config)
        layer.trainable = trainable
        return layer

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.rate = check_rate(self, rate)
        self.seed = seed
        self.seed_generator = make_seed_generator(self, seed, rate > 0)
        self.data_format = self._check_data_format(data_format)
        last, first = _LAYOUTS[self.spatial_rank]
        layout = last if self.data_format == "channels_last" else first
        self.input_spec = InputSpec.described(layout, ndim=self.spatial_rank + 2)
        self.supports_masking = True
        self._build_at_init()

    def _check_data_format(self, data_format):
        value = backend.image_data_format() if data_format is None else data_format
        value = value.lower() if isinstance(value, str) else value
        if value not in ("channels_last", "channels_first"):
            raise ValueError(f"{self.name}: argument 'data_format' must be 'channels_last' "
                             f"or 'channels_first'; received {data_format!r}")
        return value

    def _noise_shape(self, shape):
        ones = (1,) * self.spatial_rank
        if self.data_format == "channels_first":
            return (shape[0], shape[1], *ones)
        return (shape[0], *ones, shape[-1])

    def call(self, inputs, training=False):
        if training and self.rate > 0 and is_concrete(inputs):
            return random.dropout(inputs, self.rate, seed=self.seed_generator,
                                  noise_shape=self._noise_shape(tuple(inputs.shape)))
        return inputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        config = {**super().get_config(), "rate": self.rate, "seed": self.seed}
        config.pop("trainable")              # Keras's constructor takes no 'trainable'
        if self.spatial_rank > 1:            # Keras's SpatialDropout1D has no data_format
            config["data_format"] = self.data_format
        return config


class SpatialDropout1D(_SpatialDropout):
    """Keras 3's ``SpatialDropout1D``: input ``(batch, steps, channels)``; noise shape
    ``(batch, 1, channels)``.

    Args:
        rate: Fraction of the channels to drop, in [0, 1).
        seed: Integer seed of the layer's random draws; None draws a random seed.
        name: Name of the layer; None derives a unique one from the class name.
        dtype: Dtype or dtype policy of the layer (e.g. 'float32'); None uses the global policy.
    """
    spatial_rank = 1

    def __init__(self, rate, seed=None, name=None, dtype=None):
        super().__init__(rate, data_format="channels_last", seed=seed, name=name, dtype=dtype)


class SpatialDropout2D(_SpatialDropout):
    """Keras 3's ``SpatialDropout2D``: noise shape ``(batch, 1, 1, channels)``
    (``(batch, channels, 1, 1)`` for ``data_format='channels_first'``).

    Args:
        rate: Fraction of the channels to drop, in [0, 1).
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        name: Name of the layer; None derives a unique one from the class name.
        dtype: Dtype or dtype policy of the layer (e.g. 'float32'); None uses the global policy.
    """
    spatial_rank = 2


class SpatialDropout3D(_SpatialDropout):
    """Keras 3's ``SpatialDropout3D``: noise shape ``(batch, 1, 1, 1, channels)``.

    Args:
        rate: Fraction of the channels to drop, in [0, 1).
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        name: Name of the layer; None derives a unique one from the class name.
        dtype: Dtype or dtype policy of the layer (e.g. 'float32'); None uses the global policy.
    """
    spatial_rank = 3
