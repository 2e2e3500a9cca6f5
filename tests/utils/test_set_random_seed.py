"""set_random_seed seeds Python, numpy and Lamina at once."""
import random

import numpy as np
import pytest

import lamina
from lamina.initializers import GlorotUniform
from lamina.utils import set_random_seed


def _draws():
    return (random.random(), np.random.rand(), lamina.random.uniform((3,)).numpy(),
            GlorotUniform()((4, 4)).numpy(), lamina.random.dropout(lamina.ops.ones((8,)),
                                                                   0.5).numpy())


def test_one_seed_reproduces_python_numpy_and_lamina_draws():
    set_random_seed(123)
    first = _draws()
    set_random_seed(123)
    second = _draws()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    set_random_seed(124)
    assert not np.array_equal(_draws()[2], first[2])


def test_numpy_integer_seeds_are_accepted():
    set_random_seed(np.int64(5))
    a = lamina.random.normal((2,)).numpy()
    set_random_seed(5)
    np.testing.assert_array_equal(lamina.random.normal((2,)).numpy(), a)


def test_errors():
    with pytest.raises(TypeError, match="set_random_seed: argument 'seed' must be an int; "
                                        "received 1.5 of type float"):
        set_random_seed(1.5)
    with pytest.raises(TypeError, match="received True of type bool"):
        set_random_seed(True)
    with pytest.raises(ValueError, match=r"set_random_seed: argument 'seed' must be in "
                                         r"\[0, 2\*\*32 - 1\] \(numpy's limit\); received -1"):
        set_random_seed(-1)
    with pytest.raises(ValueError, match="received 4294967296"):
        set_random_seed(2 ** 32)
