"""The shuffle-and-split Keras's regression datasets share (boston_housing,
california_housing): ``x`` and ``y`` from a numeric ``.npz``, shuffled with
``np.random.RandomState(seed)``, the first ``1 - test_split`` for training."""
from __future__ import annotations

import numpy as np

from .files import DatasetFormatError
from .safe_npz import load_npz


def check_test_split(dataset: str, test_split) -> None:
    if not 0 <= test_split < 1:
        raise ValueError(f"{dataset}.load_data: argument 'test_split' must be in [0, 1); "
                         f"received {test_split}")


def read_xy(dataset: str, source: str, features: int):
    """``x`` (samples, ``features``) and ``y`` (samples,) of the ``.npz`` at ``source``."""
    arrays = load_npz(source, dataset, ("x", "y"))
    x, y = arrays["x"], arrays["y"]
    if x.dtype.hasobject or y.dtype.hasobject or x.ndim != 2 or y.ndim != 1 or \
            len(x) != len(y) or x.shape[1] != features:
        raise DatasetFormatError(
            f"{dataset}: {source}: expected numeric arrays x (samples, {features}) and y "
            f"(samples,); received x {x.dtype} {x.shape} and y {y.dtype} {y.shape}")
    return x, y


def split(x, y, test_split, seed):
    order = np.arange(len(x))
    np.random.RandomState(seed).shuffle(order)
    x, y = x[order], y[order]
    n = int(len(x) * (1 - test_split))
    return (np.array(x[:n]), np.array(y[:n])), (np.array(x[n:]), np.array(y[n:]))
