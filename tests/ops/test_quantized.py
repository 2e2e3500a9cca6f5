"""``int8_matmul`` (lamina/ops/quantized.py, kernel lamina/backend/int8_matmul.py): exact
against an int64 reference below and above the float32 bound (K <= 1024), graph == eager,
and its errors."""
import numpy as np
import pytest

from lamina import ops
from lamina.backend.int8_matmul import EXACT_K
from lamina.errors import DTypeError, ShapeError
from tests.harness import case, run_case

_RNG = np.random.default_rng(8)


def _ints(*shape):
    return _RNG.integers(-128, 128, size=shape).astype(np.int8)


def _reference(a, b):
    return (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)


CASES = [
    case("int8_matmul", ops.int8_matmul, _reference, [_ints(4, 9), _ints(9, 3)], grad=False),
    case("int8_matmul", ops.int8_matmul, _reference, [_ints(2, 3, 9), _ints(9, 5)],
         grad=False, label="batch_by_matrix"),
    case("int8_matmul", ops.int8_matmul, _reference, [_ints(2, 3, 7), _ints(2, 7, 4)],
         grad=False, label="batched"),
    case("int8_matmul", ops.int8_matmul, _reference, [_ints(3, 2500), _ints(2500, 4)],
         grad=False, label="chunked"),
]


@pytest.mark.parametrize("c", CASES, ids=str)
def test_forward(c, backend):
    run_case(c)


@pytest.mark.parametrize("k", [1, 1000, EXACT_K, EXACT_K + 1, 3 * EXACT_K + 17])
def test_exact_at_the_extremes(k, backend):
    # All -128: every product is 2**14, the largest an int8 product can be; K = 1024 sums to
    # exactly 2**24, the last integer float32 holds with no neighbour lost.
    a = np.full((2, k), -128, np.int8)
    b = np.full((k, 3), -128, np.int8)
    b[:, 1] = 127
    got = ops.int8_matmul(a, b)
    assert got.dtype == "int32"
    np.testing.assert_array_equal(got.numpy(), _reference(a, b))


def test_chunks_are_needed_above_the_bound(backend):
    # One float32 GEMM over K = 4096 rounds: the chunking is what makes the kernel exact.
    a = _RNG.integers(100, 128, size=(8, 4096)).astype(np.int8)
    b = _RNG.integers(100, 128, size=(4096, 8)).astype(np.int8)
    naive = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.int64)
    exact = a.astype(np.int64) @ b.astype(np.int64)
    assert (naive != exact).any()
    np.testing.assert_array_equal(ops.int8_matmul(a, b).numpy(), exact.astype(np.int32))


def test_errors(backend):
    with pytest.raises(DTypeError, match="int8_matmul: argument 'x2' must be an int8 tensor; "
                                         "received dtype float32"):
        ops.int8_matmul(_ints(2, 3), np.zeros((3, 2), np.float32))
    with pytest.raises(ShapeError, match=r"int8_matmul: argument 'x1' must have rank >= 2; "
                                         r"received shape \(3,\)"):
        ops.int8_matmul(_ints(3), _ints(3, 2))
    with pytest.raises(ShapeError, match=r"int8_matmul: arguments 'x1' and 'x2' have "
                                         r"mismatched inner dimensions \(3 and 4\)"):
        ops.int8_matmul(_ints(2, 3), _ints(4, 2))


@pytest.mark.parametrize("rows", [1, 2, 3])
def test_few_rows_and_a_batch_axis_are_exact(rows, backend):
    a = np.full((rows, 2000), -128, np.int8)
    b = _RNG.integers(-128, 128, size=(2000, 5)).astype(np.int8)
    np.testing.assert_array_equal(ops.int8_matmul(a, b).numpy(), _reference(a, b))
    np.testing.assert_array_equal(ops.int8_matmul(a[None], b).numpy(), _reference(a, b)[None])
