"""``Resizing``: images resized to a fixed (height, width), with half-pixel centers."""
from __future__ import annotations

from ... import ops
from .base_image_layer import BaseImageLayer
from ...ops.image_resize import METHODS
from .bounding_boxes.formats import image_size
from .bounding_boxes.geometry import resize_boxes
from .image_utils import check_choice, check_number, check_size, from_nhwc, hw_axes, to_nhwc


class Resizing(BaseImageLayer):
    """Keras 3's ``Resizing``: rank-3 or rank-4 images to ``(height, width)``.

    ``crop_to_aspect_ratio`` first crops the largest centered window with the target aspect
    ratio; ``pad_to_aspect_ratio`` first pads both sides equally with ``fill_value``.
    Interpolation is any method of ``ops.image.resize`` ("bilinear", "nearest", "bicubic",
    "lanczos3", "lanczos5"; half-pixel centers); ``antialias`` widens the kernel when
    downsampling, as ``jax.image.resize`` does.

    Args:
        height: Output height in pixels.
        width: Output width in pixels.
        interpolation: 'bilinear', 'nearest', 'bicubic', 'lanczos3' or 'lanczos5'.
        crop_to_aspect_ratio: Whether to crop the largest centred window with the target aspect
            ratio first.
        pad_to_aspect_ratio: Whether to pad both sides equally with ``fill_value`` to the target
            aspect ratio first.
        fill_mode: How the padding of ``pad_to_aspect_ratio`` is filled ('constant').
        fill_value: Value of the padding of ``pad_to_aspect_ratio``.
        antialias: Whether to widen the kernel when downsampling, to avoid aliasing.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0,
                 antialias=False, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height = check_size(self.name, "height", height)
        self.width = check_size(self.name, "width", width)
        self.interpolation = check_choice(self.name, "interpolation", interpolation,
                                          METHODS)
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError(f"{self.name}: only one of 'crop_to_aspect_ratio' and "
                             f"'pad_to_aspect_ratio' can be True; received both True")
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.fill_mode = check_choice(self.name, "fill_mode", fill_mode, ("constant",))
        self.fill_value = check_number(self.name, "fill_value", fill_value)
        self.antialias = bool(antialias)

    def call(self, inputs):
        if isinstance(inputs, dict):
            images = inputs.get("images")
            shape = tuple(images.shape) if images is not None else None
            transformation = shape and image_size(shape, self.data_format)
            return self._call_dict(inputs, True, self.call, transformation)
        return self._apply(inputs, self._resize)

    def _resize(self, images, interpolation=None):
        """NHWC ``images`` resized by ``ops.image.resize`` (crop or pad to the aspect ratio
        as asked; sizes unknown until run are read then)."""
        return ops.image.resize(images, (self.height, self.width),
                                interpolation or self.interpolation, antialias=self.antialias,
                                crop_to_aspect_ratio=self.crop_to_aspect_ratio,
                                pad_to_aspect_ratio=self.pad_to_aspect_ratio,
                                fill_mode=self.fill_mode, fill_value=self.fill_value,
                                data_format="channels_last")

    def get_random_transformation(self, data, training=True, seed=None):
        """Keras's: the input (height, width)."""
        images = data["images"] if isinstance(data, dict) else data
        return image_size(tuple(images.shape), self.data_format)

    def transform_images(self, images, transformation=None, training=True):
        return self.call(ops.convert_to_tensor(images))

    def transform_segmentation_masks(self, segmentation_masks, transformation=None,
                                     training=True):
        """Masks resized like the images, with "nearest" interpolation (Keras)."""
        masks = ops.convert_to_tensor(segmentation_masks)
        return from_nhwc(self._resize(to_nhwc(masks, self.data_format, masks.dtype),
                                      "nearest"), self.data_format, len(masks.shape))

    def transform_bounding_boxes(self, bounding_boxes, transformation, training=True):
        """Keras's box map for the resize (stretch, crop or pad to the aspect ratio), then
        clipped to the output; all-0 and all--1 (padding) boxes stay all 0."""
        height, width = transformation
        return resize_boxes(self, bounding_boxes, height, width)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        h_axis, w_axis = hw_axes(self.data_format, len(shape))
        shape[h_axis], shape[w_axis] = self.height, self.width
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "height": self.height, "width": self.width,
                "interpolation": self.interpolation,
                "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                "pad_to_aspect_ratio": self.pad_to_aspect_ratio,
                "fill_mode": self.fill_mode, "fill_value": self.fill_value,
                "antialias": self.antialias}
