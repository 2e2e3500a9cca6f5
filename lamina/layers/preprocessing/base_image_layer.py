"""Shared plumbing of the image preprocessing layers (Keras 3's
``BaseImagePreprocessingLayer``): rank-3 (one image) or rank-4 (a batch) input in
``data_format``, converted to a batched channels-last float tensor for the work."""
from __future__ import annotations

from ... import ops
from ...graph.trace import runs_for_real
from ..convolutional.conv_utils import standardize_data_format
from ..input_spec import InputSpec
from ..layer import Layer
from ..regularization.dropout import make_seed_generator
from .image_utils import (
    FILL_MODES, INTERPOLATIONS, affine_transform, check_choice, check_number, from_nhwc, to_nhwc
)


class BaseImageLayer(Layer):
    """Validates ``data_format`` and the input rank; subclasses write ``transform(images)``
    on NHWC batches (and ``compute_output_shape`` when the size changes)."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = standardize_data_format(self.name, data_format)
        layout = ("(batch, channels, height, width)" if self.data_format == "channels_first"
                  else "(batch, height, width, channels)")
        # Keras's wording: one image (rank 3) or a batch (rank 4)
        layout += (" or one image without the batch axis (Expected the input image to be "
                   "rank 3 or 4)")
        self.input_spec = InputSpec.described(layout, min_ndim=3, max_ndim=4)

    def _apply(self, inputs, transform):
        """``transform`` applied to ``inputs`` as an NHWC batch, in the compute dtype."""
        images = to_nhwc(inputs, self.data_format, self.compute_dtype)
        return from_nhwc(transform(images), self.data_format, len(inputs.shape))

    def _as_compute_dtype(self, inputs):
        dtype = self.compute_dtype
        return inputs if inputs.dtype == dtype else ops.cast(inputs, dtype)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format}


class RandomImageLayer(BaseImageLayer):
    """An augmentation: ``augment(images)`` on NHWC batches when ``training`` is True,
    drawing from the layer's own ``SeedGenerator(seed)``; the identity otherwise (the
    inputs cast to the compute dtype), as in Keras 3. No weights.

    ``training`` defaults to True, Keras 3's rule for every random preprocessing layer: a
    direct call (``layer(images)``) or a model called without ``training=`` augments;
    ``predict``/``evaluate`` and ``training=False`` (passed here or to an outer layer or
    model) give the identity; ``fit`` augments."""

    def __init__(self, seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.seed = seed
        self.seed_generator = make_seed_generator(self, seed, True)

    def call(self, inputs, training=True):
        if training and runs_for_real(inputs):
            return self._apply(inputs, self.augment)
        return self._as_compute_dtype(inputs)

    def augment(self, images):
        raise NotImplementedError

    def get_config(self) -> dict:
        return {**super().get_config(), "seed": self.seed}


class AffineImageLayer(RandomImageLayer):
    """An augmentation that resamples each image through a random affine map
    (``RandomRotation``, ``RandomZoom``, ``RandomTranslation``): validates and stores
    ``fill_mode``, ``interpolation`` and ``fill_value``; subclasses give
    ``coefficients(images)``, the six numbers of ``image_utils.affine_transform``."""

    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.fill_mode = check_choice(self.name, "fill_mode", fill_mode, FILL_MODES)
        self.interpolation = check_choice(self.name, "interpolation", interpolation,
                                          INTERPOLATIONS)
        self.fill_value = check_number(self.name, "fill_value", fill_value)

    def augment(self, images):
        return self.transform(images, *self.coefficients(images))

    def transform(self, images, a0, a1, a2, b0, b1, b2):
        return affine_transform(images, a0, a1, a2, b0, b1, b2, self.interpolation,
                                self.fill_mode, self.fill_value)

    def coefficients(self, images):
        raise NotImplementedError

    def get_config(self) -> dict:
        return {**super().get_config(), "fill_mode": self.fill_mode,
                "interpolation": self.interpolation, "fill_value": self.fill_value}
