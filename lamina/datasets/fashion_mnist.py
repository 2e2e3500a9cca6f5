"""Fashion-MNIST: 60,000 training and 10,000 test 28x28 grayscale images of 10 kinds of
clothing, a drop-in replacement for MNIST.

``load_data()`` returns what ``keras.datasets.fashion_mnist.load_data()`` returns. It reads
the four gzipped IDX files Keras downloads (``train-images-idx3-ubyte.gz`` ...) from the
cache folder ``fashion-mnist`` (downloading missing ones from Keras's mirror) or from a
folder given as ``path`` (Lamina's addition; raw or gzipped files).
"""
from __future__ import annotations

import os

from .files import DatasetUnavailableError, cache_dir, fetch, missing_file_error
from .mnist import IDX_NAMES, _IMAGES_MAGIC, _LABELS_MAGIC, check_images, find_idx, read_idx

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
FOLDER = "fashion-mnist"
HOW_TO_SUPPLY = (
    "Call fashion_mnist.load_data(path=...) with a folder holding the four Fashion-MNIST IDX "
    "files train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte and "
    f"t10k-labels-idx1-ubyte (each raw or .gz; download the .gz files from {ORIGIN}).")


def load_data(path: str | os.PathLike | None = None):
    """``(x_train, y_train), (x_test, y_test)``: uint8 images (n, 28, 28) and uint8 labels
    (n,) in [0, 10)."""
    folder = _folder(path)
    arrays = {}
    for key, name in IDX_NAMES.items():
        where = find_idx(folder, name)
        if where is None:
            raise DatasetUnavailableError(
                f"fashion_mnist: folder {folder!r} must hold {name}[.gz]. {HOW_TO_SUPPLY}")
        arrays[key] = read_idx(where, _IMAGES_MAGIC if key.startswith("x") else _LABELS_MAGIC,
                               dataset="fashion_mnist")
    check_images(arrays, folder, "fashion_mnist")
    return (arrays["x_train"], arrays["y_train"]), (arrays["x_test"], arrays["y_test"])


def _folder(path) -> str:
    if path is not None:
        path = os.path.expanduser(os.fspath(path))
        if not os.path.isdir(path):
            raise missing_file_error("fashion_mnist", path, HOW_TO_SUPPLY)
        return path
    folder = os.path.join(cache_dir(), FOLDER)
    for name in IDX_NAMES.values():
        if find_idx(folder, name) is None:
            # Keras checks no hash for these files either
            fetch("fashion_mnist", os.path.join(folder, name + ".gz"), ORIGIN + name + ".gz",
                  None, HOW_TO_SUPPLY)
    return folder
