"""California housing prices: 20,640 districts of the 1990 census, 8 features each, the
target the median house value in dollars.

``load_data(version="large", path="california_housing.npz", test_split=0.2, seed=113)``
returns what ``keras.datasets.california_housing.load_data`` returns (``version="small"``:
the first 600 samples), reading Keras's file from ``path`` (an existing file) or the cache
folder, downloading it on first use.
"""
from __future__ import annotations

from .files import resolve_cached
from .housing_split import check_test_split, read_xy, split

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/california_housing.npz"
SHA256 = "1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f"
FEATURES = 8
HOW_TO_SUPPLY = (f"Call california_housing.load_data(path=...) with Keras's "
                 f"california_housing.npz (arrays x, y; download it from {ORIGIN}).")
VERSIONS = ("small", "large")


def load_data(version="large", path="california_housing.npz", test_split=0.2, seed=113):
    """``(x_train, y_train), (x_test, y_test)``: float32 features (n, 8) and targets (n,)."""
    check_test_split("california_housing", test_split)
    if version not in VERSIONS:
        raise ValueError(f"california_housing.load_data: argument 'version' must be one of "
                         f"'small', 'large'; received {version!r}")
    source = resolve_cached("california_housing", path, ORIGIN, SHA256, HOW_TO_SUPPLY)
    x, y = read_xy("california_housing", source, FEATURES)
    if version == "small":
        x, y = x[:600], y[:600]
    return split(x, y, test_split, seed)
