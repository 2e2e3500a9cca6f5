"""lamina.utils.set_random_seed makes model construction and random ops repeatable."""
import numpy as np

import lamina
from lamina import layers


def _build():
    lamina.backend.clear_session(free_memory=False)
    return lamina.Sequential([lamina.Input((5,)), layers.Dense(4), layers.Dense(3)])


def test_set_random_seed_makes_initial_weights_repeatable():
    lamina.utils.set_random_seed(123)
    first = [w.copy() for w in _build().get_weights()]
    lamina.utils.set_random_seed(123)
    second = _build().get_weights()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    lamina.utils.set_random_seed(124)
    third = _build().get_weights()
    assert not np.array_equal(first[0], third[0])


def test_clear_session_resets_layer_names():
    lamina.backend.clear_session()
    assert layers.Dense(1).name == "dense"
    lamina.backend.clear_session()
    assert layers.Dense(1).name == "dense"
