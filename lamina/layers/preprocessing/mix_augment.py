"""Keras 3's batch-mixing augmentations: ``MixUp`` and ``CutMix``. Each image is mixed
with the image at a random permutation of the batch; dict inputs
``{"images", "labels"}`` get their labels mixed with the same weights."""
from __future__ import annotations

import numbers

from ... import ops, random
from .augmentation_base import AugmentationLayer, keras_factor


def _mix_labels(labels, order, weight):
    """``w * labels + (1 - w) * labels[order]`` with one weight per example."""
    labels = ops.cast(labels, weight.dtype)
    weight = ops.reshape(weight, (-1,) + (1,) * (len(labels.shape) - 1))
    return ops.add(ops.multiply(weight, labels),
                   ops.multiply(ops.subtract(1.0, weight), ops.take(labels, order, axis=0)))


class MixUp(AugmentationLayer):
    """``w * x + (1 - w) * x[perm]`` with ``w ~ Beta(alpha, alpha)`` per image.

    Args:
        alpha: Concentration of the Beta distribution the mixing weights are drawn from.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
        seed: Integer seed of the layer's random draws; None draws a random seed.
    """

    def __init__(self, alpha=0.2, data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or alpha <= 0:
            raise ValueError(f"{self.name}: argument 'alpha' must be a positive number; "
                             f"received {alpha!r}")
        self.alpha = alpha

    def transform(self, images, labels, training):
        draw = self._draw(images.shape[0], images.dtype, self.seed_generator)
        mixed = self._mix(images, draw)
        if labels is not None:
            labels = _mix_labels(labels, draw["permutation_order"], draw["mix_weight"])
        return mixed, labels

    def get_random_transformation(self, data, training=True, seed=None):
        """Keras's draw: ``{"mix_weight": w, "permutation_order": order}``, one weight
        ``w ~ Beta(alpha, alpha)`` per image and a shuffle of the batch."""
        images = data["images"] if isinstance(data, dict) else data
        batch = images.shape[0] if len(images.shape) == 4 else 1
        seed = self.seed_generator if seed is None else seed
        return self._draw(batch, self.compute_dtype, seed)

    def _draw(self, batch, dtype, seed):
        order = random.shuffle(ops.arange(batch, dtype="int32"), seed=seed)
        weight = random.beta((batch,), float(self.alpha), float(self.alpha), dtype=dtype,
                             seed=seed)
        return {"mix_weight": weight, "permutation_order": order}

    def transform_images(self, images, transformation, training=True):
        """``w * images + (1 - w) * images[order]`` with a drawn ``transformation`` (any
        ``data_format``: only the batch axis moves)."""
        return self._mix(self._as_compute_dtype(ops.convert_to_tensor(images)),
                         transformation)

    @staticmethod
    def _mix(images, transformation):
        w = ops.reshape(ops.cast(transformation["mix_weight"], images.dtype), (-1, 1, 1, 1))
        order = ops.convert_to_tensor(transformation["permutation_order"], dtype="int32")
        return ops.add(ops.multiply(w, images),
                       ops.multiply(ops.subtract(1.0, w), ops.take(images, order, axis=0)))

    draws_transformation = True

    def augment_with(self, images, transformation):
        return self._mix(images, transformation)

    def transform_labels(self, labels, transformation=None, training=True):
        if not training or transformation is None:
            return labels
        return _mix_labels(labels, ops.convert_to_tensor(transformation["permutation_order"]),
                           ops.convert_to_tensor(transformation["mix_weight"]))

    def transform_segmentation_masks(self, segmentation_masks, transformation=None,
                                     training=True):
        if not training or transformation is None:
            return segmentation_masks
        masks = ops.convert_to_tensor(segmentation_masks)
        weight = ops.convert_to_tensor(transformation["mix_weight"])
        return self._mix(ops.cast(masks, weight.dtype), transformation)

    def transform_bounding_boxes(self, bounding_boxes, transformation=None, training=True):
        """Keras's: each example's boxes followed by its partner's (boxes concatenated on
        the box axis, labels on their last axis)."""
        if not training or transformation is None:
            return bounding_boxes
        order = ops.convert_to_tensor(transformation["permutation_order"], dtype="int32")
        boxes = ops.convert_to_tensor(bounding_boxes["boxes"])
        labels = ops.convert_to_tensor(bounding_boxes["labels"])
        return {**bounding_boxes,
                "boxes": ops.concatenate([boxes, ops.take(boxes, order, axis=0)], axis=1),
                "labels": ops.concatenate([labels, ops.take(labels, order, axis=0)],
                                          axis=-1)}

    def get_config(self) -> dict:
        return {**super().get_config(), "alpha": self.alpha}


class CutMix(AugmentationLayer):
    """Paste a box of another image of the batch into each image: the box side ratio is
    ``sqrt(1 - w)``, ``w ~ Beta(a, a)`` with ``a ~ uniform(factor) + 1e-6``, at a uniform
    position; labels mix with the pasted area's share. A single image is left as it is.

    Args:
        factor: Range of the Beta concentration: a number ``f`` for ``(0, f)``, or a pair.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = keras_factor(self.name, "factor", factor, 0.0, 1.0)

    def _bounds(self, batch, length, ratio, dtype):
        size = ops.multiply(ratio, float(length))
        start = ops.multiply(random.uniform((batch,), 0.0, 1.0, dtype=dtype,
                                            seed=self.seed_generator),
                             ops.subtract(float(length), size))
        return start, ops.add(start, size)

    def transform(self, images, labels, training):
        batch, height, width, _ = images.shape
        dtype = images.dtype
        alpha = ops.add(random.uniform((), *self.factor, dtype=dtype,
                                       seed=self.seed_generator), 1e-6)
        weight = random.beta((batch,), alpha, alpha, dtype=dtype, seed=self.seed_generator)
        ratio = ops.sqrt(ops.subtract(1.0, weight))
        x0, x1 = self._bounds(batch, width, ratio, dtype)
        y0, y1 = self._bounds(batch, height, ratio, dtype)
        order = random.shuffle(ops.arange(batch, dtype="int32"), seed=self.seed_generator)
        ys = ops.reshape(ops.arange(height, dtype=dtype), (1, height, 1, 1))
        xs = ops.reshape(ops.arange(width, dtype=dtype), (1, 1, width, 1))

        def col(v):
            return ops.reshape(v, (-1, 1, 1, 1))
        inside = ops.logical_and(
            ops.logical_and(ops.greater_equal(xs, col(x0)), ops.less(xs, col(x1))),
            ops.logical_and(ops.greater_equal(ys, col(y0)), ops.less(ys, col(y1))))
        mixed = ops.where(inside, ops.take(images, order, axis=0), images)
        if labels is not None:
            kept = ops.subtract(1.0, ops.divide(ops.multiply(ops.subtract(x1, x0),
                                                             ops.subtract(y1, y0)),
                                                float(width * height)))
            labels = _mix_labels(labels, order, kept)
        return mixed, labels

    def transform_images(self, images, transformation=None, training=True):
        """Keras's step with a given draw: where ``transformation["batch_masks"]`` is
        True, the pixel of image ``permutation_order[i]``; the rest unchanged."""
        images = self._as_compute_dtype(ops.convert_to_tensor(images))
        if training and transformation is not None:
            order = ops.convert_to_tensor(transformation["permutation_order"], dtype="int32")
            images = ops.where(ops.convert_to_tensor(transformation["batch_masks"]),
                               ops.take(images, order, axis=0), images)
        return images

    def call(self, inputs, training=True):
        images = inputs["images"] if isinstance(inputs, dict) else inputs
        single = hasattr(images, "shape") and len(images.shape) == 3
        return super().call(inputs, training=training and not single)   # as Keras

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": list(self.factor)}
