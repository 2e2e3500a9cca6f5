"""Shared plumbing of the image preprocessing layers (Keras 3's
``BaseImagePreprocessingLayer``): rank-3 (one image) or rank-4 (a batch) input in
``data_format``, converted to a batched channels-last float tensor for the work."""
from __future__ import annotations

from types import SimpleNamespace

from ... import ops, random
from ...graph.trace import runs_for_real
from ..convolutional.conv_utils import standardize_data_format
from ..input_spec import InputSpec
from ..layer import Layer
from ..regularization.dropout import make_seed_generator
from .bounding_boxes.flow import transform_dict
from .bounding_boxes.formats import check_format, image_size
from .image_utils import (
    FILL_MODES, INTERPOLATIONS, affine_transform, check_choice, check_number, from_nhwc, to_nhwc
)


# Keras's ``layer.backend`` of the image layers: the op namespaces a custom layer's code
# reaches through it (``self.backend.numpy.where``, ``self.backend.random.uniform``...)
BACKEND_VIEW = SimpleNamespace(numpy=ops, core=ops, nn=ops, math=ops, image=ops.image,
                               random=random, shape=ops.shape, cast=ops.cast,
                               convert_to_tensor=ops.convert_to_tensor)


class BaseImageLayer(Layer):
    """Validates ``data_format`` and the input rank; subclasses write ``transform(images)``
    on NHWC batches (and ``compute_output_shape`` when the size changes).

    ``bounding_box_format`` (Keras's formats, see ``bounding_boxes.formats``) is what dict
    inputs' ``"bounding_boxes"`` are in; layers that take dicts route them through
    ``transform_dict`` and Keras's hooks ``transform_bounding_boxes``, ``transform_labels``
    and ``transform_segmentation_masks`` (Keras's defaults here: labels unchanged, masks
    through the image path, boxes NotImplementedError unless the layer gives them)."""

    backend = BACKEND_VIEW

    def __init__(self, data_format=None, bounding_box_format=None, **kwargs):
        super().__init__(**kwargs)
        self.bounding_box_format = check_format(self.name, bounding_box_format)
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
        if isinstance(input_shape, dict):
            return {**input_shape, "images": self.compute_output_shape(input_shape["images"])}
        return tuple(input_shape)

    def _call_dict(self, data: dict, training, image_fn, transformation):
        """A Keras dict input: ``image_fn(images)`` for the images, the hooks with
        ``transformation`` for the rest (see ``bounding_boxes.flow``)."""
        if "images" not in data:
            raise ValueError(f"{self.name}: a dict input needs the key 'images'; received "
                             f"keys {sorted(data)}")
        return transform_dict(self, data, image_fn(data["images"]), transformation, training)

    def transform_labels(self, labels, transformation=None, training=True):
        return labels

    def transform_segmentation_masks(self, segmentation_masks, transformation=None,
                                     training=True):
        raise NotImplementedError(f"{self.name}: {type(self).__name__} does not transform "
                                  f"segmentation masks in Lamina")

    def transform_bounding_boxes(self, bounding_boxes, transformation=None, training=True):
        raise NotImplementedError(f"{self.name}: {type(self).__name__} does not transform "
                                  f"bounding boxes in Lamina")

    def get_config(self) -> dict:
        config = {**super().get_config(), "data_format": self.data_format}
        if self.bounding_box_format is not None:
            config["bounding_box_format"] = self.bounding_box_format
        return config


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

    # True where ``get_random_transformation`` draws what ``augment_with`` applies (the
    # draw the bounding boxes and masks of a dict input then share)
    draws_transformation = False

    def call(self, inputs, training=True):
        data = inputs if isinstance(inputs, dict) else None
        images = data.get("images") if data is not None else inputs
        if images is None:
            raise ValueError(f"{self.name}: a dict input needs the key 'images'; received "
                             f"keys {sorted(data)}")
        active = bool(training) and runs_for_real(images)
        transformation = None
        if active and self.draws_transformation:
            transformation = self.get_random_transformation(images, training=True)
            out = self._apply(images, lambda x: self.augment_with(x, transformation))
        elif active:
            out = self._apply(images, self.augment)
        else:
            out = self._as_compute_dtype(images)
        if data is None:
            return out
        return transform_dict(self, data, out, transformation, active)

    def augment(self, images):
        """An NHWC batch augmented (layers with ``draws_transformation``: one ``draw``)."""
        if not self.draws_transformation:
            raise NotImplementedError
        batch, height, width = images.shape[:3]
        return self.augment_with(images, self.draw(batch, height, width,
                                                   self.seed_generator))

    def get_random_transformation(self, data, training=True, seed=None):
        """Keras's draw for ``data`` (images, or a dict of them, in ``data_format``):
        ``draw``'s dict with the images' ``input_shape``; None when not ``training``."""
        if not training or not self.draws_transformation:
            return None
        images = data["images"] if isinstance(data, dict) else data
        shape = tuple(images.shape)
        batch = shape[0] if len(shape) == 4 else 1
        height, width = image_size(shape, self.data_format)
        drawn = self.draw(batch, height, width, self.seed_generator if seed is None else seed)
        return {**drawn, "input_shape": shape}

    def draw(self, batch, height, width, seed):
        """The random numbers of one transformation of a batch (a dict of tensors)."""
        raise NotImplementedError

    def augment_with(self, images, transformation):
        """``images`` (an NHWC batch) transformed by a drawn ``transformation``."""
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
        if self.draws_transformation:
            return super().augment(images)
        return self.transform(images, *self.coefficients(images))

    def augment_with(self, images, transformation, interpolation=None):
        """NHWC ``images`` resampled through a drawn (Keras-format) ``transformation``."""
        coefficients = self.coefficients_from(transformation, *images.shape[1:3])
        return self.transform(images, *coefficients, interpolation=interpolation)

    def transform(self, images, a0, a1, a2, b0, b1, b2, interpolation=None):
        return affine_transform(images, a0, a1, a2, b0, b1, b2,
                                interpolation or self.interpolation, self.fill_mode,
                                self.fill_value)

    def transform_segmentation_masks(self, segmentation_masks, transformation=None,
                                     training=True):
        """Masks resampled like the images, with "nearest" interpolation (Keras)."""
        if not training or transformation is None or not self.draws_transformation:
            return segmentation_masks
        masks = ops.convert_to_tensor(segmentation_masks)
        nhwc = to_nhwc(masks, self.data_format, self.compute_dtype)
        return from_nhwc(self.augment_with(nhwc, transformation, "nearest"),
                         self.data_format, len(masks.shape))

    def coefficients(self, images):
        raise NotImplementedError

    def coefficients_from(self, transformation, height, width):
        """The six numbers of ``affine_transform`` for a drawn ``transformation``."""
        raise NotImplementedError

    def get_config(self) -> dict:
        return {**super().get_config(), "fill_mode": self.fill_mode,
                "interpolation": self.interpolation, "fill_value": self.fill_value}
