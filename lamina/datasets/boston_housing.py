"""Boston housing prices: 506 samples of 13 attributes, the target the median value in k$.

(The dataset includes a variable "B" that assumes racial self-segregation influences house
prices; Keras discourages its use except to illustrate ethical issues in data science.)

``load_data(path="boston_housing.npz", test_split=0.2, seed=113)`` returns what
``keras.datasets.boston_housing.load_data`` returns, reading Keras's file from ``path`` (an
existing file) or the cache folder, downloading it on first use.
"""
from __future__ import annotations

from .files import resolve_cached
from .housing_split import check_test_split, read_xy, split

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/boston_housing.npz"
SHA256 = "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5"
FEATURES = 13
HOW_TO_SUPPLY = (f"Call boston_housing.load_data(path=...) with Keras's boston_housing.npz "
                 f"(arrays x, y; download it from {ORIGIN}).")


def load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """``(x_train, y_train), (x_test, y_test)``: float64 features (n, 13) and targets (n,)."""
    check_test_split("boston_housing", test_split)
    source = resolve_cached("boston_housing", path, ORIGIN, SHA256, HOW_TO_SUPPLY)
    x, y = read_xy("boston_housing", source, FEATURES)
    return split(x, y, test_split, seed)
