"""Keras 3's ``keras.visualization.draw_segmentation_masks``: class colours over images."""
from __future__ import annotations

import numpy as np

from .. import backend as _backend
from .image_arrays import batch_of_images, channels_last, host_array


def color_palette(num_classes: int) -> list:
    """Keras's default colours: class ``i`` gets ``(i * (2**25-1, 2**15-1, 2**21-1)) % 255``."""
    palette = np.array([2 ** 25 - 1, 2 ** 15 - 1, 2 ** 21 - 1])
    return [((i * palette) % 255).tolist() for i in range(num_classes)]


def draw_segmentation_masks(images, segmentation_masks, num_classes=None, color_mapping=None,
                            alpha=0.8, blend=True, ignore_index=-1, data_format=None):
    """Paint each pixel of ``images`` (batch, height, width, 3) in its class's colour from
    the int ``segmentation_masks`` (batch, height, width, 1); with ``blend`` the colour is
    mixed in with weight ``alpha`` and ``ignore_index`` pixels keep the image, the result
    is uint8. ``num_classes`` defaults to the largest class in the masks (as Keras)."""
    what = "draw_segmentation_masks"
    data_format = data_format or _backend.image_data_format()
    images = batch_of_images(what, images)
    masks = host_array(segmentation_masks)
    images = channels_last(images, data_format).astype("float32")
    masks = channels_last(masks, data_format)
    if masks.dtype.kind not in "iu":
        raise TypeError(f"{what}: 'segmentation_masks' must have an integer dtype; received "
                        f"{masks.dtype}")
    if num_classes is None:
        num_classes = int(masks.max())
    colors = (color_palette(num_classes) if color_mapping is None else
              [color_mapping[i] for i in range(num_classes)])
    classes = masks[..., 0]
    painted = images.copy()
    for index, color in enumerate(colors):
        painted[classes == index] = np.asarray(color, dtype="float32")
    if not blend:
        return painted
    mixed = images * np.float32(1 - alpha) + painted * np.float32(alpha)
    mixed = np.where((classes != ignore_index)[..., None], mixed, images)
    return mixed.astype("uint8")
