"""``lamina.random`` follows ``keras.random``'s names, signatures and defaults."""
import inspect

import numpy as np
import pytest

from lamina import ops
from lamina import random as lr

KERAS_SIGNATURES = {
    "uniform": "(shape, minval=0.0, maxval=1.0, dtype=None, seed=None)",
    "normal": "(shape, mean=0.0, stddev=1.0, dtype=None, seed=None)",
    "truncated_normal": "(shape, mean=0.0, stddev=1.0, dtype=None, seed=None)",
    "randint": "(shape, minval, maxval, dtype='int32', seed=None)",
    "dropout": "(inputs, rate, noise_shape=None, seed=None)",
    "bernoulli": "(shape, p=0.5, dtype=None, seed=None)",
}


@pytest.mark.parametrize("name", sorted(KERAS_SIGNATURES))
def test_keras_signatures(name):
    assert str(inspect.signature(getattr(lr, name))) == KERAS_SIGNATURES[name]


def test_all_names_exist():
    for name in lr.__all__:
        assert hasattr(lr, name), name
    assert {"SeedGenerator", "set_seed"} <= set(lr.__all__)


def test_namespace_functions_draw_what_the_ops_draw(backend):
    pairs = [
        (lr.uniform((3, 2), minval=1.0, maxval=2.0, seed=4),
         ops.random_uniform((3, 2), minval=1.0, maxval=2.0, seed=4)),
        (lr.normal((3,), mean=1.0, stddev=0.5, dtype="float64", seed=4),
         ops.random_normal((3,), mean=1.0, stddev=0.5, dtype="float64", seed=4)),
        (lr.truncated_normal((7,), seed=4), ops.random_truncated_normal((7,), seed=4)),
        (lr.randint((5,), 0, 9, seed=4), ops.random_randint((5,), 0, 9, seed=4)),
        (lr.bernoulli((5,), 0.2, seed=4), ops.random_bernoulli((5,), 0.2, seed=4)),
    ]
    for a, b in pairs:
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    x = ops.convert_to_tensor(np.ones((4, 4)))
    np.testing.assert_array_equal(lr.dropout(inputs=x, rate=0.5, seed=3).numpy(),
                                  ops.dropout(x, 0.5, seed=3).numpy())


def test_tensor_bounds_broadcast(backend):
    low = ops.convert_to_tensor(np.array([0.0, 10.0, 100.0]))
    high = ops.convert_to_tensor(np.array([1.0, 20.0, 300.0]))
    x = lr.uniform((4, 3), minval=low, maxval=high, dtype="float64", seed=2).numpy()
    assert np.all(x >= low.numpy()) and np.all(x < high.numpy())
    mean = ops.convert_to_tensor(np.array([-5.0, 5.0]))
    z = lr.normal((1000, 2), mean=mean, stddev=0.1, seed=2).numpy()
    np.testing.assert_allclose(z.mean(axis=0), [-5.0, 5.0], atol=0.02)
