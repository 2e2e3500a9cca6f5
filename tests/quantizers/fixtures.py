"""Keras 3.15.1's int8 numbers (tests/fixtures/make_int8_references.py wrote them)."""
import json
import os

import numpy as np

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "int8")
with open(os.path.join(HERE, "int8_keras.json")) as _f:
    KERAS = json.load(_f)


def array(entry):
    """A fixture entry ``{"dtype", "shape", "value"}`` -> the numpy array."""
    return np.array(entry["value"], dtype=entry["dtype"]).reshape(entry["shape"])


def path(name: str) -> str:
    return os.path.join(HERE, name)
