"""Keras 3's ``image_dataset_from_directory``, returning a Lamina ``SampleDataset``."""
from __future__ import annotations

import numpy as np

from .. import backend as _backend
from .. import ops
from .directory_index import check_validation_split, index_directory
from .directory_dataset import check_format, check_labels, directory_dataset, directory_subsets
from .image_utils import COLOR_MODES, load_img

__all__ = ["image_dataset_from_directory"]

IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "lanczos3", "lanczos5")
KERAS_ONLY = ("area", "gaussian", "mitchellcubic")    # tf.image methods Lamina lacks
WHAT = "image_dataset_from_directory"


def image_loader(image_size, color_mode, interpolation, crop_to_aspect_ratio,
                 pad_to_aspect_ratio, data_format):
    """path -> float32 array of ``image_size`` in ``data_format``."""
    def load(path):
        x = np.asarray(load_img(path, color_mode=color_mode), dtype="float32")
        if x.ndim == 2:
            x = x[:, :, None]
        x = ops.image.resize(x, image_size, interpolation=interpolation,
                             crop_to_aspect_ratio=crop_to_aspect_ratio,
                             pad_to_aspect_ratio=pad_to_aspect_ratio,
                             data_format="channels_last")
        x = ops.convert_to_numpy(x).astype("float32")
        return x.transpose(2, 0, 1) if data_format == "channels_first" else x
    return load


def image_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, color_mode="rgb", batch_size=32,
                                 image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear",
                                 follow_links=False, crop_to_aspect_ratio=False,
                                 pad_to_aspect_ratio=False, data_format=None, format="tf",
                                 verbose=True):
    """Batches of float32 images (resized to ``image_size``) and labels read from a folder
    of class sub-folders, with Keras's arguments; returns a ``SampleDataset`` (two for
    ``subset="both"``) with ``class_names`` and ``file_paths``."""
    check_labels(WHAT, labels, label_mode, class_names)
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    if color_mode not in COLOR_MODES:
        raise ValueError(f"{WHAT}: argument 'color_mode' must be one of "
                         f"{tuple(COLOR_MODES)}; received {color_mode!r}")
    if isinstance(image_size, int):
        image_size = (image_size, image_size)
    if not isinstance(image_size, (list, tuple)) or len(image_size) != 2:
        raise ValueError(f"{WHAT}: argument 'image_size' must be a tuple of 2 integers; "
                         f"received {image_size!r}")
    interpolation = interpolation.lower()
    if interpolation not in INTERPOLATIONS:
        detail = (" (a TensorFlow resize method Lamina does not have)"
                  if interpolation in KERAS_ONLY else "")
        raise ValueError(f"{WHAT}: argument 'interpolation' must be one of "
                         f"{INTERPOLATIONS}; received {interpolation!r}{detail}")
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError(f"{WHAT}: only one of 'pad_to_aspect_ratio' and "
                         f"'crop_to_aspect_ratio' can be True")
    check_format(WHAT, format)
    check_validation_split(WHAT, validation_split, subset, shuffle, seed)
    data_format = data_format or _backend.image_data_format()
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = index_directory(
        WHAT, directory, labels, IMAGE_FORMATS, class_names=class_names, shuffle=shuffle,
        seed=seed, follow_links=follow_links, verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f"{WHAT}: label_mode='binary' needs exactly 2 classes; received "
                         f"class_names={class_names}")
    load = image_loader(tuple(int(s) for s in image_size), color_mode, interpolation,
                        crop_to_aspect_ratio, pad_to_aspect_ratio, data_format)

    def build(subset_paths, subset_labels, reshuffle):
        return directory_dataset(subset_paths, subset_labels, load, batch_size, label_mode,
                                 class_names, reshuffle, seed)

    return directory_subsets(WHAT, ("images", f"allowed formats: {IMAGE_FORMATS}"),
                             directory, paths, labels, validation_split,
                             subset, shuffle, verbose, build)
