"""The collective ops of data parallelism in a one-process world (the identity), and the
draw by global row position (rows [offset, offset + n) of the larger draw)."""
import numpy as np
import pytest

from lamina import ops
from lamina.errors import DTypeError
from lamina.distribution.collective_ops import allreduce_start, allreduce_sum, allreduce_wait
from lamina.ops.random_rows import random_global_rows
from tests.harness import case, rand, run_case
from tests.random import reference

KEY = (6, 0)


def rows_of_draw(base_draw, offset):
    def ref(x):
        return base_draw((offset + x.shape[0], *x.shape[1:]), x.dtype)[offset:]
    return ref


def by_rows(base, offset, **attrs):
    def fn(x):
        counter = ops.convert_to_tensor(3, dtype="int64")
        start = ops.convert_to_tensor(offset, dtype="int64")
        return random_global_rows(counter, start, base=base, shape=tuple(x.shape),
                                  dtype=x.dtype, key=KEY, **attrs)
    return fn


CASES = [
    case("allreduce_sum", lambda x: allreduce_sum(x * x), lambda x: x * x, [rand(3, 2)]),
    case("allreduce_start", lambda x: allreduce_wait(allreduce_start(x)), lambda x: x,
         [rand(7)], grad=False),
    case("allreduce_wait", lambda x: allreduce_wait(allreduce_start(x * 2.0)),
         lambda x: x * 2.0, [rand(3, 4)], grad=False),
    case("random_global_rows", by_rows("random_bernoulli", 5, p=0.3),
         rows_of_draw(lambda s, d: reference.bernoulli(s, 0.3, d, KEY, 3), 5),
         [np.zeros((4, 6))], grad=False),
    case("random_global_rows", by_rows("random_normal", 2),
         rows_of_draw(lambda s, d: reference.normal(s, d, KEY, 3), 2),
         [np.zeros((3, 5))], grad=False, label="normal"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward(c, backend):
    run_case(c)


def test_random_global_rows_needs_an_int64_offset():
    counter = ops.convert_to_tensor(0, dtype="int64")
    with pytest.raises(DTypeError, match="random_global_rows: argument 'offset' must be an "
                                         "int64 scalar; received float64"):
        random_global_rows(counter, ops.convert_to_tensor(1.0, dtype="float64"),
                           base="random_uniform", shape=(2, 2), dtype="float64", key=KEY)


def test_random_global_rows_needs_a_row_dimension():
    from lamina.errors import ShapeError
    counter = ops.convert_to_tensor(0, dtype="int64")
    with pytest.raises(ShapeError, match="random_global_rows: a draw by rows needs at least "
                                         "one dimension; received shape"):
        random_global_rows(counter, counter, base="random_uniform", shape=(),
                           dtype="float64", key=KEY)
