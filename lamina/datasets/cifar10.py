"""CIFAR-10: 50,000 training and 10,000 test 32x32 colour images in 10 classes.

``load_data()`` returns what ``keras.datasets.cifar10.load_data()`` returns. It reads the
"CIFAR-10 python version": the folder ``cifar-10-batches-py`` or the archive
``cifar-10-python.tar.gz``, downloaded into the cache folder on first use.

The batches are pickles, and unpickling can run arbitrary code, so they are read with
``files.load_pickle_safely``, which builds only dicts, lists, bytes, str, ints and numeric
numpy arrays and refuses everything else with ``UnsafePickleError``.
"""
from __future__ import annotations

import os

from .cifar_files import CifarFormat, load_batches

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
SHA256 = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"
FOLDER, ARCHIVE = "cifar-10-batches-py", "cifar-10-python.tar.gz"
FORMAT = CifarFormat(
    dataset="cifar10", title="CIFAR-10", origin=ORIGIN, sha256=SHA256, folder=FOLDER,
    archive=ARCHIVE, train=tuple(f"data_batch_{i}" for i in range(1, 6)), test="test_batch",
    how_to_supply=(
        f"Call cifar10.load_data(path=...) with the archive {ARCHIVE} (download it from "
        f"{ORIGIN}) or the folder {FOLDER} extracted from it (data_batch_1 .. data_batch_5 "
        "and test_batch)."))


def load_data(path: str | os.PathLike | None = None):
    """``(x_train, y_train), (x_test, y_test)``: uint8 images (n, 32, 32, 3), channels last,
    and uint8 labels (n, 1), as in Keras.

    ``path`` is the archive, the extracted folder, or a folder holding either. ``None`` uses
    the cache folder (``~/.lamina/datasets`` or ``$LAMINA_HOME/datasets``), downloading the
    archive on first use.
    """
    return load_batches(FORMAT, path, "labels")
