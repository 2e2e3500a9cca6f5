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
    """Make a dataset of images and labels from a folder of class sub-folders.

    ``directory/a/*.jpg`` and ``directory/b/*.png`` give images labelled 0 and 1. The
    images are float32 arrays resized to ``image_size``, in batches.

    Args:
        directory: The folder. With ``labels="inferred"`` it holds one sub-folder per
            class; otherwise its images are read, sub-folders included.
        labels: ``"inferred"`` (default: from the sub-folder names), ``None`` (images
            only), or a list/tuple of integer labels, one per file in sorted path order.
        label_mode: ``"int"`` (default), ``"categorical"`` (one-hot), ``"binary"`` (float,
            2 classes) or ``None`` (no labels).
        class_names: With ``labels="inferred"``, the sub-folders to use, in label order;
            ``None`` (default) takes them all in alphanumeric order.
        color_mode: ``"grayscale"``, ``"rgb"`` (default) or ``"rgba"``: 1, 3 or 4
            channels.
        batch_size: Images per batch (default 32), or ``None`` for single images.
        image_size: ``(height, width)`` (or an int for both) to resize the images to.
            Defaults to ``(256, 256)``.
        shuffle: If ``True`` (default), shuffle the files (and reshuffle each epoch).
        seed: Random seed for the shuffle and the validation split.
        validation_split: A float in (0, 1): the fraction of the files kept for
            validation.
        subset: ``"training"``, ``"validation"`` or ``"both"`` (with
            ``validation_split``).
        interpolation: The resize method: ``"bilinear"`` (default), ``"nearest"``,
            ``"bicubic"``, ``"lanczos3"`` or ``"lanczos5"``.
        follow_links: If ``True``, follow symbolic links to sub-folders.
        crop_to_aspect_ratio: If ``True``, crop the images to the aspect ratio of
            ``image_size`` before resizing, instead of distorting them.
        pad_to_aspect_ratio: If ``True``, pad them to that aspect ratio instead (not with
            ``crop_to_aspect_ratio``).
        data_format: ``"channels_last"`` or ``"channels_first"``; ``None`` takes
            ``lamina.config.image_data_format()``.
        format: ``"tf"`` (default) or ``"grain"``; Lamina has neither tf.data nor grain,
            so both return a ``SampleDataset`` (``"grain"`` with a warning).
        verbose: If ``True`` (default), print how many files and classes were found.

    Returns:
        A ``SampleDataset`` (a ``PyDataset``) of ``(images, labels)`` batches, or of
        images with no labels, with ``class_names`` and ``file_paths`` attributes; a pair
        ``(training, validation)`` for ``subset="both"``.

    Raises:
        ValueError: If an argument is not one of the values above.

    Example:

    >>> train, val = image_dataset_from_directory(
    ...     "flowers", image_size=(64, 64), validation_split=0.2, subset="both", seed=1)
    >>> model.fit(train, validation_data=val, epochs=3)
    """
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
