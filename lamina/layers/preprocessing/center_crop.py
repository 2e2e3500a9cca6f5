"""``CenterCrop``: the central (height, width) window of each image."""
from __future__ import annotations

from ... import ops
from .base_image_layer import BaseImageLayer
from .bounding_boxes.formats import image_size
from .bounding_boxes.geometry import center_crop_boxes
from .image_utils import check_size, crop, hw_axes, smart_resize


class CenterCrop(BaseImageLayer):
    """Keras 3's ``CenterCrop``: crops the central ``(height, width)`` window, starting at
    ``int((size - target) / 2)``. An image smaller than the target on either axis is
    instead cropped to the target aspect ratio and resized (bilinear), as Keras does.

    Args:
        height: Output height in pixels.
        width: Output width in pixels.
        data_format: 'channels_last' (inputs shaped ``(batch, ..., channels)``) or
            'channels_first' (``(batch, channels, ...)``); None uses
            ``keras.config.image_data_format()``.
    """

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height = check_size(self.name, "height", height)
        self.width = check_size(self.name, "width", width)

    def call(self, inputs):
        if isinstance(inputs, dict):
            images = inputs.get("images")
            transformation = None if images is None else {"input_shape": tuple(images.shape)}
            return self._call_dict(inputs, True, self.call, transformation)
        h_axis, w_axis = hw_axes(self.data_format, len(inputs.shape))
        if inputs.shape[h_axis] is None or inputs.shape[w_axis] is None:
            raise ValueError(f"{self.name}: the input height and width must be known; "
                             f"received shape {tuple(inputs.shape)}")
        return self._apply(inputs, self._crop)

    def _crop(self, images):
        height, width = images.shape[1:3]
        if height >= self.height and width >= self.width:
            return crop(images, int((height - self.height) / 2),
                        int((width - self.width) / 2), self.height, self.width)
        return smart_resize(images, self.height, self.width)

    def get_random_transformation(self, data, training=True, seed=None):
        """Keras's: ``{"input_shape": the images' shape}``."""
        images = data["images"] if isinstance(data, dict) else data
        return {"input_shape": tuple(images.shape)}

    def transform_images(self, images, transformation=None, training=True):
        return self.call(ops.convert_to_tensor(images))

    def transform_segmentation_masks(self, segmentation_masks, transformation=None,
                                     training=True):
        return self.transform_images(segmentation_masks, transformation, training)

    def transform_bounding_boxes(self, bounding_boxes, transformation, training=True):
        height, width = image_size(transformation["input_shape"], self.data_format)
        return center_crop_boxes(self, bounding_boxes, int(height), int(width))

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        h_axis, w_axis = hw_axes(self.data_format, len(shape))
        shape[h_axis], shape[w_axis] = self.height, self.width
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "height": self.height, "width": self.width}
