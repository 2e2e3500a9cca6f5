"""Plumbing of Keras 3's image augmentation layers added after the affine ones: dict
inputs, the ``training`` rule, Keras's ``factor`` and ``value_range`` conventions.

A layer writes ``transform(images, labels, training)`` on an NHWC batch in the compute
dtype (``labels`` is None unless a dict brought them) and returns ``(images, labels)``.
Inputs are an image tensor or a dict ``{"images": ..., "labels": ...}``; the layers that
set ``draws_transformation`` also take Keras's "bounding_boxes" and "segmentation_masks"
(``bounding_boxes.flow``); the others raise NotImplementedError naming the layer and key. ``training`` defaults to True (Keras 3's rule for every preprocessing layer:
random layers augment on a direct call; see ``RandomImageLayer``)."""
from __future__ import annotations

import numbers

from ... import ops
from ...graph.trace import runs_for_real
from ..regularization.dropout import make_seed_generator
from .base_image_layer import BaseImageLayer
from .bounding_boxes.flow import transform_dict

DICT_KEYS = ("images", "labels")


def keras_factor(layer: str, arg: str, factor, low: float, high: float) -> tuple:
    """Keras's ``_set_factor``: a number ``f`` in [low, high] gives
    ``(max(-|f|, low), |f|)``; a pair (overlapping [low, high]) is sorted."""
    expected = f"a number or a pair of numbers in [{low:g}, {high:g}]"

    def is_number(v):
        return isinstance(v, numbers.Real) and not isinstance(v, bool)
    if isinstance(factor, (list, tuple)):
        if len(factor) != 2 or not all(is_number(v) for v in factor) or (
                factor[0] > high or factor[1] < low):
            raise ValueError(f"{layer}: argument '{arg}' must be {expected}; received "
                             f"{factor!r}")
        return tuple(sorted(factor))              # Keras keeps the given numbers
    if not is_number(factor) or not low <= factor <= high:
        raise ValueError(f"{layer}: argument '{arg}' must be {expected}; received {factor!r}")
    f = abs(factor)
    bound = int(low) if float(low).is_integer() else low     # Keras's bounds are (0, 1) ints
    return (-f, f) if -f >= low else (bound, f)


def value_range_pair(layer: str, value_range, sort: bool = True) -> tuple:
    if not isinstance(value_range, (list, tuple)) or len(value_range) != 2 or any(
            isinstance(v, bool) or not isinstance(v, numbers.Real) for v in value_range):
        raise ValueError(f"{layer}: argument 'value_range' must be a list of two numbers; "
                         f"received {value_range!r}")
    return tuple(sorted(value_range)) if sort else tuple(value_range)


def rescale(images, source, target):
    """Keras's ``_transform_value_range``: a linear map of ``source`` onto ``target``."""
    if tuple(source) == tuple(target):
        return images
    scale = (target[1] - target[0]) / (source[1] - source[0])
    return ops.add(ops.multiply(ops.subtract(images, float(source[0])), scale),
                   float(target[0]))


def per_image(values, images):
    """(batch,) values shaped to broadcast over an NHWC batch."""
    return ops.reshape(values, (images.shape[0], 1, 1, 1))


class AugmentationLayer(BaseImageLayer):
    """Base of the augmentation layers: ``random`` says whether the layer draws (its
    ``SeedGenerator(seed)`` then exists); ``deterministic`` layers transform whatever
    ``training`` is (AutoContrast, Equalization), the others are the identity (cast to
    the compute dtype) when ``training`` is False."""

    deterministic = False
    accepts_labels = True

    def __init__(self, seed=None, data_format=None, random=True, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.seed = seed
        self.seed_generator = make_seed_generator(self, seed, random)
        self.input_spec = None

    # True where the layer follows Keras's hooks (``get_random_transformation`` then
    # ``augment_with`` on NHWC images, ``transform_bounding_boxes``...): dicts with
    # bounding boxes or segmentation masks then take that path (``bounding_boxes.flow``)
    draws_transformation = False

    def call(self, inputs, training=True):
        if isinstance(inputs, dict) and self.draws_transformation and (
                "bounding_boxes" in inputs or "segmentation_masks" in inputs):
            return self._call_hooks(inputs, training)
        if isinstance(inputs, dict):
            for key in inputs:
                if key not in DICT_KEYS:
                    raise NotImplementedError(
                        f"{self.name}: dict inputs with key {key!r} are not supported by "
                        f"{type(self).__name__} in Lamina (only 'images' and 'labels'"
                        f"{' with its bounding_box_format' if self.draws_transformation else ''})")
            if "images" not in inputs:
                raise ValueError(f"{self.name}: a dict input needs the key 'images'; "
                                 f"received keys {sorted(inputs)}")
            images, labels = inputs["images"], inputs.get("labels")
        else:
            images, labels = inputs, None
        images = ops.convert_to_tensor(images) if not hasattr(images, "shape") else images
        if len(images.shape) not in (3, 4):
            raise ValueError(f"{self.name}: the images must have rank 3 (one image) or 4 (a "
                             f"batch); received shape {tuple(images.shape)}")
        active = (training or self.deterministic) and runs_for_real(images)
        if active:
            labels_in = labels
            if labels is not None:
                labels = ops.convert_to_tensor(labels)
                if len(images.shape) == 3:
                    labels = ops.expand_dims(labels, 0)
            out = {}

            def work(x):
                y, out["labels"] = self.transform(x, labels, bool(training))
                return y
            images = self._apply(images, work)
            labels = out["labels"] if labels_in is not None else None
            if labels is not None and len(inputs["images"].shape) == 3:
                labels = ops.squeeze(labels, 0)
        else:
            images = self._as_compute_dtype(images)
        if isinstance(inputs, dict):
            result = {"images": images}
            if "labels" in inputs:
                result["labels"] = labels if labels is not None else inputs["labels"]
            return result
        return images

    def _call_hooks(self, data, training):
        images = ops.convert_to_tensor(data["images"])
        active = (training or self.deterministic) and runs_for_real(images)
        transformation = None
        if active:
            transformation = self.get_random_transformation(images, training=True)
            out = self._apply(images, lambda x: self.augment_with(x, transformation))
        else:
            out = self._as_compute_dtype(images)
        return transform_dict(self, data, out, transformation, bool(active))

    def augment_with(self, images, transformation):
        """NHWC ``images`` transformed by a drawn ``transformation``."""
        raise NotImplementedError

    def transform(self, images, labels, training):
        raise NotImplementedError

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        if self.seed_generator is not None:
            config["seed"] = self.seed
        return config
