"""Models and files shared by the saving tests."""
import pathlib

import h5py
import numpy as np

import lamina
from lamina import layers

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "keras_files"


def dense_bn(dtype=None):
    return lamina.Sequential([
        lamina.Input((10,), dtype=dtype), layers.Dense(12, dtype=dtype),
        layers.BatchNormalization(dtype=dtype), layers.Activation("relu", dtype=dtype),
        layers.Dropout(0.1, dtype=dtype), layers.Dense(4, activation="softmax", dtype=dtype)])


def small_cnn():
    return lamina.Sequential([
        lamina.Input((10, 10, 2)), layers.Conv2D(4, 3, activation="relu"),
        layers.MaxPooling2D(), layers.Conv2D(6, 2, padding="same", activation="relu"),
        layers.GlobalAveragePooling2D(), layers.Dense(3)])


def gru_text():
    return lamina.Sequential([
        lamina.Input((6,), dtype="int32"), layers.Embedding(20, 4), layers.GRU(5),
        layers.Dense(2, activation="softmax")])


BUILDERS = {"dense_bn": dense_bn, "small_cnn": small_cnn, "gru_text": gru_text}


def reference(name):
    data = np.load(FIXTURES / f"{name}_k3_ref.npz")
    return data["x0"], data["pred"]


def h5_layout(path) -> dict:
    """``{path: (shape, dtype) or None for groups}`` of every object in an HDF5 file."""
    found = {}

    def visit(name, obj):
        found[name] = (tuple(obj.shape), obj.dtype.str) if isinstance(obj, h5py.Dataset) \
            else None
    with h5py.File(path, "r") as f:
        f.visititems(visit)
    return found


def h5_group_names(path) -> dict:
    """``{vars group path: its 'name' attribute}``."""
    names = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: names.__setitem__(name, obj.attrs.get("name"))
                     if name.endswith("vars") else None)
    return names


def snapshot(model) -> list:
    arrays = [v.numpy().copy() for v in model.weights]
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None:
        arrays += [v.numpy().copy() for v in optimizer.variables]
    return arrays


def assert_identical(a: list, b: list) -> None:
    """Bit for bit: same count, dtypes, shapes and bytes."""
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes()
