"""read_value: a Variable's value as a tensor (see tests/autograd/test_variable_snapshots.py)."""
import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.ops.core import read_value
from tests.harness import case, rand, run_case

CASES = [
    case("read_value", lambda x: ops.multiply(read_value(x), x), lambda x: x * x, [rand(2, 3)]),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward_and_gradient(c, backend):
    run_case(c)


def test_read_value_of_a_variable_keeps_its_value(backend):
    v = lamina.Variable(np.arange(3.0, dtype="float32"), name="v")
    t = read_value(v)
    v.assign([5.0, 5.0, 5.0])
    np.testing.assert_array_equal(t.numpy(), [0.0, 1.0, 2.0])
