"""``RandomFlip``: images mirrored at random while training."""
from __future__ import annotations

from ... import ops, random
from .base_image_layer import RandomImageLayer
from .bounding_boxes.formats import clip_to_image_size, convert_format, image_size
from .image_utils import check_choice

HORIZONTAL, VERTICAL = "horizontal", "vertical"
HORIZONTAL_AND_VERTICAL = "horizontal_and_vertical"


class RandomFlip(RandomImageLayer):
    """Keras 3's ``RandomFlip``: when ``training``, each image is flipped with probability
    1/2 (a uniform draw ``<= 0.5``), left-right ("horizontal"), top-bottom ("vertical") or
    both at once ("horizontal_and_vertical": one draw decides both, as in Keras).

    Args:
        mode: 'horizontal', 'vertical' or 'horizontal_and_vertical'.
        seed: Integer seed of the layer's random draws; None draws a random seed.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, mode=HORIZONTAL_AND_VERTICAL, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.mode = check_choice(self.name, "mode", mode,
                                 (HORIZONTAL, VERTICAL, HORIZONTAL_AND_VERTICAL))

    draws_transformation = True

    def get_random_transformation(self, data, training=True, seed=None):
        """Keras's draw: ``{"flips": bool (batch, 1, 1, 1) (or (1, 1, 1) for one image),
        "input_shape": the images' shape}``; None when not ``training``."""
        transformation = super().get_random_transformation(data, training, seed)
        if transformation is not None and len(transformation["input_shape"]) == 3:
            transformation["flips"] = ops.reshape(transformation["flips"], (1, 1, 1))
        return transformation

    def draw(self, batch, height, width, seed):
        return {"flips": ops.less_equal(random.uniform((batch, 1, 1, 1), seed=seed), 0.5)}

    def augment_with(self, images, transformation):
        flips = ops.reshape(transformation["flips"], (-1, 1, 1, 1))
        if self.mode in (HORIZONTAL, HORIZONTAL_AND_VERTICAL):
            images = ops.where(flips, ops.flip(images, axis=2), images)
        if self.mode in (VERTICAL, HORIZONTAL_AND_VERTICAL):
            images = ops.where(flips, ops.flip(images, axis=1), images)
        return images

    def transform_images(self, images, transformation, training=True):
        """Keras's hook: ``images`` (rank 3 or 4, in ``data_format``) flipped as drawn."""
        images = ops.convert_to_tensor(images)
        if not training or transformation is None:
            return self._as_compute_dtype(images)
        return self._apply(images, lambda x: self.augment_with(x, transformation))

    def transform_segmentation_masks(self, segmentation_masks, transformation=None,
                                     training=True):
        return self.transform_images(segmentation_masks, transformation, training)

    def transform_bounding_boxes(self, bounding_boxes, transformation=None, training=True):
        """Keras's box flip: in relative corners, x -> 1 - x (and/or y -> 1 - y) where
        the image was flipped, then clipped to the image."""
        if not training or transformation is None:
            return bounding_boxes
        fmt = self.bounding_box_format
        flips = ops.squeeze(ops.convert_to_tensor(transformation["flips"]), -1)
        height, width = image_size(transformation["input_shape"], self.data_format)
        boxes = convert_format(bounding_boxes, fmt, "rel_xyxy", height, width, what=self.name)
        b = boxes["boxes"]
        x1, y1, x2, y2 = (b[..., i:i + 1] for i in range(4))
        if self.mode in (HORIZONTAL, HORIZONTAL_AND_VERTICAL):
            x1, x2 = ops.where(flips, 1.0 - x2, x1), ops.where(flips, 1.0 - x1, x2)
        if self.mode in (VERTICAL, HORIZONTAL_AND_VERTICAL):
            y1, y2 = ops.where(flips, 1.0 - y2, y1), ops.where(flips, 1.0 - y1, y2)
        boxes["boxes"] = ops.concatenate([x1, y1, x2, y2], axis=-1)
        boxes = clip_to_image_size(boxes, height, width, "xyxy", what=self.name)
        return convert_format(boxes, "rel_xyxy", fmt, height, width, what=self.name)

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": self.mode}
