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


INT4_HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "int4")
with open(os.path.join(INT4_HERE, "int4_keras.json")) as _f:
    KERAS_INT4 = json.load(_f)


def int4_path(name: str) -> str:
    return os.path.join(INT4_HERE, name)


FLOAT8_HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "float8")
with open(os.path.join(FLOAT8_HERE, "float8_keras.json")) as _f:
    KERAS_FLOAT8 = json.load(_f)


def float8_path(name: str) -> str:
    return os.path.join(FLOAT8_HERE, name)


GPTQ_HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "gptq")
with open(os.path.join(GPTQ_HERE, "gptq_keras.json")) as _f:
    KERAS_GPTQ = json.load(_f)


def gptq_path(name: str) -> str:
    return os.path.join(GPTQ_HERE, name)


with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "awq",
                       "awq_keras.json")) as _f:
    KERAS_AWQ = json.load(_f)
