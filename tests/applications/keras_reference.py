"""Helpers that mirror tests/applications/fixtures/make_keras_fixtures.py on Lamina's side
(the structure digest and the weights-by-formula), and read its fixtures."""
import hashlib
import json
import os
import re

import numpy as np

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
AUTO = re.compile(r"^(input_layer|zero_padding2d|max_pooling2d|global_average_pooling2d"
                  r"|global_max_pooling2d)(_\d+)?$")


def fixture(name: str):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


def structure_rows(model) -> list:
    return [f"{AUTO.sub('<auto>', layer.name)}|{type(layer).__name__}|"
            f"{[tuple(w.shape) for w in layer.weights]}" for layer in model.layers]


def structure(model) -> str:
    return hashlib.sha256("\n".join(structure_rows(model)).encode()).hexdigest()


def fill(model) -> None:
    """The same numbers as the fixture script's ``fill``: layer i, weight j, element k."""
    for i, layer in enumerate(model.layers):
        values = []
        for j, w in enumerate(layer.weights):
            shape = tuple(w.shape)
            n = int(np.prod(shape))
            wave = np.sin(0.37 * np.arange(n) + 1.3 * i + j).reshape(shape)
            if "variance" in w.path:
                wave = 1.0 + 0.5 * np.abs(wave)
            elif len(shape) > 1:
                wave = wave * (2.0 / np.prod(shape[:-1])) ** 0.5
            else:
                wave = 0.1 * wave
            values.append(wave.astype("float32"))
        if values:
            layer.set_weights(values)


def image_batch():
    return (np.cos(np.arange(2 * 32 * 32 * 3) * 0.11).reshape(2, 32, 32, 3) * 2.0)\
        .astype("float32")
