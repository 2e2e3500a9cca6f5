"""A float reduction gives the same bits whatever the memory layout of its input.

numpy orders a sum by the input's strides; an elementwise op returns its inputs' layout
when it allocates (eager) but a C-ordered array when it writes into ``out`` (a graph's
memory plan), so without this rule the same model rounds differently in the two modes
(the differential fuzzer's seed 1118: GroupNormalization after a transposing layer).
"""
import numpy as np
import pytest

from lamina.backend import get_backend


@pytest.mark.parametrize("fn", ["sum", "mean"])
@pytest.mark.parametrize("axis,keepdims", [((1, 2, 3), True), ((1, 2), False), (None, False)])
def test_reduce_of_a_transposed_view_equals_reduce_of_its_contiguous_copy(fn, axis, keepdims):
    backend = get_backend("numpy")
    base = np.random.default_rng(0).standard_normal((24, 4, 4, 1)).astype("float32")
    strided = base.transpose(0, 2, 1, 3)
    contiguous = np.ascontiguousarray(strided)
    expected = backend.reduce(fn, contiguous, axis, keepdims)
    np.testing.assert_array_equal(backend.reduce(fn, strided, axis, keepdims), expected)
    out = np.empty_like(expected)
    assert backend.reduce(fn, strided, axis, keepdims, out=out) is out
    np.testing.assert_array_equal(out, expected)


def test_numpy_alone_would_round_the_layouts_differently():
    """The case above is a real one: numpy's own mean differs between the layouts."""
    base = np.random.default_rng(0).standard_normal((24, 4, 4, 1)).astype("float32")
    strided = base.transpose(0, 2, 1, 3)
    a = np.mean(strided, axis=(1, 2, 3), keepdims=True)
    b = np.mean(np.ascontiguousarray(strided), axis=(1, 2, 3), keepdims=True)
    assert not np.array_equal(a, b)
