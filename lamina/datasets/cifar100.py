"""CIFAR-100: 50,000 training and 10,000 test 32x32 colour images in 100 fine classes,
grouped into 20 coarse ones.

``load_data(label_mode="fine")`` returns what ``keras.datasets.cifar100.load_data()``
returns. It reads the "CIFAR-100 python version": the folder ``cifar-100-python`` (pickles
``train`` and ``test``) or the archive ``cifar-100-python.tar.gz``, downloaded into the
cache folder on first use. The pickles are read without running code (see cifar_files).
"""
from __future__ import annotations

import os

from .cifar_files import CifarFormat, load_batches

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
SHA256 = "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7"
FOLDER, ARCHIVE = "cifar-100-python", "cifar-100-python.tar.gz"
FORMAT = CifarFormat(
    dataset="cifar100", title="CIFAR-100", origin=ORIGIN, sha256=SHA256, folder=FOLDER,
    archive=ARCHIVE, train=("train",), test="test", label_dtype="int64",
    how_to_supply=(
        f"Call cifar100.load_data(path=...) with the archive {ARCHIVE} (download it from "
        f"{ORIGIN}) or the folder {FOLDER} extracted from it (pickles train and test)."))
LABEL_MODES = ("fine", "coarse")


def load_data(label_mode="fine", path: str | os.PathLike | None = None):
    """``(x_train, y_train), (x_test, y_test)``: uint8 images (n, 32, 32, 3), channels last,
    and int64 labels (n, 1) in [0, 100) for ``label_mode="fine"`` or [0, 20) for
    ``"coarse"``, as Keras returns them.

    ``path`` (Lamina's addition) is the archive, the extracted folder, or a folder holding
    either; ``None`` uses the cache folder, downloading the archive on first use.
    """
    if label_mode not in LABEL_MODES:
        raise ValueError(f"cifar100.load_data: argument 'label_mode' must be one of 'fine', "
                         f"'coarse'; received {label_mode!r}")
    return load_batches(FORMAT, path, f"{label_mode}_labels")
