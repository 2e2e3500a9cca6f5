"""Small host-array helpers shared by the image plotting and drawing utilities."""
from __future__ import annotations

import numpy as np


def host_array(x):
    """A numpy array of ``x`` (a numpy array, a Lamina tensor, nested lists)."""
    if hasattr(x, "numpy") and not isinstance(x, np.ndarray):
        return np.asarray(x.numpy())
    return np.asarray(x)


def batch_of_images(what: str, images):
    images = host_array(images)
    if images.ndim != 4:
        raise ValueError(f"{what}: 'images' must be a batch of rank 4; received shape "
                         f"{images.shape}")
    return images


def channels_last(x, data_format: str):
    return x.transpose(0, 2, 3, 1) if data_format == "channels_first" else x


def to_value_range(images, value_range, target=(0, 255)):
    """Map ``images`` linearly from ``value_range`` to ``target`` (Keras's
    ``_transform_value_range``)."""
    if tuple(value_range) == tuple(target):
        return images
    low, high = value_range
    scaled = (images.astype("float32") - low) / (high - low)
    return scaled * (target[1] - target[0]) + target[0]
