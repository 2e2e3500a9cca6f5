"""The UCI handwritten digits (1,797 8x8 images, classes 0-9), embedded in the package.

E. Alpaydin, C. Kaynak (1998), "Optical Recognition of Handwritten Digits", UCI Machine
Learning Repository, CC BY 4.0: the same samples scikit-learn ships as ``load_digits``.
"""
from __future__ import annotations

import os

import numpy as np

_PATH = os.path.join(os.path.dirname(__file__), "digits.npz")


def load_data(test_fraction: float = 0.2, seed: int = 0):
    """``(x_train, y_train), (x_test, y_test)`` as in ``keras.datasets.mnist.load_data``.

    Images are uint8 arrays of shape (n, 8, 8) with values 0..16; labels uint8. The split is
    stratified (each class keeps ``test_fraction`` of its samples for testing) and fixed by
    ``seed``, so every run sees the same split.
    """
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"digits.load_data: argument 'test_fraction' must be in (0, 1); "
                         f"received {test_fraction}")
    with np.load(_PATH) as data:
        images, labels = data["images"], data["labels"]
    rng = np.random.default_rng(seed)
    test_mask = np.zeros(len(labels), dtype=bool)
    for cls in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == cls))
        test_mask[members[:int(round(len(members) * test_fraction))]] = True
    train_idx = rng.permutation(np.flatnonzero(~test_mask))
    test_idx = np.flatnonzero(test_mask)
    return (images[train_idx], labels[train_idx]), (images[test_idx], labels[test_idx])
