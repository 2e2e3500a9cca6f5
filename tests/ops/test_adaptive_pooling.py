import math

import numpy as np
import pytest

from lamina import ops
from lamina.errors import DTypeError, ShapeError
from tests.harness import case, distinct, rand, run_case
from tests.layers.keras11.reference import fixture


def adaptive_reference(x, output_size, reduce, channels_first=False):
    """Window i of an axis of length L pooled to n: [floor(i L / n), ceil((i + 1) L / n))."""
    x = np.asarray(x)
    rank = x.ndim - 2
    sizes = (output_size,) * rank if isinstance(output_size, int) else output_size
    first = 2 if channels_first else 1
    for axis, n in enumerate(sizes):
        axis += first
        length = x.shape[axis]
        parts = [reduce(np.take(x, range(i * length // n, math.ceil((i + 1) * length / n)),
                                axis=axis), axis=axis, keepdims=True) for i in range(n)]
        x = np.concatenate(parts, axis=axis)
    return x


def _avg(size, **kw):
    return lambda x: ops.adaptive_average_pool(x, size, **kw)


def _max(size, **kw):
    return lambda x: ops.adaptive_max_pool(x, size, **kw)


CASES = [
    case("adaptive_average_pool", _avg(3), lambda x: adaptive_reference(x, 3, np.mean),
         [rand(2, 7, 3)], label="1d-overlapping"),
    case("adaptive_average_pool", _avg((2, 3)),
         lambda x: adaptive_reference(x, (2, 3), np.mean), [rand(2, 4, 5, 2)], label="2d"),
    case("adaptive_average_pool", _avg(2, data_format="channels_first"),
         lambda x: adaptive_reference(x, 2, np.mean, True), [rand(1, 2, 5, 3, 4)],
         label="3d-channels-first"),
    case("adaptive_max_pool", _max(3), lambda x: adaptive_reference(x, 3, np.max),
         [distinct(2, 7, 3)], label="1d"),
    case("adaptive_max_pool", _max((3, 2)), lambda x: adaptive_reference(x, (3, 2), np.max),
         [distinct(2, 5, 4, 2)], label="2d"),
    case("adaptive_max_pool", _max((2, 3, 2)),
         lambda x: adaptive_reference(x, (2, 3, 2), np.max), [distinct(1, 3, 5, 4, 2)],
         label="3d"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c):
    run_case(c)


@pytest.mark.parametrize("key", ["op_adaptive_average_1d", "op_adaptive_max_1d",
                                 "op_adaptive_average_2d", "op_adaptive_max_2d_cf",
                                 "op_adaptive_average_3d", "op_adaptive_max_3d"])
def test_matches_keras(key):
    specs = {"op_adaptive_average_1d": ("adaptive_average_pool", 3, "channels_last"),
             "op_adaptive_max_1d": ("adaptive_max_pool", 3, "channels_last"),
             "op_adaptive_average_2d": ("adaptive_average_pool", (2, 3), "channels_last"),
             "op_adaptive_max_2d_cf": ("adaptive_max_pool", (3, 4), "channels_first"),
             "op_adaptive_average_3d": ("adaptive_average_pool", (2, 2, 2), "channels_last"),
             "op_adaptive_max_3d": ("adaptive_max_pool", (3, 2, 2), "channels_last")}
    name, size, data_format = specs[key]
    entry = fixture(key)
    y = getattr(ops, name)(entry["x"], size, data_format=data_format)
    np.testing.assert_allclose(y.numpy(), entry["y"], rtol=1e-6, atol=1e-6)


def test_errors_name_the_op_and_argument():
    with pytest.raises(ValueError, match="adaptive_max_pool: argument 'output_size'.*2 "
                                         "positive ints"):
        ops.adaptive_max_pool(np.zeros((1, 4, 4, 1), "float32"), (2, 2, 2))
    with pytest.raises(ValueError, match="adaptive_average_pool: argument 'data_format'"):
        ops.adaptive_average_pool(np.zeros((1, 4, 1), "float32"), 2, data_format="nhwc")
    with pytest.raises(ShapeError, match="adaptive_average_pool: argument 'inputs' must have "
                                         "rank 3, 4 or 5"):
        ops.adaptive_average_pool(np.zeros((4, 1), "float32"), 2)
    with pytest.raises(DTypeError, match="adaptive_average_pool: argument 'inputs' must be a "
                                         "floating-point"):
        ops.adaptive_average_pool(np.zeros((1, 4, 1), "int32"), 2)
